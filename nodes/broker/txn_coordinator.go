package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/txn"
	"kafkasim/sim"
)

// The transaction coordinator's host, built as the group coordinator's
// (coordinator.go): the leader of a __transaction_state partition runs a
// txn.Coordinator for it, one per leadership. Kafka: TransactionCoordinator
// .onElection and TransactionStateManager.loadTransactionsForTxnTopicPartition
// when the broker becomes leader, onResignation and
// removeTransactionsForTxnTopicPartition when it stops leading,
// appendTransactionToLog for the writes (acks=all, origin COORDINATOR).

// TransactionStateTopic is the internal topic of transaction states; the
// leader of its partition p coordinates every transactional id hashing to p.
const TransactionStateTopic = model.TransactionStateTopic

// Timer kinds of the transaction coordinator host.
const (
	timerTxnCoordinator     = "txn-coordinator" // a shard's deadlines; arg = partition
	timerTxnCoordinatorLoad = "txn-coordinator-load"
	timerTxnTopicCreate     = "txn-state-topic-create-timeout"
	timerTxnMarkerTimeout   = "txn-marker-timeout" // arg = correlation id
)

// txnWriteTimeout bounds a coordinator write: TransactionStateManager
// appends with timeout config.requestTimeoutMs, the broker's
// request.timeout.ms (30 s by default).
const txnWriteTimeout = 30 * time.Second

// txnMarkerTimeout is the marker channel's request timeout: its
// NetworkClient uses the broker's request.timeout.ms too.
const txnMarkerTimeout = 30 * time.Second

// txnHost is the broker's side of the transaction coordinator.
type txnHost struct {
	shards     map[int32]*txnShard
	createOut  bool // a CreateTopics for __transaction_state is in flight
	createCorr int32
	markers    map[int32]*txnMarkerOut // WriteTxnMarkers in flight, by correlation id
}

// txnShard is one loaded (or loading) partition of __transaction_state.
type txnShard struct {
	p       *partition
	epoch   model.Epoch
	c       *txn.Coordinator
	loading bool
	// loadTimer: the load's virtual time has passed; the shard serves
	// once the high watermark also covers every replayed record.
	loadTimer bool
	loadEnd   model.Offset
	records   int
	timer     sim.TimerID
	timerAt   time.Duration
	writes    []*coordWrite // in append order
}

// txnConfig is the coordinator's configuration from the run's settings.
func (b *Broker) txnConfig() txn.Config {
	cfg := txn.DefaultConfig()
	tc := b.cfg.Kafka.Txn
	cfg.TransactionalIDExpiration = tc.IDExpiration
	cfg.TransactionMaxTimeout = tc.MaxTimeout
	cfg.AbortTimedOutTransactionsInterval = tc.AbortTimedOutInterval
	cfg.RemoveExpiredTransactionalIDsInterval = tc.RemoveExpiredInterval
	cfg.OffsetsTopicPartitions = b.offsetsPartitions()
	cfg.MarkerRetryBackoff = b.cfg.Kafka.Client.RetryBackoff
	cfg.TransactionVersion = int16(tc.Version)
	return cfg
}

// txnPartitions is TransactionStateManager.transactionTopicPartitionCount:
// the topic's partition count once it exists, else the setting.
func (b *Broker) txnPartitions() int32 {
	if n := int32(len(b.topicsOf[TransactionStateTopic])); n > 0 {
		return n
	}
	return b.cfg.Kafka.Txn.StateLogPartitions
}

// txnHostFor is the txn.Host of a shard: producer ids from the broker's
// allocator, leaders from its metadata cache.
func (b *Broker) txnHostFor() txn.Host {
	return txn.Host{
		NewProducerID: b.producerIDs.allocate,
		LeaderOf: func(tp model.TopicPartition) (model.BrokerID, bool) {
			ps, ok := b.meta[tp]
			if !ok {
				return model.NoBroker, false
			}
			return ps.Leader, true
		},
	}
}

// txnCoordinatorElected builds and loads a shard when this broker becomes
// leader of a __transaction_state partition: the log is replayed at once
// (nothing appends to it meanwhile), and the shard is Loaded once the
// load's time has passed and the high watermark covers the replayed
// records, so it never serves a state a failover could lose. Until then
// the coordinator answers COORDINATOR_LOAD_IN_PROGRESS itself.
func (b *Broker) txnCoordinatorElected(p *partition) {
	if p.tp.Topic != TransactionStateTopic {
		return
	}
	if b.txn.shards == nil {
		b.txn.shards = map[int32]*txnShard{}
	}
	if old := b.txn.shards[p.tp.Partition]; old != nil {
		b.unloadTxnShard(old, "new leader epoch")
	}
	c := txn.NewCoordinator(b.txnConfig(), b.txnHostFor(), p.tp.Partition, int32(p.leaderEpoch))
	s := &txnShard{p: p, epoch: p.leaderEpoch, c: c, loading: true, loadEnd: p.log.LEO()}
	s.records = b.replayLog(p, s.loadEnd, func(_ *model.Batch, r model.Record) error { return c.Replay(r) }, "txn-coordinator-bad-record")
	b.txn.shards[p.tp.Partition] = s
	b.env.Trace("txn-coordinator-load-start", p.tp.String()+" epoch="+itoa(int64(p.leaderEpoch))+" records="+itoa(int64(s.records))+" end="+itoa(int64(s.loadEnd)))
	d := coordinatorLoadBase + time.Duration(s.records)*coordinatorLoadPerRecord
	s.timer = b.env.After(d, timerTxnCoordinatorLoad, int64(p.tp.Partition))
}

func (b *Broker) maybeFinishTxnLoad(s *txnShard) {
	if !s.loading || !s.loadTimer || s.p.hw < s.loadEnd {
		return
	}
	s.loading = false
	b.env.Trace("txn-coordinator-load-end", s.p.tp.String()+" epoch="+itoa(int64(s.epoch))+" ids="+itoa(int64(len(s.c.TransactionalIDs()))))
	b.applyTxnEffects(s, s.c.Loaded(b.now()))
}

// txnCoordinatorResigned unloads the shard when this broker stops leading
// its partition (TransactionCoordinator.onResignation).
func (b *Broker) txnCoordinatorResigned(p *partition) {
	if p.tp.Topic != TransactionStateTopic {
		return
	}
	if s := b.txn.shards[p.tp.Partition]; s != nil {
		b.unloadTxnShard(s, "no longer leader")
	}
}

func (b *Broker) unloadTxnShard(s *txnShard, why string) {
	delete(b.txn.shards, s.p.tp.Partition)
	b.env.Cancel(s.timer)
	s.timer = 0
	s.writes = nil
	b.dropTxnMarkers(s)
	b.env.Trace("txn-coordinator-unload", s.p.tp.String()+" epoch="+itoa(int64(s.epoch))+": "+why)
	b.applyTxnEffects(nil, s.c.Close(b.now()))
}

// applyTxnEffects carries out what a shard asked for: replies, writes and
// marker requests. s is nil for a shard being dropped, which may still
// answer but neither write nor send markers.
func (b *Broker) applyTxnEffects(s *txnShard, e txn.Effects) {
	for _, r := range e.Replies {
		b.send(r.To, r.Msg)
	}
	if s == nil {
		return
	}
	for _, w := range e.Writes {
		b.appendTxnWrite(s, w)
	}
	for _, m := range e.Markers {
		b.sendTxnMarkers(s, m)
	}
	b.armTxnShard(s)
}

// appendTxnWrite appends a shard's records as the partition leader would
// an acks=all produce (ReplicaManager.appendRecords with
// TransactionLog.EnforcedRequiredAcks): refused below the partition's
// min.insync.replicas, otherwise committed once the high watermark passes
// it, or failed after the write timeout.
func (b *Broker) appendTxnWrite(s *txnShard, w txn.Write) {
	if b.txn.shards[s.p.tp.Partition] != s {
		return
	}
	next, code := b.coordinatorAppend(s.p, w.Records)
	if code != model.NoError {
		b.applyTxnEffects(s, s.c.WriteDone(b.now(), w.ID, code))
		return
	}
	s.writes = append(s.writes, &coordWrite{id: w.ID, required: next, deadline: b.now() + txnWriteTimeout})
	b.wakeFetches(s.p)
	b.maybeIncrementHW(s.p)
}

// completeTxnWrites runs when a __transaction_state leader's high
// watermark moves: a loading shard may be done, and covered writes are
// committed (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below the
// minimum meanwhile, as for a produce).
func (b *Broker) completeTxnWrites(p *partition) {
	if p.tp.Topic != TransactionStateTopic {
		return
	}
	s := b.txn.shards[p.tp.Partition]
	if s == nil || s.p != p {
		return
	}
	b.maybeFinishTxnLoad(s)
	for b.txn.shards[p.tp.Partition] == s {
		w, code, ok := nextCoveredWrite(p, &s.writes)
		if !ok {
			break
		}
		b.applyTxnEffects(s, s.c.WriteDone(b.now(), w.id, code))
	}
}

// armTxnShard sets the shard's timer to its earliest deadline.
func (b *Broker) armTxnShard(s *txnShard) {
	if s.loading || b.txn.shards[s.p.tp.Partition] != s {
		return
	}
	at, ok := s.c.NextDeadline()
	at, ok = earliestWriteDeadline(at, ok, s.writes)
	b.armShardTimer(&s.timer, &s.timerAt, at, ok, timerTxnCoordinator, s.p.tp.Partition)
}

// fireTxn handles the transaction coordinator host's timers.
func (b *Broker) fireTxn(t sim.Timer) {
	switch t.Kind {
	case timerTxnTopicCreate:
		if int32(t.Arg) == b.txn.createCorr {
			b.txn.createOut = false
		}
		return
	case timerTxnMarkerTimeout:
		b.txnMarkersAnswered(int32(t.Arg), nil)
		return
	}
	s := b.txn.shards[int32(t.Arg)]
	if s == nil || s.timer != t.ID {
		return
	}
	s.timer = 0
	if t.Kind == timerTxnCoordinatorLoad {
		s.loadTimer = true
		b.maybeFinishTxnLoad(s)
		return
	}
	now := b.now()
	for _, w := range takeExpiredWrites(&s.writes, now) {
		b.applyTxnEffects(s, s.c.WriteDone(now, w.id, model.RequestTimedOut))
	}
	if b.txn.shards[int32(t.Arg)] == s {
		b.applyTxnEffects(s, s.c.Expire(now))
	}
}

// TxnCoordinator exposes the shard of a __transaction_state partition to
// tests and the harness (read-only use), or nil if this broker has none.
func (b *Broker) TxnCoordinator(partition int32) *txn.Coordinator {
	if s := b.txn.shards[partition]; s != nil && !s.loading {
		return s.c
	}
	return nil
}
