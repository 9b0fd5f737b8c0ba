package scenarios

import (
	"encoding/json"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// crashLeaderScenario crashes t/0's leader from 10s to 30s under a safe
// configuration, with the given broker session timeout.
func crashLeaderScenario(text string) Scenario {
	return Scenario{
		Name:     "failover-test",
		Spec:     fixture.Spec{Partitions: 1},
		Config:   safe,
		Schedule: func(*Scripted) faults.Schedule { return faults.MustParse("test", text) },
		Until:    40 * time.Second,
	}
}

// The controller fences a silent broker broker.session.timeout.ms after it
// last heard from it, and the leader heartbeats every
// broker.heartbeat.interval.ms: a leader that crashes at 10s was last heard
// at most one interval (plus a link latency) before, so the election comes
// between timeout-interval and timeout after the crash, plus the
// metadata push to the new leader.
func TestFailoverElectionFollowsTheSessionTimeout(t *testing.T) {
	for _, timeout := range []time.Duration{5 * time.Second, 9 * time.Second} {
		sc := crashLeaderScenario("from 10s to 30s crash leader-of t/0")
		set := []string{"broker.session.timeout.ms=" + timeout.String()}
		kc, err := ConfigFor(sc, set)
		if err != nil {
			t.Fatal(err)
		}
		hb := kc.Controller.BrokerHeartbeatInterval
		res, err := Run(sc, 3, Options{Set: set, LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Failovers) != 1 {
			t.Fatalf("timeout %v: want one failover, got %+v\n%v", timeout, res.Failovers, res.FaultLog)
		}
		f := res.Failovers[0]
		const slack = 200 * time.Millisecond // link latencies and the metadata push
		if f.TP != model.TP("t", 0) || f.Cause != faults.KindCrash || f.At != 10*time.Second {
			t.Fatalf("failover %+v", f)
		}
		if f.NewLeader == model.NoBroker || f.NewLeader == f.OldLeader {
			t.Fatalf("timeout %v: new leader %v after old %v", timeout, f.NewLeader, f.OldLeader)
		}
		if f.Election < timeout-hb-slack || f.Election > timeout+slack {
			t.Fatalf("timeout %v: election after %v, want within [%v, %v]", timeout, f.Election, timeout-hb, timeout+slack)
		}
		if f.FirstAck < f.Election || f.FirstAck > f.Election+5*time.Second {
			t.Fatalf("first ack %v, election %v", f.FirstAck, f.Election)
		}
		if f.Unavailable < f.FirstAck || f.ConsumerGap <= 0 || f.Truncated {
			t.Fatalf("unavailable %v first ack %v gap %v truncated %v", f.Unavailable, f.FirstAck, f.ConsumerGap, f.Truncated)
		}
	}
}

// A fault that hits no leader, or hits a leader already down, is not a
// failover; a second crash of the new leader is.
func TestFailoverCountsOnlyLeadersTakenAway(t *testing.T) {
	sc := crashLeaderScenario("from 10s to 30s crash leader-of t/0\nfrom 11s to 12s crash leader-of t/0\nfrom 25s to 26s pause isr-follower t/0\n")
	res, err := Run(sc, 5, Options{LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failovers) != 1 {
		t.Fatalf("want one failover (the second crash hit the down leader, the pause a follower), got %+v\n%v", res.Failovers, res.FaultLog)
	}
}

func TestFailoverMeasuresFromTheHistoryAlone(t *testing.T) {
	tp := model.TP("t", 0)
	s := time.Second
	send := func(i int, end time.Duration, off model.Offset, v string) model.Op {
		return model.Op{Index: i, Type: model.OpOK, F: model.FSend, Time: end - 10*time.Millisecond, End: end, TP: tp, Value: v, Offset: off}
	}
	poll := func(i int, end time.Duration) model.Op {
		return model.Op{Index: i, Type: model.OpOK, F: model.FPoll, Time: end - 10*time.Millisecond, End: end,
			Records: []model.PartitionRecords{{TP: tp, Records: []model.OffsetValue{{Offset: 0, Value: "a"}}}}}
	}
	// The poll at 12s returns records fetched before the fault: the gap is
	// the one that holds the election (13s), from 12s to 15s.
	h := model.History{send(0, 9*s, 0, "a"), send(1, 9500*time.Millisecond, 1, "b"), poll(2, 9600*time.Millisecond),
		poll(3, 12*s), send(4, 14*s, 1, "c"), poll(5, 15*s), send(6, 16*s, 2, "d")}
	leaders := []model.LeaderObservation{{Time: s, TP: tp, Epoch: 0, Leader: 1}, {Time: 13 * s, TP: tp, Epoch: 1, Leader: 2}}
	log := []faults.Event{{Time: 10 * s, Edge: faults.EdgeAt, Fault: faults.Fault{At: 10 * s, Kind: faults.KindPowerLoss, Target: faults.Selector{Kind: faults.SelNode, Node: 1}}, Nodes: []model.BrokerID{1}}}
	got := MeasureFailovers(h, leaders, log)
	want := Failover{TP: tp, Cause: faults.KindPowerLoss, Fault: "at 10s power-loss b1", At: 10 * s, OldLeader: 1, NewLeader: 2,
		Election: 3 * s, FirstAck: 4 * s, Unavailable: 4500 * time.Millisecond, ConsumerGap: 3 * s, Truncated: true}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	b, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Failover
	if err := json.Unmarshal(b, &back); err != nil || back != want {
		t.Fatalf("JSON %s read back as %+v (%v)", b, back, err)
	}
}

// When no one is elected (a pause the leader comes back from), the outage
// is the longest gap in acknowledged writes up to the fault's end, not the
// short gap that holds the fault's instant between writes already answered
// when it hit; a longer gap after the fault's end is someone else's.
func TestFailoverWithoutElectionMeasuresTheOutage(t *testing.T) {
	tp := model.TP("t", 0)
	ms := time.Millisecond
	send := func(i int, end time.Duration) model.Op {
		return model.Op{Index: i, Type: model.OpOK, F: model.FSend, Time: end - 10*ms, End: end, TP: tp, Value: "v", Offset: model.Offset(i)}
	}
	// Answered at 10.001 s, the response already on the wire at 10 s.
	h := model.History{send(0, 9980*ms), send(1, 10001*ms), send(2, 17020*ms), send(3, 17040*ms), send(4, 30000*ms), send(5, 30020*ms)}
	leaders := []model.LeaderObservation{{Time: time.Second, TP: tp, Epoch: 0, Leader: 1}}
	pause := faults.Fault{At: 10 * time.Second, End: 17 * time.Second, Kind: faults.KindPause, Target: faults.Selector{Kind: faults.SelNode, Node: 1}}
	log := []faults.Event{{Time: 10 * time.Second, Edge: faults.EdgeStart, Fault: pause, Nodes: []model.BrokerID{1}}}
	got := MeasureFailovers(h, leaders, log)
	if len(got) != 1 || got[0].NewLeader != model.NoBroker {
		t.Fatalf("got %+v", got)
	}
	if f := got[0]; f.Unavailable != 7019*ms || f.FirstAck != 7020*ms {
		t.Fatalf("unavailable %v first ack %v, want 7.019s and 7.02s", f.Unavailable, f.FirstAck)
	}
	// The nearby case: an instantaneous fault with no one elected keeps
	// the gap that holds it.
	crash := faults.Fault{At: 10 * time.Second, Kind: faults.KindCrash, Target: pause.Target}
	log = []faults.Event{{Time: 10 * time.Second, Edge: faults.EdgeAt, Fault: crash, Nodes: []model.BrokerID{1}}}
	if got := MeasureFailovers(h, leaders, log); len(got) != 1 || got[0].Unavailable != 21*ms || got[0].FirstAck != ms {
		t.Fatalf("instantaneous: got %+v, want unavailable 21ms, first ack 1ms", got)
	}
}
