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

// TestQuickRestartDoesNotRetakeLeadership restarts a leader before the
// controller notices it died. The new incarnation must not act on the
// metadata that still names it leader (its high watermark would come from
// the checkpoint, behind what its previous incarnation had exposed): one
// leadership per (partition, epoch), and a leader's high watermark never
// falls within an epoch.
func TestQuickRestartDoesNotRetakeLeadership(t *testing.T) {
	h := newHarness(t, 2, safeConfig(), 1, 5*time.Millisecond)
	tp := h.tps[0]
	a := h.Leader(tp)
	h.Sim.At(3*time.Second, "crash leader", func() { h.Sim.Crash(sim.NodeID(a)) })
	h.Sim.At(3500*time.Millisecond, "restart it at once", func() { h.Sim.Restart(sim.NodeID(a)) })
	// Any metadata change now makes the controller push a snapshot to
	// every broker whose connection dropped, the new incarnation
	// included; that snapshot still names it leader of tp.
	h.Sim.At(4*time.Second, "create a topic", func() {
		h.ControllerNode().CreateTopic(nil, model.TopicSpec{Name: "u", Partitions: 1, ReplicationFactor: 3})
	})
	h.Sim.Run(30 * time.Second)
	type key struct {
		b model.BrokerID
		e model.Epoch
	}
	type term struct {
		tp model.TopicPartition
		e  model.Epoch
	}
	leaders := map[term]int{}
	for _, o := range h.Observed.Leaders {
		leaders[term{o.TP, o.Epoch}]++
		if leaders[term{o.TP, o.Epoch}] > 1 {
			t.Fatalf("epoch %d was taken twice: %+v", o.Epoch, h.Observed.Leaders)
		}
	}
	last := map[key]model.Offset{}
	for _, o := range h.Observed.Final().HighWatermarks {
		k := key{o.Broker, o.Epoch}
		if prev, ok := last[k]; ok && o.HW < prev {
			t.Fatalf("%v under epoch %d: high watermark %d then %d", o.Broker, o.Epoch, prev, o.HW)
		}
		last[k] = o.HW
	}
	if len(h.Observed.Leaders) < 2 {
		t.Fatalf("the crash should have moved leadership: %+v", h.Observed.Leaders)
	}
}

// TestCleanShutdownMovesLeadershipAtOnce: a broker stopped cleanly asks
// the controller to move its leaderships (controlled shutdown), so a new
// leader is elected within milliseconds, not after the session timeout.
func TestCleanShutdownMovesLeadershipAtOnce(t *testing.T) {
	h := newHarness(t, 3, safeConfig(), 1, 5*time.Millisecond)
	tp := h.tps[0]
	a := h.Leader(tp)
	var at time.Duration
	h.Sim.At(3*time.Second, "shutdown leader", func() { at = h.Sim.Now(); h.Sim.Shutdown(sim.NodeID(a)) })
	h.Sim.Run(3100 * time.Millisecond)
	if l := h.Leader(tp); l == a || l == model.NoBroker {
		t.Fatalf("100ms after a clean shutdown of %v the leader is %v", a, l)
	}
	for _, o := range h.Observed.Leaders {
		if o.Time > at && o.Leader != a && o.Time-at > 50*time.Millisecond {
			t.Fatalf("new leader %v took over %v after the shutdown", o.Leader, o.Time-at)
		}
	}
	h.Sim.At(4*time.Second, "restart", func() { h.Sim.Restart(sim.NodeID(a)) })
	h.work.Stop()
	h.Sim.Run(10 * time.Second)
	if lost := h.lostAcked(t); len(lost) > 0 {
		t.Fatalf("acknowledged writes lost across a clean shutdown: %v", lost)
	}
}

// TestCleanStopBeforeRegistrationLeavesNoMarker: a broker back from a power
// loss that is stopped before it re-registered must not leave a
// clean-shutdown marker, or its next incarnation would pass the lost tail
// off as a clean restart (KIP-966).
func TestCleanStopBeforeRegistrationLeavesNoMarker(t *testing.T) {
	h := newHarness(t, 3, safeConfig(), 1, 5*time.Millisecond)
	_, f := h.LeaderAndFollowers(h.tps[0])
	b := sim.NodeID(f[0])
	h.Sim.At(2*time.Second, "power loss", func() { h.Sim.PowerLoss(b) })
	// Restarted at once, it cannot register until the controller lets its
	// old session expire (DUPLICATE_BROKER_REGISTRATION).
	h.Sim.At(2100*time.Millisecond, "restart", func() { h.Sim.Restart(b) })
	h.Sim.At(3*time.Second, "clean stop", func() { h.Sim.Shutdown(b) })
	h.Sim.Run(4 * time.Second)
	if h.Sim.Disk(b).Exists(".kafka_cleanshutdown") {
		t.Fatal("an incarnation that never registered left a clean-shutdown marker")
	}
	// A registered incarnation does leave one.
	h.Sim.At(5*time.Second, "restart", func() { h.Sim.Restart(b) })
	h.Sim.At(20*time.Second, "clean stop", func() { h.Sim.Shutdown(b) })
	h.Sim.Run(21 * time.Second)
	if !h.Sim.Disk(b).Exists(".kafka_cleanshutdown") {
		t.Fatal("a registered incarnation's clean stop left no marker")
	}
}
