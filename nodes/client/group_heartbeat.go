package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// Heartbeats, after AbstractCoordinator.HeartbeatThread and Heartbeat:
// one every heartbeat.interval.ms while the member is in a generation,
// and the session timer that marks the coordinator unknown when no
// heartbeat succeeds for session.timeout.ms.

// heartbeating reports whether the member heartbeats now: from the join
// answer on, as Kafka does (it heartbeats while it waits for its SyncGroup
// answer too), and, with consumer.self.fencing, also while its JoinGroup
// is in flight if it still owns partitions. The coordinator may hold a
// JoinGroup for the whole rebalance timeout, longer than a session, and a
// JoinGroup lost on its way proves nothing; heartbeats answered
// REBALANCE_IN_PROGRESS meanwhile show the member is still counted, so a
// cooperative member keeps its partitions through a long rebalance without
// trusting a request that may never have arrived.
func (m *member) heartbeating() bool {
	switch m.phase {
	case phaseSyncing, phaseStable:
		return true
	case phaseJoining:
		return m.cfg.SelfFencing && m.generation != noGeneration && len(m.subs.owned()) > 0
	}
	return false
}

// maybeHeartbeat sends a heartbeat every heartbeat.interval.ms, one at a
// time.
func (m *member) maybeHeartbeat(env *sim.Env) {
	now := env.Now()
	if m.hbCorr != 0 || now < m.hbNext || !m.net.ready(m.coordinator, now) {
		return
	}
	req := model.HeartbeatRequest{GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID, GroupInstanceID: m.instance}
	r := m.net.send(env, m.coordinator, reqHeartbeat, m.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.hbCorr, m.hbSent, m.hbGen = r.corr, now, m.generation
}

// handleHeartbeat is AbstractCoordinator.HeartbeatResponseHandler and the
// heartbeat thread's listener.
func (m *member) handleHeartbeat(env *sim.Env, r model.HeartbeatResponse) {
	m.hbCorr = 0
	now := env.Now()
	same := m.hbGen == m.generation
	switch r.Error {
	case model.NoError:
		m.hbFailures = 0
		m.hbNext = m.hbSent + m.cfg.HeartbeatInterval
		m.aliveFrom = max(m.aliveFrom, m.hbSent)
		m.sessionAt = now // heartbeat.receiveHeartbeat
		if m.phase == phaseStable && same {
			m.stableAt = max(m.stableAt, m.hbSent)
		}
		return
	case model.RebalanceInProgress:
		// The coordinator still counts the member (it keeps it for the
		// rebalance timeout); a stable member rejoins. While its SyncGroup
		// is in flight, that answer will say the same.
		m.hbFailures = 0
		m.hbNext = m.hbSent + m.cfg.HeartbeatInterval
		m.aliveFrom = max(m.aliveFrom, m.hbSent)
		m.sessionAt = now // receiveHeartbeat, as for NONE
		if m.phase == phaseStable && same {
			m.rejoin = true
		}
		return
	case model.IllegalGeneration, model.UnknownMemberID:
		// The coordinator expired the member or moved past its generation:
		// its partitions may already be someone else's. A stale answer (the
		// generation moved on since it was sent) is ignored, as Kafka does.
		if same && m.generation != noGeneration {
			m.resetGeneration(env, r.Error == model.UnknownMemberID)
			m.joinFailed(env, true)
		}
		return
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		m.coordinatorUnknown(env)
	case model.FencedInstanceID:
		m.stopFatal(env, r.Error.String())
		return
	}
	m.hbFailures++
	m.hbNext = now + jitter(env, expBackoff(m.cl.RetryBackoff, m.cl.RetryBackoffMax, m.hbFailures-1))
}

// sessionWatched reports whether Kafka's heartbeat thread watches the
// member's session now: it is enabled from the JoinGroup answer
// (COMPLETING_REBALANCE) through the stable generation, and disabled while
// the member is unjoined or joining (MemberState.hasNotJoinedGroup).
func (m *member) sessionWatched() bool {
	return m.coordinator != model.NoBroker && (m.phase == phaseSyncing || m.phase == phaseStable)
}

// maybeSessionExpired is the heartbeat thread's
// heartbeat.sessionTimeoutExpired branch (AbstractCoordinator.HeartbeatThread.run):
// a member that has heard no successful heartbeat answer for
// session.timeout.ms marks its coordinator unknown, which disconnects
// from it (markCoordinatorUnknown, client.disconnectAsync) and so fails
// every group request in flight there, a SyncGroup too. Without it, a
// member cut from its coordinator while it waited for its SyncGroup took
// the answer when the cut healed, long after its generation had been
// replaced, and owned partitions of a newer generation's members
// (group-partition-cooperative seed 730140: the answer came 25 s late,
// retransmitted by TCP). The member keeps its generation and partitions:
// Kafka's does not revoke on session expiry either.
func (m *member) maybeSessionExpired(env *sim.Env) {
	if m.sessionWatched() && env.Now() >= satAdd(m.sessionAt, m.cfg.SessionTimeout) {
		m.coordinatorUnknown(env)
	}
}
