package scenarios

import (
	"time"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// realistic is the shape of the safe catalog: besides "t", two topics of
// different widths (seven partitions in all on three brokers, so every
// broker leads several), a producer keyed uniformly over 16 keys (which
// reach every partition of both) and a keyless one, each writing both
// topics. The catalog adds a consumer group beside the assigning
// consumer (readersGroup).
func realistic() *fixture.Shape {
	return &fixture.Shape{
		Topics: []fixture.TopicShape{{Name: "orders", Partitions: 4}, {Name: "events", Partitions: 2}},
		Producers: []fixture.ProducerShape{
			{Name: "keyed", Topics: []string{"orders", "events"}, Keys: fixture.KeysUniform, KeyCount: 16},
			{Name: "keyless", Topics: []string{"orders", "events"}},
		},
	}
}

// readersGroup is the group the shaped safe scenarios run beside the
// assigning consumer: two members reading every topic.
var readersGroup = []fixture.GroupSpec{{Name: "readers", Members: 2}}

// shaped is the safe configuration for a shaped fixture: its group gets
// the group scenarios' sessions and a small __consumer_offsets, and a
// rebalance timeout (max.poll.interval.ms) of 30 s instead of 5 minutes.
// A member waits for its JoinGroup answer for the rebalance timeout and 5
// s more (AbstractCoordinator's joinGroupTimeoutMs, JOIN_GROUP_TIMEOUT_LAPSE):
// when its coordinator loses power mid-join, no reset tells it, and with
// Kafka's default it would sit out 305 s, past any liveness bound, as a
// real consumer would (power-loss seed 5: the coordinator lost power 5 s
// in, before the group's first rebalance completed, and the group never
// read a record). 30 s keeps that wait inside the liveness phase.
func shaped() model.Config {
	kc := safe()
	kc.Consumer.SessionTimeout = 10 * time.Second
	kc.Consumer.HeartbeatInterval = 3 * time.Second
	kc.Consumer.MaxPollInterval = 30 * time.Second
	kc.Group.OffsetsTopicPartitions = 5
	return kc
}
