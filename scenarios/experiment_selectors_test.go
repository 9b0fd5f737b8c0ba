package scenarios

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// TestExperimentSelectors: in a run, member-of g #2 hits the group's
// second member; out-of-isr finds nobody while every replica is in sync,
// and finds the follower that follower-of paused once it has dropped out
// of the ISR (replica.lag.time.max.ms 3 s, paused 6 s).
func TestExperimentSelectors(t *testing.T) {
	const file = `name = "selectors"
[config]
"default.replication.factor" = 3
"min.insync.replicas" = 2
"auto.offset.reset" = "earliest"
"replica.lag.time.max.ms" = "3s"
[[workload.groups]]
name = "g"
members = 3
[faults]
schedule = """
from 2s to 4s crash member-of g #2
at 4500ms crash out-of-isr t/0
from 5s to 12s pause follower-of t/0 #1
at 11s crash out-of-isr t/0
"""
[phases]
safety = "20s"
liveness_bound = "60s"
`
	_, sc, err := ParseExperiment("selectors.toml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	kc, _ := ConfigFor(sc, nil)
	fixture, err := NewScripted(fixtureOptions(sc, 1, kc, sim.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	second := fixture.MembersOf("g")[1]
	res, err := Run(sc, 1, Options{LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("%s", failureReport(sc, res))
	}
	log := strings.Join(res.FaultLog, "\n")
	wantLines := []string{
		"crash member-of g #2 -> b" + second.String()[1:],
		"at 4.5s crash out-of-isr t/0 -> nobody (t/0 has every replica in its ISR)",
	}
	for _, w := range wantLines {
		if !strings.Contains(log, w) {
			t.Errorf("fault log lacks %q:\n%s", w, log)
		}
	}
	var paused, crashed string
	for _, l := range res.FaultLog {
		if strings.HasPrefix(l, "5s start:") {
			_, paused, _ = strings.Cut(l, "-> ")
		}
		if strings.HasPrefix(l, "11s at:") {
			_, crashed, _ = strings.Cut(l, "-> ")
		}
	}
	if paused == "" || crashed != paused {
		t.Errorf("out-of-isr at 11s hit %q, the paused follower is %q:\n%s", crashed, paused, log)
	}
}

// TestScheduleCheckKnowsGroupMembers: a schedule file naming a group the
// run does not have, or a member past its size, is refused before the
// run; the group's last member is fine.
func TestScheduleCheckKnowsGroupMembers(t *testing.T) {
	sc, _ := Find("group-rebalance") // groups g (3 members) and h (2)
	for line, want := range map[string]string{
		"from 5s to 6s crash member-of x":    `no consumer group "x"`,
		"from 5s to 6s crash member-of h #3": "group h has 2 members, not #3",
		"from 5s to 6s crash member-of h #2": "",
	} {
		s, lines, err := faults.ParseLines(strings.NewReader(line+"\n"), "f.txt")
		if err != nil {
			t.Fatal(err)
		}
		_, err = CheckSchedule(sc, 1, nil, ScheduleFile{Name: "f.txt", Schedule: s, Lines: lines})
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// TestTriggeredFaults: each triggered fault fires at the first event of
// its kind on its partition at or after its arming time, as the run's
// own history and observations show it; a trigger whose event never
// comes (no partition t/5 here) never fires.
func TestTriggeredFaults(t *testing.T) {
	const file = `name = "triggers"
[config]
"default.replication.factor" = 3
"min.insync.replicas" = 2
"auto.offset.reset" = "earliest"
[faults]
schedule = """
from 2s to 4s crash leader-of t/0
on election t/0 after 2s for 3s pause leader-of t/0
on ack t/0 after 9s crash leader-of t/0
on alter-partition t/0 after 9s crash isr-follower t/0
on election t/5 after 9s crash 1
"""
[phases]
safety = "20s"
liveness_bound = "60s"
`
	_, sc, err := ParseExperiment("triggers.toml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(sc, 1, Options{LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("%s", failureReport(sc, res))
	}
	tp := model.TP("t", 0)
	firstAfter := func(times []time.Duration, from time.Duration) time.Duration {
		best := time.Duration(-1)
		for _, x := range times {
			if x >= from && (best < 0 || x < best) {
				best = x
			}
		}
		return best
	}
	var elections, acks, isrChanges []time.Duration
	for _, o := range res.Observed.Leaders {
		if o.TP == tp {
			elections = append(elections, o.Time)
		}
	}
	for _, op := range res.History {
		if op.F == model.FSend && op.Type == model.OpOK && op.TP == tp {
			acks = append(acks, op.End)
		}
	}
	var prev []model.BrokerID
	for _, o := range res.Observed.ISRs {
		if o.TP == tp {
			if !slices.Equal(slices.Sorted(slices.Values(o.ISR)), prev) {
				isrChanges = append(isrChanges, o.Time)
			}
			prev = slices.Sorted(slices.Values(o.ISR))
		}
	}
	fired := map[string]time.Duration{}
	for _, e := range res.FaultLog {
		at, rest, _ := strings.Cut(e, " ")
		d, err := time.ParseDuration(at)
		if err != nil {
			t.Fatalf("fault log line %q", e)
		}
		if strings.HasPrefix(rest, "start: on ") || strings.HasPrefix(rest, "at: on ") {
			_, what, _ := strings.Cut(rest, ": ")
			fired[strings.Fields(what)[1]] = d
		}
	}
	for event, want := range map[string]time.Duration{
		"election":        firstAfter(elections, 2*time.Second),
		"ack":             firstAfter(acks, 9*time.Second),
		"alter-partition": firstAfter(isrChanges, 9*time.Second),
	} {
		if got, ok := fired[event]; !ok || want < 0 || got != want {
			t.Errorf("on %s: fired at %v (%v), the first such event at %v\n%s", event, got, ok, want, strings.Join(res.FaultLog, "\n"))
		}
	}
	if strings.Contains(strings.Join(res.FaultLog, "\n"), "t/5") {
		t.Errorf("a trigger on a partition without events fired:\n%s", strings.Join(res.FaultLog, "\n"))
	}
}
