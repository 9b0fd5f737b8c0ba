package client

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// The consumer's side of group membership: the group API of
// KafkaConsumer (subscribe, commitAsync, close and the getters), each
// handing over to the member (group.go), and the subscriptions the
// consumer lends it (SubscriptionState's share of the group protocol).

// Subscribe replaces the group member's subscription
// (KafkaConsumer.subscribe) and records a subscribe op (see
// member.subscribe). No topics unsubscribes. env may be nil from harness
// code outside the node's events.
func (c *Consumer) Subscribe(env *sim.Env, topics []string) {
	env = c.envOr(env)
	if c.grp == nil {
		panic("client.Consumer.Subscribe: the consumer has no GroupID")
	}
	topics = slices.Clone(topics)
	slices.Sort(topics)
	topics = slices.Compact(topics)
	c.grp.subscribe(env, topics)
	c.run(env)
}

// Subscription returns the group member's topics, sorted.
func (c *Consumer) Subscription() []string {
	if c.grp == nil {
		return nil
	}
	return slices.Clone(c.grp.topics)
}

// MemberID returns the member id the coordinator last gave the member, ""
// without one.
func (c *Consumer) MemberID() string {
	if c.grp == nil {
		return ""
	}
	return c.grp.memberID
}

// Generation returns the member's generation id, -1 without one.
func (c *Consumer) Generation() model.Epoch {
	if c.grp == nil {
		return noGeneration
	}
	return c.grp.generation
}

// Coordinator returns the broker the member takes for its group's
// coordinator, NoBroker while it does not know one.
func (c *Consumer) Coordinator() model.BrokerID {
	if c.grp == nil {
		return model.NoBroker
	}
	return c.grp.coordinator
}

// Commit commits the positions of the member's partitions, as
// KafkaConsumer.commitAsync() does: the next offset to read, with the
// leader epoch of the record before it (KIP-320). It is recorded as a
// commit op whatever comes of it; with nothing consumed yet nothing is
// sent or recorded. env may be nil from harness code outside the node's
// events.
func (c *Consumer) Commit(env *sim.Env) {
	env = c.envOr(env)
	if c.grp == nil {
		panic("client.Consumer.Commit: the consumer has no GroupID")
	}
	c.grp.commitPositions(env, false)
	c.run(env)
}

// Stop is a graceful shutdown (sim.Stopper), KafkaConsumer.close: a group
// member commits what it consumed (with auto-commit), revokes and leaves
// its group (see leaveGroup).
func (c *Consumer) Stop(env *sim.Env) {
	if c.grp != nil {
		c.grp.stop(env)
	}
}

// owned is the assignment, sorted (subscriptions).
func (c *Consumer) owned() []model.TopicPartition { return c.order }

// consumedOffsets is SubscriptionState.allConsumed: the position of every
// owned partition that has a valid one.
func (c *Consumer) consumedOffsets() []model.CommitOffset {
	var out []model.CommitOffset
	for _, tp := range c.order {
		if ps := c.parts[tp]; ps.state == stateFetching && ps.position >= 0 {
			out = append(out, model.CommitOffset{TP: tp, Offset: ps.position, LeaderEpoch: ps.positionEpoch})
		}
	}
	return out
}

// awaitsCommitted reports whether tp is assigned and has no position yet
// (subscriptions).
func (c *Consumer) awaitsCommitted(tp model.TopicPartition) bool {
	ps := c.parts[tp]
	return ps != nil && ps.state == stateInit
}

// startFromCommitted gives a partition waiting for the group's committed
// offset its position: that offset, or auto.offset.reset when the group
// has none (a negative offset) (subscriptions).
func (c *Consumer) startFromCommitted(env *sim.Env, tp model.TopicPartition, offset model.Offset, epoch model.Epoch) {
	ps := c.parts[tp]
	if offset >= 0 {
		c.seekCommitted(ps, offset, epoch)
		return
	}
	c.startReset(env, ps, ResetNoOffset, "NoOffsetForPartition")
}

// seekCommitted starts a partition at its committed offset. With the
// committed leader epoch the position is validated against the current
// leader first (KIP-320, SubscriptionState.seekUnvalidated), so a log
// truncated below the committed offset since the commit is detected.
func (c *Consumer) seekCommitted(ps *partState, offset model.Offset, epoch model.Epoch) {
	if epoch < 0 {
		epoch = model.NoEpoch
	}
	leader, leaderEpoch := c.md.leader(ps.tp)
	c.setPosition(ps, offset, epoch, leader, leaderEpoch)
	if epoch != model.NoEpoch && leader != model.NoBroker && leaderEpoch != model.NoEpoch {
		c.unsettle()
		c.fetchChanged(ps)
		ps.state = stateValidating
	}
}
