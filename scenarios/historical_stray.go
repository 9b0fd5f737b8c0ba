package scenarios

import (
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// kafka14616 is KAFKA-14616, "Topic recreation with offline broker causes
// permanent URPs" (KRaft, fixed in 3.7 by apache/kafka PR #15230, "Fix
// stray replica of recreated topics in KRaft mode"). A broker is down
// while its topic is deleted and created again under the same name; the
// quorum snapshots meanwhile, so the broker, back, restores the new
// topic from a snapshot and never replays the RemoveTopicRecord. Its
// folder of the old topic is still on disk. Kafka 3.6 loads it, and
// applying the new topic (ReplicaManager.applyDelta) meets the old topic
// id in it: Partition.createLogIfNotExists throws
// InconsistentTopicIdException, and the stray deletion that follows the
// first publish (BrokerMetadataPublisher.finishInitializingReplicaManager,
// findStrayPartitions) removes the folder and the partition, so the
// broker hosts nothing of the new topic and fetches nothing until the
// partition's metadata changes again: the replica never rejoins its ISR.
// Kafka 3.7 marks the old folder stray while it loads logs
// (LogManager.isStrayKraftReplica) and creates a fresh replica, which
// catches up.
var kafka14616 = Historical{
	Name:    "kafka-14616-stray-replica",
	Summary: "a broker is down while its topic is deleted and created again; back, it restores the new topic from a snapshot and meets the old topic's folder: Kafka 3.6 fails the partition with INCONSISTENT_TOPIC_ID and the replica never rejoins",
	Expect:  checkers.ReplicaNotRejoined,
	Seed:    1,
	// A snapshot every four metadata entries, so that the quorum's log
	// no longer holds the deletion when the broker returns (Kafka's
	// metadata.log.max.record.bytes.between.snapshots is 20 MiB; a
	// small cluster's log takes long to fill it).
	Spec:          fixture.Spec{SnapshotEvery: 4},
	Buggy:         []string{"kafka.version=3.6"},
	Fixed:         []string{"kafka.version=3.7"},
	Schedule:      kafka14616Schedule,
	End:           60 * time.Second,
	LivenessBound: 60 * time.Second,
}

// kafka14616Schedule crashes a follower of t/0 at 5 s and deletes t
// while it is down; t is created again at 7 s, before the controller
// fences the silent broker (broker.session.timeout.ms, 9 s), so that the
// new topic's replicas are placed on it as on the others. The topic
// "filler", created and deleted, writes metadata records while the
// broker is away, enough for the quorum to snapshot past its log end.
// The broker comes back at 30 s.
func kafka14616Schedule(s *Scripted) faults.Schedule {
	_, f := s.LeaderAndFollowers(s.TPs[0])
	return schedule("kafka-14616-stray-replica", `
from 5s to 30s crash %v
at 6s delete-topic t
at 7s create-topic t 1 3
at 10s create-topic filler 1 2
at 12s delete-topic filler
at 14s create-topic filler 1 2
at 16s delete-topic filler
`, f[0])
}
