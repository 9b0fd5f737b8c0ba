package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["shrink"] = command{summary: "reduce a failing run's faults to a minimal schedule file", run: runShrink}
}

// runShrink is `kafkasim shrink`: exit 0 with the minimal schedule written
// (to -out or stdout), 2 on bad input, which includes a run that does not
// fail (nothing to shrink: the wrong seed or settings were given), 1 when
// shrinking itself failed.
func runShrink(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim shrink", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("scenario", "", "scenario `name`")
	expFile := fs.String("f", "", "shrink a run of the experiment in this `file` instead of a catalog scenario")
	seed := fs.Uint64("seed", 1, "the failing run's seed")
	var sets setFlags
	fs.Var(&sets, "set", "override a configuration value by Kafka's name, `key=value` (repeatable)")
	out := fs.String("out", "", "write the minimal schedule to this `file` (default: stdout)")
	runs := fs.Int("runs", 200, "at most this many runs")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim shrink -scenario NAME|-f FILE -seed N [-set key=value ...] [-out FILE] [-runs K]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *runs < 1 {
		fmt.Fprintln(stderr, "kafkasim shrink: a bad argument (see -h)")
		return 2
	}
	sc, _, err := scenarioFlags(*name, *expFile)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
		return 2
	}
	if _, err := scenarios.ConfigFor(sc, sets); err != nil {
		fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
		return 2
	}
	if *out != "" {
		if err := checkOutFile(*out); err != nil {
			fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
			return 2
		}
	}
	res, err := scenarios.Shrink(sc, *seed, sets, *runs)
	if errors.Is(err, scenarios.ErrNothingToShrink) {
		fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
		return 1
	}
	// The replay line names the file written; on stdout, a placeholder
	// for wherever the user saves it.
	file := *out
	if file == "" {
		file = "FILE"
	}
	// res.Set is the settings given, and for a scenario that draws its
	// settings from the seed the drawn ones, shrunk.
	replay := scenarios.Reproduce(scenarios.Invocation{Scenario: sc.Name, Seed: *seed, Set: res.Set, ScheduleFile: file, Experiment: sc.Experiment, ExperimentHash: sc.ExperimentHash})
	text := fmt.Sprintf("# %s seed %d: %s with %d of %d faults (%d runs)\n# replay: %s\n%s",
		sc.Name, *seed, res.Kind, len(res.Shrunk), len(res.Original), res.Runs, strings.ReplaceAll(replay, "\n", "\n# replay: "), res.Shrunk)
	if *out == "" {
		fmt.Fprint(stdout, text)
		return 0
	}
	if err := reports.WriteFile(*out, func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
		// WriteFile removed its temporary file; whatever was at -out is
		// untouched.
		fmt.Fprintf(stderr, "kafkasim shrink: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "%s: %s kept with %d of %d faults; written to %s\n", sc.Name, res.Kind, len(res.Shrunk), len(res.Original), *out)
	return 0
}
