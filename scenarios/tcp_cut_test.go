package scenarios

import (
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// A 3 s cut of one ISR follower under acks=all stalls writes no longer than
// the heal, plus one retransmission backoff, plus a fetch round. The
// follower stays in the ISR (replica.lag.time.max.ms is 30 s), so every
// acks=all write waits for it. Nothing announces the cut: the follower's
// fetch and the leader's answer sit in their kernels' retransmission
// queues, and the first retransmission after the heal delivers them. The
// retransmission timeout doubles from 200 ms (200 ms, 400 ms, 800 ms,
// 1.6 s, 3.2 s), so whatever was queued during a 3 s cut goes out at most
// 3.2 s after the heal; the follower then fetches again at once and the
// leader advances its high watermark. Before the network retransmitted,
// the fetch was lost in the cut and writes stalled ~31 s, until the
// follower's fetch timed out; on the announcing network (network.tcp=false)
// TestFollowerCutOnTheAnnouncingNetwork shows the difference.
func TestFollowerCutStallsWritesOnlyUntilTheFirstRetransmission(t *testing.T) {
	const (
		cutAt  = 10 * time.Second
		healAt = 13 * time.Second
		// The retransmission backoff in force at the heal: the fifth
		// timeout, which covers 3 s to 6.2 s after the first
		// unanswered send.
		rtoAtHeal = 3200 * time.Millisecond
	)
	sc := Scenario{
		Name:   "follower-cut-test",
		Spec:   fixture.Spec{Partitions: 1},
		Config: safe,
		Schedule: func(*Scripted) faults.Schedule {
			return faults.MustParse("test", "from 10s to 13s partition isolate isr-follower t/0")
		},
		Until: 30 * time.Second,
	}
	set := []string{"network.tcp=true"} // the default, named so that the test says what it needs
	kc, err := ConfigFor(sc, set)
	if err != nil {
		t.Fatal(err)
	}
	if !kc.Broker.NetworkTCP || kc.Producer.Acks != model.AcksAll || kc.Broker.ReplicaLagTimeMax <= healAt-cutAt {
		t.Fatalf("the test needs acks=all and a follower that stays in the ISR: acks=%v replica.lag.time.max.ms=%v", kc.Producer.Acks, kc.Broker.ReplicaLagTimeMax)
	}
	// A fetch round: the leader may hold the follower's next fetch for
	// replica.fetch.wait.max.ms, plus link latencies and the producer's
	// linger.
	fetchRound := kc.Broker.ReplicaFetchWaitMax + kc.Producer.Linger + 100*time.Millisecond
	bound := healAt + rtoAtHeal + fetchRound
	for seed := uint64(1); seed <= 4; seed++ {
		res, err := Run(sc, seed, Options{Set: set, LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK {
			t.Fatalf("seed %d: run failed: %v %s", seed, res.Violations, res.Liveness)
		}
		stalled, worst := 0, time.Duration(0)
		for _, op := range res.History {
			if op.F != model.FSend || op.Type != model.OpOK || op.Time < cutAt || op.Time >= healAt {
				continue
			}
			stalled++
			worst = max(worst, op.End)
		}
		if stalled == 0 {
			t.Fatalf("seed %d: no write invoked during the cut was acknowledged\n%v", seed, res.FaultLog)
		}
		if worst <= healAt {
			t.Fatalf("seed %d: the writes during the cut were acknowledged by %v, before the heal: the cut did not hold them\n%v", seed, worst, res.FaultLog)
		}
		if worst > bound {
			t.Fatalf("seed %d: a write invoked during the cut was acknowledged at %v, after heal + retransmission backoff + fetch round = %v\n%v", seed, worst, bound, res.FaultLog)
		}
		t.Logf("seed %d: %d writes invoked during the cut, the last acknowledged at %v (bound %v)", seed, stalled, worst, bound)
	}
}

// The same cut on the announcing network, where the cut resets the
// connection and what is sent into it is lost, stalls the writes until the
// follower's fetch times out (request.timeout.ms): far past the bound the
// TCP network keeps. This is what the bound above discriminates.
func TestFollowerCutOnTheAnnouncingNetwork(t *testing.T) {
	sc := Scenario{
		Name:   "follower-cut-test",
		Spec:   fixture.Spec{Partitions: 1},
		Config: safe,
		Schedule: func(*Scripted) faults.Schedule {
			return faults.MustParse("test", "from 10s to 13s partition isolate isr-follower t/0")
		},
		Until: 60 * time.Second,
	}
	res, err := Run(sc, 1, Options{Set: []string{"network.tcp=false"}, LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	worst := time.Duration(0)
	for _, op := range res.History {
		if op.F == model.FSend && op.Type == model.OpOK && op.Time >= 10*time.Second && op.Time < 13*time.Second {
			worst = max(worst, op.End)
		}
	}
	if worst < 13*time.Second+10*time.Second {
		t.Fatalf("the writes during the cut were acknowledged by %v: the announcing network should have stalled them until a fetch timeout", worst)
	}
	t.Logf("announcing network: the last write invoked during the cut was acknowledged at %v", worst)
}
