package controller

import (
	"math"

	"kafkasim/model"
)

// Controlled shutdown, as KRaft does it. A broker about to stop heartbeats
// with WantShutdown. If it leads any partition, the controller marks it in
// controlled shutdown (BrokerRegistrationChangeRecord), moves its
// leaderships to other ISR members and takes it out of every ISR, in one
// batch (ReplicationControlManager.handleBrokerInControlledShutdown); the
// broker is still unfenced and goes on serving fetches and produce
// requests until the new leaders have taken over. It is told ShouldShutdown
// on a later heartbeat, once it leads nothing and every active broker has
// applied metadata up to the end of that batch
// (BrokerHeartbeatManager.calculateNextBrokerState, lowestActiveOffset),
// and it is fenced then. The broker bounds its own wait (see the broker's
// shutdown.go).

// controlledShutdownRecords enters controlled shutdown: the mark, unless
// the registration has it already (a controller that took over forgot the
// session, not the record), then the leadership and ISR changes, built as
// for a fencing (the broker may not lead and leaves the ISR).
func (c *Controller) controlledShutdownRecords(id model.BrokerID) []Record {
	var records []Record
	b := c.state.brokers[id]
	if !b.InControlledShutdown {
		records = append(records, BrokerRegistrationChangeRecord{ID: id, Epoch: b.Epoch})
	}
	return append(records, c.state.leaderAndISRUpdates(id, model.NoBroker, model.NoBroker, inISR(id))...)
}

// leadsAny reports whether a broker leads a partition
// (BrokersToIsrs.hasLeaderships).
func (s *metadataState) leadsAny(id model.BrokerID) bool {
	leads := false
	s.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		if p.Leader == id {
			leads = true
		}
	})
	return leads
}

// lowestActiveOffset is the lowest metadata offset reported by a broker
// that is unfenced and not shutting down, or the largest offset when there
// is none (BrokerHeartbeatManager.lowestActiveOffset). A broker not heard
// from since this controller took over counts as -1: its offset is not
// known, so nobody is let go until it reports.
func (c *Controller) lowestActiveOffset() int64 {
	lowest := int64(math.MaxInt64)
	for _, id := range c.state.brokerIDs {
		b := c.state.brokers[id]
		if b.Fenced {
			continue
		}
		s := c.session(id)
		if s.shuttingDown() {
			continue
		}
		lowest = min(lowest, s.metadataOffset)
	}
	return lowest
}
