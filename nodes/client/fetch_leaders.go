package client

import "kafkasim/model"

// fetchLeaders groups the assignment by leader, as the metadata gives the
// leaders, so that sendFetches, run after every event the consumer
// handles, looks at the partitions of the leaders it may fetch from rather
// than at every partition it is assigned. It is rebuilt when the metadata
// or the assignment changes, which is what moves a partition from one
// leader to another. Kafka's AbstractFetch.prepareFetchRequests walks the
// fetchable partitions once per poll and builds a FetchSessionHandler per
// node; here the grouping outlives the walk.
type fetchLeaders struct {
	built   bool
	ver     uint64 // the metadata version it was built from (metadata.ver)
	assign  uint64 // the assignment it was built from (Consumer.assignGen)
	leaders []model.BrokerID
	parts   [][]*partState // parts[i]: the partitions leaders[i] leads, in assignment order
	// whole[i] says the next fetch to leaders[i] is built from all of
	// parts[i]; otherwise changed[i] lists, once each, the partitions of
	// parts[i] whose fetch may differ from what leaders[i]'s session holds
	// (see fetch_changes.go).
	whole   []bool
	changed [][]*partState
	// inFlight is sendFetches' scratch: inFlight[i] says a fetch to
	// leaders[i] waits for its answer.
	inFlight []bool
}

// byLeader returns the assignment grouped by leader, leaders in increasing
// order, rebuilt first if the metadata or the assignment changed.
func (c *Consumer) byLeader() *fetchLeaders {
	x := &c.leaders
	if x.built && x.ver == c.md.ver && x.assign == c.assignGen {
		return x
	}
	for i := range x.parts {
		clear(x.parts[i])
		x.parts[i] = x.parts[i][:0]
	}
	x.leaders = x.leaders[:0]
	for _, ps := range c.states {
		ps.slot, ps.changed = -1, false
		leader, _ := c.leaderOf(ps)
		if leader == model.NoBroker {
			continue
		}
		i := leaderSlot(x.leaders, leader)
		if i == len(x.leaders) || x.leaders[i] != leader {
			x.leaders = append(x.leaders, 0)
			copy(x.leaders[i+1:], x.leaders[i:])
			x.leaders[i] = leader
			if len(x.parts) < len(x.leaders) {
				x.parts = append(x.parts, nil)
			}
			// Shift the lists up one, reusing the array that falls off
			// the end for the new leader's.
			spare := x.parts[len(x.leaders)-1]
			copy(x.parts[i+1:len(x.leaders)], x.parts[i:len(x.leaders)-1])
			x.parts[i] = spare[:0]
		}
		x.parts[i] = append(x.parts[i], ps)
	}
	x.built, x.ver, x.assign = true, c.md.ver, c.assignGen
	c.resetFetchChanges()
	return x
}

// leaderSlot is where b is or would go in the sorted ids.
func leaderSlot(ids []model.BrokerID, b model.BrokerID) int {
	lo, hi := 0, len(ids)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if ids[h] < b {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}
