package broker

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// handleGroupMessage routes the consumer-group APIs: FindCoordinator is
// answered by any broker from its metadata; the others go to the shard of
// the group's offsets partition if this broker leads it and has loaded it.
func (b *Broker) handleGroupMessage(from model.BrokerID, m sim.Message) {
	now := b.now()
	switch m := m.(type) {
	case model.FindCoordinatorRequest:
		b.handleFindCoordinator(from, m)
	case model.CreateTopicsResponse:
		if m.CorrelationID == b.coord.createCorr {
			b.coord.createOut = false
			for _, t := range m.Topics {
				b.env.Trace("offsets-topic-create", t.Name+" "+t.Error.String())
			}
		}
	case model.JoinGroupRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.applyEffects(s, s.c.HandleJoinGroup(now, from, m))
		}
	case model.SyncGroupRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.applyEffects(s, s.c.HandleSyncGroup(now, from, m))
		}
	case model.HeartbeatRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.sendHeartbeatEffects(s, s.c.HandleHeartbeat(now, from, m))
		}
	case model.LeaveGroupRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.applyEffects(s, s.c.HandleLeaveGroup(now, from, m))
		}
	case model.OffsetCommitRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.applyEffects(s, s.c.HandleOffsetCommit(now, from, m))
		}
	case model.OffsetFetchRequest:
		if s := b.groupShard(from, m.GroupID, m); s != nil {
			b.applyEffects(s, s.c.HandleOffsetFetch(now, from, m))
		}
	}
}

// groupShard returns the loaded shard that serves groupID, or answers req
// with why there is none: NOT_COORDINATOR when this broker does not lead
// the group's offsets partition, COORDINATOR_LOAD_IN_PROGRESS while it
// loads it.
func (b *Broker) groupShard(from model.BrokerID, groupID string, req sim.Message) *coordShard {
	s := b.coord.shards[PartitionFor(groupID, b.offsetsPartitions())]
	switch {
	case s == nil:
		b.send(from, groupErrorResponse(req, model.NotCoordinator))
		return nil
	case s.loading:
		b.send(from, groupErrorResponse(req, model.CoordinatorLoadInProgress))
		return nil
	}
	return s
}

// groupErrorResponse is the response to a group request that failed as a
// whole. A heartbeat to a loading coordinator is answered NONE, as Kafka
// does ("the group is still loading, so blindly respond"): the member
// keeps its assignment until the group is back.
func groupErrorResponse(req sim.Message, code model.ErrorCode) sim.Message {
	switch r := req.(type) {
	case model.JoinGroupRequest:
		return model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: code, GenerationID: model.NoEpoch, MemberID: r.MemberID}
	case model.SyncGroupRequest:
		return model.SyncGroupResponse{CorrelationID: r.CorrelationID, Error: code}
	case model.HeartbeatRequest:
		if code == model.CoordinatorLoadInProgress {
			code = model.NoError
		}
		return model.HeartbeatResponse{CorrelationID: r.CorrelationID, Error: code}
	case model.LeaveGroupRequest:
		return model.LeaveGroupResponse{CorrelationID: r.CorrelationID, Error: code}
	case model.OffsetCommitRequest:
		resp := model.OffsetCommitResponse{CorrelationID: r.CorrelationID, Results: make([]model.PartitionResult, len(r.Offsets))}
		for i, o := range r.Offsets {
			resp.Results[i] = model.PartitionResult{TP: o.TP, Error: code}
		}
		return resp
	case model.OffsetFetchRequest:
		return model.OffsetFetchResponse{CorrelationID: r.CorrelationID, Error: code}
	}
	panic("broker: no group error response for " + req.(interface{ String() string }).String())
}

// handleFindCoordinator names the leader of the group's offsets partition
// (KafkaApis.handleFindCoordinatorRequest). If the offsets topic does not
// exist yet, the broker asks the controller to create it, one request at a
// time, and answers COORDINATOR_NOT_AVAILABLE until it has a leader.
func (b *Broker) handleFindCoordinator(from model.BrokerID, m model.FindCoordinatorRequest) {
	resp := model.FindCoordinatorResponse{CorrelationID: m.CorrelationID, Coordinator: model.NoBroker}
	if len(b.topicsOf[OffsetsTopic]) == 0 {
		b.createOffsetsTopic()
		resp.Error = model.CoordinatorNotAvailable
		b.send(from, resp)
		return
	}
	ps := b.meta[model.TP(OffsetsTopic, PartitionFor(m.GroupID, b.offsetsPartitions()))]
	if ps.Leader == model.NoBroker {
		resp.Error = model.CoordinatorNotAvailable
	} else {
		resp.Coordinator = ps.Leader
	}
	b.send(from, resp)
}

// createOffsetsTopic asks the controller for __consumer_offsets with
// offsets.topic.num.partitions and offsets.topic.replication.factor, as
// Kafka's AutoTopicCreationManager does. Like Kafka, it does not lower the
// replication factor to the brokers available: the controller refuses a
// factor above the registered brokers (INVALID_REPLICATION_FACTOR), and
// FindCoordinator keeps answering COORDINATOR_NOT_AVAILABLE.
func (b *Broker) createOffsetsTopic() {
	if b.coord.createOut {
		return
	}
	gc := b.cfg.Kafka.Group
	b.coord.createOut = true
	b.coord.createCorr = b.nextCorr()
	b.sendController(model.CreateTopicsRequest{
		CorrelationID: b.coord.createCorr,
		Topics:        []model.TopicSpec{{Name: OffsetsTopic, Partitions: gc.OffsetsTopicPartitions, ReplicationFactor: gc.OffsetsTopicReplicationFactor}},
	})
	b.env.After(controllerTimeout, timerOffsetsTopicCreate, int64(b.coord.createCorr))
}
