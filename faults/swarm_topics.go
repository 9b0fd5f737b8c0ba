package faults

import (
	"slices"
	"strconv"

	"kafkasim/model"
)

// topicOperation draws a topic operation's arguments, from the kind's own
// stream like every other draw:
//
//   - create-topic: one of the options' Topics, 1 to 4 partitions, the
//     shape's replication factor (three, or every broker when fewer);
//   - delete-topic: one of the options' Topics (never a shape topic that
//     the options do not name: the workload's topics stay);
//   - add-partitions: one of the options' Topics or the shape's topics,
//     grown to 2 to 8 partitions (a count that is no increase is
//     refused INVALID_PARTITIONS, as Kafka refuses it);
//   - alter-config: min.insync.replicas of 2 to the replication factor on
//     one of them (never 1, which would take back the durability promise
//     the safe scenarios judge by).
//
// It is false when there is no topic to name.
func (d *drawer) topicOperation(f *Fault, spec kindSpec) bool {
	own := d.o.Topics
	all := slices.Clone(own)
	for _, tp := range d.shape.Partitions {
		if !slices.Contains(all, tp.Topic) && tp.Topic != "__consumer_offsets" && tp.Topic != "__transaction_state" {
			all = append(all, tp.Topic)
		}
	}
	pool := own
	if spec.args == argsAddPartitions || spec.args == argsAlterConfig {
		pool = all
	}
	if len(pool) == 0 {
		return false
	}
	f.Topic = pool[d.r.IntN(len(pool))]
	rf := d.shape.ReplicationFactor
	if rf <= 0 || rf > len(d.shape.Brokers) {
		rf = min(3, len(d.shape.Brokers))
	}
	switch spec.args {
	case argsCreateTopic:
		f.Count, f.RF = 1+d.r.Int32N(4), int32(rf)
	case argsAddPartitions:
		f.Count = 2 + d.r.Int32N(7)
	case argsAlterConfig:
		lo := min(2, rf)
		f.Config = model.ConfigEntry{Name: "min.insync.replicas", Value: strconv.Itoa(lo + d.r.IntN(rf-lo+1))}
	}
	return true
}
