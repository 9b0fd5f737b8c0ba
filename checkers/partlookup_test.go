package checkers

import (
	"testing"

	"kafkasim/model"
)

// lookup finds every partition part made, and no other, whether the
// partitions are all of one topic (found by number) or not (found by
// comparison), including after a partition ends the one-topic case.
func TestPartLookup(t *testing.T) {
	cases := [][]model.TopicPartition{
		{model.TP("t", 2), model.TP("t", 0), model.TP("t", 7)},
		{model.TP("t", 2), model.TP("u", 0), model.TP("t", 0)},
		{model.TP("", 1<<20), model.TP("", 1), model.TP("t", 1)},
		{model.TP("t", 1), model.TP("t", -1), model.TP("t", 3)},
	}
	for _, tps := range cases {
		a := &analysis{byTP: map[model.TopicPartition]*partition{}}
		made := map[model.TopicPartition]*partition{}
		for _, tp := range tps {
			made[tp] = a.part(tp)
			for seen, p := range made {
				if got := a.lookup(seen); got != p {
					t.Fatalf("%v: lookup(%v) after adding %v is %v, want %v", tps, seen, tp, got, p)
				}
			}
		}
		for _, tp := range []model.TopicPartition{model.TP("t", 5), model.TP("u", 2), model.TP("v", 0), model.TP("", 0)} {
			if _, ok := made[tp]; !ok && a.lookup(tp) != nil {
				t.Fatalf("%v: lookup(%v) found a partition never made", tps, tp)
			}
		}
		if len(a.parts) != len(tps) {
			t.Fatalf("%v: %d partitions", tps, len(a.parts))
		}
	}
}
