package client

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Joining a generation, after AbstractCoordinator.joinGroupIfNeeded and
// its JoinGroup and SyncGroup response handlers: the two requests, the
// errors that send the member back to rejoin, losing the generation
// (resetStateAndGeneration), and the errors that stop it for good.

// maybeJoin sends a JoinGroup once the member has prepared for it: the
// subscription's metadata is known (the leader assigns from it), and
// onJoinPrepare has committed (with auto-commit) and revoked what the
// protocol revokes before joining.
func (m *member) maybeJoin(env *sim.Env) {
	now := env.Now()
	if m.joinCorr != 0 || m.syncCorr != 0 || now < m.joinRetryAt || len(m.topics) == 0 {
		return
	}
	for _, t := range m.topics {
		if _, ok := m.md.partitions(t); !ok {
			return // the metadata answer that names it calls run again
		}
	}
	if !m.net.ready(m.coordinator, now) || !m.prepareJoin(env) {
		return
	}
	req := model.JoinGroupRequest{
		GroupID: m.group, MemberID: m.memberID, GroupInstanceID: m.instance,
		SessionTimeout: m.cfg.SessionTimeout, RebalanceTimeout: m.cfg.MaxPollInterval,
		Assignors: slices.Clone(m.assignors), Topics: slices.Clone(m.topics), Owned: slices.Clone(m.subs.owned()),
		// ConsumerCoordinator.metadata: the generation rides with the
		// owned partitions (ConsumerProtocolSubscription v2), so the
		// leader can tell a stale claim from a current one.
		// No RackID: the simulated cluster has no racks (no broker.rack,
		// no replica racks in metadata), so client.rack is not modelled.
		Subscription: model.Subscription{
			GenerationID: m.generation,
			Assigned:     slices.Clone(m.assigned), AssignedGeneration: m.assignedGen,
		},
	}
	timeout := max(m.cl.RequestTimeout, satAdd(m.cfg.MaxPollInterval, joinTimeoutLapse))
	r := m.net.send(env, m.coordinator, reqJoinGroup, timeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.joinCorr, m.joinSent = r.corr, now
	m.phase = phaseJoining
	m.rejoin = false
}

// handleJoin is AbstractCoordinator.JoinGroupResponseHandler.
func (m *member) handleJoin(env *sim.Env, r model.JoinGroupResponse) {
	m.joinCorr = 0
	switch r.Error {
	case model.NoError:
		m.memberID, m.generation = r.MemberID, r.GenerationID
		m.aliveFrom = max(m.aliveFrom, m.joinSent)
		m.phase = phaseSyncing
		m.hbNext = env.Now() + m.cfg.HeartbeatInterval
		m.sessionAt = env.Now() // HeartbeatThread.enable: heartbeat.resetTimeouts
		var assignments []model.MemberAssignment
		if r.LeaderID == r.MemberID {
			assignments = m.leaderAssign(r)
		} else if m.groupTopics != nil {
			m.groupTopics, m.assignedCounts = nil, nil
			m.subs.setInterest()
		}
		req := model.SyncGroupRequest{
			GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID,
			GroupInstanceID: m.instance, Assignments: assignments,
		}
		rq := m.net.send(env, m.coordinator, reqSyncGroup, m.cl.RequestTimeout, func(corr int32) sim.Message {
			req.CorrelationID = corr
			return req
		})
		m.syncCorr, m.syncSent = rq.corr, env.Now()
	case model.MemberIDRequired:
		// KIP-394: the coordinator named the member; join again with it.
		m.memberID = r.MemberID
		m.joinFailed(env, true)
	case model.FencedInstanceID, model.InconsistentGroupProtocol, model.InvalidSessionTimeout, model.GroupMaxSizeReached:
		// Fatal in Kafka: the exception reaches the application.
		m.stopFatal(env, r.Error.String())
	default:
		if !m.rejoinOn(env, r.Error) {
			// COORDINATOR_LOAD_IN_PROGRESS and anything unexpected: retry.
			m.joinFailed(env, false)
		}
	}
}

// handleSync is AbstractCoordinator.SyncGroupResponseHandler.
func (m *member) handleSync(env *sim.Env, r model.SyncGroupResponse) {
	m.syncCorr = 0
	switch r.Error {
	case model.NoError:
		m.phase = phaseStable
		m.rejoin, m.prepared, m.prepDone = false, false, false
		m.joinFailures = 0
		m.aliveFrom = max(m.aliveFrom, m.syncSent)
		m.stableAt = max(m.stableAt, m.syncSent)
		if m.autoCommitAt == 0 {
			m.autoCommitAt = env.Now() + m.cfg.AutoCommitInterval
		}
		m.takeAssignment(env, r.Partitions)
	case model.FencedInstanceID:
		m.stopFatal(env, r.Error.String())
	default:
		if !m.rejoinOn(env, r.Error) {
			m.joinFailed(env, false)
		}
	}
}

// rejoinOn handles the errors a JoinGroup and a SyncGroup answer share,
// which send the member back to rejoin (the two response handlers of
// AbstractCoordinator treat them alike); it reports whether err was one.
func (m *member) rejoinOn(env *sim.Env, err model.ErrorCode) bool {
	switch err {
	case model.UnknownMemberID:
		m.resetGeneration(env, true)
		m.joinFailed(env, true)
	case model.IllegalGeneration:
		m.resetGeneration(env, false)
		m.joinFailed(env, true)
	case model.RebalanceInProgress:
		m.joinFailed(env, true)
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		// Retriable: joinGroupIfNeeded sleeps retry.backoff.ms before the
		// next attempt, and the backoff grows while the rebalance keeps
		// failing (a coordinator that cannot write the group's metadata
		// answers this to every SyncGroup).
		m.joinFailed(env, false)
		m.coordinatorUnknown(env)
	default:
		return false
	}
	return true
}

// joinFailed sends the member back to rejoin; after an error that is not
// one of the immediate-rejoin ones, it waits retry.backoff.ms, growing.
func (m *member) joinFailed(env *sim.Env, now bool) {
	m.phase = phaseUnjoined
	if now {
		m.joinRetryAt = 0
		return
	}
	m.joinFailures++
	m.joinRetryAt = env.Now() + jitter(env, expBackoff(m.cl.RetryBackoff, m.cl.RetryBackoffMax, m.joinFailures-1))
}

// resetGeneration is resetStateAndGeneration: the member's partitions are
// lost (it may no longer own them), its generation is gone, and with
// UNKNOWN_MEMBER_ID its member id too. Kafka reports the loss in the next
// onJoinPrepare; it is reported here, at the instant the member learns of
// it, so that the history shows it stop reading no later than it does.
func (m *member) resetGeneration(env *sim.Env, memberToo bool) {
	m.losePartitions(env)
	m.generation = noGeneration
	if memberToo {
		m.memberID = ""
	}
	m.prepared, m.prepDone = false, false
	m.rejoin = false
	for _, corr := range []int32{m.joinCorr, m.syncCorr, m.hbCorr} {
		if corr != 0 {
			forgetRequest(m.net, corr)
		}
	}
	m.joinCorr, m.syncCorr, m.hbCorr = 0, 0, 0
	m.phase = phaseUnjoined
}

// stopFatal stops the member for good (FENCED_INSTANCE_ID: another
// process took its group.instance.id; Kafka raises it from poll and the
// consumer is unusable): its partitions are lost and the next poll fails
// with the error.
func (m *member) stopFatal(env *sim.Env, err string) {
	m.losePartitions(env)
	for _, r := range slices.Clone(m.net.reqs) {
		if isGroupRequest(r.kind) {
			forgetRequest(m.net, r.corr)
			if r.kind == reqOffsetCommit {
				m.commitUnknown(env, r.corr, err)
			}
		}
	}
	m.phase, m.fatal = phaseFatal, err
	m.joinCorr, m.syncCorr, m.hbCorr, m.fetchCorr, m.findCorr = 0, 0, 0, 0, 0
}
