package main

import (
	"kafkasim/checkers"
	"kafkasim/reports"
	"kafkasim/scenarios"
)

// The process exit codes every command keeps to, so that a script can
// tell a finding from a mistake in its own invocation. go run folds every
// non-zero code of the program into 1, which is why the README builds the
// binary for day-to-day use.
const (
	exitPass      = 0 // judged, nothing forbidden found
	exitViolation = 1 // a violation (or a liveness failure, or a bug scenario that never showed its anomaly)
	exitBadInput  = 2 // bad flags, files or histories: nothing ran to the end, nothing was written
	exitUnknown   = 3 // nothing forbidden found, but not everything could be judged
)

// verdictExit is the exit code of a judged history: a violation is 1;
// an unknown verdict (porcupine ran out of its budget, or the history
// could not be judged) is 3, since a pass would claim more than was
// shown; a valid one is 0.
func verdictExit(res checkers.Result) int {
	switch res.Valid {
	case checkers.ValidOK:
		return exitPass
	case checkers.ValidUnknown:
		return exitUnknown
	}
	return exitViolation
}

// runExit is the exit code of a run: 1 when it failed (a violation, or
// the cluster did not converge), else its verdict's (3 when unknown).
func runExit(res scenarios.Result) int {
	if !res.OK {
		return exitViolation
	}
	return verdictExit(checkers.Result{Valid: res.Valid})
}

// sweepExit is the exit code of a sweep or a merge: 1 when a safe
// scenario failed, a bug scenario never showed its anomaly or a replay
// diverged; else 3 when some run's verdict was unknown; else 0.
func sweepExit(s *reports.Summary, nondeterministic bool) int {
	if nondeterministic || !s.AsExpected() {
		return exitViolation
	}
	if s.Unknown() {
		return exitUnknown
	}
	return exitPass
}
