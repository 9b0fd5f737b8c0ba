package checkers

import (
	"slices"

	"kafkasim/model"
)

// lossConsequences are the anomalies that losing acknowledged data
// produces by itself: the records are gone (lost-write, unseen,
// acked-write-lost), their offsets are reused by later sends
// (inconsistent-offsets, nonmonotonic-send, nonlinearizable), and a
// producer whose state went with them may write a retry twice (duplicate).
// A consumer group misses the vanished records as the plain consumer does
// (group-unseen is unseen per group): the loss was not the group's.
var lossConsequences = []string{
	LostWrite, Unseen, AckedWriteLost, InconsistentOffsets, NonmonotonicSend, Nonlinearizable, Duplicate, GroupUnseen,
}

// PromiseDiskLost explains why such findings are allowed.
const PromiseDiskLost = "none: every ISR and ELR replica of this partition lost its unflushed data, so acknowledged writes were not promised to survive"

// excuseDiskLost downgrades, on partitions whose every ISR and ELR replica
// lost its disk, the findings that follow from the data loss itself: the
// configuration's durability promise did not apply there (the
// promise is that acknowledged writes survive while one ISR or ELR replica
// keeps its disk). The findings are still reported, as allowed. Everything else
// (replicas diverging, reads above the high watermark, two leaders in one
// epoch) is still an error: losing a disk excuses none of it.
func excuseDiskLost(vs []Violation, lost []model.TopicPartition) {
	if len(lost) == 0 {
		return
	}
	for i := range vs {
		v := &vs[i]
		if v.Error && slices.Contains(lost, v.Partition) && slices.Contains(lossConsequences, v.Anomaly) {
			v.Error = false
			v.Promise = PromiseDiskLost
		}
	}
}

// unpromiseDiskLost marks the linearizability checks of partitions whose
// every ISR and ELR replica lost its disk as unpromised: a nonlinearizable
// finding there is one of lossConsequences, excused by excuseDiskLost, so
// a search cut short there hides no error (PartitionCheck.unknownCounts).
// Such a search is the common case, not a rare one: a log whose
// acknowledged tail vanished and was written again is not linearizable,
// and porcupine proves it only by trying every order, which a long
// partition's budget does not cover.
func unpromiseDiskLost(cs []PartitionCheck, lost []model.TopicPartition) {
	for i := range cs {
		if cs[i].Unpromised == "" && slices.Contains(lost, cs[i].TP) {
			cs[i].Unpromised = PromiseDiskLost
		}
	}
}
