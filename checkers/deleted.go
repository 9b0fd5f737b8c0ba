package checkers

import (
	"slices"
	"time"

	"kafkasim/model"
)

// A deleted topic's data is gone because an operator asked for it
// (DeleteTopics), not because the cluster lost it: Kafka promises an
// acknowledged write survives while the topic does, and no longer. So the
// findings that losing a partition's records produces by themselves
// (lossConsequences: lost-write, unseen, group-unseen, acked-write-lost,
// and, once a topic of the same name is created again and its offsets
// start over, inconsistent-offsets, nonmonotonic-send, nonlinearizable,
// duplicate) are allowed, not errors, on the partitions of every topic a
// committed RemoveTopicRecord deleted during the run
// (model.Observations.Deletions). They are still reported, with
// PromiseTopicDeleted as the reason. The exclusion is by topic name for
// the whole run: kafkasim topics have no ids, so a topic created again
// under a deleted name is excused too. Everything else (replicas
// diverging while the topic lived, reads above the high watermark, two
// leaders in one epoch) is judged as on any topic, and a loss on a topic
// that was never deleted is an error as ever.

// deletionConsequences are lossConsequences and commit-regression: the
// group coordinator removes a deleted topic's committed offsets
// (GroupCoordinator.onPartitionsDeleted), but a member that kept its
// position across the deletion commits it into the topic created again
// (ConsumerCoordinator.onJoinPrepare commits allConsumed), as Kafka's
// does, and the group's later commits in the new topic's offsets are
// lower.
var deletionConsequences = append(slices.Clone(lossConsequences), CommitRegression)

// PromiseTopicDeleted explains why such findings are allowed.
const PromiseTopicDeleted = "none: the topic was deleted (DeleteTopics) during the run, and a deleted topic's records are not promised to survive"

// deletedTopics lists the topics deleted during the run, sorted, each once.
func deletedTopics(obs []model.TopicDeletionObservation) []string {
	var out []string
	for _, d := range obs {
		out = append(out, d.Topic)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// excuseDeleted downgrades the loss findings on deleted topics.
func excuseDeleted(vs []Violation, deleted []string) {
	if len(deleted) == 0 {
		return
	}
	for i := range vs {
		v := &vs[i]
		if v.Error && slices.Contains(deleted, v.Partition.Topic) && slices.Contains(deletionConsequences, v.Anomaly) {
			v.Error = false
			v.Promise = PromiseTopicDeleted
		}
	}
}

// unpromiseDeleted marks the linearizability checks of deleted topics'
// partitions as unpromised, as unpromiseDiskLost does for lost disks.
func unpromiseDeleted(cs []PartitionCheck, deleted []string) {
	for i := range cs {
		if cs[i].Unpromised == "" && slices.Contains(deleted, cs[i].TP.Topic) {
			cs[i].Unpromised = PromiseTopicDeleted
		}
	}
}

// incarnations tells a topic's lives apart: a topic deleted and created
// again under its name starts its leader epochs (and its high
// watermarks) over, as Kafka's new topic does under a new topic id, so
// the leader-epoch and high-watermark checks judge each life on its own.
// A broker's life of a topic at a time is the number of the topic's
// deletions that broker had learnt by then (Deletions are per broker):
// its leaderships and high watermarks are the broker's own reports, made
// in the order it replayed the metadata, so each falls in the life it
// belongs to. A broker that learnt of two deletions from one snapshot
// counts one, which only merges two lives it never served.
type incarnations []model.TopicDeletionObservation

// of is broker b's life of tp's topic at time t (0 for a topic never
// deleted).
func (lives incarnations) of(tp model.TopicPartition, b model.BrokerID, t time.Duration) int {
	n := 0
	for _, d := range lives {
		if d.Topic == tp.Topic && d.Broker == b && d.Time <= t {
			n++
		}
	}
	return n
}
