package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"kafkasim/internal/atomicfile"
	"kafkasim/scenarios"
)

func init() {
	commands["show"] = command{summary: "print a catalog scenario as an experiment file (run it with run -f)", run: runShow}
}

// experimentFileName is the run or sweep directory's copy of the
// experiment file it ran, as kafkasim prints it (any schedule file
// inlined), so that a copied directory replays without the original.
const experimentFileName = "experiment.toml"

// scenarioFlags resolves -scenario NAME or -f FILE, exactly one: the
// scenario to run and, for -f, the experiment read.
func scenarioFlags(name, file string) (scenarios.Scenario, *scenarios.LoadedExperiment, error) {
	switch {
	case name != "" && file != "":
		return scenarios.Scenario{}, nil, errors.New("-scenario and -f are exclusive: run a catalog scenario or an experiment file")
	case file != "":
		le, err := scenarios.LoadExperiment(file)
		if err != nil {
			return scenarios.Scenario{}, nil, err
		}
		return le.Scenario, &le, nil
	}
	sc, ok := scenarios.Find(name)
	if !ok {
		return scenarios.Scenario{}, nil, fmt.Errorf("unknown scenario %q (see kafkasim list, or give an experiment file with -f)", name)
	}
	return sc, nil, nil
}

// keepExperiment writes the experiment's copy into dir and points sc at
// where it will be once dir is in place (final).
func keepExperiment(dir, final string, le *scenarios.LoadedExperiment, sc *scenarios.Scenario) error {
	if le == nil {
		return nil
	}
	if err := atomicfile.Write(filepath.Join(dir, experimentFileName), func(w io.Writer) error {
		_, err := io.WriteString(w, scenarios.Format(le.Experiment))
		return err
	}); err != nil {
		return err
	}
	sc.Experiment = filepath.Join(final, experimentFileName)
	return nil
}

// runShow is `kafkasim show NAME`: the catalog scenario as an experiment
// file on stdout, which run -f runs to the same trace hash. Exit 2 for an
// unknown name.
func runShow(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim show", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim show NAME   (NAME from kafkasim list)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	sc, ok := scenarios.Find(fs.Arg(0))
	if !ok {
		fmt.Fprintf(stderr, "kafkasim show: unknown scenario %q (see kafkasim list)\n", fs.Arg(0))
		return 2
	}
	e, err := scenarios.ExperimentOf(sc)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim show: %v\n", err)
		return 2
	}
	fmt.Fprintf(stdout, "# kafkasim show %s: the catalog scenario as an experiment file (kafkasim run -f FILE)\n%s", sc.Name, scenarios.Format(e))
	return 0
}
