package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// TestRollingUpgradeGivesLeadershipsBack: in rolling-upgrade every broker
// gets its leaderships back before the next one stops. Just before each
// shutdown after the first, every partition is led by its preferred
// replica (the first of its assignment), which only the controller's
// automatic balance brings about (the restarted broker leads nothing
// after its controlled shutdown). With auto.leader.rebalance.enable=false
// the same schedule leaves partitions on other replicas.
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
		stops := shutdownTimes(t, res.Schedule)
		if len(stops) < 4 {
			t.Fatalf("%d shutdowns in %q", len(stops), res.Schedule)
		}
		imbalancedBefore := 0
		for _, at := range stops[1:] {
			if off := offPreferred(res.Observed, at-time.Millisecond); len(off) > 0 {
				imbalancedBefore++
				if on {
					t.Errorf("balance on: before the shutdown at %v, not on their preferred replica: %v", at, off)
				}
			}
		}
		if !on && imbalancedBefore == 0 {
			t.Error("balance off: every partition was back on its preferred replica before every shutdown; the test cannot tell the balance from chance")
		}
	}
}

// shutdownTimes reads the start of each "from T to U shutdown N" line.
func shutdownTimes(t *testing.T, schedule string) []time.Duration {
	t.Helper()
	var out []time.Duration
	for _, line := range strings.Split(schedule, "\n") {
		f := strings.Fields(line)
		if len(f) >= 5 && f[0] == "from" && f[4] == "shutdown" {
			d, err := time.ParseDuration(f[1])
			if err != nil {
				t.Fatalf("schedule line %q: %v", line, err)
			}
			out = append(out, d)
		}
	}
	return out
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
