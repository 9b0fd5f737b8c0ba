package checkers

import (
	"fmt"
	"slices"

	"kafkasim/model"
)

// A partition's replica set over the run, as the committed metadata
// records set it (model.AssignmentObservation): the replica checks follow
// it, and one invariant of reassignment (KIP-455) is judged on it.

// replicaMembers is each partition's replica set as the last record that
// set it left it (the highest partition epoch observed). A partition with
// no observation is absent: its replica set is taken never to change.
func replicaMembers(obs []model.AssignmentObservation) map[model.TopicPartition][]model.BrokerID {
	if len(obs) == 0 {
		return nil
	}
	latest := map[model.TopicPartition]model.AssignmentObservation{}
	for _, o := range obs {
		if l, ok := latest[o.TP]; !ok || o.PartitionEpoch > l.PartitionEpoch {
			latest[o.TP] = o
		}
	}
	out := make(map[model.TopicPartition][]model.BrokerID, len(latest))
	for tp, o := range latest {
		out[tp] = o.Replicas
	}
	return out
}

// split divides s's logs into those of its replicas by members (all of
// them when members does not know the partition, or names no broker with
// a log) and those left on brokers a reassignment removed.
func (s replicaSet) split(members map[model.TopicPartition][]model.BrokerID) (kept, removed replicaSet) {
	m, ok := members[s.tp]
	if !ok {
		return s, replicaSet{tp: s.tp}
	}
	kept, removed = replicaSet{tp: s.tp}, replicaSet{tp: s.tp}
	for _, r := range s.logs {
		if slices.Contains(m, r.Broker) {
			kept.logs = append(kept.logs, r)
		} else {
			removed.logs = append(removed.logs, r)
		}
	}
	if len(kept.logs) == 0 {
		return s, replicaSet{tp: s.tp}
	}
	return kept, removed
}

// removedDisagreement holds each log a reassignment removed to what it had
// committed: below its own high watermark (the one it knew when it was
// a replica) it must agree with the replicas of s in the ISR. Above it,
// it may hold an uncommitted tail that no one will truncate.
func removedDisagreement(s, removed replicaSet) []Violation {
	var out []Violation
	for _, r := range removed.logs {
		o, mine, theirs, ok := firstDisagreement(s, r, r.HW)
		if !ok {
			continue
		}
		out = append(out, Violation{
			Checker: CheckerReplicas, Anomaly: ReplicaDivergence, Partition: s.tp,
			Offsets: []model.Offset{o}, Values: []string{theirs, mine},
			Error: true, Promise: PromiseReplication,
			Detail: fmt.Sprintf("%s, removed from the replicas by a reassignment, holds %q at offset %d below its high watermark %d, where the ISR holds %q",
				r.Broker, mine, o, r.HW, theirs),
		})
	}
	return out
}

// missingFrom lists the members of xs not in set, in xs's order.
func missingFrom(set, xs []model.BrokerID) []model.BrokerID {
	var out []model.BrokerID
	for _, x := range xs {
		if !slices.Contains(set, x) {
			out = append(out, x)
		}
	}
	return out
}
