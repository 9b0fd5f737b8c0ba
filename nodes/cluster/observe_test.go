package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
)

// HWObservations keeps every observation, in order, across chunk
// boundaries, and All stops when asked to.
func TestHWObservationsKeepOrderAcrossChunks(t *testing.T) {
	var h HWObservations
	const n = 2*hwChunk + 7
	for i := range n {
		h.Add(obsAt(i))
	}
	if h.Len() != n {
		t.Fatalf("Len %d, want %d", h.Len(), n)
	}
	i := 0
	for o := range h.All() {
		if o != obsAt(i) {
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

// obsAt is the i-th observation of the test: every field varies, the
// partitions over two topics.
func obsAt(i int) model.HWObservation {
	topic := "a"
	if i%5 == 0 {
		topic = "b"
	}
	return model.HWObservation{Time: time.Duration(i) * time.Millisecond, TP: model.TP(topic, int32(i%3)),
		Broker: model.BrokerID(i % 7), Epoch: model.Epoch(i % 11), HW: model.Offset(i)}
}
