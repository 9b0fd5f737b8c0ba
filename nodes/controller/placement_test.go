package controller

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"kafkasim/model"
)

// fiveOnThreeRacks is the worked example's cluster: five brokers spread
// round-robin over three racks (r1: b1, b4; r2: b2, b5; r3: b3).
func fiveOnThreeRacks() ([]placeableBroker, map[model.BrokerID]string) {
	racks := []string{"r1", "r2", "r3"}
	var bs []placeableBroker
	rackOf := map[model.BrokerID]string{}
	for i := 1; i <= 5; i++ {
		id := model.BrokerID(i)
		bs = append(bs, placeableBroker{id: id, rack: racks[(i-1)%3]})
		rackOf[id] = racks[(i-1)%3]
	}
	return bs, rackOf
}

// racksOf lists the racks a partition's replicas are on, one per replica.
func racksOf(replicas []model.BrokerID, rackOf map[model.BrokerID]string) []string {
	var out []string
	for _, b := range replicas {
		out = append(out, rackOf[b])
	}
	return out
}

// sharesRack reports whether two replicas of a partition are on one rack.
func sharesRack(replicas []model.BrokerID, rackOf map[model.BrokerID]string) bool {
	rs := racksOf(replicas, rackOf)
	slices.Sort(rs)
	return len(slices.Compact(rs)) < len(replicas)
}

// With three racks and rf 3, every partition has one replica per rack,
// whatever the seed; leaders go round every broker; the same seed places
// the same way.
func TestStripedPlacementOneReplicaPerRack(t *testing.T) {
	bs, rackOf := fiveOnThreeRacks()
	for seed := uint64(1); seed <= 50; seed++ {
		a := placeStriped(rand.New(rand.NewPCG(seed, 7)), bs, 30, 3)
		leaders := map[model.BrokerID]int{}
		for p, replicas := range a {
			if len(replicas) != 3 || sharesRack(replicas, rackOf) {
				t.Fatalf("seed %d partition %d: replicas %v on racks %v: want three racks", seed, p, replicas, racksOf(replicas, rackOf))
			}
			leaders[replicas[0]]++
		}
		if len(leaders) != 5 {
			t.Fatalf("seed %d: leaders %v: want every broker to lead some of 30 partitions", seed, leaders)
		}
		if b := placeStriped(rand.New(rand.NewPCG(seed, 7)), bs, 30, 3); !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d: placement differs on the same seed", seed)
		}
	}
}

// The check above is not vacuous: the rack-unaware placement on the same
// brokers puts two replicas of some partition on one rack (with five
// brokers on three racks it must, for some start and shift).
func TestRackUnawarePlacementSharesRacks(t *testing.T) {
	bs, rackOf := fiveOnThreeRacks()
	var ids []model.BrokerID
	for _, b := range bs {
		ids = append(ids, b.id)
	}
	shared := 0
	for seed := uint64(1); seed <= 50; seed++ {
		for _, replicas := range assignReplicas(rand.New(rand.NewPCG(seed, 7)), ids, 30, 3) {
			if sharesRack(replicas, rackOf) {
				shared++
			}
		}
	}
	if shared == 0 {
		t.Fatal("the rack-unaware placement never put two replicas on one rack")
	}
}

// A fenced broker is taken only where its rack has no unfenced one, and
// never as a partition's first replica (StripedReplicaPlacer's Rack.next
// and the first replica's nextUnfenced).
func TestStripedPlacementFencing(t *testing.T) {
	bs, rackOf := fiveOnThreeRacks()
	bs[2].fenced = true // b3, the only broker of r3
	for seed := uint64(1); seed <= 50; seed++ {
		for p, replicas := range placeStriped(rand.New(rand.NewPCG(seed, 9)), bs, 20, 3) {
			if replicas[0] == 3 {
				t.Fatalf("seed %d partition %d: %v: the fenced b3 leads", seed, p, replicas)
			}
			if sharesRack(replicas, rackOf) {
				t.Fatalf("seed %d partition %d: %v: r3's fenced broker is all it has, and still its rack's pick", seed, p, replicas)
			}
		}
	}
	// Fence b1 too: r1 still has b4, which is taken before b1 always.
	bs[0].fenced = true
	for seed := uint64(1); seed <= 50; seed++ {
		for p, replicas := range placeStriped(rand.New(rand.NewPCG(seed, 9)), bs, 20, 3) {
			if slices.Contains(replicas, 1) {
				t.Fatalf("seed %d partition %d: %v: fenced b1 taken while b4 of its rack is unfenced", seed, p, replicas)
			}
		}
	}
}

// Two racks, rf 3: a partition spans both racks, and the third replica
// doubles up on one (more replicas than racks).
func TestStripedPlacementFewerRacksThanReplicas(t *testing.T) {
	bs := []placeableBroker{{id: 1, rack: "a"}, {id: 2, rack: "b"}, {id: 3, rack: "a"}, {id: 4, rack: "b"}}
	rackOf := map[model.BrokerID]string{1: "a", 2: "b", 3: "a", 4: "b"}
	for seed := uint64(1); seed <= 20; seed++ {
		for p, replicas := range placeStriped(rand.New(rand.NewPCG(seed, 3)), bs, 12, 3) {
			rs := racksOf(replicas, rackOf)
			if !slices.Contains(rs, "a") || !slices.Contains(rs, "b") {
				t.Fatalf("seed %d partition %d: %v on %v: want both racks", seed, p, replicas, rs)
			}
			seen := slices.Clone(replicas)
			slices.Sort(seen)
			if len(slices.Compact(seen)) != 3 {
				t.Fatalf("seed %d partition %d: %v repeats a broker", seed, p, replicas)
			}
		}
	}
}

// A registration's rack survives the log and the snapshot; a rackless
// one encodes as it did before racks (kind 2), which keeps old runs'
// bytes.
func TestRegisterBrokerRackEncoding(t *testing.T) {
	rackless := RegisterBrokerRecord{ID: 2, Epoch: 5, Incarnation: 9}
	if b := encodeRecord(rackless); b[0] != byte(kindRegisterBroker) || !reflect.DeepEqual(decodeRecord(b), Record(rackless)) {
		t.Fatalf("rackless: %v", b)
	}
	racked := RegisterBrokerRecord{ID: 2, Epoch: 5, Incarnation: 9, Rack: "r2"}
	if got := decodeRecord(encodeRecord(racked)); !reflect.DeepEqual(got, Record(racked)) {
		t.Fatalf("racked: %v", got)
	}
	s := newMetadataState(model.DefaultConfig())
	s.apply(5, racked)
	s.apply(6, RegisterBrokerRecord{ID: 3, Epoch: 6, Incarnation: 1})
	r := restoreState(model.DefaultConfig(), s.snapshot())
	if r.brokers[2].Rack != "r2" || r.brokers[3].Rack != "" {
		t.Fatalf("restored racks %q %q", r.brokers[2].Rack, r.brokers[3].Rack)
	}
	plain := newMetadataState(model.DefaultConfig())
	plain.apply(6, RegisterBrokerRecord{ID: 3, Epoch: 6, Incarnation: 1})
	if r := restoreState(model.DefaultConfig(), plain.snapshot()); r.racked() {
		t.Fatal("a rackless snapshot restored with racks")
	}
}
