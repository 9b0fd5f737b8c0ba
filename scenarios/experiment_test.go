package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// goodExperiment uses every section of the format, with values unlike
// the defaults, so that a key lost between decoding and printing shows.
const goodExperiment = `name = "every-key"
description = "every section"
expect = "pass"
seeds = [4, 9]

[cluster]
brokers = 5
controllers = 1
disk_writeback = "never"
link = { min = "1ms", max = "3ms", tail_prob = 0.01, tail = "20ms", datagram = { dup_prob = 0.01, reorder_prob = 0.02, reorder_max = "5ms" } }

[config]
acks = "all"
"min.insync.replicas" = 2
"default.replication.factor" = 3
"enable.idempotence" = true

[[topics]]
name = "t"
partitions = 4
replication_factor = 5
config = { "min.insync.replicas" = "3", "retention.ms" = "1h0m0s" }

[[topics]]
name = "orders"
partitions = 6
replication_factor = 4
config = { "min.insync.replicas" = "3", "retention.bytes" = "1000000" }

[workload]
interval = "10ms"
burst = 2
produce_until = "40s"

[[workload.producers]]
name = "clicks"
count = 2
topics = ["orders", "t"]
keys = "zipf"
key_count = 50
zipf_exponent = 1.1
interval = "15ms"
burst = 3
value_bytes = 200
settings = { "linger.ms" = 5, "batch.size" = 4096 }
start = "2s"

[[workload.producers]]
name = "bulk"
topics = ["orders"]
stop = "20s"

[[workload.groups]]
name = "g"
members = 3
assignor = "cooperative-sticky"

[[workload.groups]]
name = "late"
members = 2
start = "5s"
stop = "25s"

[faults]
schedule = """
from 10s to 15s crash leader-of t/0
at 20s restart 2
"""

[faults.swarm]
kinds = ["crash", "pause"]
mean_interval = "5s"

[phases]
safety = "30s"
liveness_bound = "45s"
`

func TestExperimentDecodesEveryKey(t *testing.T) {
	e, sc, err := ParseExperiment("every.toml", []byte(goodExperiment))
	if err != nil {
		t.Fatal(err)
	}
	kc, err := ConfigFor(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case sc.Brokers != 5 || sc.Controllers != 1 || sc.DiskWriteback >= 0:
		t.Errorf("cluster: %d brokers, %d controllers, writeback %v", sc.Brokers, sc.Controllers, sc.DiskWriteback)
	case sc.Link.Latency.Max.Milliseconds() != 3 || sc.Link.Latency.TailProb != 0.01 || sc.Link.Datagram == nil || sc.Link.Datagram.ReorderProb != 0.02:
		t.Errorf("link %+v", sc.Link)
	case sc.Partitions != 4 || sc.ReplicationFactor != 5 || len(sc.TopicConfigs) != 2 || sc.TopicConfigs[0].Name != "min.insync.replicas":
		t.Errorf("topic: %d partitions, rf %d, configs %v", sc.Partitions, sc.ReplicationFactor, sc.TopicConfigs)
	case kc.Topic.MinInsyncReplicas != 2 || !kc.Producer.Idempotence:
		t.Errorf("config %v", kc.NonDefault())
	case judged(kc, sc.TopicConfigs).Topic.MinInsyncReplicas != 3:
		t.Errorf("the checkers would not judge the topic's own min.insync.replicas")
	case sc.Interval.Milliseconds() != 10 || sc.Burst != 2 || sc.ProduceUntil.Seconds() != 40:
		t.Errorf("workload: %v, burst %d, until %v", sc.Interval, sc.Burst, sc.ProduceUntil)
	case len(sc.Groups) != 2 || sc.Groups[0] != (fixture.GroupSpec{Name: "g", Members: 3, Assignor: model.AssignCooperativeSticky}) ||
		sc.Groups[1] != (fixture.GroupSpec{Name: "late", Members: 2, Start: 5 * time.Second, Stop: 25 * time.Second}):
		t.Errorf("groups %+v", sc.Groups)
	case sc.Shape == nil || len(sc.Shape.Topics) != 1 || sc.Shape.Topics[0].Name != "orders" || sc.Shape.Topics[0].Partitions != 6 || sc.Shape.Topics[0].ReplicationFactor != 4 || len(sc.Shape.Topics[0].Configs) != 2:
		t.Errorf("shape topics %+v", sc.Shape)
	case len(sc.Shape.Producers) != 2 || !reflect.DeepEqual(sc.Shape.Producers[0], fixture.ProducerShape{Name: "clicks", Count: 2, Topics: []string{"orders", "t"}, Keys: fixture.KeysZipf, KeyCount: 50, ZipfExponent: 1.1,
		Interval: 15 * time.Millisecond, Burst: 3, ValueBytes: 200, Settings: []model.ConfigEntry{{Name: "batch.size", Value: "4096"}, {Name: "linger.ms", Value: "5"}}, Start: 2 * time.Second}) ||
		!reflect.DeepEqual(sc.Shape.Producers[1], fixture.ProducerShape{Name: "bulk", Topics: []string{"orders"}, Keys: fixture.KeysNone, Stop: 20 * time.Second}):
		t.Errorf("shape producers %+v", sc.Shape.Producers)
	case len(sc.Faults) != 2 || sc.Swarm == nil || len(sc.Swarm.Kinds) != 2:
		t.Errorf("faults %v, swarm %+v", sc.Faults, sc.Swarm)
	case sc.Safety.Seconds() != 30 || sc.LivenessBound.Seconds() != 45 || sc.Expect != "":
		t.Errorf("phases %v %v, expect %q", sc.Safety, sc.LivenessBound, sc.Expect)
	case !reflect.DeepEqual(e.SeedsOrDefault(), []uint64{4, 9}):
		t.Errorf("seeds %v", e.SeedsOrDefault())
	}
}

// TestExperimentErrorsPointAtTheKey: each bad file is refused with
// file:line:col and a reason naming what to fix, and the same file with
// the one mistake fixed is accepted (the nearby fine case).
func TestExperimentErrorsPointAtTheKey(t *testing.T) {
	const base = "name = \"x\"\n[cluster]\nbrokers = 3\n[phases]\nsafety = \"10s\"\n"
	checkBadFiles(t, []badFile{
		{"unknown key with the nearest", "name = \"x\"\n[cluster]\nbrokerz = 3\n[phases]\nsafety = \"10s\"\n", base,
			`x.toml:3:1: unknown key "brokerz" in [cluster] (did you mean "brokers"?)`},
		{"unknown top-level table", base + "[phase]\nsafety = \"1s\"\n", base, `x.toml:6:1: unknown key "phase" at the top level (did you mean "phases"?)`},
		{"wrong type", "name = \"x\"\n[cluster]\nbrokers = \"three\"\n[phases]\nsafety = \"10s\"\n", base, "x.toml:3"},
		{"bad duration", "name = \"x\"\n[cluster]\nbrokers = 3\n[phases]\nsafety = \"10 seconds\"\n", base, `x.toml:5:11: phases.safety: "10 seconds" is not a duration`},
		{"unknown setting with the nearest", base + "[config]\n\"min.insync.replica\" = 1\n", base + "[config]\n\"min.insync.replicas\" = 1\n",
			`x.toml:7:1: unknown configuration "min.insync.replica" (did you mean min.insync.replicas`},
		{"min ISR above the replication factor", base + "[config]\n\"default.replication.factor\" = 2\n\"min.insync.replicas\" = 3\n",
			base + "[config]\n\"default.replication.factor\" = 3\n\"min.insync.replicas\" = 3\n", "x.toml:8:1: min.insync.replicas=3 exceeds default.replication.factor=2"},
		{"topic min ISR above its replication factor", base + "[[topics]]\nname = \"t\"\nreplication_factor = 2\nconfig = { \"min.insync.replicas\" = 3 }\n",
			base + "[[topics]]\nname = \"t\"\nreplication_factor = 3\nconfig = { \"min.insync.replicas\" = 3 }\n", "x.toml:9:13: min.insync.replicas 3 is above topic t's replication factor 2"},
		{"replication factor above the brokers", base + "[[topics]]\nname = \"t\"\nreplication_factor = 4\n", base + "[[topics]]\nname = \"t\"\nreplication_factor = 3\n",
			"x.toml:8:1: replication factor 4 is more than the 3 brokers"},
		{"not a topic setting", base + "[[topics]]\nname = \"t\"\nconfig = { acks = \"1\" }\n", base + "[[topics]]\nname = \"t\"\nconfig = { \"retention.ms\" = \"1h\" }\n",
			`"acks" is not a topic-level setting`},
		{"unknown anomaly", "expect = \"lost-writes\"\n" + base, "expect = \"lost-write\"\n" + base, `x.toml:1:1: expect "lost-writes": want pass or an anomaly`},
		{"no phase", "name = \"x\"\n", base, "x.toml: phases: give safety"},
		{"safety and until", base + "until = \"20s\"\n", base, "x.toml:6:1: phases: safety and until are exclusive"},
		{"bad schedule line", base + "[faults]\nschedule = \"\"\"\nfrom 1s to 2s crash leader-of t/0\nfrom 3s to 4s crush 1\n\"\"\"\n",
			base + "[faults]\nschedule = \"\"\"\nfrom 1s to 2s crash leader-of t/0\nfrom 3s to 4s crash 1\n\"\"\"\n", "x.toml:9: "},
		{"group twice", base + "[[workload.groups]]\nname = \"g\"\nmembers = 2\n[[workload.groups]]\nname = \"g\"\nmembers = 1\n",
			base + "[[workload.groups]]\nname = \"g\"\nmembers = 2\n[[workload.groups]]\nname = \"h\"\nmembers = 1\n", `x.toml:10:1: group "g" is given twice`},
		{"unknown swarm kind", base + "[faults.swarm]\nkinds = [\"crash\", \"explode\"]\n", base + "[faults.swarm]\nkinds = [\"crash\"]\n", `swarm kind "explode"`},
		{"writer without groups", base + "[faults.writer]\nkind = \"zombie\"\nstream = \"z\"\n", base + "[faults.writer]\nkind = \"rolling-restart\"\n", "give [[workload.groups]]"},
		{"writer fault that does not parse", base + "[faults.writer]\nkind = \"spaced\"\nstream = \"s\"\ngap_min = \"5s\"\ngap_max = \"9s\"\nfaults = [\"crash leeder-of {partition}\"]\n",
			base + "[faults.writer]\nkind = \"spaced\"\nstream = \"s\"\ngap_min = \"5s\"\ngap_max = \"9s\"\nfaults = [\"crash leader-of {partition}\"]\n", `fault "crash leeder-of {partition}"`},
		{"datagram reorder without its bound", "name = \"x\"\n[cluster]\nlink = { min = \"1ms\", max = \"2ms\", datagram = { reorder_prob = 0.1 } }\n[phases]\nsafety = \"10s\"\n",
			"name = \"x\"\n[cluster]\nlink = { min = \"1ms\", max = \"2ms\", datagram = { reorder_prob = 0.1, reorder_max = \"4ms\" } }\n[phases]\nsafety = \"10s\"\n",
			"x.toml:3:36: link.datagram: reorder_prob and reorder_max go together"},
		{"topic twice", base + "[[topics]]\nname = \"t\"\n[[topics]]\nname = \"t\"\n", base + "[[topics]]\nname = \"t\"\n[[topics]]\nname = \"u\"\n", `x.toml:9:1: topic "t" is given twice`},
		{"internal topic", base + "[[topics]]\nname = \"__consumer_offsets\"\n", base + "[[topics]]\nname = \"offsets\"\n", "not starting with __"},
		{"another topic's promise", base + "[[topics]]\nname = \"u\"\nconfig = { \"unclean.leader.election.enable\" = true }\n", base + "[[topics]]\nname = \"u\"\nconfig = { \"retention.ms\" = \"1h\" }\n",
			"x.toml:8:1: topic u: min.insync.replicas 1 and unclean.leader.election.enable true differ from topic t's (1, false)"},
		{"producer on a topic not given", base + "[[topics]]\nname = \"u\"\n[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"v\"]\n", base + "[[topics]]\nname = \"u\"\n[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"u\"]\n", `x.toml:11:1: topic "v" is not in [[topics]]`},
		{"producer keys missing a partition", base + "[[topics]]\nname = \"u\"\npartitions = 12\n[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"u\"]\nkeys = \"uniform\"\nkey_count = 2\n",
			base + "[[topics]]\nname = \"u\"\npartitions = 12\n[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"u\"]\nkeys = \"uniform\"\nkey_count = 100\n", "x.toml:14:1: producer p's 2 keys reach"},
		{"zipf without its exponent", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nkeys = \"zipf\"\nkey_count = 10\n", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nkeys = \"zipf\"\nkey_count = 10\nzipf_exponent = 0.9\n", "x.toml:7: zipf_exponent = 0"},
		{"unknown key kind", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nkeys = \"random\"\n", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nkeys = \"none\"\n", `x.toml:10:1: keys "random": want none, uniform or zipf`},
		{"producer setting not a producer's", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nsettings = { \"session.timeout.ms\" = 1000 }\n", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nsettings = { \"linger.ms\" = 1000 }\n", `x.toml:10:15: "session.timeout.ms" is not a producer setting`},
		{"producer setting against the promise", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nsettings = { \"max.in.flight.requests.per.connection\" = 1 }\n", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nsettings = { \"max.in.flight.requests.per.connection\" = 5 }\n", "the checkers judge a run by one promise"},
		{"producer stops before it starts", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nstart = \"5s\"\nstop = \"4s\"\n", base + "[workload]\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\nstart = \"5s\"\nstop = \"6s\"\n", "x.toml:11:1: stop 4s is not after start 5s"},
		{"liveness without a producer to the end", base + "liveness_bound = \"30s\"\n[workload]\nproduce_until = \"5s\"\n", base + "liveness_bound = \"30s\"\n[workload]\nproduce_until = \"5s\"\n[[workload.producers]]\nname = \"p\"\ntopics = [\"t\"]\n",
			"no producer writes t/0 to the end"},
		{"group stops before it starts", base + "[[workload.groups]]\nname = \"g\"\nmembers = 2\nstart = \"3s\"\nstop = \"3s\"\n", base + "[[workload.groups]]\nname = \"g\"\nmembers = 2\nstart = \"3s\"\nstop = \"9s\"\n", "x.toml:10:1: group g stops at 3s"},
		{"toml syntax", base + "[cluster\n", base, "x.toml:7:"},
	})
}

// TestExperimentRoundTrip: printing a parsed experiment and parsing it
// again gives the same experiment, for a file using every key and for
// every catalog scenario printed.
func TestExperimentRoundTrip(t *testing.T) {
	inputs := map[string]Experiment{}
	e, _, err := ParseExperiment("every.toml", []byte(goodExperiment))
	if err != nil {
		t.Fatal(err)
	}
	inputs["every-key"] = e
	for _, sc := range Catalog() {
		e, err := ExperimentOf(sc)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		inputs[sc.Name] = e
	}
	for name, e := range inputs {
		text := Format(e)
		again, _, err := ParseExperiment(name+".toml", []byte(text))
		if err != nil {
			t.Fatalf("%s: the printed file is refused: %v\n%s", name, err, text)
		}
		if !reflect.DeepEqual(normalized(e), normalized(again)) {
			t.Errorf("%s: printed and parsed again, it changed:\n%+v\n%+v\n%s", name, e, again, text)
		}
		if Format(again) != text {
			t.Errorf("%s: printing is not stable", name)
		}
	}
}

// normalized makes the empty and absent forms of a map or slice one, as
// TOML cannot tell them apart.
func normalized(e Experiment) Experiment {
	if len(e.Config) == 0 {
		e.Config = nil
	}
	for i := range e.Topics {
		if len(e.Topics[i].Config) == 0 {
			e.Topics[i].Config = nil
		}
	}
	return e
}

// TestExperimentFileWithScheduleFile: a schedule_file is read relative to
// the experiment and inlined, so that the experiment stands alone; its
// errors are its own file's lines.
func TestExperimentFileWithScheduleFile(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.txt"), []byte("# faults\nfrom 5s to 8s crash leader-of t/0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("# faults\nfrom 5s to 8s crash leeder-of t/0\n"), 0o644)
	exp := "name = \"sf\"\n[faults]\nschedule_file = \"%s\"\n[phases]\nsafety = \"10s\"\n"
	os.WriteFile(filepath.Join(dir, "e.toml"), []byte(strings.Replace(exp, "%s", "s.txt", 1)), 0o644)
	os.WriteFile(filepath.Join(dir, "f.toml"), []byte(strings.Replace(exp, "%s", "bad.txt", 1)), 0o644)
	le, err := LoadExperiment(filepath.Join(dir, "e.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(le.Scenario.Faults) != 1 || le.Experiment.Faults.ScheduleFile != "" || !strings.Contains(le.Experiment.Faults.Schedule, "crash leader-of t/0") {
		t.Fatalf("not inlined: %+v", le.Experiment.Faults)
	}
	if le.Scenario.ExperimentHash != le.Experiment.Hash() || le.Scenario.Experiment != filepath.Join(dir, "e.toml") {
		t.Fatalf("scenario names %q %q", le.Scenario.Experiment, le.Scenario.ExperimentHash)
	}
	_, err = LoadExperiment(filepath.Join(dir, "f.toml"))
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "bad.txt")+":2:") {
		t.Fatalf("got %v, want the schedule file's line 2", err)
	}
}

// TestCatalogAsFilesRunsTheSame: every catalog scenario, printed as an
// experiment file and read back, runs to the catalog entry's trace hash
// and verdict (seed 1 each; a bug scenario its own seed).
func TestCatalogAsFilesRunsTheSame(t *testing.T) {
	for _, sc := range Catalog() {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			e, err := ExperimentOf(sc)
			if err != nil {
				t.Fatal(err)
			}
			_, fromFile, err := ParseExperiment(sc.Name+".toml", []byte(Format(e)))
			if err != nil {
				t.Fatal(err)
			}
			seed := e.SeedsOrDefault()[0]
			want, err := Run(sc, seed, Options{LinearizabilityBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Run(fromFile, seed, Options{LinearizabilityBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			if got.TraceHash != want.TraceHash || got.AsExpected != want.AsExpected || got.Expected != want.Expected {
				t.Errorf("seed %d: from the file hash %s (as expected %v), the catalog entry %s (%v)\n%s",
					seed, got.TraceHash, got.AsExpected, want.TraceHash, want.AsExpected, Format(e))
			}
		})
	}
}

// badFile is a file with one mistake, the same file with it fixed, and
// what the error must say.
type badFile struct{ name, bad, fine, want string }

// checkBadFiles runs each case: the bad file is refused with a positioned
// error containing want, and the fixed file (the nearby fine case) is
// accepted.
func checkBadFiles(t *testing.T, cases []badFile) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseExperiment("x.toml", []byte(c.bad))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			var ee *ExperimentError
			var pe *faults.ParseError
			if !errors.As(err, &ee) && !errors.As(err, &pe) {
				t.Errorf("%T is not a positioned error", err)
			}
			if _, _, err := ParseExperiment("x.toml", []byte(c.fine)); err != nil {
				t.Errorf("the fixed file is refused too: %v", err)
			}
		})
	}
}
