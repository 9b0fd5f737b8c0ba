package broker

import (
	"fmt"
	"sort"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
	"kafkasim/nodes/raft"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// Config is what a broker is built with.
type Config struct {
	ID model.BrokerID
	// Voters is controller.quorum.voters: the broker replays the metadata
	// log as an observer of this quorum and talks to its leader. Without
	// voters the broker talks to Controller and takes the metadata it
	// pushes (MetadataUpdate), a mode kept for unit tests of the broker
	// under a fake controller.
	Voters     []model.BrokerID
	Controller model.BrokerID
	// SnapshotEvery is the observer's metadata snapshot interval (0: the
	// raft package's default); QuorumWatch, if set, is told what the
	// observer does.
	SnapshotEvery int
	QuorumWatch   raft.Observer
	// MetadataLoadRate is the observer's raft.Config.LoadRate: bytes of
	// metadata replayed per virtual second (0: free).
	MetadataLoadRate int64
	Kafka            model.Config
	// Rack is this broker's broker.rack ("" for none), sent with its
	// registration for the controller's rack-aware placement.
	Rack string
	// Observer, if set, is told what the judges check later: leadership
	// taken and leader high watermarks moved.
	Observer Observer
}

// Observer receives a broker's observable acts as they happen. It is the
// operator's view the checkers get at the end (leaders per epoch, high
// watermarks over time); it must not change the run. The kernel is
// single-threaded, so one observer may serve every broker.
type Observer interface {
	// BecameLeader: this broker leads tp from now on, under epoch.
	BecameLeader(broker model.BrokerID, tp model.TopicPartition, epoch model.Epoch)
	// LeaderHighWatermark: as leader under epoch, this broker moved tp's
	// high watermark to hw. Within one leader epoch on one broker it
	// only grows; a follower's high watermark is not reported, since it
	// may legitimately fall when it follows a new leader.
	LeaderHighWatermark(broker model.BrokerID, tp model.TopicPartition, epoch model.Epoch, hw model.Offset)
	// LeaderISR: as leader under epoch, this broker applied isr as tp's
	// in-sync replica set (every change the controller committed).
	LeaderISR(broker model.BrokerID, tp model.TopicPartition, epoch model.Epoch, isr []model.BrokerID)
}

// Broker is one broker process. A crash throws it away; Start rebuilds
// its state from the disk and the controller.
type Broker struct {
	cfg Config
	env *sim.Env

	// Controller session.
	incarnation   uint64
	cleanStart    bool // the clean-shutdown marker was there at start
	brokerEpoch   model.Epoch
	registered    bool
	acting        bool // registered and caught up: applies leadership (see maybeStartActing)
	fenced        bool
	registerCorr  int32
	heartbeatCorr int32
	heartbeatOut  bool // a heartbeat is in flight
	// running: the controller has unfenced this incarnation once
	// (BrokerLifecycleManager's RUNNING); stopping: a controlled
	// shutdown is under way (shutdown.go); shutdownHeard: the controller
	// has answered it once.
	running, stopping, shutdownHeard bool
	metadataOffset                   int64
	controllerEpoch                  model.Epoch

	// The metadata quorum's observer (nil without voters), its state
	// machine, and the active controller it knows.
	quorum           *raft.Raft
	replay           *replayer
	activeController model.BrokerID

	// Metadata cache, as pushed by the controller.
	live map[model.BrokerID]bool
	// liveEpochs is each live broker's epoch as the metadata has it
	// (NoEpoch where the metadata does not carry one), for ISR eligibility.
	liveEpochs map[model.BrokerID]model.Epoch
	// shuttingDown lists the live brokers the metadata has in controlled
	// shutdown (never filled from a push, which does not carry it).
	shuttingDown map[model.BrokerID]bool
	brokers      []model.BrokerID // registered brokers, sorted
	meta         map[model.TopicPartition]model.PartitionState
	metaTPs      []model.TopicPartition // sorted keys of meta
	topicsOf     map[string][]model.TopicPartition

	// Replicas hosted here: tps lists them in sorted order, for whatever
	// walks them all, and parts finds one by name (see partIndex).
	tps   []model.TopicPartition // sorted
	parts partIndex

	fetchers map[model.BrokerID]*fetcher
	// sessions are the fetch sessions this broker serves as leader
	// (sessions.go), lost with the process.
	sessions *fetchsession.Cache

	// Requests waiting in purgatory.
	fetches     []*delayedFetch // parked fetches, in the order they were parked
	freeFetches []*delayedFetch // answered ones no list holds, for reuse
	nextWaitID  int64
	// parked holds the fetches parked in a tracked fetch session, by
	// session id: the session, not the partitions, wakes them (see
	// wakeFetches).
	parked map[int32]*delayedFetch
	// clocks are the fetch clocks of followers' tracked sessions
	// (follower_clock.go), and fetchForgotten what the fetch being
	// handled forgets.
	clocks         map[*fetchsession.Session]*fetchClock
	fetchForgotten []model.TopicPartition
	// fetchRead is what readFetch last read, before it is an answer;
	// for a tracked session (fetchTracked) it read dirtyParts, at the
	// session places fetchPos. wakeBuf is wakeFetches' scratch.
	fetchRead    []model.FetchPartitionResponse
	fetchTracked bool
	dirtyParts   []model.FetchPartition
	fetchPos     []int
	wakeBuf      []*delayedFetch
	// fetchTimer fires at the earliest parked fetch's deadline; one timer
	// for the whole fetch purgatory (see expireFetches).
	fetchTimer sim.TimerID
	fetchAt    time.Duration
	// purgeTimer fires at (or before) the earliest produce deadline; one
	// timer for the whole produce purgatory (see expireProduces).
	purgeTimer sim.TimerID
	purgeAt    time.Duration

	hwCheckpoint map[model.TopicPartition]model.Offset // read at start
	hwBuf        []byte                                // the last high-watermark checkpoint written, reused

	producerIDs producerIDAllocator
	corr        int32
	coord       coordinatorHost   // group coordinator shards (coordinator.go)
	txn         txnHost           // transaction coordinator shards (txn_coordinator.go)
	markerWaits []*pendingMarkers // WriteTxnMarkers waiting for their appends (txn_markers.go)
	verify      verifyHost        // KIP-890 part 1 verifications in flight (txn_verify.go)
	// serving: this incarnation has caught up once and takes client
	// requests it forwards (forwarding.go); fwd is that channel.
	serving bool
	fwd     forwarder
}

// New builds a broker value; the kernel calls Start on it.
func New(cfg Config) *Broker { return &Broker{cfg: cfg} }

// Factory returns the kernel factory for a broker with this configuration.
func Factory(cfg Config) sim.Factory { return func() sim.Node { return New(cfg) } }

// ID is the broker's id.
func (b *Broker) ID() model.BrokerID { return b.cfg.ID }

// Files the broker keeps outside partition folders, named as Kafka names
// them.
const (
	cleanShutdownFile = ".kafka_cleanshutdown"
	hwCheckpointFile  = "replication-offset-checkpoint"
)

// Timer kinds.
const (
	timerHeartbeat       = "heartbeat"
	timerRegister        = "register-retry"
	timerISRExpiration   = "isr-expiration"
	timerHWCheckpoint    = "hw-checkpoint"
	timerFlush           = "log-flush"
	timerRetention       = "log-retention"
	timerProducerExpiry  = "producer-expiration"
	timerProduceTimeout  = "produce-timeout"
	timerFetchWait       = "fetch-wait"
	timerFetcherBackoff  = "fetcher-backoff"
	timerFetcherTimeout  = "fetcher-timeout"
	timerAlterTimeout    = "alter-partition-timeout"
	retentionCheckPeriod = 5 * time.Minute // Kafka's log.retention.check.interval.ms
	flushCheckPeriod     = time.Second     // how often log.flush.interval.ms is checked
	controllerTimeout    = 5 * time.Second // give up on a controller request and retry
)

// Start boots the broker: it reads the clean-shutdown marker and the
// high-watermark checkpoint, registers with the controller and arms its
// periodic timers. Partition logs are opened when metadata says this
// broker hosts them.
func (b *Broker) Start(env *sim.Env) {
	b.env = env
	b.brokerEpoch = model.NoEpoch
	b.fenced = true
	b.live = map[model.BrokerID]bool{}
	b.liveEpochs = map[model.BrokerID]model.Epoch{}
	b.shuttingDown = map[model.BrokerID]bool{}
	b.meta = map[model.TopicPartition]model.PartitionState{}
	b.topicsOf = map[string][]model.TopicPartition{}
	b.parts = partIndex{}
	b.fetchers = map[model.BrokerID]*fetcher{}
	b.metadataOffset = -1
	b.incarnation = env.Rand().Uint64()

	d := env.Disk()
	// Kafka removes the marker once the logs are loaded: a later crash
	// must not look clean (LogManager.loadLogs).
	b.cleanStart = d.Exists(cleanShutdownFile)
	if b.cleanStart {
		d.Remove(cleanShutdownFile)
		d.SyncDir()
	}
	b.hwCheckpoint = readHWCheckpoint(d)
	b.producerIDs.start(d, b.cfg.ID)

	if len(b.cfg.Voters) > 0 {
		b.startQuorum(env)
		b.afterQuorum()
	}
	b.register()
	kc := b.cfg.Kafka
	env.After(kc.Broker.ReplicaLagTimeMax/2, timerISRExpiration, 0)
	env.After(kc.Broker.HighWatermarkCheckpointInterval, timerHWCheckpoint, 0)
	if kc.Broker.LogFlushInterval > 0 && kc.Broker.LogFlushInterval != model.Never {
		env.After(flushCheckPeriod, timerFlush, 0)
	}
	env.After(retentionCheckPeriod, timerRetention, 0)
	// Kafka schedules the check per log (UnifiedLog's
	// PeriodicProducerExpirationCheck); one timer for every partition the
	// broker hosts checks at the same interval.
	if kc.Broker.ProducerIDExpirationCheckInterval > 0 { // a configuration built without it never checks
		env.After(kc.Broker.ProducerIDExpirationCheckInterval, timerProducerExpiry, 0)
	}
}

// Stop is the end of a clean shutdown, after the controlled shutdown
// (BeginStop, shutdown.go) was granted or timed out: it flushes and closes
// every log (which snapshots its producer state) and writes the high
// watermarks and the clean-shutdown marker, as Kafka's
// LogManager.shutdown does.
func (b *Broker) Stop(env *sim.Env) {
	for _, tp := range b.tps {
		// LogManager.shutdown: flush, then close, which snapshots the
		// producer state at the log end (UnifiedLog.close).
		l := b.part(tp).log
		l.Flush()
		l.Close()
	}
	b.writeHWCheckpoint()
	if !b.registered {
		// This incarnation never told the controller it was back: if it
		// came back from a power loss, the controller has not yet taken
		// it out of the ISR and ELR. Leaving a clean-shutdown marker
		// now would let the next incarnation pass its lost tail off as
		// clean (Kafka records the broker epoch in the marker and the
		// controller checks it, KIP-966; no registration, no epoch).
		return
	}
	d := env.Disk()
	d.Append(cleanShutdownFile, nil)
	d.Sync(cleanShutdownFile)
	d.SyncDir()
}

// Receive dispatches one message: the metadata quorum's to the observer,
// every other by its type to its handler, as KafkaApis.handle does by API
// key. Every handler has the one form handleX(from, m): the sender and the
// message as it arrived (produce and fetch messages, which can be large,
// by pointer, whichever way they were sent). It stays one switch of one
// line a message type, the broker's table of what it answers.
func (b *Broker) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	if b.quorum != nil && b.quorum.Receive(env, from, m) {
		b.afterQuorum()
		return
	}
	src := model.BrokerID(from)
	switch m := m.(type) {
	// Partitions: produce, replication and offsets.
	case *model.ProduceRequest:
		b.handleProduce(src, m)
	case model.ProduceRequest:
		b.handleProduce(src, &m)
	case *model.FetchRequest:
		b.handleFetch(src, m)
	case *model.FetchResponse:
		b.handleFetchResponse(src, m)
	case model.FetchRequest:
		b.handleFetch(src, &m)
	case model.FetchResponse:
		b.handleFetchResponse(src, &m)
	case model.OffsetsForLeaderEpochRequest:
		b.handleOffsetsForLeaderEpoch(src, m)
	case model.OffsetsForLeaderEpochResponse:
		b.handleOffsetsForLeaderEpochResponse(src, m)
	case model.ListOffsetsRequest:
		b.handleListOffsets(src, m)
	case model.ListOffsetsResponse:
		b.handleListOffsetsResponse(src, m)
	// Clients: metadata, API versions, producer ids.
	case model.MetadataRequest:
		b.handleMetadata(src, m)
	case model.ApiVersionsRequest:
		b.handleApiVersions(src, m)
	case model.InitProducerIDRequest:
		if m.TransactionalID != "" {
			b.handleTxnInitProducerID(src, m)
		} else {
			b.handleInitProducerID(src, m)
		}
	case model.CreateTopicsRequest:
		b.handleCreateTopics(src, m)
	// The controller: answers to the broker's requests and to the ones it
	// forwards, and its pushes.
	case model.BrokerRegistrationResponse:
		b.handleRegistrationResponse(src, m)
	case model.BrokerHeartbeatResponse:
		b.handleHeartbeatResponse(src, m)
	case model.MetadataUpdate:
		b.handleMetadataUpdate(src, m)
	case model.AlterPartitionResponse:
		b.handleAlterPartitionResponse(src, m)
	case model.CreateTopicsResponse:
		b.handleCreateTopicsResponse(src, m)
	// Consumer groups (group_requests.go).
	case model.FindCoordinatorRequest:
		if m.KeyType == model.CoordinatorTransaction {
			b.handleFindTxnCoordinator(src, m)
		} else {
			b.handleFindCoordinator(src, m)
		}
	case model.JoinGroupRequest:
		b.handleJoinGroup(src, m)
	case model.SyncGroupRequest:
		b.handleSyncGroup(src, m)
	case model.HeartbeatRequest:
		b.handleGroupHeartbeat(src, m)
	case model.LeaveGroupRequest:
		b.handleLeaveGroup(src, m)
	case model.OffsetCommitRequest:
		b.handleOffsetCommit(src, m)
	case model.OffsetFetchRequest:
		b.handleOffsetFetch(src, m)
	case model.TxnOffsetCommitRequest:
		b.handleTxnOffsetCommit(src, m)
	// Transactions (txn_requests.go).
	case model.AddPartitionsToTxnRequest:
		b.handleAddPartitionsToTxn(src, m)
	case model.AddOffsetsToTxnRequest:
		b.handleAddOffsetsToTxn(src, m)
	case model.EndTxnRequest:
		b.handleEndTxn(src, m)
	case model.WriteTxnMarkersRequest:
		b.handleWriteTxnMarkers(src, m)
	case model.WriteTxnMarkersResponse:
		b.handleWriteTxnMarkersResponse(src, m)
	case model.AddPartitionsToTxnResponse:
		b.handleVerifyResponse(m.CorrelationID, &m)
	default:
		env.Trace("unhandled", fmt.Sprintf("%T from %v", m, from))
	}
}

// Fire dispatches one timer by kind.
func (b *Broker) Fire(env *sim.Env, t sim.Timer) {
	if b.quorum != nil && b.quorum.Fire(env, t) {
		b.afterQuorum()
		return
	}
	switch t.Kind {
	case timerHeartbeat:
		b.heartbeat()
	case timerShutdownHeartbeat:
		b.sendHeartbeat()
	case timerRegister:
		if !b.registered && int32(t.Arg) == b.registerCorr {
			b.register()
		}
	case timerISRExpiration:
		b.maybeShrinkISRs()
		env.After(b.cfg.Kafka.Broker.ReplicaLagTimeMax/2, timerISRExpiration, 0)
	case timerHWCheckpoint:
		b.writeHWCheckpoint()
		env.After(b.cfg.Kafka.Broker.HighWatermarkCheckpointInterval, timerHWCheckpoint, 0)
	case timerFlush:
		for _, tp := range b.tps {
			b.part(tp).log.MaybeFlush(env.Now())
		}
		env.After(flushCheckPeriod, timerFlush, 0)
	case timerRetention:
		b.applyRetention()
		env.After(retentionCheckPeriod, timerRetention, 0)
	case timerProducerExpiry:
		for _, tp := range b.tps {
			b.part(tp).log.RemoveExpiredProducers(env.Now())
		}
		env.After(b.cfg.Kafka.Broker.ProducerIDExpirationCheckInterval, timerProducerExpiry, 0)
	case timerProduceTimeout:
		b.expireProduces()
	case timerFetchWait:
		b.expireFetches()
	case timerFetcherBackoff:
		if f := b.fetchers[model.BrokerID(t.Arg)]; f != nil {
			b.retryFetcher(f)
		}
	case timerFetcherTimeout:
		b.fetcherTimeout(model.BrokerID(t.Arg))
	case timerAlterTimeout:
		b.alterPartitionTimeout(t.Arg)
	case timerForwardTimeout, timerForwardRetry:
		b.fireForwarding(t)
	case timerCoordinator, timerCoordinatorLoad, timerOffsetsTopicCreate:
		b.fireCoordinator(t)
		if s := b.coord.shards[int32(t.Arg)]; t.Kind != timerOffsetsTopicCreate && s != nil {
			b.observeShard(s)
		}
	case timerTxnCoordinator, timerTxnCoordinatorLoad, timerTxnTopicCreate, timerTxnMarkerTimeout:
		b.fireTxn(t)
	case timerVerifyTimeout:
		b.handleVerifyResponse(int32(t.Arg), nil)
	case timerMarkerAppend:
		b.checkMarkerWaits()
	}
}

// Disconnected handles a broken connection: to the controller, a lost
// heartbeat or registration is retried; to a leader, the fetch in flight
// is lost and the fetcher backs off and retries.
func (b *Broker) Disconnected(env *sim.Env, peer sim.NodeID) {
	p := model.BrokerID(peer)
	if b.quorum != nil {
		b.quorum.Disconnected(env, peer)
	}
	if p == b.controller() {
		b.heartbeatOut = false
		b.retryAlterPartitions()
		if !b.registered {
			env.After(b.cfg.Kafka.Broker.ReplicaFetchBackoff, timerRegister, int64(b.registerCorr))
		}
	}
	if f := b.fetchers[p]; f != nil {
		f.connected = false
		if f.inflight {
			// The fetch failed (ReplicaFetcherThread.fetchFromLeader's
			// FetchSessionHandler.handleError): the next one is full.
			f.inflight = false
			f.session.HandleError()
			b.fetcherBackoff(f)
		}
	}
	b.dropRequestsFrom(p)
	b.coordinatorPeerGone(p)
	b.txnPeerGone(p)
	b.markerPeerGone(p)
	b.verifyPeerGone(p)
	b.forwardingPeerGone(p)
}

// dropRequestsFrom forgets every parked request of a peer whose connection
// broke: a broker does not answer on a dead connection, and the client has
// already given those requests up.
func (b *Broker) dropRequestsFrom(peer model.BrokerID) {
	for _, tp := range b.tps {
		b.dropProducesFrom(b.part(tp), peer)
	}
	k := 0
	for _, df := range b.fetches {
		if df.from == peer {
			b.unpark(df)
			df.done = true
			continue
		}
		b.fetches[k] = df
		k++
	}
	clear(b.fetches[k:])
	b.fetches = b.fetches[:k]
}

func (b *Broker) nextCorr() int32 {
	b.corr++
	return b.corr
}

func (b *Broker) send(to model.BrokerID, m sim.Message) { b.env.Send(sim.NodeID(to), m) }

// partitionDir is the folder of a partition's log, Kafka's "topic-partition".
func partitionDir(tp model.TopicPartition) string {
	return fmt.Sprintf("%s-%d/", tp.Topic, tp.Partition)
}

// part is the replica of tp hosted here, or nil.
func (b *Broker) part(tp model.TopicPartition) *partition {
	return b.parts.get(tp.Topic, tp.Partition)
}

// insertSorted adds tp to a sorted list if absent.
func insertSorted(list []model.TopicPartition, tp model.TopicPartition) []model.TopicPartition {
	i := sort.Search(len(list), func(i int) bool { return !list[i].Less(tp) })
	if i < len(list) && list[i] == tp {
		return list
	}
	list = append(list, model.TopicPartition{})
	copy(list[i+1:], list[i:])
	list[i] = tp
	return list
}

// Partition exposes a hosted replica's state to the harness and checkers
// at the end of a run (read-only use).
func (b *Broker) Partition(tp model.TopicPartition) (ReplicaView, bool) {
	p := b.part(tp)
	if p == nil {
		return ReplicaView{}, false
	}
	return p.view(), true
}

// Partitions lists the hosted replicas in sorted order.
func (b *Broker) Partitions() []model.TopicPartition {
	return append([]model.TopicPartition(nil), b.tps...)
}

// ReplicaView is a snapshot of one replica for observers.
type ReplicaView struct {
	TP          model.TopicPartition
	Leader      bool
	LeaderEpoch model.Epoch
	HW          model.Offset
	LEO         model.Offset
	LogStart    model.Offset
	ISR         []model.BrokerID
	Log         *storage.Log
}
