package cluster

import (
	"sort"
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

// kip101Scenario plays the KIP-101 data-loss sequence on a 3-replica
// partition (acks=all, min.insync.replicas=2, ELR off as in that era):
//
//  1. a follower C holds the last acknowledged record but its high
//     watermark lags (the update rides on the next fetch response);
//  2. C is cut off from the brokers (not the controller) before that
//     response, and leader A crashes: the controller elects B, and C,
//     becoming B's follower, truncates to its high watermark if the
//     configuration says so, dropping the record;
//  3. B crashes before C can re-fetch: C, still in the ISR, is elected.
//
// It returns the acknowledged values missing from the final leader.
func kip101Scenario(t *testing.T, truncation model.TruncationMode) (lost []string, leader model.BrokerID, c model.BrokerID) {
	kc := safeConfig()
	kc.Broker.Truncation = truncation
	kc.Controller.EligibleLeaderReplicas = false
	h := newHarness(t, 7, kc, 1, 10*time.Millisecond)
	tp := h.tps[0]
	ps, _ := h.Partition(tp)
	a := ps.Leader
	var others []model.BrokerID
	for _, r := range ps.Replicas {
		if r != a {
			others = append(others, r)
		}
	}
	sort.Slice(others, func(i, j int) bool { return others[i] < others[j] })
	// The controller elects the first alive ISR replica in assignment
	// order; C is the other one.
	var b model.BrokerID
	for _, r := range ps.Replicas {
		if r != a {
			b = r
			break
		}
	}
	for _, r := range others {
		if r != b {
			c = r
		}
	}
	h.Sim.At(2*time.Second, "stop producing", func() { h.work.Stop() })
	// By 2.1s the last record is replicated and acknowledged, but C's
	// high watermark waits in a parked fetch (replica.fetch.wait.max.ms).
	h.Sim.At(2100*time.Millisecond, "isolate C from brokers", func() {
		for _, x := range []model.BrokerID{a, b} {
			h.Sim.Cut(sim.NodeID(c), sim.NodeID(x))
			h.Sim.Cut(sim.NodeID(x), sim.NodeID(c))
		}
	})
	h.Sim.At(2200*time.Millisecond, "crash A", func() { h.Sim.Crash(sim.NodeID(a)) })
	h.Sim.At(14*time.Second, "crash B", func() { h.Sim.Crash(sim.NodeID(b)) })
	h.Sim.At(30*time.Second, "heal and restart", func() {
		h.Sim.HealAll()
		h.Sim.Restart(sim.NodeID(a))
		h.Sim.Restart(sim.NodeID(b))
	})
	h.Sim.Run(60 * time.Second)
	if got := h.Leader(tp); got != c {
		t.Fatalf("%s: leader %v at the end, want C=%v (scenario did not play out)", truncation, got, c)
	}
	return h.lostAcked(t), h.Leader(tp), c
}

func TestKIP101TruncationToHighWatermarkLosesACommittedRecord(t *testing.T) {
	lost, _, _ := kip101Scenario(t, model.TruncateHighWatermark)
	if len(lost) == 0 {
		t.Fatal("truncation=high-watermark: expected an acknowledged record to be lost (KIP-101), none was")
	}
	lost, _, _ = kip101Scenario(t, model.TruncateLeaderEpoch)
	if len(lost) > 0 {
		t.Fatalf("truncation=leader-epoch: acknowledged records lost: %v", lost)
	}
}
