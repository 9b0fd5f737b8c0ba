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
	// Set is the settings the shrunk run is replayed with: the given
	// ones, and for a scenario that draws its settings from the seed the
	// drawn ones, each moved to the scenario's own value where the run
	// still fails without it (shrinkSettings).
	Set []string
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
	if sc.Expect != Pass && hasKind(res, sc.Expect.Anomaly()) {
		kind = sc.Expect.Anomaly()
	}
	if kind == "" {
		return ShrinkResult{}, fmt.Errorf("%s seed %d %w", sc.Name, seed, ErrNothingToShrink)
	}
	orig, err := faults.Parse(strings.NewReader(res.Schedule), "schedule")
	if err != nil {
		return ShrinkResult{}, fmt.Errorf("the run's own schedule does not parse: %w", err)
	}
	valid, err := membersGuard(sc, seed, set, orig)
	if err != nil {
		return ShrinkResult{}, err
	}
	var runErr error
	fails := func(s faults.Schedule) bool {
		if valid != nil && !valid(s) {
			return false // a file run -schedule would refuse
		}
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
	out := ShrinkResult{Kind: kind, Original: orig, Shrunk: shrunk, Runs: runs, Set: res.Set}
	if sc.Draw != "" {
		out.Set, out.Runs = shrinkSettings(sc, seed, res.Set, set, shrunk, kind, runs, runsMax)
	}
	return out, nil
}

// shrinkSettings moves each drawn setting of a configuration swarm's run,
// in the order drawn, to the scenario's own value, keeping each move under
// which the shrunk schedule still fails with kind: what is left drawn is
// what the failure needs. Settings the user gave (given) stay as given.
// It returns the settings and the runs spent, within runsMax.
func shrinkSettings(sc Scenario, seed uint64, cur, given []string, sched faults.Schedule, kind string, runs, runsMax int) ([]string, int) {
	cur = slices.Clone(cur)
	for i, kv := range cur {
		key, val, _ := strings.Cut(kv, "=")
		if runs >= runsMax || slices.ContainsFunc(given, func(g string) bool { k, _, _ := strings.Cut(g, "="); return k == key }) {
			continue
		}
		def, ok := settingDefault(sc, key)
		if !ok || def == val {
			continue
		}
		try := slices.Clone(cur)
		try[i] = key + "=" + def
		runs++
		r, err := Run(sc, seed, Options{Set: try, Schedule: &sched, LinearizabilityBudget: -1})
		if err == nil && hasKind(r, kind) {
			cur = try
		}
	}
	return cur, runs
}
