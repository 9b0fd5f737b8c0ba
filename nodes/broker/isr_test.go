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
