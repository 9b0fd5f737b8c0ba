package group

import (
	"slices"
	"time"

	"kafkasim/model"
)

// Transactional offset commits (KIP-98, KIP-447): a consume-transform-
// produce worker commits its input offsets inside its transaction. The
// commit is written as a transactional batch of the producer and kept
// pending per producer until the transaction's marker reaches this
// partition: a commit marker moves the offsets to the committed ones, an
// abort marker drops them (OffsetMetadataManager.replay with a producer
// id, replayEndTransactionMarker). The same happens when a new
// coordinator replays the log, so the state survives a coordinator move.

// HandleTxnOffsetCommit is GroupCoordinatorService.commitTransactionalOffsets
// and OffsetMetadataManager.commitTransactionalOffset: the group is checked
// (validateTransactionalOffsetCommit, ClassicGroup.validateOffsetCommit
// with isTransactional), the offsets are written as the producer's
// transactional batch, and answered once that write commits; they stay
// pending until the transaction ends.
func (c *Coordinator) HandleTxnOffsetCommit(now time.Duration, from model.BrokerID, r model.TxnOffsetCommitRequest) Effects {
	c.begin(now)
	all := r.Offsets
	known := c.knownOffsets(all)
	answer := func(code model.ErrorCode) {
		resp := model.TxnOffsetCommitResponse{CorrelationID: r.CorrelationID, Results: make([]model.PartitionResult, len(all))}
		for i, o := range all {
			resp.Results[i] = model.PartitionResult{TP: o.TP, Error: code}
			if c.cfg.PartitionExists != nil && !c.cfg.PartitionExists(o.TP) {
				resp.Results[i].Error = model.UnknownTopicOrPartition
			}
		}
		c.reply(from, resp)
	}
	if r.GroupID == "" {
		answer(model.InvalidGroupID)
		return c.end()
	}
	if code := c.validateTxnOffsetCommit(r); code != model.NoError {
		answer(code)
		return c.end()
	}
	if len(known) == 0 {
		answer(model.NoError)
		return c.end()
	}
	records := make([]model.Record, len(known))
	for i, o := range known {
		records[i] = offsetCommitRecord(r.GroupID, o, c.now)
	}
	group, pid, at := r.GroupID, r.ProducerID, c.now.Truncate(time.Millisecond)
	var id int64
	id = c.writeAs(Write{Records: records, Transactional: true, ProducerID: r.ProducerID, ProducerEpoch: r.ProducerEpoch},
		func(code model.ErrorCode) {
			if code == model.NoError {
				for i, o := range known {
					c.addPendingTxnOffset(pid, group, o.TP, Committed{Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, CommitTime: at, record: c.recordOffset(id, i)})
				}
			}
			answer(model.CoordinatorAppendError(code))
		})
	return c.end()
}

// validateTxnOffsetCommit is validateTransactionalOffsetCommit: an unknown
// group with generation -1 becomes a simple group, with another
// generation it is ILLEGAL_GENERATION; then ClassicGroup.validateOffsetCommit
// for a transactional commit, which unlike OffsetCommit accepts a request
// without member and generation in a group with members (older clients
// send none) and does not refuse a group completing its rebalance.
func (c *Coordinator) validateTxnOffsetCommit(r model.TxnOffsetCommitRequest) model.ErrorCode {
	g := c.groups[r.GroupID]
	if g == nil {
		if r.GenerationID >= 0 {
			return model.IllegalGeneration
		}
		g = newClassicGroup(r.GroupID)
		c.groups[r.GroupID] = g
	}
	switch {
	case g.state == Dead:
		return model.CoordinatorNotAvailable
	case r.GenerationID < 0 && g.state == Empty:
		return model.NoError
	case r.GenerationID >= 0 || r.MemberID != "" || r.GroupInstanceID != "":
		if code := g.validateMember(r.MemberID, r.GroupInstanceID); code != model.NoError {
			return code
		}
		if r.GenerationID != g.generation {
			return model.IllegalGeneration
		}
	}
	return model.NoError
}

func (c *Coordinator) addPendingTxnOffset(pid model.ProducerID, group string, tp model.TopicPartition, o Committed) {
	byGroup := c.pendingTxn[pid]
	if byGroup == nil {
		byGroup = map[string]map[model.TopicPartition]Committed{}
		c.pendingTxn[pid] = byGroup
	}
	if byGroup[group] == nil {
		byGroup[group] = map[model.TopicPartition]Committed{}
	}
	byGroup[group][tp] = o
}

// hasPendingTxnOffset is hasPendingTransactionalOffsets.
func (c *Coordinator) hasPendingTxnOffset(group string, tp model.TopicPartition) bool {
	for _, byGroup := range c.pendingTxn {
		if _, ok := byGroup[group][tp]; ok {
			return true
		}
	}
	return false
}

// dropPendingTxnOffsets removes a partition's pending offsets of every
// open transaction, as an offset tombstone does on replay.
func (c *Coordinator) dropPendingTxnOffsets(group string, tp model.TopicPartition) {
	for _, byGroup := range c.pendingTxn {
		delete(byGroup[group], tp)
	}
}

// ReplayEndTxnMarker is OffsetMetadataManager.replayEndTransactionMarker:
// a commit or abort marker of the producer reached this partition (live,
// once committed, or when a new coordinator replays the log). A commit
// applies each pending offset unless the committed one came from a later
// record (a plain commit after the transactional one); an abort drops
// them. A marker without pending offsets changes nothing.
func (c *Coordinator) ReplayEndTxnMarker(pid model.ProducerID, commit bool) {
	byGroup, ok := c.pendingTxn[pid]
	if !ok {
		return
	}
	delete(c.pendingTxn, pid)
	if !commit {
		return
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		for tp, o := range byGroup[g] {
			existing, had := c.offsets[g][tp]
			if !had || o.record < 0 || existing.record < 0 || o.record > existing.record {
				c.applyOffset(g, tp, o)
			}
		}
	}
}

// PendingTxnOffset is the offset producer pid's open transaction
// committed for a group's partition, for tests and observers.
func (c *Coordinator) PendingTxnOffset(pid model.ProducerID, group string, tp model.TopicPartition) (Committed, bool) {
	o, ok := c.pendingTxn[pid][group][tp]
	return o, ok
}
