package broker

import (
	"slices"

	"kafkasim/model"
	"kafkasim/nodes/storage"
)

// A broker applies the topic operations it replays from the metadata log
// as Kafka's ReplicaManager.applyDelta and BrokerMetadataPublisher do:
//
//   - new partitions (CreateTopics, CreatePartitions) arrive as partition
//     changes and open like any other (applyPartitionState);
//   - a deleted topic's replicas stop (no leading, no fetching), the
//     requests waiting on them are answered UNKNOWN_TOPIC_OR_PARTITION (a
//     DelayedProduce whose partition is gone), and their logs are deleted
//     (stopPartitions with deletion), as is the folder of a replica this
//     incarnation never opened; the metadata cache forgets the
//     partitions, so a produce or fetch for them is refused
//     UNKNOWN_TOPIC_OR_PARTITION from then on;
//   - a topic whose configuration changed gets its new settings on every
//     replica (LogManager.updateTopicConfig): min.insync.replicas for the
//     next acks=all write and the high watermark, retention for the log.

// applyTopicChanges applies the deletions and config changes the last
// quorum event replayed. Deletions come before the partition changes of
// the same event (afterQuorum), so that a topic deleted and created again
// starts from an empty log.
func (b *Broker) applyTopicChanges(removed []model.TopicPartition) {
	for _, tp := range removed {
		b.deleteReplica(tp)
	}
	b.offsetsOfDeleted(removed)
}

// offsetsOfDeleted has every coordinator shard this broker serves remove
// its groups' committed offsets of the deleted partitions, after the
// replicas stopped, as BrokerMetadataPublisher calls
// GroupCoordinator.onPartitionsDeleted after ReplicaManager.applyDelta.
// Only a loaded shard writes (the new coordinator's
// scheduleWriteAllOperation runs on active shards); one still loading
// keeps them, as Kafka's does.
func (b *Broker) offsetsOfDeleted(removed []model.TopicPartition) {
	if len(removed) == 0 {
		return
	}
	for _, tp := range b.topicsOf[OffsetsTopic] {
		if s := b.coord.shards[tp.Partition]; s != nil && !s.loading {
			b.applyEffects(s, s.c.PartitionsDeleted(b.now(), removed))
		}
	}
}

// deleteReplica forgets a deleted topic's partition and, if this broker
// hosts it, stops and deletes the replica.
func (b *Broker) deleteReplica(tp model.TopicPartition) {
	if _, ok := b.meta[tp]; ok {
		delete(b.meta, tp)
		b.metaTPs = removeTP(b.metaTPs, tp)
		if rest := removeTP(b.topicsOf[tp.Topic], tp); len(rest) > 0 {
			b.topicsOf[tp.Topic] = rest
		} else {
			delete(b.topicsOf, tp.Topic)
		}
	}
	delete(b.hwCheckpoint, tp)
	p := b.part(tp)
	if p == nil {
		storage.DeleteDir(b.env.Disk(), partitionDir(tp))
		return
	}
	b.parts.remove(tp.Topic, tp.Partition)
	b.tps = removeTP(b.tps, tp)
	b.stopFollowing(p)
	if p.isLeader {
		p.isLeader = false
		p.followers, p.alter = nil, nil
		b.failWaitingProduces(p, model.UnknownTopicOrPartition)
		b.coordinatorResigned(p)
	}
	b.wakeFetches(p) // parked fetches now answer UNKNOWN_TOPIC_OR_PARTITION
	p.log.Delete()
	b.env.Trace("replica-deleted", tp.String())
}

// applyTopicConfig gives every hosted replica of topic its settings as
// the metadata now has them.
func (b *Broker) applyTopicConfig(topic string) {
	cfg := b.topicConfig(topic)
	for _, tp := range b.topicsOf[topic] {
		p := b.part(tp)
		if p == nil || p.topic == cfg {
			continue
		}
		p.topic = cfg
		p.log.SetRetention(cfg.Retention, cfg.RetentionBytes)
		b.env.Trace("topic-config", tp.String()+" min.insync.replicas="+itoa(int64(cfg.MinInsyncReplicas)))
		if p.isLeader {
			// A lower minimum may let the high watermark move now.
			b.maybeIncrementHW(p)
			b.wakeFetches(p)
		}
	}
}

// removeTP is a sorted list without tp, as a new slice.
func removeTP(list []model.TopicPartition, tp model.TopicPartition) []model.TopicPartition {
	i, ok := slices.BinarySearchFunc(list, tp, model.TopicPartition.Compare)
	if !ok {
		return list
	}
	return slices.Delete(slices.Clone(list), i, i+1)
}
