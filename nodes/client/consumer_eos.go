package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// What a consume-transform-produce application needs of its consumer
// (KIP-447): its group metadata for sendOffsetsToTransaction, polls it
// records itself, and a rewind to the committed offsets after an abort.

// GroupMetadata is KafkaConsumer.groupMetadata(): the group, the
// generation and member id of the member's last join, and its instance
// id, which a TxnOffsetCommit carries so that the group coordinator can
// fence a zombie.
func (c *Consumer) GroupMetadata() GroupMetadata {
	gm := GroupMetadata{GroupID: c.opts.GroupID, GenerationID: noGeneration, GroupInstanceID: c.opts.GroupInstanceID}
	if c.grp != nil {
		gm.GenerationID, gm.MemberID = c.grp.generation, c.grp.memberID
	}
	return gm
}

// PollRecords is the application's KafkaConsumer.poll with ManualPoll:
// up to max.poll.records buffered records, the positions moved past them,
// and nothing recorded. It returns nothing while the member may not hand
// out records (a rebalance under way, a session that may have expired,
// a fatal group error) or a partition has an error to raise.
func (c *Consumer) PollRecords(env *sim.Env) []model.PartitionRecords {
	env = c.envOr(env)
	if m := c.grp; m != nil {
		m.maybeSelfFence(env)
		if m.raiseFatal() != "" || m.pollsPaused() {
			return nil
		}
	}
	for _, ps := range c.states {
		if ps.errNext != "" {
			ps.errNext = ""
			return nil
		}
	}
	out := c.takeRecords()
	c.run(env)
	return out
}

// Positions are the positions of the owned partitions that have one
// (SubscriptionState.allConsumed): the offsets a transaction commits.
func (c *Consumer) Positions() []model.CommitOffset { return c.consumedOffsets() }

// RewindToCommitted forgets every position, so that each assigned
// partition starts again from the group's committed offset, as an
// exactly-once application does after it aborts a transaction (Kafka
// Streams' TaskManager closes its tasks dirty and resets their offsets to
// the last committed ones): what the aborted transaction consumed is
// consumed again.
func (c *Consumer) RewindToCommitted(env *sim.Env) {
	env = c.envOr(env)
	c.unsettle()
	for _, ps := range c.states {
		ps.state, ps.position, ps.positionEpoch = stateInit, model.NoOffset, model.NoEpoch
		ps.gen++
		ps.buf, ps.skipTo, ps.errNext = nil, model.NoOffset, ""
		ps.reqPending, ps.failures, ps.retryAt = false, 0, 0
		c.fetchChanged(ps) // its leader's next incremental fetch looks at it
	}
	c.run(env)
}
