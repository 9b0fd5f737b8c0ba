package main

import (
	"fmt"
	"io"
	"os"

	"kafkasim/faults"
	"kafkasim/scenarios"
)

// readScheduleFile reads a schedule file with the line of each fault, for
// checkScheduleFile.
func readScheduleFile(path string) (scenarios.ScheduleFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return scenarios.ScheduleFile{}, err
	}
	defer f.Close()
	s, lines, err := faults.ParseLines(f, path)
	return scenarios.ScheduleFile{Name: path, Schedule: s, Lines: lines}, err
}

// loadRunSchedule reads the -schedule file of a run and judges it against
// the scenario's cluster before anything runs (scenarios.CheckSchedule):
// what it refuses is bad input, and what it warns of (an empty schedule, a
// fault after the run's faults end) goes to stderr, one "warning:
// file:line: ..." a line, and the run goes ahead.
func loadRunSchedule(path string, sc scenarios.Scenario, seed uint64, sets []string, stderr io.Writer) (faults.Schedule, error) {
	file, err := readScheduleFile(path)
	if err != nil {
		return nil, err
	}
	warnings, err := scenarios.CheckSchedule(sc, seed, sets, file)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	return file.Schedule, nil
}
