package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// The rule itself: live, fetched in this epoch, and the fetch's broker
// epoch is the metadata's (or -1 on either side).
func TestISREligibilityChecksTheBrokerEpoch(t *testing.T) {
	b := &Broker{liveEpochs: map[model.BrokerID]model.Epoch{3: 7, 4: model.NoEpoch, 6: 9}, shuttingDown: map[model.BrokerID]bool{6: true}}
	cases := []struct {
		fs   followerState
		want bool
	}{
		{followerState{id: 3, leo: 5, brokerEpoch: 7}, true},
		{followerState{id: 3, leo: 5, brokerEpoch: 6}, false}, // a previous incarnation's fetch
		{followerState{id: 3, leo: 5, brokerEpoch: model.NoEpoch}, true},
		{followerState{id: 3, leo: -1, brokerEpoch: 7}, false}, // no fetch this epoch
		{followerState{id: 4, leo: 5, brokerEpoch: 2}, true},   // no epoch in the metadata
		{followerState{id: 5, leo: 5, brokerEpoch: 7}, false},  // not live
		{followerState{id: 6, leo: 5, brokerEpoch: 9}, false},  // in controlled shutdown
	}
	for _, c := range cases {
		if got := b.isrEligible(&c.fs); got != c.want {
			t.Errorf("follower %+v with metadata epochs %v: eligible %v, want %v", c.fs, b.liveEpochs, got, c.want)
		}
	}
}

// A new leader does not wait for a replica outside its ISR that has not
// fetched from it: b3, crashed, is in the replicas but not in b2's ISR, and
// b2's high watermark moves as soon as b1 fetches. Without the rule b3
// counted as caught up for the first replica.lag.time.max.ms of the run
// and held the high watermark back. The nearby fine case: b3 alive and
// fetching rejoins the ISR.
func TestANewLeaderDoesNotWaitForAReplicaThatNeverFetchedFromIt(t *testing.T) {
	for _, b3Alive := range []bool{false, true} {
		r := newRig(t, testConfig())
		if !b3Alive {
			r.s.At(time.Second, "crash b3", func() { r.s.Crash(3) })
		}
		r.produce(2*time.Second, 1, model.AcksLeader, "v0")
		r.s.At(3*time.Second, "elect b2 with ISR [b1 b2]", func() {
			st := &r.ctl.state
			st.Leader, st.ISR = 2, []model.BrokerID{1, 2}
			st.LeaderEpoch++
			st.PartitionEpoch++
			r.ctl.offset++
			for _, id := range []sim.NodeID{1, 2, 3} {
				r.s.SendAs(controllerID, id, r.ctl.update(false))
			}
		})
		r.produce(3500*time.Millisecond, 2, model.AcksLeader, "v1")
		r.s.Run(5 * time.Second)
		v := r.replica(2)
		if !v.Leader || v.LEO != 2 || v.HW != 2 {
			t.Fatalf("b3 alive %v: b2 leader %v LEO %d HW %d, want HW 2", b3Alive, v.Leader, v.LEO, v.HW)
		}
		if b3Alive && len(v.ISR) != 3 {
			t.Fatalf("b3 alive and fetching: ISR %v, want it back", v.ISR)
		}
	}
}
