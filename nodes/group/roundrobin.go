package group

import "kafkasim/model"

// RoundRobin is Kafka's RoundRobinAssignor: every subscribed partition, in
// (topic, partition) order, goes to the next member in a cycle over all
// members in member order, skipping members not subscribed to the
// partition's topic. With identical subscriptions the counts differ by at
// most one; with different ones they can be far apart (see the Javadoc
// example in the tests).
type RoundRobin struct{}

func (RoundRobin) Name() string       { return string(model.AssignRoundRobin) }
func (RoundRobin) Protocol() Protocol { return Eager }

func (RoundRobin) Assign(members []Member, partitions map[string]int32) Assignment {
	ms := sortedMembers(members)
	a := emptyAssignment(ms)
	next := 0 // the cycle's cursor into ms
	for _, tp := range allPartitions(subscribedTopics(ms, partitions), partitions) {
		// Some member subscribes to tp's topic (that is how it got into
		// the list), so this finds one within len(ms) steps.
		for !subscribes(ms[next], tp.Topic) {
			next = (next + 1) % len(ms)
		}
		a[ms[next].ID] = append(a[ms[next].ID], tp)
		next = (next + 1) % len(ms)
	}
	return a
}
