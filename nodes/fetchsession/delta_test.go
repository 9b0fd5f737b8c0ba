package fetchsession

import (
	"math/rand/v2"
	"slices"
	"testing"

	"kafkasim/model"
)

// TestBuildDeltaMatchesBuild drives two handlers through the same random
// fetches, one built by Build from every wanted partition, the other by
// BuildDelta from the partitions that changed, and checks that they send,
// forget and hold the same, in the same order, fetch after fetch: enough
// fetches that partitions leave and come back many times, so the holes
// BuildDelta leaves are closed up too.
func TestBuildDeltaMatchesBuild(t *testing.T) {
	const parts = 200
	rng := rand.New(rand.NewPCG(24, 5))
	wanted := make([]bool, parts)
	offset := make([]model.Offset, parts)
	data := func(p int) model.FetchPartition {
		return model.FetchPartition{TP: model.TP("t", int32(p)), FetchOffset: offset[p], MaxBytes: 1 << 20}
	}
	var all, delta Handler
	holes, closed := 0, 0
	for round := range 2000 {
		// Change a few partitions: drop, add back, or move on.
		var changed []int
		for range rng.IntN(6) {
			p := rng.IntN(parts)
			switch rng.IntN(3) {
			case 0:
				wanted[p] = !wanted[p]
			default:
				offset[p] += model.Offset(rng.IntN(3))
			}
			changed = append(changed, p)
		}
		var want []model.FetchPartition
		for p := range parts {
			if wanted[p] {
				want = append(want, data(p))
			}
		}
		_, sendAll, forgetAll := all.Build(want, nil, nil)
		var send []model.FetchPartition
		var forget []model.TopicPartition
		if delta.CanDelta() {
			slices.Sort(changed)
			changed = slices.Compact(changed)
			var changes []Change
			for _, p := range changed {
				changes = append(changes, Change{Want: wanted[p], Rank: p, Data: data(p)})
			}
			before := delta.holes
			_, send, forget = delta.BuildDelta(changes, nil, nil)
			holes = max(holes, delta.holes)
			if delta.holes < before {
				closed++
			}
		} else {
			_, send, forget = delta.Build(want, nil, nil)
		}
		if !slices.Equal(send, sendAll) || !slices.Equal(forget, forgetAll) {
			t.Fatalf("fetch %d: the delta sends %v and forgets %v, the whole %v and %v", round, tpsOf(send), forget, tpsOf(sendAll), forgetAll)
		}
		if !slices.Equal(delta.Partitions(), all.Partitions()) || delta.Len() != all.Len() {
			t.Fatalf("fetch %d: the sessions differ: %v against %v", round, tpsOf(delta.Partitions()), tpsOf(all.Partitions()))
		}
		for p := range parts {
			got, held := delta.Holds(model.TP("t", int32(p)))
			if held != wanted[p] || (held && got != data(p)) {
				t.Fatalf("fetch %d: t/%d held=%v %+v, want held=%v", round, p, held, got, wanted[p])
			}
		}
		// Both sessions go on: the first answer sets one up, and a rare
		// error makes the next fetch a full one.
		r := &model.FetchResponse{SessionID: 7}
		if all.Next().IsFull() {
			r.Partitions = answers(all.Partitions(), 0)
		}
		if rng.IntN(100) == 0 {
			r = &model.FetchResponse{Error: model.InvalidFetchSessionEpoch, SessionID: 7}
		}
		all.HandleResponse(r)
		delta.HandleResponse(r)
	}
	if holes <= 64 || closed == 0 {
		t.Fatalf("the run never closed up holes (at most %d, closed %d times): it tests too little", holes, closed)
	}
}
