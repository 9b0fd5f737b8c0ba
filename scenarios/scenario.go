package scenarios

import (
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// Scenario is a named, runnable experiment: a cluster shape, a
// configuration, a workload, a fault policy, run lengths, and what the
// run is expected to show. It is a value: the catalog is a list of them,
// and a run is a pure function of (scenario, seed, options).
type Scenario struct {
	Name        string
	Description string

	// Spec is the cluster and workload the run starts from (fixture.New
	// builds it).
	fixture.Spec
	// Config is the cluster's configuration before -set overrides.
	Config func() model.Config

	// Schedule writes the safety phase's faults for a ready fixture (it may
	// name the nodes that lead or follow at that moment); Swarm instead
	// draws them from the seed. Neither: no faults. A -schedule file given
	// to a run replaces both.
	// Writer is the same as data: one of the catalog's schedule writers
	// with its parameters, what an experiment file can name (see
	// ScheduleWriter). At most one of Schedule and Writer is set.
	Schedule func(s *Scripted) faults.Schedule
	Writer   *ScheduleWriter
	Swarm    *faults.SwarmOptions
	// Faults are written-out faults (an experiment's schedule), played
	// besides whatever Schedule, Writer or Swarm write.
	Faults faults.Schedule
	// ProduceUntil stops the producer at this virtual time (0: it runs
	// through the safety phase).
	ProduceUntil time.Duration
	// Safety is when the safety phase ends: a span of virtual time after
	// the cluster is ready, or, for a scripted scenario (Until), an
	// absolute virtual time its schedule was written against.
	Safety time.Duration
	Until  time.Duration
	// LivenessBound is how long, after every fault heals, the cluster has
	// to converge (liveness.go says what converged means). Zero skips the liveness phase,
	// as a scripted bug replay may: its faults are its story.
	LivenessBound time.Duration

	// Draw, if set, names a configuration swarm (Draws) that draws the
	// cluster's shape and Kafka settings from the seed (chaosconfig.go);
	// Run and everything that replays a run resolve it first.
	Draw string

	// Expect is Pass for a scenario that must pass, or the anomaly the
	// checkers must name (expect.go; a historical bug under its
	// configuration).
	Expect Expect
	// Seed is the scenario's own seed, 0 for none: a historical bug's
	// replay was written against it, and go test and kafkasim run without
	// -seed play it (DefaultSeed); an experiment file's is the first of
	// its seeds. Sweeps run their own seed range.
	Seed uint64

	// Experiment is the experiment file the scenario was read from (a run
	// or sweep directory's copy when there is one) and ExperimentHash its
	// hash (LoadedExperiment.Hash); "" for a catalog scenario. Results
	// and reproduce lines name them.
	Experiment     string
	ExperimentHash string
	_              struct{}
}

// Catalog lists every scenario in a fixed order.
func Catalog() []Scenario {
	out := append([]Scenario(nil), safeScenarios()...)
	out = append(out, groupScenarios()...)
	out = append(out, controllerScenarios()...)
	out = append(out, chaosConfig())
	out = append(out, leaderLossScenarios()...)
	for _, h := range HistoricalBugs {
		out = append(out, h.Scenario())
	}
	return out
}

// LargeScenarios are scenarios kept out of the catalog because a run of
// one costs too much for the catalog's sweeps (-scenario all and safe)
// and its tests: kafkasim run and sweep play one when named, and go test
// ./scenarios -run TestScenarios -scenario NAME runs one.
func LargeScenarios() []Scenario {
	return []Scenario{largeCluster()}
}

// Find returns the catalog scenario, or the large scenario, with the given
// name.
func Find(name string) (Scenario, bool) {
	for _, s := range slices.Concat(Catalog(), LargeScenarios()) {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// DefaultSeed is the seed kafkasim run plays sc with when no -seed is
// given: the scenario's own (Seed), else 1.
func (sc Scenario) DefaultSeed() uint64 {
	if sc.Seed != 0 {
		return sc.Seed
	}
	return 1
}
