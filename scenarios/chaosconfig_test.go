package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// TestChaosConfigReproduceLineReplays: a chaos-config run records its
// drawn settings in its Set, its reproduce line spells them out as -set
// flags, and running what that line says (the seed and those flags)
// gives the same trace hash; giving the line's settings again changes
// nothing.
func TestChaosConfigReproduceLineReplays(t *testing.T) {
	sc, ok := Find("chaos-config")
	if !ok {
		t.Fatal("chaos-config is not in the catalog")
	}
	const seed = 5
	res, err := Run(sc, seed, Options{LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Set) != len(configSettings) {
		t.Fatalf("recorded settings %v, want the %d drawn", res.Set, len(configSettings))
	}
	line := Reproduce(res.Invocation())
	var set []string
	words := strings.Fields(line)
	for i, w := range words {
		if w == "-set" {
			set = append(set, words[i+1])
		}
	}
	if !slices.Equal(set, res.Set) {
		t.Fatalf("the reproduce line %q carries %v, want %v", line, set, res.Set)
	}
	again, err := Run(sc, seed, Options{Set: set, LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if again.TraceHash != res.TraceHash || !slices.Equal(again.Set, res.Set) {
		t.Fatalf("the reproduce line replays to %s with %v, the run was %s with %v", again.TraceHash, again.Set, res.TraceHash, res.Set)
	}
}

// TestChaosConfigDrawsVary: the draw is a function of the seed, and over
// a few seeds it reaches each end of its ranges: shapes of 3 and of more
// brokers, a single controller and a quorum, rf=1 and rf=3,
// min.insync.replicas equal to the replication factor, one and five
// requests in flight. Every draw is a configuration Validate accepts.
func TestChaosConfigDrawsVary(t *testing.T) {
	if a, b := drawConfig(9), drawConfig(9); a.Brokers != b.Brokers || !slices.Equal(a.Set, b.Set) {
		t.Fatal("the same seed drew twice differently")
	}
	seen := map[string]bool{}
	sc := chaosConfig()
	for seed := uint64(1); seed <= 60; seed++ {
		d := drawConfig(seed)
		if _, err := ConfigFor(sc, d.Set); err != nil {
			t.Fatalf("seed %d draws %v: %v", seed, d.Set, err)
		}
		if d.Shape == nil {
			continue
		}
		if err := d.Shape.Validate(d.Partitions); err != nil {
			t.Fatalf("seed %d draws a bad shape: %v", seed, err)
		}
		seen["brokers="+map[bool]string{true: "3", false: "more"}[d.Brokers == 3]] = true
		seen["controllers="+map[bool]string{true: "1", false: "more"}[d.Controllers == 1]] = true
		for _, kv := range d.Set {
			seen[kv] = true
		}
		rf, minISR := "", ""
		for _, kv := range d.Set {
			if v, ok := strings.CutPrefix(kv, "default.replication.factor="); ok {
				rf = v
			}
			if v, ok := strings.CutPrefix(kv, "min.insync.replicas="); ok {
				minISR = v
			}
		}
		if rf == minISR {
			seen["min.insync.replicas=rf"] = true
		}
	}
	for _, want := range []string{"brokers=3", "brokers=more", "controllers=1", "controllers=more", "default.replication.factor=1", "default.replication.factor=3",
		"min.insync.replicas=rf", "max.in.flight.requests.per.connection=1", "max.in.flight.requests.per.connection=5", "linger.ms=1000", "group.min.session.timeout.ms=500"} {
		if !seen[want] {
			t.Errorf("60 seeds never drew %s", want)
		}
	}
}

// TestMergeSetsIsIdempotent: the settings a resolved run records resolve
// to themselves, a user's value replaces the drawn one in place, and the
// user's other settings follow.
func TestMergeSetsIsIdempotent(t *testing.T) {
	drawn := []string{"a=1", "b=2"}
	got := mergeSets(drawn, []string{"b=3", "c=4"})
	if want := []string{"a=1", "b=3", "c=4"}; !slices.Equal(got, want) {
		t.Fatalf("merge: %v, want %v", got, want)
	}
	if again := mergeSets(drawn, got); !slices.Equal(again, got) {
		t.Fatalf("merging the merged: %v, want %v", again, got)
	}
}

// TestShrinkMovesDrawnSettingsToDefaults: a scenario that draws, with
// KIP-101's fixed configuration as its own, the bug's setting and one the
// bug does not need. The shrinker keeps the first (without it the run
// passes) and moves the second to the scenario's value.
func TestShrinkMovesDrawnSettingsToDefaults(t *testing.T) {
	h := HistoricalBugs[slices.IndexFunc(HistoricalBugs, func(h Historical) bool { return h.Name == "kip101-hw-truncation" })]
	sc := h.Scenario()
	sc.Config = h.FixedConfig
	sc.Draw = "test-kip101"
	res, err := Shrink(sc, h.Seed, nil, 100)
	t.Logf("runs %d, kind %s, %d of %d faults", res.Runs, res.Kind, len(res.Shrunk), len(res.Original))
	if err != nil {
		t.Fatal(err)
	}
	def, _ := settingDefault(sc, "linger.ms")
	if want := []string{"truncation=high-watermark", "linger.ms=" + def}; !slices.Equal(res.Set, want) {
		t.Fatalf("shrunk settings %v, want %v", res.Set, want)
	}
}

// A draw of KIP-101's shape with the bug's setting and one it does not
// need, for TestShrinkMovesDrawnSettingsToDefaults; registered before any
// test runs, so that no test writes Draws while another reads it.
func init() {
	h := HistoricalBugs[slices.IndexFunc(HistoricalBugs, func(h Historical) bool { return h.Name == "kip101-hw-truncation" })]
	Draws["test-kip101"] = func(uint64) Drawn {
		return Drawn{Brokers: h.Brokers, Partitions: max(h.Partitions, 1), Set: []string{"truncation=high-watermark", "linger.ms=100"}}
	}
}
