package client

import (
	"time"

	"kafkasim/model"
)

// settledPositions says that the last pass of run over the assignment left
// every partition fetching (or failed, waiting for a seek) with its
// position validated against the leader the metadata names, and what the
// latest retry time among them was. Until the metadata, the assignment or
// a partition's state, leader or retry time changes, another pass would
// change nothing, and run, made after every event the consumer handles,
// skips it: a consumer assigned thousands of partitions handles an event
// for every fetch answer of every broker. Every write of those fields
// outside the pass calls unsettle. Kafka's consumer skips the same walk the
// same way: PositionsValidator.validatePositionsOnMetadataChange (formerly
// in OffsetFetcher) checks every assigned partition against its leader only
// when Metadata.updateVersion has moved since the last check, and
// SubscriptionState.partitionsNeedingValidation and
// partitionsNeedingReset list only the partitions in those states.
type settledPositions struct {
	ok       bool
	ver      uint64        // metadata.ver at the pass
	assign   uint64        // Consumer.assignGen at the pass
	retryMax time.Duration // the latest partState.retryAt then
}

// unsettle makes the next run pass over the assignment again.
func (c *Consumer) unsettle() { c.settled.ok = false }

// positionsSettled reports whether a pass of updatePosition over the
// assignment would change nothing.
func (c *Consumer) positionsSettled() bool {
	s := &c.settled
	return s.ok && s.ver == c.md.ver && s.assign == c.assignGen
}

// settle records, after a pass, whether the assignment is settled.
func (c *Consumer) settle() {
	s := settledPositions{ok: true, ver: c.md.ver, assign: c.assignGen}
	for _, ps := range c.states {
		s.retryMax = max(s.retryMax, ps.retryAt)
		switch ps.state {
		case stateFailed:
		case stateFetching:
			if leader, epoch := c.leaderOf(ps); leader != model.NoBroker && (leader != ps.leader || epoch != ps.leaderEpoch) {
				s.ok = false
			}
		default:
			s.ok = false
		}
	}
	c.settled = s
}

// retriesDue reports whether some partition may have a retry time after
// now, which nextDeadline must wake for.
func (c *Consumer) retriesDue(now time.Duration) bool {
	return !c.positionsSettled() || c.settled.retryMax > now
}
