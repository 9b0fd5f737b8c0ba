package controller

import (
	"math/rand/v2"
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// Topic operations on a running cluster, as Kafka's controller runs them:
// DeleteTopics (ReplicationControlManager.deleteTopics), CreatePartitions
// (ReplicationControlManager.createPartitions) and IncrementalAlterConfigs
// on a topic (ConfigurationControlManager.incrementalAlterConfigs, SET).
// Creating a topic is CreateTopic (topics.go). Each entry point answers
// as CreateTopic does: the error code the request would get from the
// current state, NoError once the change is handed to the quorum; the
// operation runs in turn with the others and checks again, and a refusal
// then is traced.

// DeleteTopic deletes a topic: UNKNOWN_TOPIC_OR_PARTITION for a topic the
// controller does not know (ControllerApis.deleteTopics resolves names to
// ids first, and an unknown name fails there).
func (c *Controller) DeleteTopic(env *sim.Env, name string) model.ErrorCode {
	return c.topicOp(env, "delete-topic-refused", name, func(*rand.Rand) ([]Record, model.ErrorCode) {
		if c.state.topics[name] == nil {
			return nil, model.UnknownTopicOrPartition
		}
		return []Record{RemoveTopicRecord{Name: name}}, model.NoError
	})
}

// CreatePartitions grows a topic to count partitions.
func (c *Controller) CreatePartitions(env *sim.Env, topic string, count int32) model.ErrorCode {
	return c.topicOp(env, "create-partitions-refused", topic, func(rnd *rand.Rand) ([]Record, model.ErrorCode) {
		r, code := c.buildPartitions(rnd, topic, count)
		if code != model.NoError {
			return nil, code
		}
		return []Record{r}, model.NoError
	})
}

// AlterTopicConfig sets one topic-level config.
func (c *Controller) AlterTopicConfig(env *sim.Env, topic, name, value string) model.ErrorCode {
	return c.topicOp(env, "alter-config-refused", topic, func(*rand.Rand) ([]Record, model.ErrorCode) {
		return c.buildConfigChange(topic, name, value)
	})
}

// topicOp validates an operation on a scratch random source (the
// placement drawn there is thrown away), then queues it; in its turn it
// builds its records again from the state then, on the controller's own
// stream, and commits them.
func (c *Controller) topicOp(env *sim.Env, refused, what string, build func(*rand.Rand) ([]Record, model.ErrorCode)) model.ErrorCode {
	if env == nil {
		env = c.env
	}
	if !c.active {
		return model.NotController
	}
	if _, code := build(rand.New(rand.NewPCG(0, 0))); code != model.NoError {
		return code
	}
	c.submit(env, func() {
		if !c.active {
			return
		}
		records, code := build(env.Rand())
		if code != model.NoError {
			env.Trace(refused, what+" "+code.String())
			return
		}
		c.commit(records, func(bool) {})
	})
	return model.NoError
}

// buildPartitions validates and places the new partitions as
// ReplicationControlManager.createPartitionsRequest does:
//
//   - a topic the controller does not know: UNKNOWN_TOPIC_OR_PARTITION;
//   - a count below the current one ("The topic t currently has 4
//     partition(s); 3 would not be an increase.") or equal to it ("Topic
//     already has 2 partition(s)."): INVALID_PARTITIONS;
//   - the replication factor is partition 0's replica count; too few
//     registered brokers for it, or no unfenced one, or a new partition
//     whose replicas are all fenced: INVALID_REPLICATION_FACTOR.
//
// Placement is the topic creation's (assignReplicas, or placeStriped with
// racks), over the same candidates; each new partition starts with its
// active replicas as the ISR and the first as leader, at epoch 0.
func (c *Controller) buildPartitions(rnd *rand.Rand, topic string, count int32) (CreatePartitionsRecord, model.ErrorCode) {
	var none CreatePartitionsRecord
	t := c.state.topics[topic]
	if t == nil {
		return none, model.UnknownTopicOrPartition
	}
	current := int32(len(t.parts))
	if count <= current {
		return none, model.InvalidPartitions
	}
	rf := len(t.parts[0].Replicas)
	live, fenced := c.state.liveAndFenced()
	if rf < 1 || rf > len(live)+len(fenced) || len(live) == 0 {
		return none, model.InvalidReplicationFactor
	}
	add := int(count - current)
	var assignment [][]model.BrokerID
	if c.state.racked() {
		assignment = placeStriped(rnd, c.state.placeable(), add, rf)
	} else {
		candidates := live
		if len(live) < rf {
			candidates = append(slices.Clone(live), fenced...)
		}
		assignment = assignReplicas(rnd, candidates, add, rf)
	}
	r := CreatePartitionsRecord{Topic: topic}
	for i, replicas := range assignment {
		var isr []model.BrokerID
		for _, id := range replicas {
			if c.state.active(id) {
				isr = append(isr, id)
			}
		}
		if len(isr) == 0 {
			return none, model.InvalidReplicationFactor
		}
		r.Partitions = append(r.Partitions, model.PartitionState{
			TP: model.TP(topic, current+int32(i)), Leader: isr[0], Replicas: replicas, ISR: isr,
		})
	}
	return r, model.NoError
}

// buildConfigChange validates a SET of one topic config as
// ConfigurationControlManager.incrementalAlterConfigResource does (an
// unknown topic: UNKNOWN_TOPIC_OR_PARTITION, from its existence check; a
// name that is not a topic-level config or a value it refuses:
// INVALID_CONFIG) and builds its ConfigRecord. With eligible leader
// replicas on, a change of min.insync.replicas also clears the topic's
// ELR and last known leaders (KIP-966: an ELR is only sound for the
// minimum it was built under), one PartitionChangeRecord per partition
// that has any.
func (c *Controller) buildConfigChange(topic, name, value string) ([]Record, model.ErrorCode) {
	t := c.state.topics[topic]
	if t == nil {
		return nil, model.UnknownTopicOrPartition
	}
	entry := model.ConfigEntry{Name: name, Value: value}
	if _, ok := c.topicConfigs(withConfig(t.configs, entry)); !ok {
		return nil, model.InvalidConfig
	}
	records := []Record{ConfigRecord{Topic: topic, Name: name, Value: value}}
	if name != "min.insync.replicas" || !c.cfg.Cluster.Controller.EligibleLeaderReplicas {
		return records, model.NoError
	}
	for _, p := range t.parts {
		if len(p.ELR) == 0 && p.LastKnownLeader == model.NoBroker {
			continue
		}
		records = append(records, PartitionChangeRecord{
			TP: p.TP, Leader: p.Leader, LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch + 1,
			ISR: p.ISR, LastKnownLeader: model.NoBroker,
		})
	}
	return records, model.NoError
}
