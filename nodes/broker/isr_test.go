package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A follower the controller took out of the replicas, without a new leader
// epoch, no longer holds the high watermark back, even while it still
// looks caught up and alive. The leader keeps its follower state until the
// next epoch, so maybeIncrementHW, which walks that state, must ask
// whether each follower is still a replica.
func TestAFollowerNoLongerAReplicaDoesNotHoldTheHighWatermark(t *testing.T) {
	r := newRig(t, testConfig())
	// Broker 3 stops fetching; within replica.lag.time.max.ms the leader
	// still counts it caught up, and the controller still lists it live.
	r.s.At(time.Second, "crash b3", func() { r.s.Crash(3) })
	r.s.At(1500*time.Millisecond, "drop b3 from the replicas", func() {
		st := &r.ctl.state
		st.Replicas, st.ISR = []model.BrokerID{1, 2}, []model.BrokerID{1, 2}
		st.PartitionEpoch++
		r.ctl.offset++
		for _, id := range []sim.NodeID{1, 2} {
			r.s.SendAs(controllerID, id, r.ctl.update(false))
		}
	})
	r.produce(2*time.Second, 1, model.AcksAll, "v0")
	r.s.Run(4 * time.Second)
	if v := r.replica(1); len(v.ISR) != 2 || v.LEO != 1 {
		t.Fatalf("leader ISR %v LEO %d, want [1 2] and 1", v.ISR, v.LEO)
	}
	if hw := r.replica(1).HW; hw != 1 {
		t.Fatalf("leader HW %d, want 1: broker 3 is no replica any more", hw)
	}
	if len(*r.answers) != 1 || (*r.answers)[0].Error != model.NoError {
		t.Fatalf("answers %v, want one OK", *r.answers)
	}
}

// Below min.insync.replicas the high watermark stands still even with ELR
// off (Kafka 3.7+, KAFKA-15583: Partition.maybeIncrementLeaderHW returns
// at once when isUnderMinIsr): an acks=1 write to a leader alone in its
// ISR stays uncommitted. The nearby fine case: with the ISR at the
// minimum (one follower down) the same write is committed.
func TestTheHighWatermarkStopsBelowMinISRWithoutELR(t *testing.T) {
	for _, crash := range [][]sim.NodeID{{2, 3}, {3}} {
		kc := testConfig()
		kc.Controller.EligibleLeaderReplicas = false
		r := newRig(t, kc)
		r.s.At(time.Second, "crash followers", func() {
			for _, id := range crash {
				r.s.Crash(id)
			}
		})
		// The write makes the crashed followers lag; after
		// replica.lag.time.max.ms (30 s) the leader drops them, and the
		// shrink is what could move the high watermark.
		r.produce(2*time.Second, 1, model.AcksLeader, "acks1")
		r.s.Run(50 * time.Second)
		v := r.replica(1)
		if len(v.ISR) != 3-len(crash) || v.LEO != 1 {
			t.Fatalf("followers %v down: ISR %v LEO %d", crash, v.ISR, v.LEO)
		}
		want := model.Offset(1)
		if len(v.ISR) < 2 {
			want = 0
		}
		if v.HW != want {
			t.Fatalf("followers %v down, ISR %v, min ISR 2: HW %d, want %d", crash, v.ISR, v.HW, want)
		}
	}
}

// Kafka 3.6 (no KAFKA-15583; high.watermark.freeze.below.min.isr=false,
// which kafka.version=3.6 sets) commits the same acks=1 write over the
// leader alone once the ISR has shrunk to it: Partition.maybeIncrementLeaderHW
// at the 3.6.0 tag has no min-ISR check. The nearby case is the test
// above: the same schedule with the freeze leaves the high watermark at 0.
func TestKafka36AdvancesTheHighWatermarkBelowMinISR(t *testing.T) {
	kc := testConfig()
	if err := kc.Set("kafka.version", "3.6"); err != nil {
		t.Fatal(err)
	}
	if kc.Broker.HighWatermarkFreezeBelowMinISR || kc.Controller.EligibleLeaderReplicas {
		t.Fatalf("kafka.version=3.6 left the freeze %v, ELR %v", kc.Broker.HighWatermarkFreezeBelowMinISR, kc.Controller.EligibleLeaderReplicas)
	}
	r := newRig(t, kc)
	r.s.At(time.Second, "crash followers", func() {
		r.s.Crash(2)
		r.s.Crash(3)
	})
	r.produce(2*time.Second, 1, model.AcksLeader, "acks1")
	r.s.Run(50 * time.Second)
	v := r.replica(1)
	if len(v.ISR) != 1 || v.LEO != 1 {
		t.Fatalf("ISR %v LEO %d, want the leader alone holding one record", v.ISR, v.LEO)
	}
	if v.HW != 1 {
		t.Fatalf("3.6, ISR %v below min ISR 2: HW %d, want 1 (committed over the leader alone)", v.ISR, v.HW)
	}
}
