package faults

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Heal ends the safety phase: every fault heals at once, and faults still
// scheduled for later do nothing when they come due (the log records them
// as skipped). Partitions close (every cut, whoever made it), clogs end,
// clocks that faults touched resync, disks that faults slowed get their
// sync latency back, paused nodes resume and crashed nodes restart. The
// nodes restart last, into a world that is already whole.
//
// Heal is called by the harness between kernel slices, not from an event;
// what it does is folded into the trace hash by the kernel controls it
// calls, in a fixed (sorted) order.
func (n *Nemesis) Heal() {
	n.healed = true
	k := n.s
	k.HealAll()
	clear(n.cuts)
	for _, l := range slices.SortedFunc(maps.Keys(n.clogged), cmpLink) {
		k.Clog(node(l.from), node(l.to), 0, 0)
	}
	clear(n.clogged)
	for _, id := range sortedIDs(n.clocked) {
		k.ResyncClock(node(id))
	}
	clear(n.clock)
	for _, id := range slices.Sorted(maps.Keys(n.diskOrig)) {
		k.Disk(node(id)).SetSyncLatency(n.diskOrig[id])
	}
	clear(n.slowDisk)
	back := []model.BrokerID{}
	for _, id := range sortedIDs(n.froze) {
		if k.IsPaused(node(id)) {
			k.Resume(node(id))
			back = append(back, id)
		}
	}
	clear(n.paused)
	for _, id := range sortedIDs(n.crashed) {
		if n.outside[id] {
			continue // decommissioned (retire forgets it anyway)
		}
		if !k.IsUp(node(id)) || k.IsStopping(node(id)) {
			k.Restart(node(id)) // one still stopping restarts once it is down
			back = append(back, id)
		}
	}
	clear(n.down)
	// The log says where the safety phase ended and which nodes the heal
	// brought back, as an instantaneous "heal" at that moment.
	n.log = append(n.log, Event{Time: k.Now(), Edge: EdgeAt, Fault: Fault{At: k.Now(), Kind: KindHeal}, Nodes: back,
		Note: "liveness phase: every fault healed, these nodes resumed or restarted"})
}

// Healed reports whether Heal has run.
func (n *Nemesis) Healed() bool { return n.healed }

func sortedIDs(set map[model.BrokerID]bool) []model.BrokerID {
	return slices.Sorted(maps.Keys(set))
}

func cmpLink(a, b link) int {
	if c := cmp.Compare(a.from, b.from); c != 0 {
		return c
	}
	return cmp.Compare(a.to, b.to)
}

// convergeStep is how much virtual time Converge runs between two looks at
// the system: small enough to time convergence to a useful precision, large
// enough that looking (which may walk every replica's log) stays cheap.
const convergeStep = 50 * time.Millisecond

// StuckError is the liveness violation: the system did not converge within
// the bound after every fault healed. State is the last description the
// converged function gave of what was not yet right.
type StuckError struct {
	Bound time.Duration // the bound it had
	After time.Duration // how long it ran (the bound, or less if the run stopped)
	Stop  sim.StopReason
	State string
}

func (e *StuckError) Error() string {
	why := ""
	if e.Stop != sim.StopTimeLimit {
		why = fmt.Sprintf(" (the run stopped after %v: %s)", e.After, e.Stop)
	}
	return fmt.Sprintf("did not converge within %v of healing%s: %s", e.Bound, why, e.State)
}

// Converge runs the kernel in small slices until converged reports true or
// bound virtual time has passed, and returns how long convergence took.
// converged is called at the start and after every convergeStep of
// virtual time, so the same run calls it at the same moments; it should
// read the system, and may take a harness step as a scenario's own
// liveness check needs (stop the producer once a send has succeeded),
// since it does so at fixed virtual times. When it says no, its string
// describes what is stuck ("t/0 has no leader"), and the last such
// description is carried by the *StuckError returned when the bound passes.
// What converged means is the caller's (scenarios/liveness.go); this is
// only the clock and the loop. A run that stops early (no events left, or
// the event limit) cannot converge later and is reported stuck at once.
func Converge(w World, bound time.Duration, converged func() (bool, string)) (time.Duration, error) {
	k := w.Sim()
	start := k.Now()
	deadline := start + bound
	// The loop is bounded by the number of slices in the bound, plus one
	// look at the start and one at the deadline.
	for {
		ok, state := converged()
		if ok {
			return k.Now() - start, nil
		}
		if k.Now() >= deadline {
			return bound, &StuckError{Bound: bound, After: bound, Stop: sim.StopTimeLimit, State: state}
		}
		next := min(k.Now()+convergeStep, deadline)
		if stop := k.Run(next); stop != sim.StopTimeLimit {
			ok, state := converged()
			if ok {
				return k.Now() - start, nil
			}
			return k.Now() - start, &StuckError{Bound: bound, After: k.Now() - start, Stop: stop, State: state}
		}
	}
}
