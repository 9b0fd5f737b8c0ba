package scenarios

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var flagExperiments = flag.String("experiments", "../experiments", "run every experiment file (*.toml) in this `dir`ectory")

// TestExperiments runs every experiment file under -experiments (the
// repository's experiments/ by default) as TestScenarios runs the
// catalog: on its own seeds, or -seed's; an experiment that must pass
// must pass on each, one that expects an anomaly must show it on one.
func TestExperiments(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(*flagExperiments, "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "experiments" })
	if len(files) == 0 {
		if _, err := os.Stat(*flagExperiments); given || err == nil {
			t.Fatalf("no experiment files (*.toml) in %s", *flagExperiments)
		}
		t.Skipf("no %s", *flagExperiments)
	}
	sort.Strings(files)
	for _, f := range files {
		le, err := LoadExperiment(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		sc := le.Scenario
		if *flagScenario != "" && sc.Name != *flagScenario {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			seeds := le.Experiment.SeedsOrDefault()
			if s := seedsFor(t, sc); seedsGiven() {
				seeds = s
			}
			playSeeds(t, sc, seeds, f, Invocation{Scenario: sc.Name, Seed: seeds[0], Experiment: f, ExperimentHash: le.Hash})
		})
	}
}

// seedsGiven says -seed was given on the command line.
func seedsGiven() bool {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "seed" })
	return given
}
