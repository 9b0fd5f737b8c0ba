package broker

import (
	"kafkasim/model"
)

// handleOffsetsForLeaderEpoch answers where an epoch ends in the leader's
// log (LeaderEpochFileCache.endOffsetFor). In the KIP-101-only mode the
// answer has no epoch, as before KIP-279.
func (b *Broker) handleOffsetsForLeaderEpoch(from model.BrokerID, m model.OffsetsForLeaderEpochRequest) {
	resp := model.OffsetsForLeaderEpochResponse{CorrelationID: m.CorrelationID}
	for _, q := range m.Partitions {
		a := model.LeaderEpochAnswer{TP: q.TP, LeaderEpoch: model.NoEpoch, EndOffset: model.NoOffset}
		p := b.part(q.TP)
		switch {
		case p == nil && !b.knows(q.TP):
			a.Error = model.UnknownTopicOrPartition
		case p == nil || !p.isLeader:
			a.Error = model.NotLeaderOrFollower
		default:
			a.Error = b.fenceCheck(p, q.CurrentLeaderEpoch)
		}
		if a.Error == model.NoError {
			e, end := p.log.EndOffsetFor(q.LeaderEpoch)
			a.EndOffset = end
			// Followers in the KIP-101-only mode get the old answer with
			// no epoch; consumers (KIP-320 came later) always get it.
			if m.ReplicaID == model.NoBroker || b.cfg.Kafka.Broker.Truncation != model.TruncateLeaderEpochKIP101 {
				a.HasEpoch, a.LeaderEpoch = true, e
			}
		}
		resp.Partitions = append(resp.Partitions, a)
	}
	b.send(from, resp)
}

// handleListOffsets answers the earliest or latest offset. A consumer's
// latest is the high watermark; a follower's is the log end.
func (b *Broker) handleListOffsets(from model.BrokerID, m model.ListOffsetsRequest) {
	resp := model.ListOffsetsResponse{CorrelationID: m.CorrelationID, TP: m.TP, Offset: model.NoOffset, LeaderEpoch: model.NoEpoch}
	p := b.part(m.TP)
	switch {
	case p == nil && !b.knows(m.TP):
		resp.Error = model.UnknownTopicOrPartition
	case p == nil || !p.isLeader:
		resp.Error = model.NotLeaderOrFollower
	default:
		resp.Error = b.fenceCheck(p, m.CurrentLeaderEpoch)
	}
	if resp.Error == model.NoError && m.Spec == model.SpecLatest && m.ReplicaID == model.NoBroker && p.hw < p.epochStartOffset {
		// A freshly elected leader whose high watermark has not reached
		// its epoch's start may not know the committed end yet: a
		// consumer's latest offset waits (Partition.fetchOffsetForTimestamp
		// answers OFFSET_NOT_AVAILABLE to a client request, one with an
		// isolation level, in that state; a follower's has none).
		resp.Error = model.OffsetNotAvailable
	}
	if resp.Error == model.NoError {
		switch {
		case m.Spec == model.SpecEarliest:
			resp.Offset = p.log.LogStartOffset()
		case m.ReplicaID != model.NoBroker:
			resp.Offset = p.log.LEO()
		default:
			resp.Offset = p.hw
		}
		// The epoch of the record before the offset, which a consumer
		// later validates its position against (KIP-320).
		if batch, ok := p.log.BatchAt(resp.Offset - 1); ok && resp.Offset > 0 {
			resp.LeaderEpoch = batch.LeaderEpoch
		}
	}
	b.send(from, resp)
}

// handleListOffsetsResponse finishes a follower's out-of-range recovery:
// if the leader's log ends before ours, cut ours back to it.
func (b *Broker) handleListOffsetsResponse(from model.BrokerID, m model.ListOffsetsResponse) {
	p := b.part(m.TP)
	if p == nil || p.isLeader || p.leader != from {
		return
	}
	if m.Error == model.NoError && m.Offset >= 0 && m.Offset < p.log.LEO() {
		b.truncate(p, m.Offset, "leader log end")
	}
	p.fetchBlocked = false
	b.followChanged(p)
	if f := b.fetchers[from]; f != nil {
		b.sendFetch(f)
	}
}

// handleApiVersions answers with the versions this broker speaks: the
// request's own list, echoed.
func (b *Broker) handleApiVersions(from model.BrokerID, m model.ApiVersionsRequest) {
	b.send(from, model.ApiVersionsResponse(m))
}

// handleMetadata answers a client from the metadata the controller pushed.
func (b *Broker) handleMetadata(from model.BrokerID, m model.MetadataRequest) {
	resp := model.MetadataResponse{CorrelationID: m.CorrelationID, ControllerID: b.controller()}
	for _, id := range b.brokers {
		if b.live[id] {
			resp.Brokers = append(resp.Brokers, id)
		}
	}
	topics := m.Topics
	if m.AllTopics {
		topics = nil
		for _, tp := range b.metaTPs {
			if len(topics) == 0 || topics[len(topics)-1] != tp.Topic {
				topics = append(topics, tp.Topic)
			}
		}
	}
	for _, t := range topics {
		tm := model.TopicMetadata{Topic: t}
		if b.replay != nil {
			tm.Life = b.replay.img.TopicLife(t)
		}
		tps := b.topicsOf[t]
		if len(tps) == 0 {
			tm.Error = model.UnknownTopicOrPartition
		}
		for _, tp := range tps {
			tm.Partitions = append(tm.Partitions, b.meta[tp])
		}
		resp.Topics = append(resp.Topics, tm)
	}
	b.send(from, resp)
}
