package checkers

import (
	"reflect"
	"testing"
)

// These tests hold the cycle search to the way Jepsen has Elle search a
// Kafka history (cycles.go): per component of the whole graph a G0, or
// else a G1c through a ww edge, never both, since Elle skips G1c where
// it found a G0 (G0 implies G1c); and per component of the write-read
// edges a G1c of write-read edges only, as Jepsen without :ww-deps finds
// them. Jepsen's own cases of each kind are TestJepsenG0,
// TestJepsenG1cPureWR and TestJepsenG1cWWWR.

// cycleShape is what these tests compare of a cycle finding: its name,
// its operations, the kinds of its steps and both classifications.
type cycleShape struct {
	Anomaly string
	Ops     []int
	Steps   []string
	Error   bool
	Jepsen  string
}

func cycleShapes(r Result) []cycleShape {
	var out []cycleShape
	for _, v := range r.Violations {
		if v.Anomaly != G0 && v.Anomaly != G1c {
			continue
		}
		s := cycleShape{Anomaly: v.Anomaly, Ops: v.Ops, Error: v.Error, Jepsen: v.JepsenClass}
		for _, st := range v.Txn.Steps {
			s.Steps = append(s.Steps, st.Type)
		}
		out = append(out, s)
	}
	return out
}

func TestCycleG0ImpliesG1c(t *testing.T) {
	// Operation 0 is Jepsen's first completion (two micro-ops), 2 the
	// second. Both G0 steps are ww; the G1c the same component holds (0
	// wr→ 2 ww→ 0) is not reported.
	r := checkJepsenFile(t, "g0-implies-g1c.edn", Options{})
	want := []cycleShape{{Anomaly: G0, Ops: []int{2, 0}, Steps: []string{"ww", "ww"}, Jepsen: JepsenAllowed}}
	if got := cycleShapes(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v\n%s", got, want, dump(r))
	}
	// The neighbour without the G0 (g1c-ww-wr.edn: the second operation
	// polls :x but sends none) reports its G1c.
	r = checkJepsenFile(t, "g1c-ww-wr.edn", Options{})
	want = []cycleShape{{Anomaly: G1c, Ops: []int{0, 2}, Steps: []string{"wr", "ww"}, Jepsen: JepsenAllowed}}
	if got := cycleShapes(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("neighbour: got %+v\nwant %+v\n%s", got, want, dump(r))
	}
}

func TestCycleG1cPerWriteReadComponent(t *testing.T) {
	// Operations (by first micro-op) 0, 4, 6 and 10 are Jepsen's
	// completions 4 to 7. Each write-read pair is its own G1c, an error
	// in both classifications; the four together are one component with
	// a G0 on :u and :v between 0 and 6, which stands for any G1c through
	// a ww edge there.
	r := checkJepsenFile(t, "g1c-two-wr-components.edn", Options{})
	want := []cycleShape{
		{Anomaly: G0, Ops: []int{6, 0}, Steps: []string{"ww", "ww"}, Jepsen: JepsenAllowed},
		{Anomaly: G1c, Ops: []int{4, 0}, Steps: []string{"wr", "wr"}, Error: true, Jepsen: JepsenError},
		{Anomaly: G1c, Ops: []int{10, 6}, Steps: []string{"wr", "wr"}, Error: true, Jepsen: JepsenError},
	}
	if got := cycleShapes(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v\n%s", got, want, dump(r))
	}
}
