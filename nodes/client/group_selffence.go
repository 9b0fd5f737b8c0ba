package client

import (
	"time"

	"kafkasim/sim"
)

// consumer.self.fencing, a kafkasim extension with no Kafka class behind
// it: a member gives its partitions up once the coordinator may have
// expired it, before anyone else can be given them.

// selfFenceArmed reports whether consumer.self.fencing watches the
// member's session now: whenever it owns partitions. A JoinGroup or
// SyncGroup in flight does not pause the watch: it may never have reached
// the coordinator (see heartbeating).
func (m *member) selfFenceArmed() bool {
	return m.cfg.SelfFencing && m.phase != phaseFatal && len(m.subs.owned()) > 0
}

// selfFenceAt is when consumer.self.fencing gives the member's partitions
// up: session.timeout.ms after aliveFrom, or, while a rebalance is under
// way, max.poll.interval.ms after stableAt if that comes first (a
// JoinGroup lost on its way leaves a heartbeating member a straggler the
// coordinator drops at the rebalance timeout).
func (m *member) selfFenceAt() time.Duration {
	at := satAdd(m.aliveFrom, m.cfg.SessionTimeout)
	if m.phase != phaseStable {
		at = min(at, satAdd(m.stableAt, m.cfg.MaxPollInterval))
	}
	return at
}

// maybeSelfFence treats the member's partitions as lost at selfFenceAt,
// before the coordinator can have given them to anyone else. The classic consumer does not: its
// heartbeat thread (AbstractCoordinator.HeartbeatThread.run) on
// heartbeat.sessionTimeoutExpired only calls markCoordinatorUnknown and
// goes on, and its fetcher goes on reading, which is the zombie that
// consumer.self.fencing=false keeps. The member keeps its id and rejoins
// with no generation, so a coordinator that never expired it takes it back.
func (m *member) maybeSelfFence(env *sim.Env) {
	if !m.selfFenceArmed() || env.Now() < m.selfFenceAt() {
		return
	}
	m.resetGeneration(env, false)
	m.joinRetryAt = 0
}
