package broker

import (
	"fmt"
	"strings"
	"testing"

	"kafkasim/model"
)

// TestPartIndexFindsWhatWasAdded checks the index against the plain
// answer, a search of everything added, for topics few enough to be
// scanned and many enough to be searched, for partitions that were added,
// holes between them, numbers past the end and negative numbers, and for
// topic names that are equal but not the same string in memory.
func TestPartIndexFindsWhatWasAdded(t *testing.T) {
	for _, topics := range []int{1, 3, partIndexLinear, partIndexLinear + 5} {
		t.Run(fmt.Sprint(topics), func(t *testing.T) {
			var x partIndex
			hosted := map[model.TopicPartition]*partition{}
			var names []string
			// Added out of order, with holes: partitions 0, 2, 3 and 7
			// of every other topic, 1 and 5 of the rest.
			for i := topics - 1; i >= 0; i-- {
				name := fmt.Sprintf("topic-%02d", (i*7)%topics)
				names = append(names, name)
				nums := []int32{7, 3, 0, 2}
				if i%2 == 1 {
					nums = []int32{5, 1}
				}
				for _, n := range nums {
					p := &partition{tp: model.TP(name, n)}
					x.add(p)
					hosted[p.tp] = p
				}
			}
			for _, name := range append(names, "absent", "") {
				// A copy with its own bytes: lookups come from
				// messages, whose names are not the broker's strings.
				other := strings.Clone(name)
				for n := int32(-2); n < 10; n++ {
					want := hosted[model.TP(name, n)]
					if got := x.get(other, n); got != want {
						t.Fatalf("get(%q, %d) = %v, want %v", name, n, got, want)
					}
				}
			}
		})
	}
}

// TestPartIndexRefusesBadAdds checks that opening a partition twice, or one
// with a number no topic has, panics rather than losing a replica or sizing
// a slice by garbage.
func TestPartIndexRefusesBadAdds(t *testing.T) {
	for _, tc := range []struct {
		name string
		tps  []model.TopicPartition
	}{
		{"twice", []model.TopicPartition{model.TP("t", 1), model.TP("t", 1)}},
		{"negative", []model.TopicPartition{model.TP("t", -1)}},
		{"huge", []model.TopicPartition{model.TP("t", partNumMax)}},
		{"no topic", []model.TopicPartition{model.TP("", 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			var x partIndex
			for _, tp := range tc.tps {
				x.add(&partition{tp: tp})
			}
		})
	}
}

// The index remembers the topic of a lookup and that topic's replicas. A
// partition opened after that, in a hole of the topic's slice or past its
// end (a new array), must be found all the same, and so must a partition
// of another topic opened meanwhile.
func TestPartIndexFindsPartitionsAddedAfterALookup(t *testing.T) {
	var x partIndex
	p0, p2 := &partition{tp: model.TP("t", 0)}, &partition{tp: model.TP("t", 2)}
	x.add(p2)
	if x.get("t", 2) != p2 || x.get("t", 0) != nil || x.get("t", 5) != nil {
		t.Fatal("setup lookups wrong")
	}
	x.add(p0) // a hole in t's slice
	if got := x.get("t", 0); got != p0 {
		t.Fatalf("t/0 added after a lookup of t: got %v", got)
	}
	p5 := &partition{tp: model.TP("t", 5)} // grows t's slice
	x.add(p5)
	if got := x.get("t", 5); got != p5 {
		t.Fatalf("t/5 added after a lookup of t: got %v", got)
	}
	q := &partition{tp: model.TP("a", 0)} // moves t to the second place
	x.add(q)
	if x.get("t", 5) != p5 || x.get("a", 0) != q || x.get("t", 0) != p0 || x.get("", 0) != nil {
		t.Fatal("lookups wrong after a topic was added in front")
	}
}

// A lookup remembers the topic's slice as it was. When a later open grows
// that slice into a new array and another fills a hole below the old end,
// the remembered slice must not answer "not hosted" for the hole: that made
// a broker open a replica it hosted a second time (reassign-under-chaos
// seed 99507042: "partition orders/0 opened twice") and take a hosted
// replica for one it did not have.
func TestPartIndexFindsAHoleFilledAfterTheSliceGrew(t *testing.T) {
	var x partIndex
	p0, p2, p5 := &partition{tp: model.TP("t", 0)}, &partition{tp: model.TP("t", 2)}, &partition{tp: model.TP("t", 5)}
	x.add(p2)
	if x.get("t", 2) != p2 || x.get("t", 0) != nil {
		t.Fatal("setup lookups wrong")
	}
	x.add(p5) // grows t's slice into a new array; no lookup of t/5
	x.add(p0) // fills a hole below the old end, in the new array
	for _, p := range []*partition{p0, p2, p5} {
		if got := x.get("t", p.tp.Partition); got != p {
			t.Fatalf("get(%v) = %v, want %v", p.tp, got, p)
		}
	}
}
