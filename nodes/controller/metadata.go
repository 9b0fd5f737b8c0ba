package controller

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// handleMetadata answers a MetadataRequest from this controller's applied
// state, which may lag the active controller's on a follower; live brokers
// are the registered, unfenced ones, and the controller named is the
// active one this controller knows (none while an election runs).
func (c *Controller) handleMetadata(env *sim.Env, from sim.NodeID, m model.MetadataRequest) {
	live, _ := c.state.liveAndFenced()
	resp := model.MetadataResponse{CorrelationID: m.CorrelationID, ControllerID: c.leader, Brokers: live}
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
		tm := model.TopicMetadata{Topic: name, Life: t.life}
		for _, p := range t.parts {
			tm.Partitions = append(tm.Partitions, p.PartitionState)
		}
		resp.Topics = append(resp.Topics, tm)
	}
	env.Send(from, resp)
}
