package checkers

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/anishathalye/porcupine"

	"kafkasim/model"
)

// TestLogIndexAgreesWithTheSearch checks the model's constant-time answers
// against the binary search they replace, on dense histories and on one
// whose offsets run past the tables.
func TestLogIndexAgreesWithTheSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var w writers
		var ops []porcupine.Operation
		n := 1 + r.IntN(60)
		for i := range n {
			o := model.Offset(r.IntN(100))
			if round%10 == 0 && i == n-1 {
				o = 1 << 40 // sparse: beyond denseLimit
			}
			send := r.IntN(3) > 0
			if send {
				w = append(w, o)
			}
			ops = append(ops, porcupine.Operation{Input: &logOp{send: send, offset: o}})
		}
		slices.Sort(w)
		x := newLogIndex(w, ops)
		for range 300 {
			from := model.Offset(r.IntN(130))
			to := from + model.Offset(r.IntN(40))
			if round%10 == 0 && r.IntN(4) == 0 {
				from, to = 1<<40-model.Offset(r.IntN(3)), 1<<40+model.Offset(r.IntN(3))
			}
			if got, want := x.free(from, to), w.free(from, to); got != want {
				t.Fatalf("round %d: free(%d, %d) = %v, the search says %v (writers %v)", round, from, to, got, want, w)
			}
		}
	}
}

// TestLogIndexStatesAreBoxedOnce requires a state the model reached
// before to cost no allocation, and states to compare by value.
func TestLogIndexStatesAreBoxedOnce(t *testing.T) {
	x := newLogIndex(writers{0, 1, 2}, []porcupine.Operation{{Input: &logOp{send: true, offset: 2}}})
	if x.state(3) != any(model.Offset(3)) || x.state(1<<40) != any(model.Offset(1<<40)) {
		t.Fatal("states do not compare by value")
	}
	if a := testing.AllocsPerRun(100, func() { _ = x.state(3) }); a != 0 {
		t.Fatalf("state(3) allocates %v times a call", a)
	}
}
