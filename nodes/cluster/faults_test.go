package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

func TestLeaderCrashElectsFromISRAndLosesNoAckedWrite(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		h := newHarness(t, seed, safeConfig(), 1, 5*time.Millisecond)
		tp := h.tps[0]
		first := h.Leader(tp)
		h.Sim.At(3*time.Second, "crash leader", func() { h.Sim.Crash(sim.NodeID(first)) })
		h.Sim.At(20*time.Second, "restart", func() { h.Sim.Restart(sim.NodeID(first)) })
		h.Sim.Run(25 * time.Second)
		second := h.Leader(tp)
		if second == first || second == model.NoBroker {
			t.Fatalf("seed %d: leader %v after crashing %v", seed, second, first)
		}
		h.work.Stop()
		h.Sim.Run(40 * time.Second)
		if lost := h.lostAcked(t); len(lost) > 0 {
			t.Fatalf("seed %d: acknowledged writes lost with acks=all, min ISR 2, clean election: %v", seed, lost)
		}
		// The restarted broker rejoined and holds the same log.
		reps := h.Replicas(tp)
		for _, r := range reps {
			if len(r.Records) != len(reps[0].Records) {
				t.Fatalf("seed %d: replica b%d has %d records, b%d %d", seed, r.Broker, len(r.Records), reps[0].Broker, len(reps[0].Records))
			}
		}
		ps, _ := h.Partition(tp)
		if len(ps.ISR) != 3 {
			t.Fatalf("seed %d: ISR %v after healing, want all three", seed, ps.ISR)
		}
	}
}
