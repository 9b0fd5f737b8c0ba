package client

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Finding the group's coordinator and giving it up, after
// AbstractCoordinator.lookupCoordinator and markCoordinatorUnknown.

// findCoordinator asks the least loaded broker for the group's
// coordinator (AbstractCoordinator.lookupCoordinator).
func (m *member) findCoordinator(env *sim.Env) {
	now := env.Now()
	if m.findCorr != 0 || now < m.findRetryAt {
		return
	}
	b, ok := m.net.leastLoaded(m.md.brokers, now, &m.rr)
	if !ok && !slices.Equal(m.md.brokers, m.md.bootstrap) {
		b, ok = m.net.leastLoaded(m.md.bootstrap, now, &m.rr)
	}
	if !ok {
		return
	}
	id := m.group
	r := m.net.send(env, b, reqFindCoordinator, m.cl.RequestTimeout, func(corr int32) sim.Message {
		return model.FindCoordinatorRequest{CorrelationID: corr, GroupID: id}
	})
	m.findCorr = r.corr
}

func (m *member) handleFindCoordinator(env *sim.Env, r model.FindCoordinatorResponse) {
	m.findCorr = 0
	if r.Error != model.NoError || r.Coordinator == model.NoBroker {
		// COORDINATOR_NOT_AVAILABLE while __consumer_offsets has no
		// leader (or is still being created): ask again after a backoff.
		m.findFailed(env)
		return
	}
	m.findFailures = 0
	m.coordinator = r.Coordinator
	m.sessionAt = env.Now() // heartbeat.resetSessionTimeout
}

func (m *member) findFailed(env *sim.Env) {
	m.findCorr = 0
	m.findFailures++
	m.findRetryAt = env.Now() + jitter(env, expBackoff(m.cl.RetryBackoff, m.cl.RetryBackoffMax, m.findFailures-1))
}

// coordinatorUnknown forgets the coordinator (markCoordinatorUnknown) after
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or a broken connection. Kafka
// talks to the coordinator on a connection of its own and closes it, which
// fails the group requests on it; the simulated network has one
// connection per broker, shared with fetches, so the group requests are
// failed here and fetches to that broker go on. A JoinGroup or SyncGroup
// lost this way means rejoining; the generation stays, and heartbeats go
// to the next coordinator, which loads the group from the log.
func (m *member) coordinatorUnknown(env *sim.Env) {
	if m.coordinator == model.NoBroker {
		return
	}
	m.coordinator = model.NoBroker
	for _, r := range slices.Clone(m.net.reqs) {
		if isGroupRequest(r.kind) && r.kind != reqFindCoordinator {
			forgetRequest(m.net, r.corr)
			m.requestFailed(env, r)
		}
	}
}

// forgetRequest drops an in-flight request without failing its
// connection: its answer, if one comes, matches nothing.
func forgetRequest(n *network, corr int32) {
	for i, r := range n.reqs {
		if r.corr == corr {
			n.reqs = slices.Delete(n.reqs, i, i+1)
			return
		}
	}
}
