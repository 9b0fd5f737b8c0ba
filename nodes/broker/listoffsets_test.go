package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A leader elected with its high watermark behind its epoch's start
// offset answers a consumer's ListOffsets(latest) OFFSET_NOT_AVAILABLE
// (Partition.fetchOffsetForTimestamp), and answers earliest, and a
// follower's latest, as usual. Once a follower's fetch has moved the high
// watermark to the epoch start, latest is answered: the nearby fine case,
// in the same run with the new ISR's follower alive.
func TestListOffsetsLatestWaitsForTheNewLeadersHighWatermark(t *testing.T) {
	for _, followerAlive := range []bool{false, true} {
		r := newRig(t, testConfig())
		// b3 stops: still in the ISR, it holds the high watermark at 0
		// after an acks=1 write that b2 copies.
		r.s.At(time.Second, "crash b3", func() { r.s.Crash(3) })
		r.produce(2*time.Second, 1, model.AcksLeader, "v0")
		// b2 becomes leader at offset 1 with its high watermark still 0;
		// its ISR's other member is b3 (down) or b1 (alive, fetching).
		other := model.BrokerID(3)
		if followerAlive {
			other = 1
		}
		r.s.At(3*time.Second, "elect b2", func() {
			st := &r.ctl.state
			st.Leader, st.ISR = 2, []model.BrokerID{2, other}
			st.LeaderEpoch++
			st.PartitionEpoch++
			r.ctl.offset++
			for _, id := range []sim.NodeID{1, 2} {
				r.s.SendAs(controllerID, id, r.ctl.update(false))
			}
		})
		ask := func(corr int32, spec model.OffsetSpec, replica model.BrokerID) {
			r.s.SendAs(consumerID, 2, model.ListOffsetsRequest{CorrelationID: corr, ReplicaID: replica, TP: r.tp,
				CurrentLeaderEpoch: model.NoEpoch, Spec: spec})
		}
		// Asked at 35 s: b3, out of b2's ISR in the second case, counts
		// as caught up, and holds the high watermark back, until
		// replica.lag.time.max.ms (30 s) has passed since the run began.
		r.s.At(35*time.Second, "list", func() {
			ask(1, model.SpecLatest, model.NoBroker)
			ask(2, model.SpecEarliest, model.NoBroker)
			ask(3, model.SpecLatest, 3)
		})
		r.s.Run(36 * time.Second)
		if v := r.replica(2); !v.Leader || v.LEO != 1 {
			t.Fatalf("b2 leader %v LEO %d, want the leader at 1", v.Leader, v.LEO)
		}
		got := map[int32]model.ListOffsetsResponse{}
		for _, a := range *r.listed {
			got[a.CorrelationID] = a
		}
		latest, earliest, follower := got[1], got[2], got[3]
		if earliest.Error != model.NoError || earliest.Offset != 0 || follower.Error != model.NoError || follower.Offset != 1 {
			t.Fatalf("earliest %v, follower's latest %v: want 0 and 1, no error", earliest, follower)
		}
		hw := r.replica(2).HW
		switch {
		case !followerAlive && (hw != 0 || latest.Error != model.OffsetNotAvailable):
			t.Fatalf("new leader at HW %d, epoch start 1: latest %v, want OFFSET_NOT_AVAILABLE", hw, latest)
		case followerAlive && (hw != 1 || latest.Error != model.NoError || latest.Offset != 1):
			t.Fatalf("new leader at HW %d, epoch start 1: latest %v, want offset 1", hw, latest)
		}
	}
}
