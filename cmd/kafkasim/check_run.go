package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"kafkasim/checkers"
	"kafkasim/scenarios"
)

// checkRunDir is `kafkasim check -run DIR`: the saved run judged again
// with its recorded settings. It exits 2 on a missing or malformed file of
// the directory, else 1 when the re-check found a violation or the run's
// recorded liveness phase did not converge, 3 when it found none but could
// not judge everything (verdictExit), 0 otherwise. budget and work, when not
// nil, replace the run's porcupine wall-clock cap and work budget.
func checkRunDir(dir string, budget *time.Duration, work *int64, outDir string, asJSON, wide bool, stdout, stderr io.Writer) int {
	s, err := scenarios.LoadRun(dir)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	if budget != nil {
		s.Options.LinearizabilityBudget = *budget
	}
	if work != nil {
		s.Options.LinearizabilityWork = *work
	}
	od, err := newCheckOut(outDir)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	rc := s.Check(od.dir())
	if err := od.commit(&rc.Result); err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	rep := checkReport{
		res: rc.Result, ops: len(s.Input.History),
		missing:   checkers.Missing(&s.Input),
		settings:  recordedSettings(s.Manifest.Config),
		run:       &rc,
		reproduce: runReproduce(dir, s.Manifest),
		wide:      wide,
	}
	if code := printCheck(stdout, stderr, &rep, asJSON); code != 0 {
		return code
	}
	if s.Manifest.Liveness != "" {
		return exitViolation
	}
	return verdictExit(rc.Result)
}

// runReproduce are the reproduce lines of a saved run: its scenario, seed
// and settings, and, when a schedule file replaced the scenario's faults,
// the directory's copy of it (schedule.txt, which kafkasim run -out
// writes); for an experiment, the directory's copy of its file.
func runReproduce(dir string, m scenarios.RunManifest) string {
	inv := scenarios.Invocation{Scenario: m.Scenario, Seed: m.Seed, Set: m.Set}
	if m.ExperimentHash != "" {
		inv.Experiment, inv.ExperimentHash = filepath.Join(dir, experimentFileName), m.ExperimentHash
	}
	if m.ScheduleGiven {
		inv.ScheduleFile = filepath.Join(dir, scheduleFileName)
	}
	return scenarios.Reproduce(inv)
}
