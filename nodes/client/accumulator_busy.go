package client

import (
	"fmt"
	"slices"
)

// The accumulator lists the queues that may hold batches (busy, ascending,
// each once, inBusy saying which are in it), so that the sender's walks
// after every event (drain, drainNode, nextDeadline, expired) visit those
// rather than a queue for every partition ever produced to. Kafka's
// RecordAccumulator.ready and drain walk the deque of every partition the
// accumulator holds one for, empty or not; skipping the empty ones changes
// nothing those walks find, since each skips an empty deque. A queue
// joins when a batch goes into it (append, reenqueue) and leaves when a
// walk finds it empty; a queue that empties stays until then, which is
// what every walk skips anyway.

// markBusy lists queue i.
func (a *accumulator) markBusy(i int) {
	if a.inBusy[i] {
		return
	}
	a.inBusy[i] = true
	at, _ := slices.BinarySearch(a.busy, i)
	a.busy = slices.Insert(a.busy, at, i)
}

// queueAdded moves the list for a queue inserted at position i: the queues
// from i on move up one place.
func (a *accumulator) queueAdded(i int) {
	a.inBusy = slices.Insert(a.inBusy, i, false)
	for k := range a.busy {
		if a.busy[k] >= i {
			a.busy[k]++
		}
	}
}

// busyQueues returns the positions of the queues holding batches,
// ascending: those a walk of every queue skipping the empty ones visits.
// The caller must not add a batch to a queue while it walks them.
func (a *accumulator) busyQueues() []int {
	k := 0
	for _, i := range a.busy {
		if len(*a.queues[i]) == 0 {
			a.inBusy[i] = false
			continue
		}
		a.busy[k] = i
		k++
	}
	a.busy = a.busy[:k]
	if CheckIncremental {
		a.checkBusy()
	}
	return a.busy
}

// checkBusy is CheckIncremental's check of the busy list against a walk of
// every queue.
func (a *accumulator) checkBusy() {
	var all []int
	for i, q := range a.queues {
		if len(*q) > 0 {
			all = append(all, i)
		}
	}
	if !slices.Equal(all, a.busy) {
		panic(fmt.Sprintf("producer: the queues listed busy are %v, those holding batches %v", a.busy, all))
	}
}
