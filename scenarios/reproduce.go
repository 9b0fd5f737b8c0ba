package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// Invocation is everything that made a run, so that its reproduce lines
// replay it event for event: the scenario, the seed, every -set in the
// order given, and the schedule file that replaced the scenario's faults
// (none when the scenario drew its own from the seed).
type Invocation struct {
	Scenario string
	Seed     uint64
	Set      []string
	// ScheduleFile is the path of the schedule file the run replayed
	// (the run directory's saved copy when there is one), "" when the
	// scenario's own faults ran.
	ScheduleFile string
	// Experiment is the experiment file the scenario was read from ("" for
	// a catalog scenario), ExperimentHash its hash.
	Experiment     string
	ExperimentHash string
}

// Invocation is what made r. A sweep's -vary setting is part of r.Set;
// a results.jsonl written before the settings were recorded has only
// r.Vary, which is then added.
func (r Result) Invocation() Invocation {
	set := slices.Clone(r.Set)
	if r.Vary != "" && !slices.Contains(set, r.Vary) {
		set = append(set, r.Vary)
	}
	return Invocation{Scenario: r.Scenario, Seed: r.Seed, Set: set, ScheduleFile: r.ScheduleFile, Experiment: r.Experiment, ExperimentHash: r.ExperimentHash}
}

// Reproduce is the one place reproduce lines are made: every command
// (run, sweep, shrink), report (index.html, summary.md) and test failure
// prints what it returns, one command per line. The kafkasim line always
// replays the run; the go test line is given too when the test harness
// can replay it exactly, that is without -set or a schedule file (the
// harness runs the catalog as it is).
func Reproduce(inv Invocation) string {
	var lines []string
	if len(inv.Set) == 0 && inv.ScheduleFile == "" && inv.Experiment == "" {
		// -run takes one anchored regular expression per level of the
		// test name, so that leader-failover does not also run a
		// scenario whose name merely starts with it.
		lines = append(lines, fmt.Sprintf("go test ./scenarios -run %s -seed %d", shellQuote("TestScenarios/^"+inv.Scenario+"$"), inv.Seed))
	}
	words := []string{"go", "run", "./cmd/kafkasim", "run", "-scenario", inv.Scenario, "-seed", fmt.Sprint(inv.Seed)}
	if inv.Experiment != "" {
		words = []string{"go", "run", "./cmd/kafkasim", "run", "-f", inv.Experiment, "-seed", fmt.Sprint(inv.Seed)}
	}
	for _, kv := range inv.Set {
		words = append(words, "-set", kv)
	}
	if inv.ScheduleFile != "" {
		words = append(words, "-schedule", inv.ScheduleFile)
	}
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	line := strings.Join(words, " ")
	if inv.ExperimentHash != "" {
		line += "  # experiment sha256 " + inv.ExperimentHash
	}
	lines = append(lines, line)
	return strings.Join(lines, "\n")
}

// shellQuote returns s as one word of a POSIX shell: unchanged when it
// holds only characters no shell treats specially, else in single quotes
// (a single quote inside becomes '\”).
func shellQuote(s string) string {
	plain := s != ""
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("-_./=:,+@%", c):
		default:
			plain = false
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
