package broker

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/storage"
)

// partition is one replica hosted by this broker, leader or follower.
type partition struct {
	tp  model.TopicPartition
	log *storage.Log
	// topic is the topic's settings (see topicconfig.go), fixed when the
	// replica opens: kafkasim has no AlterConfigs.
	topic model.TopicConfig

	// From the controller (the latest PartitionState applied).
	leader         model.BrokerID
	leaderEpoch    model.Epoch
	partitionEpoch model.Epoch
	replicas       []model.BrokerID
	isr            []model.BrokerID

	isLeader bool
	hw       model.Offset

	// Leader side.
	followers        []*followerState // one per other replica, in replica order (see follower)
	epochStartOffset model.Offset     // where this leader's epoch began
	alter            *alterState      // the AlterPartition in flight, if any
	waiting          []pendingProduce
	delayed          []*delayedFetch // parked fetches that read this partition

	// Follower side.
	needEpochQuery bool // KIP-101 mode: ask OffsetsForLeaderEpoch before fetching
	queryOut       bool
	fetchBlocked   bool // an error parked this partition until new metadata
	// fetchFailed: an append the log refused took the partition out of
	// its fetcher until its leadership changes (appendAsFollower).
	fetchFailed bool
	// fetcher is the fetcher whose partitions hold this one, told of its
	// changes (followChanged); nil while it follows no leader.
	fetcher *fetcher
}

// followerState is what a leader knows of one follower, from its fetches
// (Kafka's Replica.updateFetchState).
type followerState struct {
	id                 model.BrokerID
	leo                model.Offset // the follower's fetch offset; -1 unknown
	lastFetchTime      time.Duration
	lastFetchLeaderLEO model.Offset
	lastCaughtUpTime   time.Duration
	brokerEpoch        model.Epoch
	// clock, while set, is the fetch clock the times and the broker epoch
	// are read from (see follower_clock.go: read them through fetchTimes);
	// tp is the partition's, to find its place in the clock's session.
	clock *fetchClock
	tp    model.TopicPartition
}

// follower is what the leader knows of replica r, nil if r is not a
// follower of this partition. A partition has a handful of replicas, and
// the leader asks for every fetch: a short list beats a map.
func (p *partition) follower(r model.BrokerID) *followerState {
	for _, fs := range p.followers {
		if fs.id == r {
			return fs
		}
	}
	return nil
}

// openPartition opens tp's log for the topic's current life, or returns
// nil when the folder belongs to an older life and the configuration
// fails the replica (strayFolder).
func (b *Broker) openPartition(tp model.TopicPartition) *partition {
	kc := b.cfg.Kafka
	life := b.topicLife(tp.Topic)
	ok, record := b.strayFolder(tp, life)
	if !ok {
		return nil
	}
	open := storage.Open
	if b.cleanStart {
		// LogLoader's hadCleanShutdown: it decides whether a log with no
		// producer snapshot must be replayed (see storage.OpenAfterCleanShutdown).
		open = storage.OpenAfterCleanShutdown
	}
	topic := b.topicConfig(tp.Topic)
	log, rec := open(b.env.Disk(), partitionDir(tp), storage.ConfigFrom(kc.Broker, topic), b.env.Now())
	if !rec.Clean() {
		b.env.Trace("log-recovered", tp.String()+": "+rec.String())
	}
	if record {
		storage.RecordLife(b.env.Disk(), partitionDir(tp), life)
	}
	p := &partition{
		tp:             tp,
		log:            log,
		topic:          topic,
		leader:         model.NoBroker,
		leaderEpoch:    model.NoEpoch,
		partitionEpoch: model.NoEpoch,
		hw:             0,
	}
	// The high watermark starts at the checkpointed value, never above the
	// log end (Kafka's UnifiedLog initialisation).
	if hw, ok := b.hwCheckpoint[tp]; ok {
		p.hw = min(hw, log.LEO())
	}
	if p.hw < log.LogStartOffset() {
		p.hw = log.LogStartOffset()
	}
	i, _ := slices.BinarySearchFunc(b.tps, tp, model.TopicPartition.Compare)
	b.tps = slices.Insert(b.tps, i, tp)
	b.parts.add(p)
	log.OnChange = func() { b.partChanged(p) }
	b.partChanged(p)
	return p
}

// makeLeader applies a PartitionState that names this broker leader.
func (b *Broker) makeLeader(p *partition, ps model.PartitionState) {
	if ps.LeaderEpoch < p.leaderEpoch || (ps.LeaderEpoch == p.leaderEpoch && ps.PartitionEpoch <= p.partitionEpoch) {
		return // stale or already applied
	}
	newEpoch := !p.isLeader || ps.LeaderEpoch > p.leaderEpoch
	replicasChanged := !slices.Equal(p.replicas, ps.Replicas)
	b.setPartitionState(p, ps)
	if !newEpoch && replicasChanged {
		// A reassignment added replicas under the same leader epoch: the
		// leader starts tracking them, outside the ISR until they catch up
		// (Partition.makeLeader's updateAssignmentAndIsr).
		b.trackReplicas(p, ps)
	}
	if newEpoch {
		b.stopFollowing(p)
		p.isLeader = true
		// A new leader records where its epoch starts and never
		// truncates (Partition.makeLeader).
		p.log.Epochs().Assign(ps.LeaderEpoch, p.log.LEO())
		p.epochStartOffset = p.log.LEO()
		p.alter = nil
		now := b.now()
		p.followers = nil
		for _, r := range ps.Replicas {
			if r == b.cfg.ID {
				continue
			}
			fs := &followerState{id: r, leo: -1, lastFetchLeaderLEO: -1, tp: p.tp}
			// Followers in the ISR get a fresh lag allowance; others
			// must catch up first (Replica.resetReplicaState).
			if containsBroker(ps.ISR, r) {
				fs.lastCaughtUpTime = now
			}
			p.followers = append(p.followers, fs)
		}
		b.env.Trace("become-leader", p.tp.String()+" epoch="+itoa(int64(ps.LeaderEpoch)))
		b.coordinatorElected(p)
		b.txnCoordinatorElected(p)
		if o := b.cfg.Observer; o != nil {
			o.BecameLeader(b.cfg.ID, p.tp, ps.LeaderEpoch)
			o.LeaderHighWatermark(b.cfg.ID, p.tp, ps.LeaderEpoch, p.hw)
		}
	}
	if p.alter != nil && ps.PartitionEpoch >= p.partitionEpoch {
		// Whatever we asked for is settled one way or the other by
		// the controller's newer state.
		p.alter = nil
	}
	if o := b.cfg.Observer; o != nil {
		o.LeaderISR(b.cfg.ID, p.tp, p.leaderEpoch, p.isr)
	}
	b.maybeIncrementHW(p)
	b.wakeFetches(p)
}

// trackReplicas gives the leader a follower state for each replica of ps it
// does not track yet, and drops those no longer replicas.
func (b *Broker) trackReplicas(p *partition, ps model.PartitionState) {
	var next []*followerState
	for _, r := range ps.Replicas {
		if r == b.cfg.ID {
			continue
		}
		fs := p.follower(r)
		if fs == nil {
			fs = &followerState{id: r, leo: -1, lastFetchLeaderLEO: -1, tp: p.tp}
		}
		next = append(next, fs)
	}
	p.followers = next
}

// makeFollower applies a PartitionState that names another broker (or
// nobody) leader.
func (b *Broker) makeFollower(p *partition, ps model.PartitionState) {
	if ps.LeaderEpoch < p.leaderEpoch || (ps.LeaderEpoch == p.leaderEpoch && ps.PartitionEpoch <= p.partitionEpoch && !p.isLeader) {
		return
	}
	newEpoch := p.isLeader || ps.LeaderEpoch > p.leaderEpoch || ps.Leader != p.leader
	wasLeader := p.isLeader
	b.setPartitionState(p, ps)
	if !newEpoch {
		return
	}
	if wasLeader {
		p.isLeader = false
		p.followers = nil
		p.alter = nil
		b.failWaitingProduces(p, model.NotLeaderOrFollower)
		b.dropGuards(p.tp)
		b.wakeFetches(p) // parked fetches now answer NOT_LEADER_OR_FOLLOWER
		b.coordinatorResigned(p)
		b.txnCoordinatorResigned(p)
		b.checkMarkerWaits()
	}
	b.stopFollowing(p)
	// A new leader or epoch re-adds the partition to a fetcher, failed or
	// not (AbstractFetcherManager.addFetcherForPartitions drops it from
	// failedPartitions).
	p.fetchBlocked, p.fetchFailed = false, false
	b.followChanged(p)
	switch b.cfg.Kafka.Broker.Truncation {
	case model.TruncateHighWatermark:
		// Before KIP-101 a new follower cut its log back to its own
		// high watermark, which may lag the leader's: the root of the
		// KIP-101 data-loss bug.
		if p.log.LEO() > p.hw {
			b.truncate(p, p.hw, "high-watermark")
		}
	case model.TruncateLeaderEpochKIP101:
		p.needEpochQuery = true
		b.followChanged(p)
	}
	b.env.Trace("become-follower", p.tp.String()+" leader="+ps.Leader.String()+" epoch="+itoa(int64(ps.LeaderEpoch)))
	if ps.Leader != model.NoBroker {
		b.startFollowing(p)
	}
}

func (b *Broker) setPartitionState(p *partition, ps model.PartitionState) {
	b.partChanged(p)
	p.leader = ps.Leader
	p.leaderEpoch = ps.LeaderEpoch
	p.partitionEpoch = ps.PartitionEpoch
	p.replicas = ps.Replicas
	p.isr = ps.ISR
}

// truncate cuts the replica's log back and keeps the high watermark at or
// below the new end.
func (b *Broker) truncate(p *partition, to model.Offset, why string) {
	before := p.log.LEO()
	leo := p.log.TruncateTo(to)
	if p.hw > leo {
		p.hw = leo
	}
	if leo != before {
		b.env.Trace("truncate", p.tp.String()+" "+itoa(int64(before))+"->"+itoa(int64(leo))+" ("+why+")")
	}
}

func (p *partition) view() ReplicaView {
	return ReplicaView{
		TP:          p.tp,
		Leader:      p.isLeader,
		LeaderEpoch: p.leaderEpoch,
		HW:          p.hw,
		LEO:         p.log.LEO(),
		LogStart:    p.log.LogStartOffset(),
		ISR:         append([]model.BrokerID(nil), p.isr...),
		Log:         p.log,
	}
}
