package cluster

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// stopWatch records, at the moment a broker is discarded by a shutdown,
// what the active controller says about the partition it led.
type stopWatch struct {
	at    time.Duration
	state model.PartitionState
	how   string
}

func watchStop(h *harness, id model.BrokerID, tp model.TopicPartition) *stopWatch {
	w := &stopWatch{at: -1}
	h.Sim.OnKill(func(n sim.NodeID, _ sim.Node, how string) {
		if n == sim.NodeID(id) && w.at < 0 {
			w.at, w.how = h.Sim.Now(), how
			w.state, _ = h.Partition(tp)
		}
	})
	return w
}

// TestControlledShutdownMovesLeadershipsBeforeTheBrokerStops: a leader
// asked to stop cleanly stays up while the controller moves its
// leadership and takes it out of the ISR; it stops only then, within a
// few heartbeats, and no acknowledged write is lost.
func TestControlledShutdownMovesLeadershipsBeforeTheBrokerStops(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		h := newHarness(t, seed, safeConfig(), 1, 5*time.Millisecond)
		tp := h.tps[0]
		a := h.Leader(tp)
		w := watchStop(h, a, tp)
		asked := 3 * time.Second
		h.Sim.At(asked, "shutdown leader", func() { h.Sim.Shutdown(sim.NodeID(a)) })
		h.Sim.At(asked+time.Millisecond, "still up", func() {
			if !h.Sim.IsUp(sim.NodeID(a)) || !h.Sim.IsStopping(sim.NodeID(a)) {
				t.Errorf("seed %d: b%d stopped before the controller answered", seed, a)
			}
		})
		h.Sim.Run(20 * time.Second)
		if w.at < 0 || w.how != "shutdown" {
			t.Fatalf("seed %d: b%d never stopped (%q)", seed, a, w.how)
		}
		if w.state.Leader == a || slices.Contains(w.state.ISR, a) {
			t.Fatalf("seed %d: b%d stopped while the controller still had it leading or in the ISR: %+v", seed, a, w.state)
		}
		if w.state.Leader == model.NoBroker {
			t.Fatalf("seed %d: no new leader when b%d stopped: %+v", seed, a, w.state)
		}
		t.Logf("seed %d: b%d stopped %v after it was asked to", seed, a, w.at-asked)
		if d := w.at - asked; d > 10*time.Second {
			t.Fatalf("seed %d: the controlled shutdown took %v; the controller was reachable", seed, d)
		}
		h.work.Stop()
		h.Sim.Run(30 * time.Second)
		if lost := h.lostAcked(t); len(lost) > 0 {
			t.Fatalf("seed %d: acknowledged writes lost across a controlled shutdown: %v", seed, lost)
		}
	}
}

// TestControlledShutdownStopsAtItsDeadlineWithoutTheController: a broker
// cut off from every controller hears no answer; it goes on running for
// the five minutes Kafka's shutdown waits and then stops cleanly anyway
// (its clean-shutdown marker is written).
func TestControlledShutdownStopsAtItsDeadlineWithoutTheController(t *testing.T) {
	h := newHarness(t, 1, safeConfig(), 1, 5*time.Millisecond)
	tp := h.tps[0]
	a := h.Leader(tp)
	w := watchStop(h, a, tp)
	cut, asked := 3*time.Second, 3100*time.Millisecond
	h.Sim.At(cut, "cut from the controllers", func() {
		for _, c := range h.Controllers {
			h.Sim.Cut(sim.NodeID(a), sim.NodeID(c))
			h.Sim.Cut(sim.NodeID(c), sim.NodeID(a))
		}
	})
	h.Sim.At(asked, "shutdown", func() { h.Sim.Shutdown(sim.NodeID(a)) })
	h.Sim.At(20*time.Second, "stop writing", func() { h.work.Stop() })
	h.Sim.Run(asked + 5*time.Minute - time.Millisecond)
	if !h.Sim.IsUp(sim.NodeID(a)) || w.at >= 0 {
		t.Fatalf("b%d stopped at %v, before its five-minute wait ran out", a, w.at)
	}
	h.Sim.Run(asked + 5*time.Minute + time.Millisecond)
	if h.Sim.IsUp(sim.NodeID(a)) || w.at != asked+5*time.Minute || w.how != "shutdown" {
		t.Fatalf("b%d: stopped at %v (%q), want a clean stop at %v", a, w.at, w.how, asked+5*time.Minute)
	}
	if !h.Sim.Disk(sim.NodeID(a)).Exists(".kafka_cleanshutdown") {
		t.Fatal("a stop forced at the deadline is still clean: the marker must be written")
	}
}

// TestControlledShutdownReplaysTheSame: the same seed gives the same
// trace through a controlled shutdown and the restart after it.
func TestControlledShutdownReplaysTheSame(t *testing.T) {
	run := func() uint64 {
		h := newHarness(t, 4, safeConfig(), 1, 5*time.Millisecond)
		a := h.Leader(h.tps[0])
		h.Sim.At(3*time.Second, "shutdown", func() { h.Sim.Shutdown(sim.NodeID(a)) })
		h.Sim.At(3500*time.Millisecond, "restart", func() { h.Sim.Restart(sim.NodeID(a)) })
		h.Sim.Run(15 * time.Second)
		if h.Sim.Incarnation(sim.NodeID(a)) != 2 {
			t.Fatalf("b%d: incarnation %d, want the restart after its stop", a, h.Sim.Incarnation(sim.NodeID(a)))
		}
		return h.Sim.Hash()
	}
	if x, y := run(), run(); x != y {
		t.Fatalf("same seed, trace hashes %x and %x", x, y)
	}
}
