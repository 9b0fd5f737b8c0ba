package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
)

// reordered counts pairs of one producer's acknowledged sends to a
// partition whose offsets are out of the order they were sent in.
func reordered(h model.History) int {
	type key struct {
		proc int
		tp   model.TopicPartition
	}
	last := map[key]model.Offset{}
	n := 0
	for _, op := range h { // ops are in invocation order
		if op.F != model.FSend || op.Type != model.OpOK {
			continue
		}
		k := key{op.Process, op.TP}
		if prev, ok := last[k]; ok && op.Offset < prev {
			n++
		}
		if op.Offset > last[k] {
			last[k] = op.Offset
		}
	}
	return n
}

// isrFlap shrinks the ISR below min.insync.replicas and restores it, so
// that some batches fail with NOT_ENOUGH_REPLICAS and are retried while
// later batches already succeed.
func isrFlap(t *testing.T, seed uint64, idempotent bool) int {
	kc := safeConfig()
	kc.Producer.Idempotence = idempotent
	kc.Producer.MaxInFlight = 5
	kc.Broker.ReplicaLagTimeMax = 2 * time.Second
	h := newHarness(t, seed, kc, 1, 2*time.Millisecond)
	tp := h.tps[0]
	a, _ := h.LeaderAndFollowers(tp)
	for i := 0; i < 5; i++ {
		at := time.Duration(2+6*i) * time.Second
		h.Sim.At(at, "isolate leader", func() { h.Isolate(a) })
		h.Sim.At(at+4*time.Second, "heal", func() { h.Sim.HealAll() })
	}
	h.Sim.At(35*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(60 * time.Second)
	return reordered(h.History.History())
}

func TestRetriesReorderWithoutIdempotence(t *testing.T) {
	found := false
	for seed := uint64(1); seed <= 5 && !found; seed++ {
		found = isrFlap(t, seed, false) > 0
	}
	if !found {
		t.Fatal("enable.idempotence=false, 5 in flight: no reordered acknowledged sends in 5 seeds")
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if n := isrFlap(t, seed, true); n > 0 {
			t.Fatalf("seed %d: enable.idempotence=true: %d reordered acknowledged sends", seed, n)
		}
	}
}
