package checkers

import (
	"slices"

	"kafkasim/model"
)

// strandedConsequences are the findings that follow, on a partition Kafka's
// controller itself left without a leader it may elect, from the partition
// being leaderless to the end of the run: every replica stays outside the
// (empty) ISR, and what was acknowledged there can no longer be read.
var strandedConsequences = []string{ReplicaNotRejoined, Unseen, GroupUnseen}

// PromiseStrandedByELR explains why such findings are allowed: Kafka's own
// controller leaves the partition so, in the configuration's terms (ELR
// on, unclean election off), and only an operator (an unclean
// ElectLeaders) or the foreign broker's unclean restart brings it back.
const PromiseStrandedByELR = "none: Kafka's controller left this partition without a leader it may elect: its ISR is empty and its ELR holds only brokers that are no longer replicas " +
	"(PartitionChangeBuilder.maybePopulateTargetElr moves the replicas that leave the ISR into the ELR without asking whether they stay replicas, as a cancelled reassignment's adding replica does), " +
	"electAnyLeader picks only among the replicas, and canElectLastKnownLeader needs the ELR empty"

// excuseStranded downgrades strandedConsequences on the stranded
// partitions. Everything else there (a divergence, a read above the high
// watermark) is still an error.
func excuseStranded(vs []Violation, stranded []model.TopicPartition) {
	if len(stranded) == 0 {
		return
	}
	for i := range vs {
		v := &vs[i]
		if v.Error && slices.Contains(stranded, v.Partition) && slices.Contains(strandedConsequences, v.Anomaly) {
			v.Error = false
			v.Promise = PromiseStrandedByELR
		}
	}
}
