package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kafkasim/checkers"
	"kafkasim/scenarios"
)

// TestUnknownVerdictsExit3: a saved run whose linearizability check runs
// out of a 1 ns budget, the same history checked alone, and an empty
// history are judged unknown, exit 3; the same run with the default
// budget passes, exit 0. The run is leader-isolation's, whose faults
// only cut links. On a partition whose ISR replicas all lost unflushed
// data, as leader-failover seed 3's crashes left every one, a search cut
// short keeps the run's verdict, since no linearizable log was promised
// there, and the check exits 0.
func TestUnknownVerdictsExit3(t *testing.T) {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "run")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "-scenario", "leader-isolation", "-seed", "3", "-out", dir}, &out, &errb); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errb.String())
	}
	empty := filepath.Join(tmp, "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"check", "-run", dir}, 0},
		{[]string{"check", "-run", dir, "-budget", "1ns"}, 3},
		{[]string{"check", "-history", filepath.Join(dir, "history.jsonl"), "-budget", "1ns"}, 3},
		{[]string{"check", "-history", empty}, 3},
	} {
		out.Reset()
		errb.Reset()
		if code := dispatch(c.args, &out, &errb); code != c.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", strings.Join(c.args, " "), code, c.want, out.String(), errb.String())
		}
	}
}

// TestRunAndSweepExitCodes: a failed run is 1 whatever else; a passing
// run with an unknown verdict is 3; a sweep is 1 when a safe scenario
// failed, else 3 when a run was unknown, else 0.
func TestRunAndSweepExitCodes(t *testing.T) {
	pass := scenarios.Result{Scenario: "s", OK: true, AsExpected: true, Valid: checkers.ValidOK}
	unknown := pass
	unknown.Valid = checkers.ValidUnknown
	failed := pass
	failed.OK, failed.AsExpected, failed.Valid = false, false, checkers.ValidViolation
	stuck := pass
	stuck.OK, stuck.AsExpected, stuck.Liveness = false, false, "t/0 has no leader"
	for _, c := range []struct {
		res  scenarios.Result
		want int
	}{{pass, 0}, {unknown, 3}, {failed, 1}, {stuck, 1}} {
		if got := runExit(c.res); got != c.want {
			t.Errorf("runExit(valid %s, ok %v): %d, want %d", c.res.Valid, c.res.OK, got, c.want)
		}
	}
	for _, c := range []struct {
		results []scenarios.Result
		nondet  bool
		want    int
	}{
		{[]scenarios.Result{pass, pass}, false, 0},
		{[]scenarios.Result{pass, unknown}, false, 3},
		{[]scenarios.Result{unknown, failed}, false, 1},
		{[]scenarios.Result{pass, pass}, true, 1},
	} {
		if got := sweepExit(summaryOf(c.results), c.nondet); got != c.want {
			t.Errorf("sweepExit(%d results, nondeterministic %v): %d, want %d", len(c.results), c.nondet, got, c.want)
		}
	}
}
