package faults

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// fiveBrokers is a shape where a reassignment can move replicas to
// brokers that held none.
var fiveBrokers = Shape{
	Brokers:     []model.BrokerID{1, 2, 3, 4, 5},
	Controllers: []model.BrokerID{100},
	Partitions:  []model.TopicPartition{tp0, model.TP("u", 1)},
}

// SwarmKinds leaves the operations out, so every existing swarm draws
// what it drew; named with the faults, they come on top of the very same
// faults, each a valid operation line: a partition of the shape and, for
// reassign, as many distinct brokers of the shape as the replication
// factor.
func TestSwarmDrawsOperationsOnlyWhenNamed(t *testing.T) {
	for _, k := range SwarmKinds() {
		if k.IsOperation() {
			t.Fatalf("SwarmKinds lists the operation %s", k)
		}
	}
	if want := []Kind{KindElectPreferred, KindReassign, KindCancelReassign}; !slices.Equal(SwarmOperations(), want) {
		t.Fatalf("SwarmOperations %v, want %v", SwarmOperations(), want)
	}
	drawn := map[Kind]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		faultsOnly := Swarm(seed, allSwarm(), fiveBrokers)
		o := allSwarm()
		o.Kinds = slices.Concat(SwarmKinds(), SwarmOperations())
		with := Swarm(seed, o, fiveBrokers)
		if err := with.Validate(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, with)
		}
		var rest Schedule
		for _, f := range with {
			if !f.Kind.IsOperation() {
				rest = append(rest, f)
				continue
			}
			drawn[f.Kind]++
			if !slices.Contains(fiveBrokers.Partitions, f.TP) || f.End != 0 {
				t.Fatalf("seed %d: %s", seed, f)
			}
			if f.Kind == KindReassign {
				sorted := slices.Compact(slices.Sorted(slices.Values(f.Replicas)))
				if len(sorted) != 3 || sorted[0] < 1 || sorted[2] > 5 {
					t.Fatalf("seed %d: %s does not name three distinct brokers of the shape", seed, f)
				}
			} else if f.Replicas != nil {
				t.Fatalf("seed %d: %s has replicas", seed, f)
			}
		}
		if !reflect.DeepEqual(faultsOnly, rest) {
			t.Fatalf("seed %d: the operations moved the faults:\n%v\n%v", seed, faultsOnly, rest)
		}
	}
	for _, k := range SwarmOperations() {
		if drawn[k] == 0 {
			t.Errorf("100 seeds drew no %s", k)
		}
	}
}

// The shape's replication factor sets how many replicas a reassignment
// names; a shape without partitions draws no operation.
func TestSwarmReassignmentSize(t *testing.T) {
	o := SwarmOptions{Kinds: []Kind{KindReassign}, Start: time.Second, End: time.Minute, MeanInterval: time.Second}
	sh := fiveBrokers
	sh.ReplicationFactor = 2
	n := 0
	for seed := uint64(1); seed <= 10; seed++ {
		for _, f := range Swarm(seed, o, sh) {
			n++
			if len(f.Replicas) != 2 {
				t.Fatalf("seed %d: %s, want two replicas", seed, f)
			}
		}
	}
	if n == 0 {
		t.Fatal("ten seeds drew no reassignment; the test shows nothing")
	}
	sh.Partitions = nil
	for seed := uint64(1); seed <= 10; seed++ {
		if s := Swarm(seed, o, sh); len(s) != 0 {
			t.Fatalf("seed %d: no partitions, yet drew %v", seed, s)
		}
	}
}
