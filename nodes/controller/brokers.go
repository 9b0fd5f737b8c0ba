package controller

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// session is what the controller knows of a broker between heartbeats.
// None of it is durable (Kafka's BrokerHeartbeatManager keeps it out of
// the metadata log on purpose, so heartbeats cost no writes).
type session struct {
	// lastContact is when the broker's last heartbeat (or registration)
	// arrived, on the controller's clock.
	lastContact time.Duration
	// heard says a heartbeat or registration arrived since this
	// controller became active. activate gives every broker a fresh
	// session without it: the replayed state says a broker is unfenced,
	// but only a message from it says it reaches this controller.
	heard bool
	// fencing says its expiry is queued: the session timer ignores it
	// until that operation has run.
	fencing bool
	// metadataOffset is the metadata offset its last heartbeat reported
	// (-1 before any), what BrokerHeartbeatManager.touch records.
	metadataOffset int64
	// shutdownOffset is where its controlled shutdown's records ended,
	// or -1 when it is not in controlled shutdown
	// (BrokerHeartbeatState.controlledShutdownOffset).
	shutdownOffset int64
}

// newSession is a session with no heartbeat and no shutdown yet.
func newSession(lastContact time.Duration) *session {
	return &session{lastContact: lastContact, metadataOffset: -1, shutdownOffset: -1}
}

// shuttingDown is BrokerHeartbeatState.shuttingDown.
func (s *session) shuttingDown() bool { return s.shutdownOffset >= 0 }

// handleRegistration registers a broker incarnation (Kafka's
// ClusterControlManager.registerBroker).
//
// A registration from a new incarnation while the old one still has a
// valid session (unfenced and heard from within broker.session.timeout.ms)
// is refused with DUPLICATE_BROKER_REGISTRATION: the controller cannot tell
// a restarted broker from a second process with the same node.id, so a
// broker that crashes and restarts quickly retries until its old session
// expires, as in Kafka. A broker that shut down cleanly asks to be fenced
// first (WantShutdown), which ends its session at once.
//
// If the broker was registered before, its old incarnation is gone: before
// the new RegisterBrokerRecord, it leaves every ISR, as when fenced, and
// the partitions it led elect new leaders (the new registration starts
// fenced, and a fenced broker is in no ISR). With ELR on and no clean
// shutdown (KIP-966, Kafka's ReplicationControlManager.
// handleBrokerUncleanShutdown), it instead leaves every ISR and every ELR
// and may not enter one: its log may have lost an unflushed tail with
// committed records. With ELR off an unclean restart is treated like a
// clean one, which is the KIP-966 bug: an ISR's last member keeps its
// place and leads again with whatever its log kept.
//
// The reply carries the new broker epoch, the offset of the
// RegisterBrokerRecord, once that record is committed; the broker starts
// fenced, and learns the record as it replays the metadata log.
func (c *Controller) handleRegistration(env *sim.Env, from sim.NodeID, m model.BrokerRegistrationRequest) {
	resp := model.BrokerRegistrationResponse{CorrelationID: m.CorrelationID, BrokerEpoch: model.NoEpoch}
	if !c.active {
		resp.Error = model.NotController
		env.Send(from, resp)
		return
	}
	id := m.BrokerID
	existing := c.state.brokers[id]
	if existing != nil && existing.Incarnation != m.Incarnation && c.sessionValid(env, existing) {
		resp.Error = model.DuplicateBrokerRegistration
		env.Send(from, resp)
		return
	}
	var records []Record
	if existing != nil {
		if c.cfg.Cluster.Controller.EligibleLeaderReplicas && !m.CleanShutdown && existing.Incarnation != m.Incarnation {
			records = c.state.leaderAndISRUpdates(model.NoBroker, model.NoBroker, id, func(p *partitionInfo) bool {
				return slices.Contains(p.ISR, id) || slices.Contains(p.ELR, id)
			})
		} else {
			records = c.state.leaderAndISRUpdates(id, model.NoBroker, model.NoBroker, inISR(id))
		}
	}
	epoch := model.Epoch(c.nextOffset() + int64(len(records)))
	records = append(records, RegisterBrokerRecord{ID: id, Epoch: epoch, Incarnation: m.Incarnation, Rack: m.Rack})
	c.commit(records, func(ok bool) {
		if !ok {
			resp.Error = model.NotController
			env.Send(from, resp)
			return
		}
		sess := newSession(env.Now())
		sess.heard = true
		c.sessions[id] = sess
		resp.BrokerEpoch = epoch
		env.Send(from, resp)
		c.armSessionTimer(env)
	})
}

// handleHeartbeat keeps a broker's session alive and moves it between
// fenced, unfenced and controlled shutdown (Kafka's BrokerHeartbeatManager.
// calculateNextBrokerState, with ReplicationControlManager.
// processBrokerHeartbeat):
//
//   - a heartbeat whose broker epoch is not the registered one, or from a
//     broker that is not registered, gets STALE_BROKER_EPOCH
//     (ClusterControlManager.checkBrokerEpoch): the broker must register;
//   - a fenced broker that wants to shut down may do so at once; one that
//     has applied metadata up to its own registration (MetadataOffset >=
//     the RegisterBrokerRecord's offset) is unfenced, unless it asks to
//     stay fenced; partitions without a leader then elect again, since it
//     may be the replica they wait for;
//   - an unfenced broker that asks to be fenced is fenced: it leaves every
//     ISR and the partitions it led elect new leaders (and it may shut down
//     at once if it also wants to);
//   - an unfenced broker that wants to shut down and leads nothing is
//     fenced and may stop at once; one that still leads enters controlled
//     shutdown (controlledshutdown.go): it stays unfenced and goes on
//     serving while its leaderships move and it leaves every ISR, and it
//     is let go on a later heartbeat, once it leads nothing and every
//     active broker has applied the metadata that moved them.
func (c *Controller) handleHeartbeat(env *sim.Env, from sim.NodeID, m model.BrokerHeartbeatRequest) {
	resp := model.BrokerHeartbeatResponse{CorrelationID: m.CorrelationID}
	if !c.active {
		resp.Error = model.NotController
		resp.Fenced = true
		env.Send(from, resp)
		return
	}
	id := m.BrokerID
	b := c.state.brokers[id]
	if b == nil || b.Epoch != m.BrokerEpoch {
		resp.Error = model.StaleBrokerEpoch
		resp.Fenced = true
		env.Send(from, resp)
		return
	}
	sess := c.session(id)
	sess.lastContact, sess.heard = env.Now(), true
	sess.metadataOffset = m.MetadataOffset
	caughtUp := m.MetadataOffset >= b.registeredAt

	var records []Record
	enteringShutdown := false
	switch {
	case b.Fenced && m.WantShutdown:
		resp.ShouldShutdown = true
	case b.Fenced && !m.WantFence && caughtUp:
		records = append(records, UnfenceBrokerRecord{ID: id, Epoch: b.Epoch})
		records = append(records, c.state.leaderAndISRUpdates(model.NoBroker, id, model.NoBroker, leaderless)...)
	case b.Fenced:
	case m.WantFence:
		records = c.fenceRecords(id)
		resp.ShouldShutdown = m.WantShutdown
	case sess.shuttingDown():
		// CONTROLLED_SHUTDOWN: let it go once nothing is left to move
		// and every active broker knows where its leaderships went.
		if !c.state.leadsAny(id) && sess.shutdownOffset <= c.lowestActiveOffset() {
			records = c.fenceRecords(id)
			resp.ShouldShutdown = true
		}
	case m.WantShutdown && c.state.leadsAny(id):
		records = c.controlledShutdownRecords(id)
		enteringShutdown = true
	case m.WantShutdown:
		records = c.fenceRecords(id)
		resp.ShouldShutdown = true
	}
	answer := func(ok bool) {
		if !ok {
			resp.Error, resp.Fenced, resp.ShouldShutdown = model.NotController, true, false
			env.Send(from, resp)
			return
		}
		if enteringShutdown {
			// QuorumController's processBatchEndOffset: the offset the
			// other brokers must reach before this one may stop.
			c.session(id).shutdownOffset = c.raft.EndOffset()
		}
		resp.CaughtUp = caughtUp
		resp.Fenced = c.state.brokers[id].Fenced
		env.Send(from, resp)
		c.armSessionTimer(env)
	}
	if len(records) == 0 {
		answer(true)
		return
	}
	c.commit(records, answer)
}

// session is a registered broker's session, made fresh if this
// controller has none for it yet.
func (c *Controller) session(id model.BrokerID) *session {
	s := c.sessions[id]
	if s == nil {
		s = newSession(c.env.Now())
		c.sessions[id] = s
	}
	return s
}

// fenceRecords builds the records that fence a broker (Kafka's
// ReplicationControlManager.handleBrokerFenced): it leaves every ISR, the
// partitions it led elect new leaders (never it), and then it is fenced.
// With ELR on, an ISR that falls below min.insync.replicas moves it to the
// ELR, where it stays electable.
func (c *Controller) fenceRecords(id model.BrokerID) []Record {
	records := c.state.leaderAndISRUpdates(id, model.NoBroker, model.NoBroker, inISR(id))
	return append(records, FenceBrokerRecord{ID: id, Epoch: c.state.brokers[id].Epoch})
}

// sessionValid reports whether a broker's session is alive: unfenced and
// heard from within broker.session.timeout.ms. Kafka's
// BrokerHeartbeatManager.hasValidSession has the same two conditions.
func (c *Controller) sessionValid(env *sim.Env, b *brokerRegistration) bool {
	if b.Fenced {
		return false
	}
	return env.Now()-c.session(b.ID).lastContact < c.cfg.Cluster.Controller.BrokerSessionTimeout
}

// fenceExpired queues the fencing of every live broker whose session has
// expired, one operation each, in id order (Kafka's
// maybeFenceOneStaleBroker fences one at a time so that each fencing's
// elections see the previous one's). Each operation checks again when it
// runs: a heartbeat may have come in meanwhile.
func (c *Controller) fenceExpired(env *sim.Env) {
	if !c.active {
		return
	}
	for _, id := range c.state.brokerIDs {
		b := c.state.brokers[id]
		if b.Fenced || c.sessionValid(env, b) || c.session(id).fencing {
			continue
		}
		c.session(id).fencing = true
		c.submit(env, func() {
			b := c.state.brokers[id]
			if !c.active {
				return
			}
			c.session(id).fencing = false
			if b == nil || b.Fenced || c.sessionValid(env, b) {
				c.armSessionTimer(env)
				return
			}
			env.Trace("session-expired", id.String())
			c.commit(c.fenceRecords(id), func(bool) { c.armSessionTimer(env) })
		})
	}
}

// armSessionTimer arms the session timer for the earliest moment a live
// broker's session can expire. Heartbeats only push deadlines later, so a
// timer already armed for an earlier moment stays: when it fires it fences
// whoever did expire and arms the next one. One timer per deadline, rather
// than a periodic check, keeps an idle cluster's event count low.
func (c *Controller) armSessionTimer(env *sim.Env) {
	if !c.active {
		return
	}
	timeout := c.cfg.Cluster.Controller.BrokerSessionTimeout
	var earliest time.Duration
	found := false
	for _, id := range c.state.brokerIDs {
		if c.state.brokers[id].Fenced || c.session(id).fencing {
			continue
		}
		if d := c.session(id).lastContact + timeout; !found || d < earliest {
			earliest, found = d, true
		}
	}
	if !found {
		env.Cancel(c.sessionTimer)
		c.sessionTimer = 0
		return
	}
	if c.sessionTimer != 0 && c.sessionTimerAt <= earliest {
		return
	}
	env.Cancel(c.sessionTimer)
	c.sessionTimer = env.After(earliest-env.Now(), timerSession, 0)
	c.sessionTimerAt = earliest
}

// inISR selects the partitions whose ISR holds id.
func inISR(id model.BrokerID) func(*partitionInfo) bool {
	return func(p *partitionInfo) bool { return slices.Contains(p.ISR, id) }
}

// leaderless selects the partitions without a leader.
func leaderless(p *partitionInfo) bool { return p.Leader == model.NoBroker }

// leaderAndISRUpdates builds the partition changes for the partitions which
// selects, in (topic, partition) order: Kafka's
// ReplicationControlManager.generateLeaderAndIsrUpdates.
//
//   - remove: a broker being fenced (or replaced by a new incarnation); it
//     leaves the ISR and may not lead.
//   - add: a broker being unfenced; it may lead although the state still
//     shows it fenced (its UnfenceBrokerRecord is in the same batch).
//   - unclean: a broker registering after an unclean shutdown; it leaves
//     the ISR and the ELR and may not lead.
//
// All three are NoBroker when unused.
func (s *metadataState) leaderAndISRUpdates(remove, add, unclean model.BrokerID, selects func(*partitionInfo) bool) []Record {
	acceptable := func(r model.BrokerID) bool {
		return r != remove && r != unclean && (r == add || s.active(r))
	}
	var out []Record
	s.eachPartition(func(t *topicInfo, p *partitionInfo) {
		if !selects(p) {
			return
		}
		spec := topicChangeSpec(t, without(without(p.ISR, remove), unclean), acceptable, s.cluster.Controller.EligibleLeaderReplicas)
		spec.uncleanShutdown = unclean
		if r, ok := buildChange(p, spec); ok {
			out = append(out, r)
		}
	})
	return out
}
