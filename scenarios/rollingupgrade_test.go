package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// TestRollingUpgradeGivesLeadershipsBack: in rolling-upgrade the
// controller's automatic balance gives every broker its leaderships back
// (the restarted broker leads nothing after its controlled shutdown, and
// the rolling restart waits for the ISR only, as an operator's script
// does): 15 s after the last broker is back (the 10 s check interval and
// slack), every partition is led by its preferred replica, the first of
// its assignment. With auto.leader.rebalance.enable=false the same
// schedule leaves partitions on other replicas.
func TestRollingUpgradeGivesLeadershipsBack(t *testing.T) {
	sc, ok := Find("rolling-upgrade")
	if !ok {
		t.Fatal("rolling-upgrade is not in the catalog")
	}
	for _, on := range []bool{true, false} {
		var set []string
		if !on {
			set = []string{"auto.leader.rebalance.enable=false"}
		}
		res, err := Run(sc, 1, Options{Set: set, LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if on && !res.AsExpected {
			t.Fatalf("rolling-upgrade seed 1: %v %s", res.Violations, res.Liveness)
		}
		done, returns := rollingDone(t, res.FaultLog)
		if returns != 6 {
			t.Fatalf("%d brokers back in the ISR, want 6 (three, twice round): %q", returns, res.FaultLog)
		}
		off := offPreferred(res.Observed, done+15*time.Second)
		if on && len(off) > 0 {
			t.Errorf("balance on: 15 s after the rolling restart, not on their preferred replica: %v", off)
		}
		if !on && len(off) == 0 {
			t.Error("balance off: every partition was back on its preferred replica; the test cannot tell the balance from chance")
		}
	}
}

// rollingDone reads from a run's fault log when its rolling restart ended
// and how many brokers it waited for until they were back in the ISR.
func rollingDone(t *testing.T, log []string) (done time.Duration, returns int) {
	t.Helper()
	for _, line := range log {
		if strings.Contains(line, "rolling-restart") && strings.Contains(line, "back in the ISR") {
			returns++
		}
		if strings.Contains(line, "(rolling restart done)") {
			d, err := time.ParseDuration(strings.Fields(line)[0])
			if err != nil {
				t.Fatalf("fault log line %q: %v", line, err)
			}
			done = d
		}
	}
	if done == 0 {
		t.Fatalf("the rolling restart did not finish: %q", log)
	}
	return done, returns
}

// offPreferred lists the partitions whose leader at time at (the last
// leadership report by then) is not the first replica of their assignment.
func offPreferred(obs model.Observations, at time.Duration) []string {
	preferred := map[model.TopicPartition]model.BrokerID{}
	for _, a := range obs.Assignments {
		if a.Time <= at && len(a.Replicas) > 0 {
			preferred[a.TP] = a.Replicas[0]
		}
	}
	leader := map[model.TopicPartition]model.LeaderObservation{}
	for _, l := range obs.Leaders {
		if cur, seen := leader[l.TP]; l.Time <= at && (!seen || l.Epoch >= cur.Epoch) {
			leader[l.TP] = l
		}
	}
	var off []string
	for tp, p := range preferred {
		if l, ok := leader[tp]; !ok || l.Leader != p {
			off = append(off, tp.String())
		}
	}
	slices.Sort(off)
	return off
}
