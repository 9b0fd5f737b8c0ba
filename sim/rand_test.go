package sim

import "testing"

func TestStreamsAreIndependentAndReproducible(t *testing.T) {
	draw := func(seed uint64, names ...string) map[string][5]uint64 {
		st := NewStreams(seed)
		out := map[string][5]uint64{}
		for _, n := range names {
			r := st.Stream(n)
			var v [5]uint64
			for i := range v {
				v[i] = r.Uint64()
			}
			out[n] = v
		}
		return out
	}
	a := draw(42, "workload", "faults")
	b := draw(42, "faults", "extra", "workload") // another stream added, order changed
	if a["workload"] != b["workload"] || a["faults"] != b["faults"] {
		t.Fatal("adding a stream or reordering changed what others draw")
	}
	if a["workload"] == a["faults"] {
		t.Fatal("two names drew the same values")
	}
	c := draw(43, "workload")
	if c["workload"] == a["workload"] {
		t.Fatal("two seeds drew the same values")
	}
}
