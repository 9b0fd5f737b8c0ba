package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// updatePosition moves one partition's state machine along, after Kafka's
// SubscriptionState with the consumer's OffsetFetcher and
// OffsetsForLeaderEpochUtils:
//
//	init ──initPosition──▶ resetting ──ListOffsets──▶ fetching ◀─┐
//	                           ▲                        │        │ validated
//	        OFFSET_OUT_OF_RANGE│            leader epoch│changed  │
//	                           └──── fetching ◀─────────▼────────┘
//	                                            validating ──truncated──▶ fetching (reset op)
//
// With auto.offset.reset=none a partition that needs a reset goes to
// failed instead, and the next poll raises the error.
func (c *Consumer) updatePosition(env *sim.Env, ps *partState) {
	now := env.Now()
	leader, epoch := c.leaderOf(ps)
	switch ps.state {
	case stateInit:
		c.initPosition(env, ps)
	case stateFetching:
		if leader == model.NoBroker || (leader == ps.leader && epoch == ps.leaderEpoch) {
			return
		}
		// SubscriptionState.maybeValidatePositionForCurrentLeader: a new
		// leader (or epoch) may have a log that diverged from the one the
		// position came from. Validation needs the epoch of the record
		// before the position; without one (after a seek) the position is
		// taken as it is.
		ps.leader, ps.leaderEpoch = leader, epoch
		if ps.positionEpoch != model.NoEpoch && epoch != model.NoEpoch {
			c.fetchChanged(ps)
			ps.state = stateValidating
			ps.gen++
			ps.buf, ps.skipTo = nil, model.NoOffset // fetched records of a partition not fetchable are dropped
			ps.reqPending, ps.failures, ps.retryAt = false, 0, 0
		}
	case stateValidating:
		if leader != model.NoBroker && (leader != ps.leader || epoch != ps.leaderEpoch) {
			// Leadership moved again: validate against the newest leader.
			ps.leader, ps.leaderEpoch = leader, epoch
			ps.gen++
			ps.reqPending = false
		}
		if ps.reqPending || now < ps.retryAt {
			return
		}
		if leader == model.NoBroker {
			c.md.requestUpdate()
			return
		}
		if !c.net.ready(leader, now) {
			return
		}
		q := model.LeaderEpochQuery{TP: ps.tp, CurrentLeaderEpoch: epoch, LeaderEpoch: ps.positionEpoch}
		r := c.net.send(env, leader, reqOffsetsForEpoch, c.cl.RequestTimeout, func(corr int32) sim.Message {
			return model.OffsetsForLeaderEpochRequest{CorrelationID: corr, ReplicaID: model.NoBroker, Partitions: []model.LeaderEpochQuery{q}}
		})
		r.tp, r.gen = ps.tp, ps.gen
		ps.reqPending = true
	case stateResetting:
		if ps.reqPending || now < ps.retryAt {
			return
		}
		if leader == model.NoBroker {
			c.md.requestUpdate()
			return
		}
		if !c.net.ready(leader, now) {
			return
		}
		spec := model.SpecLatest
		if c.cfg.AutoOffsetReset == model.ResetEarliest {
			spec = model.SpecEarliest
		}
		tp := ps.tp
		r := c.net.send(env, leader, reqListOffsets, c.cl.RequestTimeout, func(corr int32) sim.Message {
			return model.ListOffsetsRequest{CorrelationID: corr, ReplicaID: model.NoBroker, TP: tp, CurrentLeaderEpoch: epoch, Spec: spec}
		})
		r.tp, r.gen = ps.tp, ps.gen
		ps.reqPending = true
	}
}

// initPosition gives a newly assigned partition its first position. With
// manual assignment there is no committed offset, so auto.offset.reset
// decides. A group member leaves the partition waiting: the group's
// committed offset decides (maybeFetchCommitted), and auto.offset.reset
// only without one.
func (c *Consumer) initPosition(env *sim.Env, ps *partState) {
	if c.grp != nil {
		return
	}
	c.startReset(env, ps, ResetNoOffset, "NoOffsetForPartition")
}

// startReset applies auto.offset.reset to a partition: with earliest or
// latest it asks the leader for that offset (ListOffsets) and moves there;
// with none the next poll raises errName and the partition waits for a
// seek (Kafka's NoOffsetForPartitionException, OffsetOutOfRangeException,
// LogTruncationException).
func (c *Consumer) startReset(env *sim.Env, ps *partState, reason, errName string) {
	c.unsettle()
	c.fetchChanged(ps)
	from := ps.position
	if ps.state == stateInit {
		from = model.NoOffset
	}
	ps.gen++
	ps.buf, ps.skipTo = nil, model.NoOffset
	ps.reqPending, ps.failures, ps.retryAt = false, 0, 0
	if c.cfg.AutoOffsetReset == model.ResetNone {
		ps.state = stateFailed
		ps.errNext, c.polls.errMaybe = errName, true
		return
	}
	ps.state = stateResetting
	ps.resetReason, ps.resetFrom = reason, from
}

// handleListOffsets completes a reset: the position moves to the offset the
// leader gave, with the epoch of the record before it, and a reset op says
// where from and why, so that a checker can tell the records it skips from
// lost ones.
func (c *Consumer) handleListOffsets(env *sim.Env, req *request, r model.ListOffsetsResponse) {
	ps := c.parts[req.tp]
	if ps == nil || ps.gen != req.gen || ps.state != stateResetting {
		return
	}
	ps.reqPending = false
	if r.Error != model.NoError || r.Offset < 0 {
		if invalidMetadata(r.Error) {
			c.md.requestUpdate()
		}
		c.requestFailed(env, ps)
		return
	}
	epoch := r.LeaderEpoch
	if epoch < 0 {
		epoch = model.NoEpoch
	}
	leader, leaderEpoch := c.md.leader(ps.tp)
	from, reason := ps.resetFrom, ps.resetReason
	c.setPosition(ps, r.Offset, epoch, leader, leaderEpoch)
	c.recordReset(env, ps.tp, from, r.Offset, reason)
}

// handleEpochAnswer completes a KIP-320 validation, as
// SubscriptionState.maybeCompleteValidation does: if the leader's log ends
// the position's epoch below the position, the records between were
// truncated away, and the position moves back to the first offset known to
// diverge, recorded as a reset op with reason "truncation". An answer
// without a defined end offset resets by auto.offset.reset.
func (c *Consumer) handleEpochAnswer(env *sim.Env, req *request, r model.OffsetsForLeaderEpochResponse) {
	ps := c.parts[req.tp]
	if ps == nil || ps.gen != req.gen || ps.state != stateValidating {
		return
	}
	ps.reqPending = false
	var a *model.LeaderEpochAnswer
	for i := range r.Partitions {
		if r.Partitions[i].TP == req.tp {
			a = &r.Partitions[i]
		}
	}
	if a == nil || a.Error != model.NoError {
		if a != nil && invalidMetadata(a.Error) {
			c.md.requestUpdate()
		}
		c.requestFailed(env, ps)
		return
	}
	c.completeValidation(env, ps, a.EndOffset, a.HasEpoch, a.LeaderEpoch)
}

// completeValidation applies a leader's (epoch, end offset) for the
// position's epoch. A leader that answers without the epoch (KIP-101's
// first form) is taken at its end offset, with no epoch for the new
// position.
func (c *Consumer) completeValidation(env *sim.Env, ps *partState, end model.Offset, hasEpoch bool, epoch model.Epoch) {
	c.unsettle()
	c.fetchChanged(ps)
	if end < 0 || (hasEpoch && epoch < 0) {
		c.startReset(env, ps, ResetTruncation, "LogTruncation")
		return
	}
	if end >= ps.position {
		ps.state = stateFetching
		ps.failures, ps.retryAt = 0, 0
		return
	}
	if c.cfg.AutoOffsetReset == model.ResetNone {
		ps.state = stateFailed
		ps.errNext, c.polls.errMaybe = "LogTruncation", true
		ps.gen++
		return
	}
	if !hasEpoch {
		epoch = model.NoEpoch
	}
	from := ps.position
	c.setPosition(ps, end, epoch, ps.leader, ps.leaderEpoch)
	c.recordReset(env, ps.tp, from, end, ResetTruncation)
}

// recordReset records a position the consumer moved on its own. The reason
// goes in the op's Error field, the only free-text field an op has.
func (c *Consumer) recordReset(env *sim.Env, tp model.TopicPartition, from, to model.Offset, reason string) {
	if c.rec == nil {
		return
	}
	c.rec.Event(model.Op{
		Process: c.process, F: model.FReset, Time: env.ObserverNow(), Error: reason,
		Offsets: []model.PartitionOffset{{TP: tp, Offset: to, From: from}},
	})
}
