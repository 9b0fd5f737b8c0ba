package raft

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"kafkasim/model"
	"kafkasim/sim"
)

// fault is one generated fault: at At, Kind hits node Target for Lasting.
type fault struct {
	At      time.Duration
	Kind    string
	Target  int
	Lasting time.Duration
}

func (f fault) String() string {
	return fmt.Sprintf("%v %s n%d for %v", f.At, f.Kind, f.Target, f.Lasting)
}

var faultKinds = []string{"crash", "power-loss", "isolate", "pause", "cut-from-leader"}

// TestPropertySafety sweeps seeds, quorum sizes, snapshot intervals and
// fault lists (crashes, power losses, isolation, pauses, one-way cuts from
// the leader) while a client proposes all along, and checks Raft's safety
// invariants as the nodes report them: one leader per epoch, a committed
// offset never holds two entries, high watermarks never go back within an
// incarnation, and states apply in order. After the faults heal, a leader
// must exist and every node must hold the same entries.
func TestPropertySafety(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64().Draw(rt, "seed")
		voters := rapid.SampledFrom([]int{1, 3, 5}).Draw(rt, "voters")
		snapEvery := rapid.SampledFrom([]int{0, 5, 20}).Draw(rt, "snapshotEvery")
		faults := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) fault {
			return fault{
				At:      time.Duration(rapid.IntRange(0, 20_000).Draw(t, "at")) * time.Millisecond,
				Kind:    rapid.SampledFrom(faultKinds).Draw(t, "kind"),
				Target:  rapid.IntRange(0, voters).Draw(t, "target"),
				Lasting: time.Duration(rapid.IntRange(100, 6_000).Draw(t, "lasting")) * time.Millisecond,
			}
		}), 0, 6).Draw(rt, "faults")
		w := newWorld(rt, seed, worldOptions{voters: voters, observers: 1, snapshotEvery: snapEvery})
		nodes := append(append([]model.BrokerID(nil), w.voters...), w.observers...)
		start := w.s.Now()
		for _, f := range faults {
			id := nodes[f.Target]
			switch f.Kind {
			case "crash", "power-loss":
				w.s.At(start+f.At, f.Kind, func() {
					if !w.s.IsUp(sim.NodeID(id)) {
						return
					}
					if f.Kind == "crash" {
						w.crash(id)
					} else {
						w.powerLoss(id)
					}
					w.s.At(w.s.Now()+f.Lasting, "restart", func() {
						if !w.s.IsUp(sim.NodeID(id)) {
							w.restart(id)
						}
					})
				})
			case "isolate":
				w.s.At(start+f.At, f.Kind, func() { w.isolate(id) })
				w.s.At(start+f.At+f.Lasting, "heal", w.s.HealAll)
			case "pause":
				w.s.At(start+f.At, f.Kind, func() {
					if w.s.IsUp(sim.NodeID(id)) && !w.s.IsPaused(sim.NodeID(id)) {
						w.s.Pause(sim.NodeID(id))
						w.s.At(w.s.Now()+f.Lasting, "resume", func() { w.s.Resume(sim.NodeID(id)) })
					}
				})
			case "cut-from-leader":
				w.s.At(start+f.At, f.Kind, func() {
					if l, ok := w.leader(); ok && l != id {
						w.s.Cut(sim.NodeID(l), sim.NodeID(id))
						w.s.Cut(sim.NodeID(id), sim.NodeID(l))
					}
				})
				w.s.At(start+f.At+f.Lasting, "heal", w.s.HealAll)
			}
		}
		// A client proposes every 50 ms through the faults.
		for i := 0; i < 400; i++ {
			w.propose(fmt.Sprintf("v%d", i))
			w.run(50 * time.Millisecond)
			w.check()
		}
		// Heal everything, then the quorum must converge.
		w.s.HealAll()
		for _, id := range nodes {
			if w.s.IsPaused(sim.NodeID(id)) {
				w.s.Resume(sim.NodeID(id))
			}
			if !w.s.IsUp(sim.NodeID(id)) {
				w.restart(id)
			}
		}
		w.run(10 * time.Second)
		w.waitLeader(20 * time.Second)
		if !w.propose("last") {
			rt.Fatalf("the leader refused after healing")
		}
		w.run(3 * time.Second)
		w.converged(nil)
		vals := w.values(w.voters[0])
		if len(vals) == 0 || vals[len(vals)-1] != "last" {
			rt.Fatalf("the last proposal is not applied everywhere: %v", tail(vals))
		}
		w.check()
	})
}
