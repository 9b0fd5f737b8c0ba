package scenarios

import (
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// controllerScenarios put the metadata quorum (issue #10) under faults:
// the active controller cut off either way, a swarm of faults on
// controllers and brokers together, and the single-controller
// configuration kept for comparison. Each run measures its controller
// failovers (Result.ControllerFailovers) beside its partition failovers.
func controllerScenarios() []Scenario {
	return []Scenario{
		{
			Name: "controller-isolation",
			Description: "the active controller is cut from the brokers but not its quorum (it stays active while no broker reaches it), " +
				"from its quorum but not the brokers (another takes over; brokers must find it), or from everyone",
			Config: safe,
			Writer: everyWriter("controller-isolation",
				"partition isolate controller from brokers",
				"partition isolate controller from controllers",
				"partition isolate controller"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:        "controller-quorum-chaos",
			Description: "a swarm of every fault kind aimed at controllers and brokers together: any controller, all of them at once, isolation from the quorum",
			Config:      safe,
			Swarm:       &faults.SwarmOptions{Kinds: faults.SwarmKinds(), Controllers: true},
			Safety:      60 * time.Second,
			// A swarm may take the whole quorum down near the end of the
			// safety phase: the quorum elects, then the brokers register
			// and catch up, then partitions elect.
			LivenessBound: 90 * time.Second,
		},
		{
			Name:          "controller-failover-single",
			Description:   "controller-failover with a single controller (a quorum of one), for comparison: nothing commits until it restarts",
			Spec:          fixture.Spec{Controllers: 1},
			Config:        safe,
			Writer:        everyWriter("controller-failover", "crash controller", "power-loss controller"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
	}
}
