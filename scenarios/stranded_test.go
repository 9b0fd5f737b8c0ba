package scenarios

import (
	"testing"

	"kafkasim/model"
)

// A partition is stranded only when no broker Kafka's controller may elect
// is left: no leader, an empty ISR, and an ELR that holds no replica. The
// cases next to it are not: an ELR replica, an empty ELR (the last known
// leader may be elected), an ISR member, a leader.
func TestStrandedByELR(t *testing.T) {
	b := func(ids ...int) []model.BrokerID {
		out := make([]model.BrokerID, len(ids))
		for i, id := range ids {
			out[i] = model.BrokerID(id)
		}
		return out
	}
	cases := []struct {
		name string
		ps   model.PartitionState
		want bool
	}{
		{"an ELR of a broker a cancel removed", model.PartitionState{Leader: model.NoBroker, Replicas: b(1, 2, 3), ELR: b(5)}, true},
		{"an ELR with a replica", model.PartitionState{Leader: model.NoBroker, Replicas: b(1, 2, 3), ELR: b(5, 3)}, false},
		{"an empty ELR", model.PartitionState{Leader: model.NoBroker, Replicas: b(1, 2, 3)}, false},
		{"an ISR member", model.PartitionState{Leader: model.NoBroker, Replicas: b(1, 2, 3), ISR: b(1), ELR: b(5)}, false},
		{"a leader", model.PartitionState{Leader: 1, Replicas: b(1, 2, 3), ISR: b(1), ELR: b(5)}, false},
	}
	for _, c := range cases {
		if got := strandedByELR(c.ps); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
