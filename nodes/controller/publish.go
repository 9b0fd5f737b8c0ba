package controller

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Brokers learn the metadata from the controller's pushes, which stand for
// the KRaft metadata log that Kafka brokers fetch and replay. After every
// committed change the controller pushes a MetadataUpdate to every
// registered broker, fenced ones included (a fenced broker must catch up to
// be unfenced).
//
// A push to a broker is cumulative: it carries every partition changed
// since the offset the broker last confirmed in a heartbeat, not only the
// partitions of the latest change. A push can be lost (a crash, a reset
// connection, a cut link drops it without telling anyone), and a delta
// applied after a lost one would hide the loss behind a higher offset.
// Because each push covers everything since an offset the broker is known
// to have reached, applying any push that arrives leaves the broker correct
// at that push's offset, whatever was lost before it. Heartbeats confirm
// offsets every broker.heartbeat.interval.ms, so pushes stay small.
//
// A broker that has confirmed nothing yet (just registered, or this
// controller just started) gets a snapshot instead; so does a broker whose
// heartbeat shows it behind when no change is being pushed, since nothing
// else would carry what it missed.

// publish pushes the committed state to every registered broker.
func (c *Controller) publish(env *sim.Env) {
	for _, id := range c.state.brokerIDs {
		if c.sessions[id].confirmed == 0 {
			c.sendSnapshot(env, id)
			continue
		}
		c.sendDelta(env, id)
	}
}

// sendDelta pushes the partitions changed since the broker's confirmed
// offset, with the full broker lists.
func (c *Controller) sendDelta(env *sim.Env, id model.BrokerID) {
	since := c.sessions[id].confirmed
	m := c.update(false)
	c.state.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		if p.changedAt > since {
			m.Partitions = append(m.Partitions, p.PartitionState)
		}
	})
	env.Send(sim.NodeID(id), m)
}

// sendSnapshot pushes the whole state.
func (c *Controller) sendSnapshot(env *sim.Env, id model.BrokerID) {
	m := c.update(true)
	c.state.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		m.Partitions = append(m.Partitions, p.PartitionState)
	})
	env.Send(sim.NodeID(id), m)
}

// update starts a MetadataUpdate at the current offset.
func (c *Controller) update(snapshot bool) model.MetadataUpdate {
	live, fenced := c.state.liveAndFenced()
	return model.MetadataUpdate{
		ControllerEpoch: c.state.controllerEpoch,
		MetadataOffset:  c.state.offset,
		Snapshot:        snapshot,
		LiveBrokers:     live,
		FencedBrokers:   fenced,
	}
}

// handleMetadata answers a MetadataRequest from the controller's own state,
// which is never stale (brokers answer from what they were pushed). Live
// brokers are the registered, unfenced ones.
func (c *Controller) handleMetadata(env *sim.Env, from sim.NodeID, m model.MetadataRequest) {
	live, _ := c.state.liveAndFenced()
	resp := model.MetadataResponse{CorrelationID: m.CorrelationID, ControllerID: c.cfg.ID, Brokers: live}
	names := c.state.topicNames
	if !m.AllTopics {
		names = slices.Clone(m.Topics)
		slices.Sort(names)
		names = slices.Compact(names)
	}
	for _, name := range names {
		t := c.state.topics[name]
		if t == nil {
			resp.Topics = append(resp.Topics, model.TopicMetadata{Topic: name, Error: model.UnknownTopicOrPartition})
			continue
		}
		tm := model.TopicMetadata{Topic: name}
		for _, p := range t.parts {
			tm.Partitions = append(tm.Partitions, p.PartitionState)
		}
		resp.Topics = append(resp.Topics, tm)
	}
	env.Send(from, resp)
}
