package controller

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// handleAlterPartition answers a leader's request to change its partition's
// ISR, checking in Kafka's order (ReplicationControlManager.alterPartition
// and validateAlterPartitionData):
//
//  1. the sender's broker epoch is its registered one
//     (STALE_BROKER_EPOCH; also for a sender that is not registered, as
//     ClusterControlManager.checkBrokerEpoch answers);
//  2. the partition exists (UNKNOWN_TOPIC_OR_PARTITION);
//  3. the request's leader or partition epoch is not newer than the
//     controller's (NOT_CONTROLLER: the sender has seen a newer controller);
//  4. its leader epoch is not older (FENCED_LEADER_EPOCH: a deposed
//     leader);
//  5. the sender is the leader (INVALID_REQUEST, Kafka's answer to an
//     AlterPartition from a replica that does not lead);
//  6. its partition epoch is not older (INVALID_UPDATE_VERSION, KIP-497:
//     the leader's view of the ISR is stale, an earlier change of its own
//     or the controller's intervened);
//  7. the new ISR holds assigned replicas, each once, and the leader
//     (INVALID_REQUEST);
//  8. every member is registered, unfenced and at the broker epoch the
//     leader saw (INELIGIBLE_REPLICA, KIP-903: a member that restarted
//     since may have lost records).
//
// An accepted request goes through the same change builder as every other
// partition change, so the ELR follows the new ISR (KIP-966). The answer
// carries the partition's state after the request; a rejection carries the
// controller's current state when the partition exists. Brokers learn the
// change as they replay the metadata log.
func (c *Controller) handleAlterPartition(env *sim.Env, from sim.NodeID, m model.AlterPartitionRequest) {
	resp := model.AlterPartitionResponse{CorrelationID: m.CorrelationID}
	if !c.active {
		resp.Error = model.NotController
		resp.Partition = model.PartitionState{TP: m.TP, Leader: model.NoBroker, LeaderEpoch: model.NoEpoch, PartitionEpoch: model.NoEpoch}
		env.Send(from, resp)
		return
	}
	code, change, ok := c.alterPartition(m)
	resp.Error = code
	if p := c.state.partition(m.TP); p != nil {
		resp.Partition = p.PartitionState
	} else {
		resp.Partition = model.PartitionState{TP: m.TP, Leader: model.NoBroker, LeaderEpoch: model.NoEpoch, PartitionEpoch: model.NoEpoch}
	}
	if !ok {
		env.Send(from, resp)
		return
	}
	c.commit([]Record{change}, func(ok bool) {
		if !ok {
			resp.Error = model.NotController
			env.Send(from, resp)
			return
		}
		resp.Partition = c.state.partition(m.TP).PartitionState
		// A leader change through AlterPartition happens in Kafka only
		// when the change completes a reassignment; it answers
		// NEW_LEADER_ELECTED so that the sender refreshes its metadata.
		// kafkasim has no reassignment, but the builder is the same, so
		// the case is kept.
		if change.Leader != m.BrokerID {
			resp.Error = model.NewLeaderElected
		}
		env.Send(from, resp)
	})
}

// alterPartition validates a request and builds its change. It returns the
// answer's error code, and the record with true when there is something to
// commit; NONE with false means the request asked for the current state.
func (c *Controller) alterPartition(m model.AlterPartitionRequest) (model.ErrorCode, PartitionChangeRecord, bool) {
	var none PartitionChangeRecord
	if b := c.state.brokers[m.BrokerID]; b == nil || b.Epoch != m.BrokerEpoch {
		return model.StaleBrokerEpoch, none, false
	}
	p := c.state.partition(m.TP)
	if p == nil {
		return model.UnknownTopicOrPartition, none, false
	}
	if m.LeaderEpoch > p.LeaderEpoch || m.PartitionEpoch > p.PartitionEpoch {
		return model.NotController, none, false
	}
	if m.LeaderEpoch < p.LeaderEpoch {
		return model.FencedLeaderEpoch, none, false
	}
	if m.BrokerID != p.Leader {
		return model.InvalidRequest, none, false
	}
	if m.PartitionEpoch < p.PartitionEpoch {
		return model.InvalidUpdateVersion, none, false
	}
	isr := make([]model.BrokerID, 0, len(m.NewISR))
	for _, r := range m.NewISR {
		if !slices.Contains(p.Replicas, r.ID) || slices.Contains(isr, r.ID) {
			return model.InvalidRequest, none, false
		}
		isr = append(isr, r.ID)
	}
	if !slices.Contains(isr, p.Leader) {
		return model.InvalidRequest, none, false
	}
	for _, r := range m.NewISR {
		b := c.state.brokers[r.ID]
		// Kafka skips the epoch check for a member sent with epoch -1
		// (requests older than KIP-903 carry no epochs); a broker in
		// controlled shutdown is refused as "shutting down"
		// (ReplicationControlManager.ineligibleReplicasForIsr).
		if b == nil || b.Fenced || b.InControlledShutdown || (r.BrokerEpoch != model.NoEpoch && r.BrokerEpoch != b.Epoch) {
			return model.IneligibleReplica, none, false
		}
	}
	t := c.state.topics[m.TP.Topic]
	change, ok := buildChange(p, topicChangeSpec(t, isr, c.state.active, c.cfg.Cluster.Controller.EligibleLeaderReplicas))
	return model.NoError, change, ok
}
