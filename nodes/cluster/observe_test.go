package cluster

import (
	"testing"

	"kafkasim/model"
)

// HWObservations keeps every observation, in order, across chunk
// boundaries, and All stops when asked to.
func TestHWObservationsKeepOrderAcrossChunks(t *testing.T) {
	var h HWObservations
	const n = 2*hwChunk + 7
	for i := range n {
		h.Add(HWObservation{TP: model.TP("t", int32(i%3)), HW: model.Offset(i)})
	}
	if h.Len() != n {
		t.Fatalf("Len %d, want %d", h.Len(), n)
	}
	i := 0
	for o := range h.All() {
		if o.HW != model.Offset(i) || o.TP.Partition != int32(i%3) {
			t.Fatalf("observation %d is %+v", i, o)
		}
		i++
	}
	if i != n {
		t.Fatalf("All yielded %d, want %d", i, n)
	}
	seen := 0
	for range h.All() {
		seen++
		if seen == hwChunk+1 {
			break
		}
	}
	if seen != hwChunk+1 {
		t.Fatalf("All went on after break: %d", seen)
	}
}
