package checkers

import (
	"fmt"

	"kafkasim/model"
)

// The reassignment invariant (KIP-455), judged on the replica sets the
// committed metadata records set (model.AssignmentObservation).

// PromiseReassignment is what a reassignment promises.
const PromiseReassignment = "reassignment: a replica leaves the replica set only once every replica that stays is in the ISR (PartitionReassignmentReplicas.maybeCompleteReassignment)"

// replicasRemovedEarly checks each record that took replicas out of a
// partition's replica set. A cancellation takes out only replicas the
// reassignment was adding (PartitionReassignmentRevert), which nothing
// relies on; any other removal is a reassignment completing, which Kafka
// allows only when every replica that stays is in the ISR the same record
// writes (PartitionReassignmentReplicas.maybeCompleteReassignment, called
// from PartitionChangeBuilder.completeReassignmentIfNeeded): a replica is
// never removed before its replacements hold every committed record.
func replicasRemovedEarly(obs []model.AssignmentObservation) []Violation {
	var out []Violation
	for _, o := range obs {
		removed := missingFrom(o.Replicas, o.Before)
		if len(removed) == 0 || len(missingFrom(o.BeforeAdding, removed)) == 0 {
			continue
		}
		outside := missingFrom(o.ISR, o.Replicas)
		if len(outside) == 0 {
			continue
		}
		out = append(out, Violation{
			Checker: CheckerReplicas, Anomaly: ReplicaRemovedEarly, Partition: o.TP,
			Error: true, Promise: PromiseReassignment,
			Detail: fmt.Sprintf("at %v partition epoch %d removed %v from the replicas %v, leaving %v with ISR %v: %v not in the ISR yet",
				o.Time, o.PartitionEpoch, removed, o.Before, o.Replicas, o.ISR, outside),
		})
	}
	return out
}
