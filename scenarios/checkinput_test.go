package scenarios

import (
	"reflect"
	"slices"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/sim"
)

// TestCheckersLeaveTheHistoryAlone backs Run's reuse of the history it
// gave the checkers as the result's: a run with violations (every report
// path taken) and a clean chaos run must leave the history as it was.
func TestCheckersLeaveTheHistoryAlone(t *testing.T) {
	for _, name := range []string{"jepsen-2013", "chaos"} {
		sc, ok := Find(name)
		if !ok {
			t.Fatalf("no scenario %s", name)
		}
		kc, err := ConfigFor(sc, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, _, err := play(sc, 1, kc, sim.Config{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		in := s.CheckInput()
		before := cloneHistory(in.History)
		res := checkers.Check(in, CheckOptions(kc))
		if name == "jepsen-2013" && len(res.Violations) == 0 {
			t.Fatalf("%s: no violations, so the report paths were not taken", name)
		}
		if !reflect.DeepEqual(before, in.History) {
			t.Fatalf("%s: the checkers changed the history they were given", name)
		}
	}
}

// cloneHistory copies a history down to its innermost slices.
func cloneHistory(h model.History) model.History {
	out := slices.Clone(h)
	for i := range out {
		op := &out[i]
		if op.Records != nil {
			op.Records = slices.Clone(op.Records)
			for j := range op.Records {
				op.Records[j].Records = slices.Clone(op.Records[j].Records)
			}
		}
		op.Partitions = slices.Clone(op.Partitions)
		op.Topics = slices.Clone(op.Topics)
		op.Offsets = slices.Clone(op.Offsets)
		op.Gained = slices.Clone(op.Gained)
		op.Lost = slices.Clone(op.Lost)
	}
	return out
}
