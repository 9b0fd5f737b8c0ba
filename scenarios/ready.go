package scenarios

import (
	"time"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// fixtureOptions are the options play builds a scenario's fixture with.
// ReadyAt builds the same fixture from them, so the two cannot disagree
// about when a run's cluster becomes ready.
func fixtureOptions(sc Scenario, seed uint64, kc model.Config, trace sim.Config) fixture.Options {
	return fixture.Options{
		Seed: seed, Config: kc, Spec: sc.Spec,
		Trace: trace,
	}
}

// ReadyAt is the virtual time at which Run's cluster for (sc, seed, set)
// becomes ready: the moment its safety phase, and with it any schedule,
// may start. It boots the fixture alone, which is deterministic and
// cheap (well under a millisecond of wall time for the catalog's
// shapes), so that a schedule written relative to readiness can be
// placed in absolute time before the run: a fresh cluster's metadata
// quorum is usually ready within 200 ms, but a split first vote costs an
// election backoff and readies it after a second or more (about one
// seed in ten; seed 2831 of a three-broker cluster is ready at 1.1 s).
//
// An error means the cluster cannot be built or does not become ready
// within NewScripted's bound: the case cannot be run at all.
func ReadyAt(sc Scenario, seed uint64, set []string) (time.Duration, error) {
	sc, set = resolve(sc, seed, set)
	kc, err := ConfigFor(sc, set)
	if err != nil {
		return 0, err
	}
	s, err := NewScripted(fixtureOptions(sc, seed, kc, sim.Config{}))
	if err != nil {
		return 0, err
	}
	return s.Sim.Now(), nil
}
