package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// Tests of the property harness itself (generators_test.go,
// properties_test.go): where generated faults land in a run, what a
// property does with a case it cannot run, and the fuzz seed corpus.

// placementError says why placed schedule lines do not fit a run whose
// cluster is ready at ready and whose safety phase ends at safetyEnd: a
// line that starts before the cluster is ready (the run refuses it, or,
// were it accepted, it would hit a cluster still starting up), or a
// window that outlasts the safety phase (the liveness phase heals it
// early, so the drawn case is not the one played).
func placementError(lines []faultLine, ready, safetyEnd time.Duration) error {
	for i, f := range lines {
		switch {
		case f.At < ready:
			return fmt.Errorf("fault %d (%v) starts at %v, before the cluster is ready (%v)", i+1, f, f.At, ready)
		case f.At >= safetyEnd:
			return fmt.Errorf("fault %d (%v) starts at %v, after the safety phase ends (%v)", i+1, f, f.At, safetyEnd)
		case f.End != 0 && (f.End <= f.At || f.End > safetyEnd):
			return fmt.Errorf("fault %d (%v): its window does not fit between its start and the end of the safety phase (%v)", i+1, f, safetyEnd)
		}
	}
	return nil
}

// drawEveryCase draws one case of each generator: safe, reorder, and a
// lost-write case with its fixed twin.
func drawEveryCase(rt *rapid.T) []propCase {
	k := rapid.SampledFrom(lossKnobs).Draw(rt, "knob")
	l, fixed := lossCase(k)(rt)
	return []propCase{safeCase(rt), reorderCase(rt), l, fixed}
}

// TestGeneratedFaultsStartAfterTheClusterIsReady: for every generator,
// every fault of a drawn case, as the harness places it, starts after the
// case's cluster is ready (faultFirst after, at least) and ends inside
// the safety phase. Only the cluster boots (ReadyAt), so a check costs
// about a millisecond.
func TestGeneratedFaultsStartAfterTheClusterIsReady(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		for _, c := range drawEveryCase(rt) {
			ready, err := c.ready()
			if err != nil {
				rt.Fatalf("the cluster of a generated case never became ready: %v\n%s", err, c.describe())
			}
			placed := c.placed(startAfter(ready))
			if err := placementError(placed, ready+faultFirst, ready+c.Phases.Safety); err != nil {
				rt.Fatalf("%v\n%s", err, c.describe())
			}
		}
	})
}

// slowReadyCase is the smallest case that broke the old placement rule
// (issue 27): a three-broker cluster whose seed splits the first
// controller vote, so that it is ready only at 1.1 s, and a fault drawn at
// the earliest start, 1 s.
func slowReadyCase() propCase {
	return propCase{
		Seed: 2831, Brokers: 3, Partitions: 1, Interval: 20 * time.Millisecond, Phases: longPhases,
		Faults: []faultLine{{At: faultFirst, End: faultFirst + faultStep, What: "crash leader-of t/0"}},
	}
}

// TestPlacementCheckCatchesTheOldRule shows that the check of
// TestGeneratedFaultsStartAfterTheClusterIsReady can fail: the old rule
// used the drawn times as the run's own (as if every cluster were ready
// by faultFirst), and on slowReadyCase the check names its fault, as Run
// refuses the schedule; the harness's placement of the same case passes
// the check and runs.
func TestPlacementCheckCatchesTheOldRule(t *testing.T) {
	t.Parallel()
	c := slowReadyCase()
	ready, err := c.ready()
	if err != nil {
		t.Fatal(err)
	}
	if ready <= faultFirst {
		t.Fatalf("seed %d's cluster is ready at %v; the test needs one ready after %v", c.Seed, ready, faultFirst)
	}
	safetyEnd := ready + c.Phases.Safety

	oldRule := c.Faults // the drawn times, unmoved
	if err := placementError(oldRule, ready, safetyEnd); err == nil {
		t.Errorf("the check passes the old rule's schedule %v on a cluster ready at %v", oldRule, ready)
	}
	old, err := faults.Parse(strings.NewReader(scheduleFile(oldRule)), "old.schedule")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(c.scenario(), c.Seed, Options{Schedule: &old, LinearizabilityBudget: -1}); err == nil || !strings.Contains(err.Error(), "before the run's clock") {
		t.Errorf("Run of the old rule's schedule: %v, want a refusal of a fault before the run's clock", err)
	}

	placed := c.placed(startAfter(ready))
	if err := placementError(placed, ready+faultFirst, safetyEnd); err != nil {
		t.Errorf("the harness's placement: %v", err)
	}
	res, err := c.run(-1)
	if err != nil {
		t.Fatalf("the harness's placement does not run: %v\n%s", err, c.describe())
	}
	if !res.OK {
		t.Errorf("the case, placed after readiness, failed:\n%s%s", violationLines(res, 6), c.describe())
	}
}

// TestReadyAtIsRunsReady: the moment ReadyAt gives is the one at which
// the run's own fixture became ready (play's), for a plain case, the
// slow-ready one, and one with a consumer group on four brokers.
func TestReadyAtIsRunsReady(t *testing.T) {
	t.Parallel()
	group := propCase{Seed: 7, Brokers: 4, Partitions: 2, Interval: 5 * time.Millisecond, Phases: shortPhases,
		Set:    []string{"offsets.topic.num.partitions=5", "offsets.topic.replication.factor=3"},
		Groups: []fixture.GroupSpec{{Name: "g", Members: 2}}}
	plain := propCase{Seed: 1, Brokers: 3, Partitions: 1, Interval: 20 * time.Millisecond, Phases: shortPhases}
	for _, c := range []propCase{plain, slowReadyCase(), group} {
		want, err := c.ready()
		if err != nil {
			t.Fatal(err)
		}
		kc, err := ConfigFor(c.scenario(), c.Set)
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := play(c.scenario(), c.Seed, kc, sim.Config{}, &faults.Schedule{})
		if err != nil {
			t.Fatal(err)
		}
		if s.ready != want {
			t.Errorf("seed %d, %d brokers: ReadyAt says %v, the run became ready at %v", c.Seed, c.Brokers, want, s.ready)
		}
	}
}

// TestUnrunnableCasesAreDiscardedNotFailed: a case the harness cannot run
// is rapid's invalid input, never a failure; an occasional one passes,
// and a property that discards more than one case in maxDiscardShare
// fails loudly, as does one that discards all (rapid's own bound).
func TestUnrunnableCasesAreDiscardedNotFailed(t *testing.T) {
	t.Parallel()
	unrunnable := fmt.Errorf("%w: cluster not ready", errCannotRun)
	check := func(discardEvery int) (*rapidRecorder, *propDiscards) {
		rec := &rapidRecorder{name: t.Name()}
		d := &propDiscards{}
		rapid.Check(rec, func(rt *rapid.T) {
			n := rapid.IntRange(0, 1<<20).Draw(rt, "n")
			var err error
			if discardEvery > 0 && n%discardEvery == 0 {
				err = unrunnable
			}
			if d.skipUnrunnable(rt, err) {
				rt.Fatalf("a discarded case went on")
			}
			if err != nil {
				rt.Fatalf("an unrunnable case was not discarded")
			}
		})
		d.verdict(rec)
		return rec, d
	}
	if rec, d := check(0); rec.failed || d.discarded != 0 {
		t.Errorf("no discards: failed %v (%v), %d discarded", rec.failed, rec.errs, d.discarded)
	}
	if rec, d := check(1); !rec.failed || d.discarded == 0 {
		t.Errorf("every case discarded: failed %v, %d of %d discarded", rec.failed, d.discarded, d.cases)
	} else if !strings.Contains(strings.Join(rec.errs, "\n"), "discarded") {
		t.Errorf("every case discarded, but the failure does not say so: %v", rec.errs)
	}
	if rec, d := check(3); !rec.failed || d.discarded == 0 {
		t.Errorf("one case in about three discarded: failed %v, %d of %d discarded", rec.failed, d.discarded, d.cases)
	}
	// One discard in maxDiscardShare cases is tolerated.
	rec := &rapidRecorder{name: t.Name()}
	d := &propDiscards{cases: maxDiscardShare, discarded: 1, first: "x"}
	if d.verdict(rec); rec.failed {
		t.Errorf("1 discard in %d cases failed: %v", maxDiscardShare, rec.errs)
	}
	if !errors.Is(unrunnable, errCannotRun) {
		t.Fatal("errCannotRun does not wrap")
	}
}

// TestFuzzSeedCorpusDrawsWholeCases: every input of FuzzSafeEnvelope's
// seed corpus draws a whole safe case; rapid skips an input too short for
// the draws, and a skipped seed would pass without checking anything.
func TestFuzzSeedCorpusDrawsWholeCases(t *testing.T) {
	t.Parallel()
	for i, in := range fuzzSeedCorpus() {
		drawn := false
		ok := t.Run(fmt.Sprint(i), func(t *testing.T) {
			rapid.MakeFuzz(func(rt *rapid.T) {
				c := safeCase(rt)
				drawn = c.Brokers > 0
			})(t, in)
		})
		if !ok || !drawn {
			t.Errorf("seed input %d (%d bytes) does not draw a whole case (passed %v, drawn %v)", i, len(in), ok, drawn)
		}
	}
	// A short input is skipped: what the check above guards against.
	skipped := false
	t.Run("short", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		rapid.MakeFuzz(func(rt *rapid.T) { safeCase(rt) })(t, make([]byte, 16))
	})
	if !skipped {
		t.Errorf("a 16-byte input was not skipped")
	}
}

// TestDriftRatesPrintBack: every drift rate the safe generator draws
// prints back from a parsed schedule as it was written (a rate written
// "+0.050" printed back as "+0.05", and TestGeneratedCasesAreWellFormed
// failed at rapid seeds that drew one: found by the issue-27 campaign).
func TestDriftRatesPrintBack(t *testing.T) {
	for r := -50; r <= 50; r++ {
		if r == 0 {
			continue
		}
		line := "from 1s to 2s drift b1 " + driftRate(r)
		s, err := faults.Parse(strings.NewReader(line+"\n"), "drift.schedule")
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if got := strings.TrimSpace(s.String()); got != line {
			t.Errorf("%q prints back as %q", line, got)
		}
	}
}
