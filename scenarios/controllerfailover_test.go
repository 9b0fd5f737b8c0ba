package scenarios

import (
	"encoding/json"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
)

func nodeFault(at time.Duration, kind faults.Kind, id model.BrokerID) faults.Event {
	return faults.Event{Time: at, Edge: faults.EdgeStart, Fault: faults.Fault{At: at, End: at + time.Second, Kind: kind, Target: faults.Node(id)}, Nodes: []model.BrokerID{id}}
}

// quorumStory: 100 leads epoch 1 and commits up to 20 (exclusive); it
// crashes at 10s; 101 wins epoch 2 at 11.2s and commits its LeaderChange
// entry at offset 20 at 11.25s; 102 applied an old entry at 11.1s, which
// does not count. Then 101 is paused at 20s and 102 wins epoch 3 at 21s,
// committing at 21.5s.
func quorumStory() model.QuorumObservations {
	s := time.Second
	ms := time.Millisecond
	return model.QuorumObservations{
		Voters: []model.BrokerID{100, 101, 102},
		Leaders: []model.QuorumLeaderObservation{
			{Time: s, Node: 100, Incarnation: 1, Epoch: 1},
			{Time: 11200 * ms, Node: 101, Incarnation: 1, Epoch: 2},
			{Time: 21 * s, Node: 102, Incarnation: 1, Epoch: 3},
		},
		HighWatermarks: []model.QuorumHWObservation{
			{Time: 2 * s, Node: 100, Incarnation: 1, Epoch: 1, HW: 10},
			{Time: 9 * s, Node: 100, Incarnation: 1, Epoch: 1, HW: 20},
			{Time: 11250 * ms, Node: 101, Incarnation: 1, Epoch: 2, HW: 21},
			{Time: 15 * s, Node: 101, Incarnation: 1, Epoch: 2, HW: 30},
		},
		Applied: []model.QuorumAppliedObservation{
			{Time: 9 * s, Node: 100, Incarnation: 1, Offset: 19, Epoch: 1},
			{Time: 11100 * ms, Node: 102, Incarnation: 1, Offset: 19, Epoch: 1},
			{Time: 11250 * ms, Node: 101, Incarnation: 1, Offset: 20, Epoch: 2},
			{Time: 21500 * ms, Node: 102, Incarnation: 1, Offset: 30, Epoch: 3},
		},
	}
}

func TestControllerFailoverMeasuresElectionAndFirstCommit(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	log := []faults.Event{
		nodeFault(5*s, faults.KindPause, 102),      // not the leader: no failover
		nodeFault(10*s, faults.KindCrash, 100),     // the leader
		nodeFault(10500*ms, faults.KindCrash, 100), // the same leadership again: not a new failover
		nodeFault(20*s, faults.KindPause, 101),
		nodeFault(25*s, faults.KindClog, 102), // a clog takes no leadership
	}
	got := MeasureControllerFailovers(quorumStory(), log)
	want := []ControllerFailover{
		{Cause: faults.KindCrash, Fault: "from 10s to 11s crash b100", At: 10 * s, OldLeader: 100, OldEpoch: 1, OldHW: 20,
			NewLeader: 101, NewEpoch: 2, Election: 1200 * ms, FirstCommit: 1250 * ms},
		{Cause: faults.KindPause, Fault: "from 20s to 21s pause b101", At: 20 * s, OldLeader: 101, OldEpoch: 2, OldHW: 30,
			NewLeader: 102, NewEpoch: 3, Election: s, FirstCommit: 1500 * ms},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("failover %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
		}
	}
	b, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	var back ControllerFailover
	if err := json.Unmarshal(b, &back); err != nil || back != want[0] {
		t.Fatalf("JSON %s read back as %+v (%v)", b, back, err)
	}
}

func TestControllerFailoverWithoutNewLeader(t *testing.T) {
	s := time.Second
	q := quorumStory()
	q.Leaders = q.Leaders[:1] // nobody is elected after 100's epoch 1
	// Cut from the brokers only, the leader keeps its quorum: no failover.
	ev := nodeFault(10*s, faults.KindIsolate, 100)
	ev.Fault.Scope = faults.ScopeBrokers
	if got := MeasureControllerFailovers(q, []faults.Event{ev}); len(got) != 0 {
		t.Fatalf("isolation from the brokers: %+v", got)
	}
	// A pause the leadership outlived: no failover either.
	if got := MeasureControllerFailovers(q, []faults.Event{nodeFault(10*s, faults.KindPause, 100)}); len(got) != 0 {
		t.Fatalf("a pause nobody replaced the leader in: %+v", got)
	}
	// A crash takes the leadership whatever follows: counted, unmeasured.
	got := MeasureControllerFailovers(q, []faults.Event{nodeFault(10*s, faults.KindCrash, 100)})
	if len(got) != 1 || got[0].NewLeader != model.NoBroker || got[0].Election != Unmeasured || got[0].FirstCommit != Unmeasured {
		t.Fatalf("got %+v", got)
	}
	b, _ := json.Marshal(got[0])
	var back ControllerFailover
	if err := json.Unmarshal(b, &back); err != nil || back != got[0] {
		t.Fatalf("JSON %s read back as %+v (%v)", b, back, err)
	}
}

func TestControllerFailoverGoesToTheFaultThatTookTheLeadership(t *testing.T) {
	// 100 is paused at 5s and resumes in office; it is crashed at 10s and
	// 101 takes over at 11.2s: one failover, the crash's.
	s := time.Second
	got := MeasureControllerFailovers(quorumStory(), []faults.Event{nodeFault(5*s, faults.KindPause, 100), nodeFault(10*s, faults.KindCrash, 100)})
	if len(got) != 1 || got[0].Cause != faults.KindCrash || got[0].Election != 1200*time.Millisecond {
		t.Fatalf("got %+v", got)
	}
	// An isolation from the controllers at 10s that 101 replaces it in is
	// a failover.
	ev := nodeFault(10*s, faults.KindIsolate, 100)
	ev.Fault.Scope = faults.ScopeControllers
	got = MeasureControllerFailovers(quorumStory(), []faults.Event{ev})
	if len(got) != 1 || got[0].NewLeader != 101 || got[0].FirstCommit != 1250*time.Millisecond {
		t.Fatalf("got %+v", got)
	}
}

func TestControllerFailoverNeedsTheNewLeadersOwnCommit(t *testing.T) {
	// 101 is elected but crashes before committing anything; its next
	// incarnation's applies do not count for this failover.
	q := quorumStory()
	q.Applied[2].Incarnation = 2
	got := MeasureControllerFailovers(q, []faults.Event{nodeFault(10*time.Second, faults.KindCrash, 100)})
	if len(got) != 1 || got[0].NewLeader != 101 || got[0].Election != 1200*time.Millisecond || got[0].FirstCommit != Unmeasured {
		t.Fatalf("got %+v", got)
	}
}
