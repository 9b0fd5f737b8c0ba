package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestQueueHandlesInPlace drives the kernel's queue as Run does, take, then
// zero or more pushes while the event is handled, then done, and checks
// that it hands out events in exactly the reference's (time, sequence)
// order and counts only the waiting ones while one is handled. Pushes while
// handling include delays of zero, so a pushed event can be the next one
// due, and handlers that push nothing, so the deferred pop runs too.
func TestQueueHandlesInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	var q queue
	ref := new(referenceOrder)
	delay := func() time.Duration {
		if r.IntN(4) == 0 {
			return 0
		}
		return time.Duration(r.IntN(2000)) * time.Microsecond
	}
	push := func(now time.Duration) {
		at := now + delay()
		seq := q.push(at, event{kind: evFire})
		ref.push(key{at: at, seq: seq})
	}
	for range 500 {
		push(0)
	}
	var now time.Duration
	for step := range 100_000 {
		if ref.len() == 0 {
			break
		}
		want := ref.pop()
		k := q.take()
		if k.at != want.at || k.seq != want.seq {
			t.Fatalf("step %d: took (%v, %d), want (%v, %d)", step, k.at, k.seq, want.at, want.seq)
		}
		now = k.at
		if q.len() != ref.len() {
			t.Fatalf("step %d: %d waiting while handling, want %d", step, q.len(), ref.len())
		}
		pushes := r.IntN(3) // 0, 1 or 2: the queue drains slowly
		if step > 90_000 {
			pushes = r.IntN(2) // then faster, to empty
		}
		for range pushes {
			push(now)
		}
		q.done(k.idx)
		if q.len() != ref.len() {
			t.Fatalf("step %d: %d waiting after handling, want %d", step, q.len(), ref.len())
		}
	}
}
