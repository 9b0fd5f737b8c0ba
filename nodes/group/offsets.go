package group

import (
	"slices"
	"time"

	"kafkasim/model"
)

// HandleOffsetCommit handles an OffsetCommit. The commit is checked
// against the group (ClassicGroup.validateOffsetCommit), written to the
// log, and applied to the offsets the coordinator serves only once that
// write commits (Kafka's pending offset commits): an OffsetFetch never
// returns an offset a coordinator failover could lose.
func (c *Coordinator) HandleOffsetCommit(now time.Duration, from model.BrokerID, r model.OffsetCommitRequest) Effects {
	c.begin(now)
	all := r.Offsets
	r.Offsets = c.knownOffsets(all)
	answer := func(code model.ErrorCode) {
		resp := model.OffsetCommitResponse{CorrelationID: r.CorrelationID, Results: make([]model.PartitionResult, len(all))}
		for i, o := range all {
			resp.Results[i] = model.PartitionResult{TP: o.TP, Error: code}
			if c.cfg.PartitionExists != nil && !c.cfg.PartitionExists(o.TP) {
				resp.Results[i].Error = model.UnknownTopicOrPartition
			}
		}
		c.reply(from, resp)
	}
	if len(all) > 0 && len(r.Offsets) == 0 {
		// Every partition is unknown: KafkaApis answers without asking
		// the coordinator.
		answer(model.NoError)
		return c.end()
	}
	if code := c.validateOffsetCommit(r); code != model.NoError {
		answer(code)
		return c.end()
	}
	// In the classic protocol a member's commit keeps its session alive
	// in Stable and PreparingRebalance, as a heartbeat does
	// (OffsetMetadataManager.commitOffset).
	if g := c.groups[r.GroupID]; g != nil && (g.state == Stable || g.state == PreparingRebalance) {
		if m := g.members[r.MemberID]; m != nil {
			m.heartbeat.set(c.now + m.sessionTimeout)
		}
	}
	if len(r.Offsets) == 0 {
		answer(model.NoError)
		return c.end()
	}
	records := make([]model.Record, len(r.Offsets))
	for i, o := range r.Offsets {
		records[i] = offsetCommitRecord(r.GroupID, o, c.now)
	}
	group, offsets, at := r.GroupID, slices.Clone(r.Offsets), c.now.Truncate(time.Millisecond)
	var id int64
	id = c.write(records, func(code model.ErrorCode) {
		if code == model.NoError {
			for i, o := range offsets {
				c.applyOffset(group, o.TP, Committed{Offset: o.Offset, LeaderEpoch: o.LeaderEpoch, CommitTime: at, record: c.recordOffset(id, i)})
			}
		}
		answer(model.CoordinatorAppendError(code))
	})
	return c.end()
}

// knownOffsets are the offsets of partitions the broker's metadata has
// (KafkaApis.handleOffsetCommitRequest refuses the others, so that a
// member's position in a deleted topic is not committed for it).
func (c *Coordinator) knownOffsets(offsets []model.CommitOffset) []model.CommitOffset {
	if c.cfg.PartitionExists == nil {
		return offsets
	}
	var out []model.CommitOffset
	for _, o := range offsets {
		if c.cfg.PartitionExists(o.TP) {
			out = append(out, o)
		}
	}
	return out
}

// validateOffsetCommit is ClassicGroup.validateOffsetCommit, with
// Kafka's answer for a group the coordinator does not have (generation -1
// creates a group used only for offsets; otherwise ILLEGAL_GENERATION,
// the classic protocol's answer before OffsetCommit v9).
func (c *Coordinator) validateOffsetCommit(r model.OffsetCommitRequest) model.ErrorCode {
	if r.GroupID == "" {
		return model.InvalidGroupID
	}
	g := c.groups[r.GroupID]
	if g == nil {
		if r.GenerationID >= 0 {
			return model.IllegalGeneration
		}
		g = newClassicGroup(r.GroupID)
		c.groups[r.GroupID] = g
	}
	if g.state == Dead {
		return model.CoordinatorNotAvailable
	}
	if r.GenerationID < 0 && g.state == Empty {
		// A consumer that assigns its partitions itself (or an admin
		// client) commits into a group without members.
		return model.NoError
	}
	if r.GenerationID >= 0 || r.MemberID != "" || r.GroupInstanceID != "" {
		if code := g.validateMember(r.MemberID, r.GroupInstanceID); code != model.NoError {
			return code
		}
		if r.GenerationID != g.generation {
			return model.IllegalGeneration
		}
	} else if g.state != Empty {
		return model.UnknownMemberID
	}
	if g.state == CompletingRebalance {
		// The member knows the new generation from its JoinGroup
		// response but has no assignment yet: it should not be
		// committing; tell it to finish the rebalance. (During
		// PreparingRebalance a commit of the old generation is fine: it
		// is how an eager member commits before revoking.)
		return model.RebalanceInProgress
	}
	return model.NoError
}

func (c *Coordinator) applyOffset(group string, tp model.TopicPartition, o Committed) {
	m := c.offsets[group]
	if m == nil {
		m = map[model.TopicPartition]Committed{}
		c.offsets[group] = m
	}
	m[tp] = o
}

// HandleOffsetFetch answers a group's committed offsets: for the
// partitions asked, or every partition with one when none are named.
// A partition without a committed offset answers NoOffset; with
// RequireStable, one with a pending transactional offset answers
// UNSTABLE_OFFSET_COMMIT (OffsetMetadataManager.fetchOffsets and
// fetchAllOffsets).
func (c *Coordinator) HandleOffsetFetch(now time.Duration, from model.BrokerID, r model.OffsetFetchRequest) Effects {
	c.begin(now)
	committed := c.offsets[r.GroupID]
	tps := r.Partitions
	if len(tps) == 0 {
		for tp := range committed {
			tps = append(tps, tp)
		}
		slices.SortFunc(tps, model.TopicPartition.Compare)
	}
	resp := model.OffsetFetchResponse{CorrelationID: r.CorrelationID, Offsets: make([]model.CommittedOffset, len(tps))}
	for i, tp := range tps {
		if r.RequireStable && c.hasPendingTxnOffset(r.GroupID, tp) {
			// KIP-447: a transaction's offset for the partition awaits
			// its marker; the consumer waits rather than start from an
			// offset the transaction may move.
			resp.Offsets[i] = model.CommittedOffset{TP: tp, Offset: model.NoOffset, LeaderEpoch: model.NoEpoch, Error: model.UnstableOffsetCommit}
			continue
		}
		o, ok := committed[tp]
		if !ok {
			resp.Offsets[i] = model.CommittedOffset{TP: tp, Offset: model.NoOffset, LeaderEpoch: model.NoEpoch}
			continue
		}
		resp.Offsets[i] = model.CommittedOffset{TP: tp, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch}
	}
	c.reply(from, resp)
	return c.end()
}

// Offset is the committed offset of a group's partition, for tests and
// observers.
func (c *Coordinator) Offset(group string, tp model.TopicPartition) (Committed, bool) {
	o, ok := c.offsets[group][tp]
	return o, ok
}
