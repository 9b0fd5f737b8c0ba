package scenarios

import (
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
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
	// alter-config is left out: with eligible leader replicas on (the safe
	// configuration), a change of min.insync.replicas clears the topic's
	// ELR (KIP-966), and a partition that was leaderless then, waiting for
	// an ELR member, stays so for good (only an unclean election brings
	// it back), as in Kafka: seeds 99300027 and 12 others of the first
	// sweep. It is an operator's loss of availability, not the cluster's.
	topicOps := slices.DeleteFunc(faults.SwarmTopicOperations(), func(k faults.Kind) bool { return k == faults.KindAlterConfig })
	return Scenario{
		Name: "topics-under-chaos",
		Description: "the chaos swarm (no power loss) with topics created, grown, reconfigured and deleted among its faults, " +
			"while producers write to them and a group reads them",
		Config: topicsChaosConfig,
		Spec:   fixture.Spec{Shape: shape, Groups: readersGroup},
		Swarm: &faults.SwarmOptions{
			Kinds:  slices.Concat(kinds, topicOps),
			Topics: []string{"scratch", "fresh"},
		},
		Safety:        60 * time.Second,
		LivenessBound: 90 * time.Second,
	}
}

// topicsChaosConfig is the shaped safe configuration with clients that
// refresh their metadata every 10 s (metadata.max.age.ms; Kafka's default
// is 5 minutes): a topic that grows is noticed, and the group rebalances
// onto its new partitions, within the run's minute of faults rather than
// after it (with the default, the records on the new partitions wait
// unread past the liveness bound, as they would in Kafka).
func topicsChaosConfig() model.Config {
	kc := shaped()
	kc.Client.MetadataMaxAge = 10 * time.Second
	return kc
}
