package scenarios

import (
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// topicsUnderChaos is the chaos swarm with the topic operations drawn
// among its faults: "scratch", which the producers write to and the group
// reads, and "fresh", which no one writes to, are created, deleted and
// created again; they and the workload's topics grow and change their
// min.insync.replicas (2 or 3). The group reads every topic, so a topic
// that grows makes it rebalance. Power loss is left out for chaos's
// reason: with a group, a power loss of every ISR replica of a
// __consumer_offsets partition restarts the group's generations, which
// the group checkers cannot tell from two owners in one generation.
func topicsUnderChaos() Scenario {
	shape := realistic()
	shape.Topics = append(shape.Topics, fixture.TopicShape{Name: "scratch", Partitions: 2})
	for i := range shape.Producers {
		shape.Producers[i].Topics = append(shape.Producers[i].Topics, "scratch")
	}
	kinds := slices.DeleteFunc(faults.SwarmKinds(), func(k faults.Kind) bool { return k == faults.KindPowerLoss })
	return Scenario{
		Name: "topics-under-chaos",
		Description: "the chaos swarm (no power loss) with topics created, grown, reconfigured and deleted among its faults, " +
			"while producers write to them and a group reads them",
		Config: shaped,
		Spec:   fixture.Spec{Shape: shape, Groups: readersGroup},
		Swarm: &faults.SwarmOptions{
			Kinds:  slices.Concat(kinds, faults.SwarmTopicOperations()),
			Topics: []string{"scratch", "fresh"},
		},
		Safety:        60 * time.Second,
		LivenessBound: 90 * time.Second,
	}
}
