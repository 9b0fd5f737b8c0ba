package scenarios

import (
	"slices"

	"kafkasim/model"
)

// stranded lists the partitions, sorted, that the active controller left
// without a leader it may elect (strandedByELR). Kafka's controller does
// the same: such a partition stays leaderless after every fault heals,
// so the liveness check does not wait for it and the checkers allow what
// follows (checkers.PromiseStrandedByELR).
func (s *Scripted) stranded() []model.TopicPartition {
	if !s.Config.Controller.EligibleLeaderReplicas || s.Config.Topic.UncleanLeaderElection {
		return nil
	}
	var out []model.TopicPartition
	for _, tp := range s.TPs {
		if ps, ok := s.Partition(tp); ok && strandedByELR(ps) {
			out = append(out, tp)
		}
	}
	return out
}

// strandedByELR says whether, with ELR on and unclean election off,
// Kafka's controller can elect no leader for the partition whatever
// brokers come back: it has none, its ISR is empty, and its ELR is not
// empty but holds no replica. That state is Kafka's own: cancelling a
// reassignment takes the adding replicas out of the replicas and the ISR,
// and PartitionChangeBuilder.maybePopulateTargetElr moves every broker
// that leaves an ISR below min.insync.replicas into the ELR without
// asking whether it stays a replica (reassign-under-chaos seeds 98000681,
// 99506817, 99508220). Then electAnyLeader and electPreferredLeader pick
// only among the target replicas, and canElectLastKnownLeader needs an
// empty ELR; only that broker's unclean restart
// (handleBrokerUncleanShutdown takes it out of the ELR) or an operator's
// unclean ElectLeaders brings the partition back.
func strandedByELR(ps model.PartitionState) bool {
	if ps.Leader != model.NoBroker || len(ps.ISR) > 0 || len(ps.ELR) == 0 {
		return false
	}
	for _, b := range ps.ELR {
		if slices.Contains(ps.Replicas, b) {
			return false
		}
	}
	return true
}
