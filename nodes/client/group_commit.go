package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// Committed offsets, after Kafka's ConsumerCoordinator: commits of the
// consumed positions (auto-commit every auto.commit.interval.ms and
// before a rebalance, or Consumer.Commit from the application, both
// asynchronous like commitAsync), and the committed offsets a newly
// assigned partition starts from (OffsetFetch,
// refreshCommittedOffsetsIfNeeded).
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

// commitPositions sends an OffsetCommit of the consumed positions and
// records it; it reports whether one was sent. A member outside a stable
// generation cannot commit (Kafka fails the commit before sending it:
// RebalanceInProgressException during a rebalance, CommitFailedException
// without a generation).
func (m *member) commitPositions(env *sim.Env, auto bool) bool {
	offsets := m.subs.consumedOffsets()
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
	case m.coordinator == model.NoBroker || !m.net.ready(m.coordinator, now):
		refuse = model.CoordinatorNotAvailable.String()
	}
	op := -1
	if m.rec != nil {
		pos := make([]model.PartitionOffset, len(offsets))
		for i, o := range offsets {
			pos[i] = model.PartitionOffset{TP: o.TP, Offset: o.Offset, From: model.NoOffset}
		}
		op = m.rec.Invoke(model.Op{
			Process: m.process, F: model.FCommit, Time: env.ObserverNow(),
			Group: m.group, Generation: m.generation, Offsets: pos,
		})
	}
	if refuse != "" {
		if op >= 0 {
			m.rec.Fail(op, env.ObserverNow(), refuse)
		}
		return false
	}
	req := model.OffsetCommitRequest{
		GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID,
		GroupInstanceID: m.instance, Offsets: offsets,
	}
	r := m.net.send(env, m.coordinator, reqOffsetCommit, m.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.commits = append(m.commits, pendingCommit{corr: r.corr, op: op, gen: m.generation, auto: auto})
	return true
}

// maybeAutoCommit commits every auto.commit.interval.ms, with at most one
// auto-commit in flight.
func (m *member) maybeAutoCommit(env *sim.Env) {
	now := env.Now()
	if !m.cfg.AutoCommit || now < m.autoCommitAt || !m.net.ready(m.coordinator, now) {
		return
	}
	for _, pc := range m.commits {
		if pc.auto {
			return
		}
	}
	m.autoCommitAt = now + m.cfg.AutoCommitInterval
	m.commitPositions(env, true)
}

// takeCommit removes the pending commit corr answers, if any.
func (m *member) takeCommit(corr int32) (pendingCommit, bool) {
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
func (m *member) handleCommit(env *sim.Env, r model.OffsetCommitResponse) {
	pc, ok := m.takeCommit(r.CorrelationID)
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
			m.rec.OK(pc.op, at)
		case model.IllegalGeneration, model.UnknownMemberID, model.RebalanceInProgress, model.FencedInstanceID,
			model.CoordinatorLoadInProgress, model.InvalidCommitOffsetSize, model.InvalidGroupID, model.GroupIDNotFound:
			m.rec.Fail(pc.op, at, err.String())
		default:
			m.rec.Info(pc.op, at, err.String())
		}
	}
	switch err {
	case model.NoError:
		return
	case model.IllegalGeneration, model.UnknownMemberID:
		// Only an answer about the member's current generation says it
		// fell out of the group.
		if pc.gen == m.generation && m.generation != noGeneration {
			m.resetGeneration(env, err == model.UnknownMemberID)
			m.joinFailed(env, true)
		}
	case model.RebalanceInProgress:
		if m.phase == phaseStable {
			m.rejoin = true
		}
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		m.coordinatorUnknown(env)
	case model.FencedInstanceID:
		m.stopFatal(env, err.String())
		return
	}
	if pc.auto {
		m.autoCommitAt = env.Now() + m.cl.RetryBackoff
	}
}

// commitUnknown completes a commit that got no answer as info.
func (m *member) commitUnknown(env *sim.Env, corr int32, reason string) {
	pc, ok := m.takeCommit(corr)
	if !ok {
		return
	}
	if pc.op >= 0 {
		m.rec.Info(pc.op, env.ObserverNow(), reason)
	}
}

// maybeFetchCommitted asks the coordinator for the committed offsets of
// the owned partitions that have no position yet, one request at a time.
func (m *member) maybeFetchCommitted(env *sim.Env) {
	now := env.Now()
	if m.fetchCorr != 0 || now < m.fetchRetryAt || !m.net.ready(m.coordinator, now) {
		return
	}
	var tps []model.TopicPartition
	for _, tp := range m.subs.owned() {
		if m.subs.awaitsCommitted(tp) {
			tps = append(tps, tp)
		}
	}
	if len(tps) == 0 {
		return
	}
	// ConsumerCoordinator.sendOffsetFetchRequest asks for stable offsets
	// (KIP-447): a partition whose transactional commit is still pending
	// answers UNSTABLE_OFFSET_COMMIT, retried after a backoff, so that a
	// new owner does not start before what the old one's transaction
	// consumed. Kafka sets it always; kafkasim under read_committed only
	// (docs/kafka.md): without transactional commits the answer is the
	// same, and the requests of the other scenarios stay as they were.
	req := model.OffsetFetchRequest{GroupID: m.group, Partitions: tps, RequireStable: m.cfg.IsolationLevel == model.ReadCommitted}
	r := m.net.send(env, m.coordinator, reqOffsetFetch, m.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.fetchCorr = r.corr
}

func (m *member) fetchCommittedFailed(env *sim.Env) {
	m.fetchCorr = 0
	m.fetchFailures++
	m.fetchRetryAt = env.Now() + jitter(env, expBackoff(m.cl.RetryBackoff, m.cl.RetryBackoffMax, m.fetchFailures-1))
}

// handleFetchCommitted gives each partition still waiting its position:
// the committed offset, or auto.offset.reset without one.
func (m *member) handleFetchCommitted(env *sim.Env, r model.OffsetFetchResponse) {
	m.fetchCorr = 0
	switch r.Error {
	case model.NoError:
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		m.fetchCommittedFailed(env)
		m.coordinatorUnknown(env)
		return
	default:
		// COORDINATOR_LOAD_IN_PROGRESS: the new coordinator is still
		// reading the offsets log.
		m.fetchCommittedFailed(env)
		return
	}
	retry := false
	for _, o := range r.Offsets {
		if !m.subs.awaitsCommitted(o.TP) {
			continue
		}
		if o.Error != model.NoError {
			retry = true
			continue
		}
		m.subs.startFromCommitted(env, o.TP, o.Offset, o.LeaderEpoch)
	}
	if retry {
		m.fetchCommittedFailed(env)
	} else {
		m.fetchFailures = 0
	}
}
