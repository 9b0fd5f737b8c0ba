package main

import (
	"fmt"
	"io"
	"time"

	"kafkasim/checkers"
	"kafkasim/scenarios"
)

// checkRunDir is `kafkasim check -run DIR`: the saved run judged again
// with its recorded settings. It exits 2 on a missing or malformed file of
// the directory, else 0 when the re-check is valid and the run's recorded
// liveness phase converged, 1 otherwise. budget, when not nil, replaces
// the run's porcupine budget.
func checkRunDir(dir string, budget *time.Duration, outDir string, asJSON, wide bool, stdout, stderr io.Writer) int {
	s, err := scenarios.LoadRun(dir)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	if budget != nil {
		s.Options.LinearizabilityBudget = *budget
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
		missing:  checkers.Missing(&s.Input),
		settings: recordedSettings(s.Manifest.Config),
		run:      &rc,
		wide:     wide,
	}
	if code := printCheck(stdout, stderr, &rep, asJSON); code != 0 {
		return code
	}
	if code := verdictExit(rc.Result); code != 0 {
		return code
	}
	if s.Manifest.Liveness != "" {
		return 1
	}
	return 0
}
