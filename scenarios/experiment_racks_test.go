package scenarios

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// rackExperiment uses every key this file's checks add: racks, placement,
// rack selectors in the schedule, and a swarm's targets, triggers and
// bound.
const rackExperiment = `name = "racks"

[cluster]
brokers = 5
racks = ["r1", "r2", "r3"]
rack_aware_placement = true

[config]
"default.replication.factor" = 3
"min.insync.replicas" = 2

[[topics]]
name = "t"
partitions = 6

[[workload.groups]]
name = "g"
members = 2

[faults]
schedule = """
from 10s to 20s partition isolate rack r1 from all
from 25s to 30s clog rack r2 rack r3 +100ms
"""

[faults.swarm]
kinds = ["crash", "pause", "clog"]
targets = ["rack r2", "member-of g #1", "follower-of t/0 #1", "out-of-isr t/1"]
triggers = ["ack", "election"]
trigger_prob = 0.5
max_per_kind = 3

[phases]
safety = "40s"
liveness_bound = "60s"
`

func TestRackExperimentDecodes(t *testing.T) {
	e, sc, err := ParseExperiment("racks.toml", []byte(rackExperiment))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sc.Racks, []string{"r1", "r2", "r3"}) || sc.RackUnaware {
		t.Errorf("racks %v unaware %v", sc.Racks, sc.RackUnaware)
	}
	o := sc.Swarm
	want := []faults.Selector{faults.Rack("r2"), faults.MemberOf("g", 1), faults.FollowerOf(model.TP("t", 0), 1), faults.OutOfISR(model.TP("t", 1))}
	if o == nil || !reflect.DeepEqual(o.Targets, want) || !reflect.DeepEqual(o.Triggers, []string{"ack", "election"}) || o.TriggerProb != 0.5 || o.MaxPerKind != 3 {
		t.Errorf("swarm %+v", o)
	}
	if sc.Faults[0].Target != faults.Rack("r1") {
		t.Errorf("schedule %v", sc.Faults)
	}
	again, _, err := ParseExperiment("racks.toml", []byte(Format(e)))
	if err != nil || !reflect.DeepEqual(normalized(e), normalized(again)) {
		t.Fatalf("round trip: %v\n%s", err, Format(e))
	}
}

// The fixture spreads brokers and controllers over the racks round-robin;
// with the brokers told their racks, every partition of rf 3 has one
// replica per rack; told nothing (rack_aware_placement = false), the
// same seeds put two replicas of some partition on one rack.
func TestRackAwarePlacementInTheCluster(t *testing.T) {
	sc := Scenario{Spec: fixture.Spec{Brokers: 5, Partitions: 12, Racks: []string{"r1", "r2", "r3"}}}
	kc := safe()
	s, err := NewScripted(fixtureOptions(sc, 1, kc, sim.Config{}))
	if err != nil {
		t.Fatal(err)
	}
	for rack, want := range map[string][]model.BrokerID{"r1": {1, 4, 100}, "r2": {2, 5, 101}, "r3": {3, 102}, "r4": nil} {
		if got := s.RackNodes(rack); !reflect.DeepEqual(got, want) {
			t.Errorf("rack %s: %v, want %v", rack, got, want)
		}
	}
	rackOf := func(b model.BrokerID) string { return sc.Racks[(int(b)-1)%3] }
	spread := func(s *Scripted) (shared int) {
		for _, tp := range s.TPs {
			ps, _ := s.Partition(tp)
			var rs []string
			for _, b := range ps.Replicas {
				rs = append(rs, rackOf(b))
			}
			slices.Sort(rs)
			if len(ps.Replicas) != 3 {
				t.Fatalf("%v: replicas %v", tp, ps.Replicas)
			}
			if len(slices.Compact(rs)) < 3 {
				shared++
			}
		}
		return shared
	}
	if n := spread(s); n != 0 {
		t.Errorf("rack-aware: %d of 12 partitions have two replicas on one rack", n)
	}
	unaware := sc
	unaware.RackUnaware = true
	shared := 0
	for seed := uint64(1); seed <= 3; seed++ {
		u, err := NewScripted(fixtureOptions(unaware, seed, kc, sim.Config{}))
		if err != nil {
			t.Fatal(err)
		}
		shared += spread(u)
		if got := u.RackNodes("r1"); !reflect.DeepEqual(got, []model.BrokerID{1, 4, 100}) {
			t.Errorf("unaware: the racks still exist for faults, r1 = %v", got)
		}
	}
	if shared == 0 {
		t.Error("rack-unaware placement never shared a rack over 3 seeds: the check above would pass anyway")
	}
}

// Each mistake with racks and swarm aims is refused at its key, and the
// file with it fixed is accepted.
func TestRackExperimentErrors(t *testing.T) {
	const head = "name = \"x\"\n[cluster]\nbrokers = 3\n"
	const tail = "[phases]\nsafety = \"10s\"\n"
	racks := head + "racks = [\"a\", \"b\"]\n"
	checkBadFiles(t, []badFile{
		{"a rack with no broker", head + "racks = [\"a\", \"b\", \"c\", \"d\"]\n" + tail, head + "racks = [\"a\", \"b\", \"c\"]\n" + tail,
			`x.toml:4:1: 4 racks for 3 brokers: rack "d" would hold no broker`},
		{"a rack twice", head + "racks = [\"a\", \"a\"]\n" + tail, racks + tail, `x.toml:4:1: rack "a" is given twice`},
		{"a bad rack name", head + "racks = [\"A b\"]\n" + tail, racks + tail, `rack name "A b"`},
		{"placement without racks", head + "rack_aware_placement = false\n" + tail, racks + "rack_aware_placement = false\n" + tail,
			"x.toml:4:1: rack_aware_placement without racks"},
		{"rack r9 in the schedule", racks + tail + "[faults]\nschedule = \"\"\"\nfrom 1s to 2s crash b1\nfrom 3s to 4s crash rack r9\n\"\"\"\n",
			racks + tail + "[faults]\nschedule = \"\"\"\nfrom 1s to 2s crash b1\nfrom 3s to 4s crash rack b\n\"\"\"\n",
			`x.toml:10: from 3s to 4s crash rack r9: no rack "r9" in this cluster (racks: a, b)`},
		{"a rack in a cluster without racks", head + tail + "[faults]\nschedule = \"at 1s crash rack a\"\n", racks + tail + "[faults]\nschedule = \"at 1s crash rack a\"\n",
			`x.toml:7: at 1s crash rack a: no rack "a": the cluster has no racks`},
		{"rack r9 in a writer", racks + tail + "[faults.writer]\nkind = \"spaced\"\nstream = \"s\"\ngap_min = \"1s\"\ngap_max = \"2s\"\nfaults = [\"crash rack r9\"]\n",
			racks + tail + "[faults.writer]\nkind = \"spaced\"\nstream = \"s\"\ngap_min = \"1s\"\ngap_max = \"2s\"\nfaults = [\"crash rack a\"]\n", `writer: fault "crash rack r9": no rack "r9"`},
		{"a target naming no rack", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"rack c\"]\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"rack b\"]\n",
			`x.toml:9:1: target "rack c": no rack "c"`},
		{"a target that does not parse", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"leeder-of t/0\"]\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"leader-of t/0\"]\n",
			`target "leeder-of t/0": bad selector`},
		{"a target naming no group", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"member-of g\"]\n",
			racks + tail + "[[workload.groups]]\nname = \"g\"\nmembers = 1\n[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"member-of g\"]\n", `no consumer group "g"`},
		{"a target naming no partition", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"follower-of t/3\"]\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"follower-of t/0\"]\n",
			`no partition t/3 (topic t has partitions t/0 to t/0)`},
		{"a target naming no node", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"b7\"]\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntargets = [\"b101\"]\n",
			`target "b7": no node b7`},
		{"an unknown trigger", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"acks\"]\ntrigger_prob = 0.5\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"ack\"]\ntrigger_prob = 0.5\n",
			`x.toml:9:1: trigger "acks": want one of ack, alter-partition, election`},
		{"triggers without a probability", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"ack\"]\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"ack\"]\ntrigger_prob = 1\n",
			"triggers and trigger_prob go together"},
		{"a probability above 1", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"ack\"]\ntrigger_prob = 2\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\ntriggers = [\"ack\"]\ntrigger_prob = 0.2\n",
			"x.toml:10:1: trigger_prob = 2: a probability"},
		{"max_per_kind negative", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\nmax_per_kind = -1\n", racks + tail + "[faults.swarm]\nkinds = [\"crash\"]\nmax_per_kind = 4\n",
			"x.toml:9:1: max_per_kind = -1"},
		{"a misspelt key", head + "rackz = [\"a\"]\n" + tail, racks + tail, `unknown key "rackz" in [cluster] (did you mean "racks"?)`},
	})
}

// A schedule file given to a run with racks is judged against them: rack
// r9 is refused at its line, rack r2 accepted.
func TestCheckScheduleRacks(t *testing.T) {
	sc := Scenario{Name: "racks", Spec: fixture.Spec{Brokers: 5, Partitions: 1, Racks: []string{"r1", "r2", "r3"}}, Safety: 20e9, LivenessBound: 20e9}
	bad := ScheduleFile{Name: "s.txt", Schedule: faults.MustParse("s.txt", "from 5s to 6s crash rack r9\n"), Lines: []int{1}}
	if _, err := CheckSchedule(sc, 1, nil, bad); err == nil || !strings.Contains(err.Error(), `s.txt:1: from 5s to 6s crash rack r9: no rack "r9" in this cluster (it has r1, r2, r3)`) {
		t.Fatalf("got %v", err)
	}
	fine := ScheduleFile{Name: "s.txt", Schedule: faults.MustParse("s.txt", "from 5s to 6s crash rack r2\n"), Lines: []int{1}}
	if _, err := CheckSchedule(sc, 1, nil, fine); err != nil {
		t.Fatal(err)
	}
}

// A swarm aimed at a rack and waiting for events runs on a real cluster:
// over a few seeds its faults hit exactly rack r2's nodes (b2, b5, b101)
// and some of them wait for an event first; the runs pass (rf 3 over three
// racks, min ISR 2).
func TestRackSwarmRuns(t *testing.T) {
	const exp = `name = "rack-swarm"
[cluster]
brokers = 5
racks = ["r1", "r2", "r3"]
[config]
acks = "all"
"default.replication.factor" = 3
"min.insync.replicas" = 2
"auto.offset.reset" = "earliest"
[[topics]]
name = "t"
partitions = 3
[faults.swarm]
kinds = ["crash", "pause", "isolate"]
targets = ["rack r2"]
triggers = ["ack", "election"]
trigger_prob = 0.5
mean_interval = "8s"
[phases]
safety = "30s"
liveness_bound = "60s"
`
	_, sc, err := ParseExperiment("rack-swarm.toml", []byte(exp))
	if err != nil {
		t.Fatal(err)
	}
	hits, waited := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		res, err := Run(sc, seed, Options{LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK {
			t.Errorf("seed %d failed: %v", seed, res.Violations)
		}
		waited += strings.Count(res.Schedule, "on ack") + strings.Count(res.Schedule, "on election")
		for _, line := range res.FaultLog {
			if !strings.Contains(line, " start: ") && !strings.Contains(line, " at: ") || strings.Contains(line, "heal") {
				continue
			}
			if !strings.Contains(line, "rack r2") {
				t.Errorf("seed %d: a fault not aimed at rack r2: %s", seed, line)
			}
			if strings.Contains(line, "-> b2 b5 b101") {
				hits++
			}
		}
	}
	if hits == 0 || waited == 0 {
		t.Fatalf("over 3 seeds: %d faults hit rack r2, %d waited for an event", hits, waited)
	}
}
