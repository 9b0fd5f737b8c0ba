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

// incarnations tells a topic's lives apart: a topic deleted and created
// again under its name starts its leader epochs (and its high
// watermarks) over, as Kafka's new topic does under a new topic id, so
// the leader-epoch and high-watermark checks judge each life on its own.
// A life is the number of the topic's deletions observed at or before an
// observation's time (the first broker's replay of the deletion). A broker
// that replays the deletion later and reports an old life's leadership
// in that gap has it counted in the next life: there, a split-brain of
// the old life that straddles the deletion goes unseen, and an old epoch
// reported late could meet the same epoch of the new life. Both need a
// leadership change within the replay lag of a deletion.
type incarnations []model.TopicDeletionObservation

// of is the life of tp's topic at time t (0 for a topic never deleted).
func (lives incarnations) of(tp model.TopicPartition, t time.Duration) int {
	n := 0
	for _, d := range lives {
		if d.Topic == tp.Topic && d.Time <= t {
			n++
		}
	}
	return n
}
