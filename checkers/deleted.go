package checkers

import (
	"slices"

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
		if v.Error && slices.Contains(deleted, v.Partition.Topic) && slices.Contains(lossConsequences, v.Anomaly) {
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
