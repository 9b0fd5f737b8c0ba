package broker

import (
	"kafkasim/model"
	"kafkasim/nodes/storage"
)

// A topic deleted and created again under the same name while a broker
// was away leaves the old topic's folder on the broker's disk. Kafka
// tells the two topics apart by id, recorded in each folder's
// partition.metadata; kafkasim by the topic's life (storage.RecordLife).
//
//   - A broker that restores a snapshot showing the name in a new life
//     while it hosts the old one deletes that replica, as Kafka's snapshot
//     delta deletes the old topic id (ReplicaManager.applyDelta's
//     stopPartitions with deletion): dropOldLives.
//   - A broker that meets an old folder when it first opens the
//     partition (its first publish, after a restart that restored the new
//     topic from a snapshot and never replayed the RemoveTopicRecord)
//     finds it stray (strayFolder). Kafka 3.7+ (KAFKA-14616, PR #15230)
//     marks such a log stray while loading logs
//     (LogManager.isStrayKraftReplica), deletes it, and creates the new
//     topic's replica empty. Kafka 3.6 loads it, and making the replica
//     fails (Partition.createLogIfNotExists throws
//     InconsistentTopicIdException); the stray deletion after the first
//     publish (BrokerMetadataPublisher.finishInitializingReplicaManager,
//     findStrayPartitions) then removes the folder and the partition, so
//     the broker hosts nothing until the partition's metadata changes
//     again: stray.replica.check.at.load=false.

// topicLife is the life of topic as this broker's metadata has it (0
// without a metadata quorum).
func (b *Broker) topicLife(topic string) int32 {
	if b.replay == nil {
		return 0
	}
	return b.replay.img.TopicLife(topic)
}

// dropOldLives deletes the open replicas of partitions whose topic a
// restored snapshot showed recreated, so that the new topic's partitions
// open fresh logs; their groups' offsets go as a deleted topic's do.
func (b *Broker) dropOldLives(tps []model.TopicPartition) {
	if len(tps) == 0 {
		return
	}
	var dropped []model.TopicPartition
	for _, tp := range tps {
		if b.part(tp) != nil {
			b.deleteReplica(tp)
			dropped = append(dropped, tp)
		}
	}
	b.offsetsOfDeleted(dropped)
}

// strayFolder checks tp's folder before its log is opened for the topic's
// current life. It reports whether a log may be opened (false: the
// replica failed, Kafka 3.6) and whether the opened log must record the
// life (a new folder, or one that replaced a stray).
func (b *Broker) strayFolder(tp model.TopicPartition, life int32) (open, record bool) {
	d, dir := b.env.Disk(), partitionDir(tp)
	recorded, exists := storage.RecordedLife(d, dir)
	if !exists {
		return true, true
	}
	if recorded == life {
		return true, false
	}
	what := tp.String() + " folder of life " + itoa(int64(recorded)) + ", topic in life " + itoa(int64(life))
	storage.DeleteDir(d, dir)
	if !b.cfg.Kafka.Broker.StrayReplicaCheckAtLoad {
		b.env.Trace("inconsistent-topic-id", what)
		return false, false
	}
	b.env.Trace("stray-log-deleted", what)
	return true, true
}
