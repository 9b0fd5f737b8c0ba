package controller

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// The controller on the metadata quorum (KIP-595, KIP-631). Every change
// is a Record proposed to the quorum; it takes effect, on every controller
// and broker alike, only when it is committed and applied (Apply). The
// controller that proposes is the active one, the quorum leader; it
// answers a request only once the records it produced are applied, so no
// answer reflects a record that could still be lost. Any other controller
// answers NOT_CONTROLLER.
//
// Operations (a registration, a heartbeat, an AlterPartition, topic
// creation, a session expiry) run one at a time: each computes its
// records from the applied state, proposes them as one batch (atomic in
// the log) and waits for it to be applied before the next runs. Kafka's
// controller pipelines operations over a speculative in-memory state; the
// serial form keeps one source of truth at the cost of one commit round
// trip per operation.

// proposal is the batch in flight and what to do when it is applied (ok)
// or cannot be (this controller stopped being active).
type proposal struct {
	last int64
	done func(ok bool)
}

// opsMax bounds the operations waiting: beyond it a request is dropped,
// and its sender retries after its timeout.
const opsMax = 1024

// Apply makes one committed entry take effect (raft.StateMachine).
func (c *Controller) Apply(offset int64, epoch model.Epoch, data []byte) {
	r := decodeRecord(data)
	c.state.apply(offset, r)
	if epoch > c.state.controllerEpoch {
		c.state.controllerEpoch = epoch
	}
	if c.active {
		// Trace details are folded into the trace hash, so they are the
		// same whether or not the trace is recorded; metadata changes are
		// rare enough to describe every time (on the active controller).
		c.env.Trace("metadata-record", itoa(offset)+" "+r.String())
	}
}

// Snapshot encodes the applied state (raft.StateMachine).
func (c *Controller) Snapshot() []byte { return c.state.snapshot() }

// Restore replaces the state with a snapshot's (raft.StateMachine).
func (c *Controller) Restore(_ int64, _ model.Epoch, data []byte) {
	c.state = restoreState(c.cfg.Cluster, data)
}

// LeaderChanged activates or deactivates this controller
// (raft.StateMachine).
func (c *Controller) LeaderChanged(leader model.BrokerID, epoch model.Epoch, isMe bool) {
	c.leader = leader
	c.env.Trace("controller-leader", leader.String()+" epoch="+itoa(int64(epoch)))
	switch {
	case isMe && !c.active:
		c.activate()
	case !isMe && c.active:
		c.deactivate()
	}
}

// activate makes this controller the active one. Kafka's
// ClusterControlManager.activate touches every registered broker: the new
// controller does not know when they were last heard from, so each gets a
// full session before it can be fenced.
func (c *Controller) activate() {
	c.active = true
	c.sessions = map[model.BrokerID]*session{}
	now := c.env.Now()
	for _, id := range c.state.brokerIDs {
		c.sessions[id] = newSession(now)
	}
	c.env.Trace("controller-active", "epoch="+itoa(int64(c.raft.Epoch()))+" offset="+itoa(c.state.offset))
	c.armSessionTimer(c.env)
	// QuorumController.completeActivation reschedules the periodic tasks,
	// the leader balance among them.
	c.maybeScheduleBalance(c.env)
}

// deactivate stops being the active controller: the proposal in flight
// and every waiting operation are answered NOT_CONTROLLER (each operation
// checks c.active first).
func (c *Controller) deactivate() {
	c.active = false
	if p := c.inflight; p != nil {
		// Failed now, not at the next event: by then this node may lead
		// again, and the offset it waited for may hold another entry.
		c.inflight = nil
		p.done(false)
	}
	c.sessions = nil
	c.env.Cancel(c.sessionTimer)
	c.sessionTimer = 0
	c.cancelBalance(c.env)
	c.env.Trace("controller-inactive", "")
}

// afterQuorum runs after every event the quorum handled: a deactivation
// fails the proposal in flight, an applied proposal completes, and the
// next operations run. After a proposal is applied the leader balance may
// be due: Kafka arms it after every write event, and only the records of a
// write can make a partition imbalanced.
func (c *Controller) afterQuorum(env *sim.Env) {
	if p := c.inflight; p != nil {
		switch {
		case !c.active:
			c.inflight = nil
			p.done(false)
		case c.raft.LastApplied() >= p.last:
			c.inflight = nil
			p.done(true)
			c.maybeScheduleBalance(env)
		}
	}
	c.pump(env)
}

// submit queues an operation and runs what can run.
func (c *Controller) submit(env *sim.Env, op func()) {
	if len(c.ops) >= opsMax {
		env.Trace("controller-ops-full", "")
		return
	}
	c.ops = append(c.ops, op)
	c.pump(env)
}

// pump runs waiting operations until one proposes (or none is left).
func (c *Controller) pump(_ *sim.Env) {
	for c.inflight == nil && len(c.ops) > 0 {
		op := c.ops[0]
		c.ops[0] = nil
		c.ops = c.ops[1:]
		op()
	}
}

// commit proposes records as one batch; done runs when they are applied
// (ok), or when this controller can no longer commit them (not ok: it is
// not, or no longer, the active controller). Records must be built from
// the applied state by the operation that is running.
func (c *Controller) commit(records []Record, done func(ok bool)) {
	if len(records) == 0 {
		panic("controller: committing an empty batch")
	}
	entries := make([][]byte, len(records))
	for i, r := range records {
		entries[i] = encodeRecord(r)
	}
	first, ok := c.raft.Propose(c.env, entries)
	if !ok || !c.active {
		done(false)
		return
	}
	c.inflight = &proposal{last: first + int64(len(records)) - 1, done: done}
}

// nextOffset is the offset the first record of the next proposal gets:
// a broker epoch is the offset of its RegisterBrokerRecord.
func (c *Controller) nextOffset() int64 { return c.raft.EndOffset() + 1 }
