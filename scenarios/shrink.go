package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"kafkasim/faults"
)

// ShrinkResult is a failing run reduced to a small schedule that still
// fails the same way.
type ShrinkResult struct {
	// Kind is the violation the shrunk schedule must keep producing: the
	// first error-level anomaly of the original run ("liveness" when it
	// only failed to converge).
	Kind     string
	Original faults.Schedule
	Shrunk   faults.Schedule
	Runs     int // runs the shrinker spent
}

// failureKind names what a failed run broke, in a fixed order so that a
// run always shrinks toward the same kind.
func failureKind(res Result) string {
	var kinds []string
	for _, v := range res.Violations {
		if v.Error {
			kinds = append(kinds, v.Anomaly)
		}
	}
	if len(kinds) == 0 {
		if res.Liveness != "" {
			return "liveness"
		}
		return ""
	}
	// Prefer the anomaly a scenario expects; otherwise the first name in
	// sort order, so the choice does not depend on report order.
	slices.Sort(kinds)
	return kinds[0]
}

// hasKind reports whether a run shows the given failure kind.
func hasKind(res Result, kind string) bool {
	if kind == "liveness" {
		return res.Liveness != ""
	}
	for _, v := range res.Violations {
		if v.Error && v.Anomaly == kind {
			return true
		}
	}
	return false
}

// Shrink reduces the faults of a failing run (scenario, seed, overrides)
// to a minimal schedule under which the same seed still fails with the
// same kind of violation: faults dropped, windows shortened, faults moved
// later (faults.Shrink). It is deterministic: the same failing run always
// shrinks to the same schedule. runsMax bounds the runs it may spend.
// ErrNothingToShrink is Shrink's answer for a run that does not fail:
// the command line was given the wrong run, which is bad input.
var ErrNothingToShrink = errors.New("does not fail: nothing to shrink")

func Shrink(sc Scenario, seed uint64, set []string, runsMax int) (ShrinkResult, error) {
	res, err := Run(sc, seed, Options{Set: set, LinearizabilityBudget: -1})
	if err != nil {
		return ShrinkResult{}, err
	}
	kind := failureKind(res)
	if sc.Expect != "" && hasKind(res, sc.Expect) {
		kind = sc.Expect
	}
	if kind == "" {
		return ShrinkResult{}, fmt.Errorf("%s seed %d %w", sc.Name, seed, ErrNothingToShrink)
	}
	orig, err := faults.Parse(strings.NewReader(res.Schedule), "schedule")
	if err != nil {
		return ShrinkResult{}, fmt.Errorf("the run's own schedule does not parse: %w", err)
	}
	var runErr error
	fails := func(s faults.Schedule) bool {
		r, err := Run(sc, seed, Options{Set: set, Schedule: &s, LinearizabilityBudget: -1})
		if err != nil {
			runErr = err
			return false
		}
		return hasKind(r, kind)
	}
	shrunk, runs := faults.Shrink(orig, fails, runsMax)
	if runErr != nil {
		return ShrinkResult{}, runErr
	}
	return ShrinkResult{Kind: kind, Original: orig, Shrunk: shrunk, Runs: runs}, nil
}
