package scenarios

import (
	"strings"
	"testing"

	"kafkasim/faults"
)

// TestReplayingTheWrittenScheduleGivesTheSameRun: a run's schedule, written
// out as a file and parsed back, drives the same seed to the same trace
// hash: a swarm's drawn schedule, and the schedules the bug scenarios
// write at a moment found on a twin run (Scripted.probeUntil): kip101
// seed 1 starts at 2.1 s with other events of that instant (a fixture
// run ahead in place, not a twin, replays differently there), the other
// seeds where the moment moved.
func TestReplayingTheWrittenScheduleGivesTheSameRun(t *testing.T) {
	for _, c := range []struct {
		name string
		seed uint64
	}{
		{"chaos", 1}, {"chaos", 5},
		{"kip101-hw-truncation", 1}, {"kip101-hw-truncation", 94}, {"offset-commit-lost", 23}, {"jepsen-2013", 94},
	} {
		sc, ok := Find(c.name)
		if !ok {
			t.Fatalf("no scenario %s", c.name)
		}
		a, err := Run(sc, c.seed, Options{LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(a.Schedule) == "" {
			t.Fatalf("%s seed %d: no faults", c.name, c.seed)
		}
		sched, err := faults.Parse(strings.NewReader(a.Schedule), c.name+".schedule")
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(sc, c.seed, Options{Schedule: &sched, LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		if a.TraceHash != b.TraceHash {
			t.Fatalf("%s seed %d: written schedule %s, replayed from its file %s", c.name, c.seed, a.TraceHash, b.TraceHash)
		}
	}
}

// TestShrinkKIP101 hides the KIP-101 sequence among unrelated faults and
// shrinks: the result must still lose an acknowledged write, have at most
// the three faults the bug needs, and be the same on a second shrink.
func TestShrinkKIP101(t *testing.T) {
	h := HistoricalBugs[0]
	if h.Name != "kip101-hw-truncation" {
		t.Fatalf("catalog order changed: %s", h.Name)
	}
	sc := h.Scenario()
	inner := h.Schedule
	sc.Writer, sc.Schedule = nil, func(s *Scripted) faults.Schedule {
		// All after the moment the bug's faults start (2.1 s or later),
		// which its schedule finds on a twin run without the noise.
		noise := faults.MustParse("noise", `
from 4s to 6s partition isolate random-broker from brokers
from 40s to 45s crash random-broker
from 50s to 51s pause controller
from 50s to 52s sync-latency random-broker 100ms
`)
		return append(inner(s), noise...).Sorted()
	}
	first, err := Shrink(sc, h.Seed, nil, 150)
	if err != nil {
		t.Fatal(err)
	}
	if first.Kind != "acked-write-lost" {
		t.Fatalf("shrinking toward %q, want acked-write-lost", first.Kind)
	}
	if len(first.Shrunk) > 3 || len(first.Shrunk) >= len(first.Original) {
		t.Fatalf("shrunk %d faults to %d:\n%s", len(first.Original), len(first.Shrunk), first.Shrunk)
	}
	again, err := Shrink(sc, h.Seed, nil, 150)
	if err != nil {
		t.Fatal(err)
	}
	if again.Shrunk.String() != first.Shrunk.String() {
		t.Fatalf("shrinking is not stable:\n%s\nthen\n%s", first.Shrunk, again.Shrunk)
	}
	res, err := Run(sc, h.Seed, Options{Schedule: &first.Shrunk, LinearizabilityBudget: -1})
	if err != nil || !hasKind(res, "acked-write-lost") {
		t.Fatalf("the shrunk schedule no longer fails (err %v):\n%s", err, first.Shrunk)
	}
	t.Logf("%d faults shrunk to %d in %d runs:\n%s", len(first.Original), len(first.Shrunk), first.Runs, first.Shrunk)
}
