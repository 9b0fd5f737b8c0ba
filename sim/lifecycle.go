package sim

import (
	"fmt"
	"time"
)

// Start boots a node that is down: a fresh value from its factory, a new
// incarnation, and a call to Start. Restarting after a crash is the same
// call; the node recovers from its disk.
func (s *Sim) Start(id NodeID) {
	n := s.nodes[s.index(id)]
	if n.status != statusDown {
		panic(fmt.Sprintf("sim: start of %v, which is not down", id))
	}
	n.inc++
	n.starts++
	n.node = n.factory()
	n.env = &Env{sim: s, n: n, inc: n.inc, live: true}
	n.status = statusUp
	n.off = false
	n.held = nil
	s.traceOut(n.id, "start", uint64(n.inc), nil)
	n.node.Start(n.env)
}

// Restart is Start, named for the reader of a fault schedule, except for a
// node in a graceful stop (GracefulStopper): it restarts once that stop is
// over, as an operator's restart waits for the old process to exit.
func (s *Sim) Restart(id NodeID) {
	if n := s.nodes[s.index(id)]; n.stopping {
		n.restartAfterStop = true
		return
	}
	s.Start(id)
}

// IsUp reports whether a node is running (up or paused).
func (s *Sim) IsUp(id NodeID) bool { return s.nodes[s.index(id)].status != statusDown }

// IsPaused reports whether a node is paused.
func (s *Sim) IsPaused(id NodeID) bool { return s.nodes[s.index(id)].status == statusPaused }

// Incarnation is how many times the node has been started.
func (s *Sim) Incarnation(id NodeID) uint32 { return s.nodes[s.index(id)].inc }

// Crash kills a node's process: its value is thrown away with everything in
// memory, its timers die, its connections break (peers are told), and its
// disk keeps the page cache, as the operating system would. Crashing a node
// that is down does nothing.
func (s *Sim) Crash(id NodeID) { s.kill(id, "crash") }

// PowerLoss kills a node like Crash and also drops its page cache: only
// synced bytes survive, and the last unsynced write of a file may be torn.
// On the TCP network (Config.TCP) the machine is off until the next Start:
// no kernel sends a reset, so its peers hear nothing until their own
// timeouts fire, and what they send to it gets no answer at all (their
// kernels retransmit) until it boots and resets the connections it no
// longer knows. On the announcing network its peers are told at once, as
// for a crash.
func (s *Sim) PowerLoss(id NodeID) {
	n := s.nodes[s.index(id)]
	s.kill(id, "power-loss")
	n.off = s.cfg.TCP
	n.disk.powerLoss()
	n.disk.powerEpoch++
}

// Shutdown stops a node cleanly: it gets to run Stop (flush, write a
// clean-shutdown marker, tell the controller it is going) if it implements
// Stopper, and is then discarded. Unlike a crash, its connections close
// gracefully: what it sent, from Stop included, is still delivered, as a
// process that exits after writing to its sockets has its data sent before
// the connection closes; then each peer learns of the close. A
// GracefulStopper is not stopped at once: it gets BeginStop and stops when
// it says so or at its deadline (graceful.go).
func (s *Sim) Shutdown(id NodeID) {
	n := s.nodes[s.index(id)]
	if n.status == statusDown {
		return
	}
	if gs, ok := n.node.(GracefulStopper); ok {
		s.beginStop(n, gs)
		return
	}
	if st, ok := n.node.(Stopper); ok {
		n.status = statusUp // a paused node is resumed to shut down
		st.Stop(n.env)
	}
	s.kill(id, "shutdown")
}

// KillHook is told of a node about to be discarded (how is "crash",
// "power-loss" or "shutdown"), while its object is still readable. It is
// the harness's view of a death the node itself never sees: a crashed
// consumer cannot record that it lost its partitions, so the harness does.
// A hook must only read the node and record; it must not act on the
// kernel.
type KillHook func(id NodeID, node Node, how string)

// OnKill adds a hook run at every crash, power loss and shutdown, in the
// order hooks were added, before the node is discarded.
func (s *Sim) OnKill(h KillHook) { s.onKill = append(s.onKill, h) }

func (s *Sim) kill(id NodeID, how string) {
	n := s.nodes[s.index(id)]
	if n.status == statusDown {
		return
	}
	for _, h := range s.onKill {
		h(id, n.node, how)
	}
	s.traceOut(n.id, how, uint64(n.inc), nil)
	n.env.live = false
	n.node = nil
	n.env = nil
	n.status = statusDown
	n.held = nil
	n.stopping, n.restartAfterStop = false, false // a crash ends a graceful stop too
	n.timers.clear()
	for p := range s.nodes {
		if int32(p) == n.idx {
			continue
		}
		switch {
		case s.cfg.TCP && how == "power-loss":
			// No kernel is left to say goodbye.
			s.dropSilently(n.idx, int32(p))
		case s.cfg.TCP && s.link(n.idx, int32(p)).cut:
			// The kernel says goodbye into the cut, and keeps
			// saying it until the cut heals.
			s.orphanClose(n.idx, int32(p))
		case how == "shutdown" && !(s.cfg.TCP && s.link(n.idx, int32(p)).holdsUnsent()):
			s.closeConn(n.idx, int32(p))
		default:
			// A crash on an open path; or a shutdown while its kernel
			// still held data for a path that healed but had not been
			// retransmitted on yet. Linux would send that data on the
			// old connection ahead of the close, and the answers would
			// meet a closed socket; the simulator has one connection a
			// pair, which the next incarnation would inherit with that
			// queue and the answers to it, so the old connection is
			// reset and its data dropped, as for a crash into a cut
			// (orphanClose).
			s.resetConn(n.idx, int32(p))
		}
	}
}

// Pause freezes a node, as a long garbage-collection pause or SIGSTOP does:
// it handles nothing, its connections stay open, and what is sent to it or
// comes due for it waits until Resume.
func (s *Sim) Pause(id NodeID) {
	n := s.nodes[s.index(id)]
	if n.status != statusUp {
		return
	}
	s.traceOut(n.id, "pause", 0, nil)
	n.status = statusPaused
}

// Resume unfreezes a paused node; everything that waited is handled now, in
// the order it came due.
func (s *Sim) Resume(id NodeID) {
	n := s.nodes[s.index(id)]
	if n.status != statusPaused {
		return
	}
	s.traceOut(n.id, "resume", uint64(len(n.held)), nil)
	n.status = statusUp
	held := n.held
	n.held = nil
	for _, ev := range held {
		s.q.push(s.now, ev)
	}
}

// Skew jumps a node's clock by d (negative: backwards), as a clock step
// does.
func (s *Sim) Skew(id NodeID, d time.Duration) {
	n := s.nodes[s.index(id)]
	s.traceOut(n.id, "skew", uint64(d), nil)
	n.clock.skew(s.now, d)
}

// Drift makes a node's clock run fast (rate > 0) or slow (rate < 0) from now
// on: rate 0.01 gains 10ms every second. Timers armed afterwards measure
// their durations on that clock.
func (s *Sim) Drift(id NodeID, rate float64) {
	n := s.nodes[s.index(id)]
	if rate <= -1 {
		panic(fmt.Sprintf("sim: drift %v of %v would stop or reverse its clock", rate, id))
	}
	s.traceOut(n.id, "drift", uint64(int64(rate*1e9)), nil)
	n.clock.setDrift(s.now, rate)
}

// ResyncClock sets a node's clock back to true time with no drift.
func (s *Sim) ResyncClock(id NodeID) {
	n := s.nodes[s.index(id)]
	s.traceOut(n.id, "resync", 0, nil)
	n.clock.reset(s.now)
}

// LocalTime is the node's clock reading now.
func (s *Sim) LocalTime(id NodeID) time.Duration {
	return s.nodes[s.index(id)].clock.local(s.now)
}
