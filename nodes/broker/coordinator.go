package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// OffsetsTopic is the internal topic that stores committed offsets and
// group metadata. The leader of its partition p is the group coordinator
// of every group whose id hashes to p.
const OffsetsTopic = model.ConsumerOffsetsTopic

// Loading a coordinator shard takes virtual time: a fixed cost plus a cost
// per record read back from the log. Kafka's load time is dominated by
// reading the partition; these figures (a few milliseconds for a small
// partition) make loading visible to clients as COORDINATOR_LOAD_IN_PROGRESS
// without dominating a failover.
const (
	coordinatorLoadBase      = 5 * time.Millisecond
	coordinatorLoadPerRecord = 10 * time.Microsecond
)

// Timer kinds of the coordinator host.
const (
	timerCoordinator        = "group-coordinator" // a shard's deadlines; arg = partition
	timerCoordinatorLoad    = "group-coordinator-load"
	timerOffsetsTopicCreate = "offsets-topic-create-timeout"
)

// coordinatorHost is the broker's side of the group coordinator: one
// shard per __consumer_offsets partition this broker leads, and the
// auto-creation of that topic.
type coordinatorHost struct {
	shards     map[int32]*coordShard
	createOut  bool // a CreateTopics for the offsets topic is in flight
	createCorr int32
}

// coordShard is one loaded (or loading) partition of __consumer_offsets.
type coordShard struct {
	p     *partition
	epoch model.Epoch // the leader epoch it was loaded under
	c     *group.Coordinator
	// Loading: requests answer COORDINATOR_LOAD_IN_PROGRESS until the
	// load timer fired and the high watermark covers what was replayed.
	loading    bool
	loadTimer  bool // the load's time has passed
	loadEnd    model.Offset
	loadRecord int
	timer      sim.TimerID
	timerAt    time.Duration
	writes     []*coordWrite // in append order
	// markers are the transaction markers appended to the partition and
	// not yet committed, in append order: each is applied to the
	// coordinator once the high watermark passes it (coordinator_txn.go).
	markers []coordMarker
	// lastWritten is the end of the shard's last write, and deferred the
	// heartbeat answers waiting for the high watermark to reach it
	// (coordinator_deferred.go).
	lastWritten model.Offset
	deferred    []deferredReply
	report      *shardReport // what a GroupObserver was last told (coordinator_observe.go)
}

// coordWrite is a coordinator write waiting for the high watermark.
type coordWrite struct {
	id       int64
	required model.Offset // the high watermark that commits it
	deadline time.Duration
}

// PartitionFor is the offsets partition of a group: Kafka's
// Utils.abs(groupId.hashCode()) % partitions, with Java's String.hashCode
// so that a group lands where it would in Kafka.
func PartitionFor(groupID string, partitions int32) int32 {
	return model.CoordinatorPartition(groupID, partitions)
}

// offsetsPartitions is the offsets topic's partition count: the topic's,
// once it exists, else offsets.topic.num.partitions.
func (b *Broker) offsetsPartitions() int32 {
	if n := int32(len(b.topicsOf[OffsetsTopic])); n > 0 {
		return n
	}
	return b.cfg.Kafka.Group.OffsetsTopicPartitions
}

// coordinatorElected starts loading a shard when this broker becomes
// leader of an offsets partition (GroupCoordinator.onElection). The log is
// replayed at once (nothing can append to it meanwhile: this broker leads
// and refuses group requests while loading), and the shard serves once the
// load's virtual time has passed and the high watermark covers every
// replayed record, so that it never serves state a failover could lose.
func (b *Broker) coordinatorElected(p *partition) {
	if p.tp.Topic != OffsetsTopic {
		return
	}
	if b.coord.shards == nil {
		b.coord.shards = map[int32]*coordShard{}
	}
	if old := b.coord.shards[p.tp.Partition]; old != nil {
		// A new leader epoch while leading: start over from the log.
		b.unloadShard(old, "new leader epoch")
	}
	c := group.NewCoordinator(group.Config{
		Group:          b.cfg.Kafka.Group,
		MemberIDPrefix: "b" + itoa(int64(b.cfg.ID)) + "-e" + itoa(int64(p.leaderEpoch)) + "-p" + itoa(int64(p.tp.Partition)) + "-",
		PartitionExists: func(tp model.TopicPartition) bool {
			_, ok := b.meta[tp]
			return ok
		},
	})
	s := &coordShard{p: p, epoch: p.leaderEpoch, c: c, loading: true, loadEnd: p.log.LEO()}
	s.loadRecord = b.replayLog(p, s.loadEnd, replayGroupBatch(c), "coordinator-bad-record")
	b.coord.shards[p.tp.Partition] = s
	b.env.Trace("coordinator-load-start", p.tp.String()+" epoch="+itoa(int64(p.leaderEpoch))+" records="+itoa(int64(s.loadRecord))+" end="+itoa(int64(s.loadEnd)))
	d := coordinatorLoadBase + time.Duration(s.loadRecord)*coordinatorLoadPerRecord
	s.timer = b.env.After(d, timerCoordinatorLoad, int64(p.tp.Partition))
}

// maybeFinishLoad makes a loading shard serve once both conditions hold.
func (b *Broker) maybeFinishLoad(s *coordShard) {
	if !s.loading || !s.loadTimer || s.p.hw < s.loadEnd {
		return
	}
	s.loading = false
	s.c.Loaded(b.now())
	b.env.Trace("coordinator-load-end", s.p.tp.String()+" epoch="+itoa(int64(s.epoch))+" groups="+itoa(int64(len(s.c.Groups()))))
	b.armShard(s)
}

// coordinatorResigned drops a shard when this broker stops leading its
// partition (GroupCoordinator.onResignation): pending writes and parked
// members are answered NOT_COORDINATOR.
func (b *Broker) coordinatorResigned(p *partition) {
	if p.tp.Topic != OffsetsTopic {
		return
	}
	if s := b.coord.shards[p.tp.Partition]; s != nil {
		b.unloadShard(s, "no longer leader")
	}
}

func (b *Broker) unloadShard(s *coordShard, why string) {
	delete(b.coord.shards, s.p.tp.Partition)
	b.env.Cancel(s.timer)
	s.timer = 0
	s.writes = nil
	b.failDeferred(s, model.NotCoordinator)
	b.env.Trace("coordinator-unload", s.p.tp.String()+" epoch="+itoa(int64(s.epoch))+": "+why)
	if s.loading {
		return // nothing was served, nothing waits
	}
	b.applyEffects(nil, s.c.Close(b.now()))
}

// applyEffects executes what a shard asked for: replies, traces, writes.
// s is nil for a shard being dropped, which may still answer but not
// write.
func (b *Broker) applyEffects(s *coordShard, e group.Effects) {
	for _, t := range e.Traces {
		b.env.Trace(t.Kind, t.Detail)
	}
	for _, r := range e.Replies {
		b.send(r.To, r.Msg)
	}
	if s == nil {
		return
	}
	for _, w := range e.Writes {
		b.appendCoordinatorWrite(s, w)
	}
	b.armShard(s)
}

// appendCoordinatorWrite appends a shard's records as the partition
// leader would a produce with acks=all: refused below min.insync.replicas,
// otherwise stamped with the leader epoch and acknowledged once the high
// watermark passes it, or failed after offsets.commit.timeout.ms.
func (b *Broker) appendCoordinatorWrite(s *coordShard, w group.Write) {
	if b.coord.shards[s.p.tp.Partition] != s {
		return // dropped while its effects were applied
	}
	pid, epoch := model.NoProducerID, model.NoEpoch
	if w.Transactional {
		pid, epoch = w.ProducerID, w.ProducerEpoch
	}
	next, code := b.coordinatorAppendAs(s.p, w.Records, pid, epoch, w.Transactional)
	if code != model.NoError {
		b.applyEffects(s, s.c.WriteDone(b.now(), w.ID, code))
		return
	}
	s.c.WriteAppended(w.ID, next-model.Offset(len(w.Records)))
	if w.Transactional {
		delete(b.verify.guards[s.p.tp], w.ProducerID) // clearVerificationStateEntry
	}
	s.lastWritten = next
	s.writes = append(s.writes, &coordWrite{id: w.ID, required: next, deadline: b.now() + b.cfg.Kafka.Group.OffsetCommitTimeout})
	b.wakeFetches(s.p)
	b.maybeIncrementHW(s.p)
}

// coordinatorAppend appends a coordinator's records to its partition as
// the leader appends an acks=all produce, and returns the offset past
// them; or, without appending, why it may not: NOT_LEADER_OR_FOLLOWER, or
// NOT_ENOUGH_REPLICAS below min.insync.replicas. Shared by the group and
// the transaction coordinators, which Kafka also writes through one path
// (ReplicaManager.appendRecords with acks=-1).
func (b *Broker) coordinatorAppend(p *partition, records []model.Record) (model.Offset, model.ErrorCode) {
	return b.coordinatorAppendAs(p, records, model.NoProducerID, model.NoEpoch, false)
}

// coordinatorAppendAs is coordinatorAppend for a batch of a producer,
// transactional for a TxnOffsetCommit (the group coordinator writes it
// with the producer's id and epoch and no sequence, as CoordinatorRuntime
// does; AppendOrigin.COORDINATOR checks no sequence).
func (b *Broker) coordinatorAppendAs(p *partition, records []model.Record, pid model.ProducerID, epoch model.Epoch, transactional bool) (model.Offset, model.ErrorCode) {
	if !p.isLeader {
		return 0, model.NotLeaderOrFollower
	}
	if p.underMinISR() {
		return 0, model.NotEnoughReplicas
	}
	batch := model.NewBatchOf(pid, epoch, model.NoSequence, records)
	if transactional {
		batch.Attributes = model.AttrTransactional
		batch.Seal()
	}
	batch = batch.Rebase(p.log.LEO(), p.leaderEpoch)
	p.log.Append(batch, b.now())
	return batch.NextOffset(), model.NoError
}

// nextCoveredWrite takes the first of a coordinator's pending writes if
// p's high watermark covers it, with the code its writer gets: committed,
// or NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below the minimum
// meanwhile, as for a produce.
func nextCoveredWrite(p *partition, writes *[]*coordWrite) (*coordWrite, model.ErrorCode, bool) {
	ws := *writes
	if len(ws) == 0 || ws[0].required > p.hw {
		return nil, model.NoError, false
	}
	*writes = ws[1:]
	if p.underMinISR() {
		return ws[0], model.NotEnoughReplicasAfterAppend, true
	}
	return ws[0], model.NoError, true
}

// completeCoordinatorWrites runs when a leader's high watermark moves: a
// loading shard may be done, and writes it covers are committed. As for a
// produce, a write committed while the ISR is below the minimum is
// answered NOT_ENOUGH_REPLICAS_AFTER_APPEND.
func (b *Broker) completeCoordinatorWrites(p *partition) {
	if p.tp.Topic != OffsetsTopic {
		return
	}
	s := b.coord.shards[p.tp.Partition]
	if s == nil || s.p != p {
		return
	}
	b.maybeFinishLoad(s)
	for b.coord.shards[p.tp.Partition] == s {
		if b.applyCoveredMarker(s) {
			continue
		}
		w, code, ok := nextCoveredWrite(p, &s.writes)
		if !ok {
			break
		}
		b.applyEffects(s, s.c.WriteDone(b.now(), w.id, code))
	}
	if b.coord.shards[p.tp.Partition] == s {
		b.releaseDeferred(s)
	}
}

// armShard sets the shard's one timer to its earliest deadline: the
// coordinator's own, or a write's timeout.
func (b *Broker) armShard(s *coordShard) {
	if s.loading || b.coord.shards[s.p.tp.Partition] != s {
		return
	}
	at, ok := s.c.NextDeadline()
	at, ok = earliestWriteDeadline(at, ok, s.writes)
	for _, d := range s.deferred {
		if !ok || d.deadline < at {
			at, ok = d.deadline, true
		}
	}
	b.armShardTimer(&s.timer, &s.timerAt, at, ok, timerCoordinator, s.p.tp.Partition)
}

// earliestWriteDeadline lowers a coordinator's next deadline (at, when
// ok) to the earliest of its pending writes'.
func earliestWriteDeadline(at time.Duration, ok bool, writes []*coordWrite) (time.Duration, bool) {
	for _, w := range writes {
		if !ok || w.deadline < at {
			at, ok = w.deadline, true
		}
	}
	return at, ok
}

// armShardTimer sets a coordinator shard's one timer to at (cancels it
// when !ok), leaving it alone when it is already set there.
func (b *Broker) armShardTimer(timer *sim.TimerID, timerAt *time.Duration, at time.Duration, ok bool, kind string, partition int32) {
	if !ok {
		b.env.Cancel(*timer)
		*timer = 0
		return
	}
	if *timer != 0 && *timerAt == at {
		return
	}
	b.env.Cancel(*timer)
	*timerAt = at
	*timer = b.env.After(max(at-b.now(), 0), kind, int64(partition))
}

// takeExpiredWrites removes from writes those whose deadline has passed
// at now, and returns them in order.
func takeExpiredWrites(writes *[]*coordWrite, now time.Duration) []*coordWrite {
	var expired []*coordWrite
	ws := *writes
	k := 0
	for _, w := range ws {
		if w.deadline <= now {
			expired = append(expired, w)
			continue
		}
		ws[k] = w
		k++
	}
	clear(ws[k:])
	*writes = ws[:k]
	return expired
}

// fireCoordinator handles the coordinator host's timers.
func (b *Broker) fireCoordinator(t sim.Timer) {
	if t.Kind == timerOffsetsTopicCreate {
		if int32(t.Arg) == b.coord.createCorr {
			b.coord.createOut = false
		}
		return
	}
	s := b.coord.shards[int32(t.Arg)]
	if s == nil || s.timer != t.ID {
		return
	}
	s.timer = 0
	if t.Kind == timerCoordinatorLoad {
		s.loadTimer = true
		b.maybeFinishLoad(s)
		return
	}
	now := b.now()
	for _, w := range takeExpiredWrites(&s.writes, now) {
		// The write may still commit later; Kafka's coordinator answers
		// the timeout as it would a failed append.
		b.applyEffects(s, s.c.WriteDone(now, w.id, model.RequestTimedOut))
	}
	if b.coord.shards[int32(t.Arg)] == s {
		b.releaseDeferred(s)
	}
	if b.coord.shards[int32(t.Arg)] == s {
		b.applyEffects(s, s.c.Expire(now))
	}
}

// coordinatorPeerGone forgets responses parked for a client whose
// connection broke.
func (b *Broker) coordinatorPeerGone(peer model.BrokerID) {
	for _, tp := range b.topicsOf[OffsetsTopic] {
		if s := b.coord.shards[tp.Partition]; s != nil {
			s.c.ForgetPeer(peer)
			s.forgetDeferred(peer)
		}
	}
}

// Coordinator exposes the loaded shard of an offsets partition to tests
// and the harness (read-only use), or nil if this broker does not serve it.
func (b *Broker) Coordinator(partition int32) *group.Coordinator {
	s := b.coord.shards[partition]
	if s == nil || s.loading {
		return nil
	}
	return s.c
}

// replayLog hands every record of p's log below end to replay, in offset
// order, and returns how many it handed: how a coordinator (of groups or
// of transactions) loads the state its partition holds. A record replay
// refuses is traced under badRecord and skipped, as Kafka's loaders log
// and skip what they cannot read.
func (b *Broker) replayLog(p *partition, end model.Offset, replay func(*model.Batch, model.Record) error, badRecord string) int {
	n := 0
	for from := p.log.LogStartOffset(); from < end; {
		batches := p.log.Read(from, 1<<20)
		if len(batches) == 0 {
			break
		}
		for _, batch := range batches {
			for _, r := range batch.Records {
				if err := replay(batch, r); err != nil {
					b.env.Trace(badRecord, p.tp.String()+" offset "+itoa(int64(r.Offset))+": "+err.Error())
				}
				n++
			}
			from = batch.NextOffset()
		}
	}
	return n
}
