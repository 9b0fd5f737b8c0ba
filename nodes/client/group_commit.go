package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// Committed offsets, after Kafka's ConsumerCoordinator: commits of the
// consumed positions (auto-commit every auto.commit.interval.ms and
// before a rebalance, or Commit from the application, both asynchronous
// like commitAsync), and the committed offsets a newly assigned partition
// starts from (OffsetFetch, refreshCommittedOffsetsIfNeeded).
//
// Each OffsetCommit is a commit op: ok when the coordinator accepted every
// partition; fail with the error name when it refused before writing
// (generation and membership checks, a loading coordinator) or the client
// refused to send it (no stable generation); info when the outcome is
// unknown: a timeout, a lost connection, or an error the coordinator can
// give after appending the offsets record (NOT_COORDINATOR,
// COORDINATOR_NOT_AVAILABLE and REQUEST_TIMED_OUT, which it answers when
// the append fails to replicate or its leadership moves meanwhile).

// pendingCommit is an OffsetCommit in flight.
type pendingCommit struct {
	corr int32
	op   int // its commit op in the history, -1 without a recorder
	gen  model.Epoch
	auto bool
}

// Commit commits the positions of the member's partitions, as
// KafkaConsumer.commitAsync() does: the next offset to read, with the
// leader epoch of the record before it (KIP-320). It is recorded as a
// commit op whatever comes of it; with nothing consumed yet nothing is
// sent or recorded. env may be nil from harness code outside the node's
// events.
func (c *Consumer) Commit(env *sim.Env) {
	env = c.envOr(env)
	if c.grp == nil {
		panic("client.Consumer.Commit: the consumer has no GroupID")
	}
	c.commitPositions(env, false)
	c.run(env)
}

// consumedOffsets is SubscriptionState.allConsumed: the position of every
// owned partition that has a valid one.
func (c *Consumer) consumedOffsets() []model.CommitOffset {
	var out []model.CommitOffset
	for _, tp := range c.order {
		if ps := c.parts[tp]; ps.state == stateFetching && ps.position >= 0 {
			out = append(out, model.CommitOffset{TP: tp, Offset: ps.position, LeaderEpoch: ps.positionEpoch})
		}
	}
	return out
}

// commitPositions sends an OffsetCommit of the consumed positions and
// records it; it reports whether one was sent. A member outside a stable
// generation cannot commit (Kafka fails the commit before sending it:
// RebalanceInProgressException during a rebalance, CommitFailedException
// without a generation).
func (c *Consumer) commitPositions(env *sim.Env, auto bool) bool {
	m := c.grp
	offsets := c.consumedOffsets()
	if len(offsets) == 0 {
		return false
	}
	now := env.Now()
	refuse := ""
	switch {
	case m.phase == phaseFatal:
		refuse = m.fatal
		if refuse == "" {
			refuse = "CLOSED"
		}
	case m.phase == phaseJoining || m.phase == phaseSyncing || (m.phase == phaseUnjoined && m.generation != noGeneration):
		refuse = model.RebalanceInProgress.String()
	case m.generation == noGeneration:
		refuse = "COMMIT_FAILED"
	case m.coordinator == model.NoBroker || !c.net.ready(m.coordinator, now):
		refuse = model.CoordinatorNotAvailable.String()
	}
	op := -1
	if c.rec != nil {
		pos := make([]model.PartitionOffset, len(offsets))
		for i, o := range offsets {
			pos[i] = model.PartitionOffset{TP: o.TP, Offset: o.Offset, From: model.NoOffset}
		}
		op = c.rec.Invoke(model.Op{
			Process: c.process, F: model.FCommit, Time: env.ObserverNow(),
			Group: m.group, Generation: m.generation, Offsets: pos,
		})
	}
	if refuse != "" {
		if op >= 0 {
			c.rec.Fail(op, env.ObserverNow(), refuse)
		}
		return false
	}
	req := model.OffsetCommitRequest{
		GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID,
		GroupInstanceID: m.instance, Offsets: offsets,
	}
	r := c.net.send(env, m.coordinator, reqOffsetCommit, c.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.commits = append(m.commits, pendingCommit{corr: r.corr, op: op, gen: m.generation, auto: auto})
	return true
}

// maybeAutoCommit commits every auto.commit.interval.ms, with at most one
// auto-commit in flight.
func (c *Consumer) maybeAutoCommit(env *sim.Env) {
	m := c.grp
	now := env.Now()
	if !c.cfg.AutoCommit || now < m.autoCommitAt || !c.net.ready(m.coordinator, now) {
		return
	}
	for _, pc := range m.commits {
		if pc.auto {
			return
		}
	}
	m.autoCommitAt = now + c.cfg.AutoCommitInterval
	c.commitPositions(env, true)
}

// takeCommit removes the pending commit corr answers, if any.
func (c *Consumer) takeCommit(corr int32) (pendingCommit, bool) {
	m := c.grp
	for i, pc := range m.commits {
		if pc.corr == corr {
			m.commits = append(m.commits[:i], m.commits[i+1:]...)
			if corr == m.prepCommit {
				m.prepCommit, m.prepDone = 0, true
			}
			return pc, true
		}
	}
	return pendingCommit{}, false
}

// handleCommit is ConsumerCoordinator.OffsetCommitResponseHandler.
func (c *Consumer) handleCommit(env *sim.Env, r model.OffsetCommitResponse) {
	m := c.grp
	pc, ok := c.takeCommit(r.CorrelationID)
	if !ok {
		return
	}
	err := model.NoError
	for _, res := range r.Results {
		if res.Error != model.NoError {
			err = res.Error
			break
		}
	}
	at := env.ObserverNow()
	if pc.op >= 0 {
		switch err {
		case model.NoError:
			c.rec.OK(pc.op, at)
		case model.IllegalGeneration, model.UnknownMemberID, model.RebalanceInProgress, model.FencedInstanceID,
			model.CoordinatorLoadInProgress, model.InvalidCommitOffsetSize, model.InvalidGroupID, model.GroupIDNotFound:
			c.rec.Fail(pc.op, at, err.String())
		default:
			c.rec.Info(pc.op, at, err.String())
		}
	}
	switch err {
	case model.NoError:
		return
	case model.IllegalGeneration, model.UnknownMemberID:
		// Only an answer about the member's current generation says it
		// fell out of the group.
		if pc.gen == m.generation && m.generation != noGeneration {
			c.resetGeneration(env, err == model.UnknownMemberID)
			c.joinFailed(env, true)
		}
	case model.RebalanceInProgress:
		if m.phase == phaseStable {
			m.rejoin = true
		}
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		c.coordinatorUnknown(env)
	case model.FencedInstanceID:
		c.groupFatal(env, err.String())
		return
	}
	if pc.auto {
		m.autoCommitAt = env.Now() + c.cl.RetryBackoff
	}
}

// commitUnknown completes a commit that got no answer as info.
func (c *Consumer) commitUnknown(env *sim.Env, corr int32, reason string) {
	pc, ok := c.takeCommit(corr)
	if !ok {
		return
	}
	if pc.op >= 0 {
		c.rec.Info(pc.op, env.ObserverNow(), reason)
	}
}

// maybeFetchCommitted asks the coordinator for the committed offsets of
// the owned partitions that have no position yet, one request at a time.
func (c *Consumer) maybeFetchCommitted(env *sim.Env) {
	m := c.grp
	now := env.Now()
	if m.fetchCorr != 0 || now < m.fetchRetryAt || !c.net.ready(m.coordinator, now) {
		return
	}
	var tps []model.TopicPartition
	for _, tp := range c.order {
		if c.parts[tp].state == stateInit {
			tps = append(tps, tp)
		}
	}
	if len(tps) == 0 {
		return
	}
	req := model.OffsetFetchRequest{GroupID: m.group, Partitions: tps}
	r := c.net.send(env, m.coordinator, reqOffsetFetch, c.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.fetchCorr = r.corr
}

func (c *Consumer) fetchCommittedFailed(env *sim.Env) {
	m := c.grp
	m.fetchCorr = 0
	m.fetchFailures++
	m.fetchRetryAt = env.Now() + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, m.fetchFailures-1))
}

// handleFetchCommitted gives each partition still waiting its position:
// the committed offset, or auto.offset.reset without one.
func (c *Consumer) handleFetchCommitted(env *sim.Env, r model.OffsetFetchResponse) {
	m := c.grp
	m.fetchCorr = 0
	switch r.Error {
	case model.NoError:
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		c.fetchCommittedFailed(env)
		c.coordinatorUnknown(env)
		return
	default:
		// COORDINATOR_LOAD_IN_PROGRESS: the new coordinator is still
		// reading the offsets log.
		c.fetchCommittedFailed(env)
		return
	}
	retry := false
	for _, o := range r.Offsets {
		ps := c.parts[o.TP]
		if ps == nil || ps.state != stateInit {
			continue
		}
		switch {
		case o.Error != model.NoError:
			retry = true
		case o.Offset >= 0:
			c.seekCommitted(ps, o.Offset, o.LeaderEpoch)
		default:
			c.startReset(env, ps, ResetNoOffset, "NoOffsetForPartition")
		}
	}
	if retry {
		c.fetchCommittedFailed(env)
	} else {
		m.fetchFailures = 0
	}
}

// seekCommitted starts a partition at its committed offset. With the
// committed leader epoch the position is validated against the current
// leader first (KIP-320, SubscriptionState.seekUnvalidated), so a log
// truncated below the committed offset since the commit is detected.
func (c *Consumer) seekCommitted(ps *partState, offset model.Offset, epoch model.Epoch) {
	if epoch < 0 {
		epoch = model.NoEpoch
	}
	leader, leaderEpoch := c.md.leader(ps.tp)
	c.setPosition(ps, offset, epoch, leader, leaderEpoch)
	if epoch != model.NoEpoch && leader != model.NoBroker && leaderEpoch != model.NoEpoch {
		ps.state = stateValidating
	}
}
