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
