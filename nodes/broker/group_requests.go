package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// The consumer-group APIs. FindCoordinator is answered by any broker from
// its metadata; the others are served by the shard of the group's offsets
// partition if this broker leads it and has loaded it (serveGroup).

func (b *Broker) handleJoinGroup(from model.BrokerID, m model.JoinGroupRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleJoinGroup, (*Broker).applyEffects)
}

func (b *Broker) handleSyncGroup(from model.BrokerID, m model.SyncGroupRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleSyncGroup, (*Broker).applyEffects)
}

// handleGroupHeartbeat: a member's heartbeat, whose answer may wait behind
// the shard's uncommitted writes (coordinator_deferred.go).
func (b *Broker) handleGroupHeartbeat(from model.BrokerID, m model.HeartbeatRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleHeartbeat, (*Broker).sendHeartbeatEffects)
}

func (b *Broker) handleLeaveGroup(from model.BrokerID, m model.LeaveGroupRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleLeaveGroup, (*Broker).applyEffects)
}

func (b *Broker) handleOffsetCommit(from model.BrokerID, m model.OffsetCommitRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleOffsetCommit, (*Broker).applyEffects)
}

func (b *Broker) handleOffsetFetch(from model.BrokerID, m model.OffsetFetchRequest) {
	serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleOffsetFetch, (*Broker).applyEffects)
}

// serveGroup hands a group request to the loaded shard that serves
// groupID, through the coordinator's handler for it, and carries out the
// effects with apply; without such a shard groupShard has answered.
func serveGroup[M sim.Message](b *Broker, from model.BrokerID, groupID string, m M,
	handle func(*group.Coordinator, time.Duration, model.BrokerID, M) group.Effects,
	apply func(*Broker, *coordShard, group.Effects)) {
	if s := b.groupShard(from, groupID, m); s != nil {
		apply(b, s, handle(s.c, b.now(), from, m))
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
	case model.TxnOffsetCommitRequest:
		resp := model.TxnOffsetCommitResponse{CorrelationID: r.CorrelationID, Results: make([]model.PartitionResult, len(r.Offsets))}
		for i, o := range r.Offsets {
			resp.Results[i] = model.PartitionResult{TP: o.TP, Error: code}
		}
		return resp
	}
	panic("broker: no group error response for " + req.(interface{ String() string }).String())
}

// handleFindCoordinator names the leader of the group's offsets partition
// (KafkaApis.handleFindCoordinatorRequest). If the offsets topic does not
// exist yet, the broker asks the controller to create it, one request at a
// time, and answers COORDINATOR_NOT_AVAILABLE until it has a leader.
func (b *Broker) handleFindCoordinator(from model.BrokerID, m model.FindCoordinatorRequest) {
	b.answerFindCoordinator(from, m, OffsetsTopic, b.offsetsPartitions, b.createOffsetsTopic)
}

// answerFindCoordinator names the leader of the coordinator topic's
// partition the key hashes to among partitions(), for groups and for
// transactions alike (KafkaApis.getCoordinator). While the topic does not
// exist, create asks for it and the answer is COORDINATOR_NOT_AVAILABLE,
// as it is while the partition has no leader.
func (b *Broker) answerFindCoordinator(from model.BrokerID, m model.FindCoordinatorRequest, topic string, partitions func() int32, create func()) {
	resp := model.FindCoordinatorResponse{CorrelationID: m.CorrelationID, Coordinator: model.NoBroker}
	if len(b.topicsOf[topic]) == 0 {
		create()
		resp.Error = model.CoordinatorNotAvailable
		b.send(from, resp)
		return
	}
	ps := b.meta[model.TP(topic, PartitionFor(m.GroupID, partitions()))]
	if ps.Leader == model.NoBroker {
		resp.Error = model.CoordinatorNotAvailable
	} else {
		resp.Coordinator = ps.Leader
	}
	b.send(from, resp)
}

// offsetsTopicCreated ends the broker's request to create
// __consumer_offsets, if the answer is to the request in flight.
func (b *Broker) offsetsTopicCreated(_ model.BrokerID, m model.CreateTopicsResponse) {
	if m.CorrelationID == b.coord.createCorr {
		b.coord.createOut = false
		for _, t := range m.Topics {
			b.env.Trace("offsets-topic-create", t.Name+" "+t.Error.String())
		}
	}
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
