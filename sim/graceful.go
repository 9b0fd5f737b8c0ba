package sim

import "time"

// GracefulStopper is a node whose clean shutdown takes time. Kafka's broker
// is one: BrokerServer.shutdown first asks the controller to move its
// leaderships away (BrokerLifecycleManager.beginControlledShutdown) and
// waits on controlledShutdownFuture, bounded by a timeout, while it goes on
// serving; only then does it close its logs and exit. Shutdown hands such a
// node BeginStop instead of stopping it at once; the node keeps running
// (it receives, fires timers, sends) until it calls Env.StopDone or the
// deadline BeginStop returned passes, and then the kernel runs Stop and
// discards it as Shutdown does for any Stopper.
type GracefulStopper interface {
	Stopper
	// BeginStop is told the node was asked to stop. It returns how long
	// the kernel waits for Env.StopDone before it stops the node anyway
	// (virtual time from now); zero or less stops it at once.
	BeginStop(env *Env) (deadline time.Duration)
}

// beginStop starts the graceful stop of a GracefulStopper that is up (a
// paused one is resumed first, as Shutdown does for any node: the operator
// who stops a frozen process thaws it). A node already stopping is left
// alone: a second request neither shortens nor extends the first.
func (s *Sim) beginStop(n *nodeState, gs GracefulStopper) {
	if n.stopping {
		return
	}
	if n.status == statusPaused {
		s.Resume(n.id)
	}
	n.stopping = true
	s.traceOut(n.id, "stop-begin", uint64(n.inc), nil)
	d := gs.BeginStop(n.env)
	if d <= 0 {
		s.finishStop(n, n.inc)
		return
	}
	inc := n.inc
	s.At(s.now+d, "stop-deadline "+n.id.String(), func() { s.finishStop(n, inc) })
}

// StopDone tells the kernel that a node asked to stop gracefully has done
// what it waited for (the controller let it go). The kernel stops it as
// soon as the current handler returns: a node is never discarded in the
// middle of its own handler. Outside a graceful stop it does nothing.
func (e *Env) StopDone() {
	if !e.live || !e.n.stopping || e.n.inc != e.inc {
		return
	}
	n, inc, s := e.n, e.inc, e.sim
	s.At(s.now, "stop-done "+n.id.String(), func() { s.finishStop(n, inc) })
}

// finishStop ends a graceful stop, from StopDone or at its deadline,
// whichever comes first; the other finds the stop over (or the node gone,
// crashed meanwhile, or a later incarnation) and does nothing. A restart
// asked for while it was stopping happens now.
func (s *Sim) finishStop(n *nodeState, inc uint32) {
	if n.inc != inc || !n.stopping || n.status == statusDown {
		return
	}
	restart := n.restartAfterStop
	n.stopping = false
	if n.status == statusPaused {
		n.status = statusUp // a paused node is resumed to shut down
	}
	n.node.(Stopper).Stop(n.env)
	s.kill(n.id, "shutdown")
	if restart { // kill cleared the flag
		s.Start(n.id)
	}
}

// IsStopping reports whether a node is in a graceful stop: still up, but
// asked to stop and waiting for its own signal or its deadline.
func (s *Sim) IsStopping(id NodeID) bool { return s.nodes[s.index(id)].stopping }
