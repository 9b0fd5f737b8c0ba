package client

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Changing the subscription and leaving the group, after
// KafkaConsumer.subscribe, unsubscribe and close with
// ConsumerCoordinator.onLeavePrepare and AbstractCoordinator.maybeLeaveGroup.

// subscribe replaces the member's subscription with topics (sorted,
// without repeats) and records a subscribe op. A member already in a
// generation rejoins so that the leader assigns the new topics; a
// cooperative member first revokes the partitions of topics it dropped
// (see prepareJoin). No topics unsubscribes: the member revokes and
// leaves the group.
func (m *member) subscribe(env *sim.Env, topics []string) {
	if m.rec != nil {
		m.rec.Event(model.Op{Process: m.process, F: model.FSubscribe, Time: env.ObserverNow(), Group: m.group, Topics: slices.Clone(topics)})
	}
	changed := !slices.Equal(m.topics, topics)
	m.topics = topics
	m.subs.setInterest()
	switch {
	case len(topics) == 0:
		m.unsubscribe(env)
	case changed && m.phase == phaseStable:
		m.rejoin = true
	}
}

// leaveGroup is KafkaConsumer.close for a member (ConsumerCoordinator.close):
// a last auto-commit, the partitions revoked, and a LeaveGroup so that the
// group rebalances at once instead of after session.timeout.ms. A static
// member does not leave (KIP-345): its restart takes its place back.
func (m *member) leaveGroup(env *sim.Env) {
	if m.generation != noGeneration {
		m.revokePartitions(env, slices.Clone(m.subs.owned()))
	} else {
		m.losePartitions(env)
	}
	if m.instance == "" && m.memberID != "" && m.coordinator != model.NoBroker && m.phase != phaseUnjoined {
		req := model.LeaveGroupRequest{GroupID: m.group, MemberID: m.memberID}
		m.net.send(env, m.coordinator, reqLeaveGroup, m.cl.RequestTimeout, func(corr int32) sim.Message {
			req.CorrelationID = corr
			return req
		})
	}
}

// stop is close for a member: it commits what it consumed (with
// auto-commit), revokes and leaves its group (see leaveGroup), and does
// nothing more in this incarnation.
func (m *member) stop(env *sim.Env) {
	if m.phase == phaseFatal {
		return
	}
	if m.cfg.AutoCommit && m.phase == phaseStable && m.coordinator != model.NoBroker {
		m.commitPositions(env, true)
	}
	m.leaveGroup(env)
	m.phase = phaseFatal
}

// unsubscribe is KafkaConsumer.unsubscribe, what subscribing to nothing
// means: revoke, leave the group, and forget the generation and (for a
// dynamic member) the member id, so that a later subscription joins anew.
func (m *member) unsubscribe(env *sim.Env) {
	if m.phase == phaseFatal {
		return
	}
	m.leaveGroup(env)
	for _, r := range slices.Clone(m.net.reqs) {
		if isGroupRequest(r.kind) && r.kind != reqFindCoordinator && r.kind != reqLeaveGroup && r.kind != reqOffsetCommit {
			forgetRequest(m.net, r.corr)
		}
	}
	m.joinCorr, m.syncCorr, m.hbCorr, m.fetchCorr = 0, 0, 0, 0
	m.generation = noGeneration
	if m.instance == "" {
		m.memberID = ""
	}
	m.phase, m.rejoin, m.prepared, m.prepDone, m.prepCommit = phaseUnjoined, false, false, false, 0
}
