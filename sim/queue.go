package sim

import "time"

// eventKind says what an event does when it comes due.
type eventKind uint8

const (
	evDeliver    eventKind = iota + 1 // a message reaches its destination
	evFire                            // a node's timer fires
	evDisconnect                      // a node learns a connection broke
	evSync                            // an asynchronous fsync completes
	evControl                         // a harness action (fault, workload step)
	evRetransmit                      // a connection's TCP retransmission timer
)

var eventKindNames = [...]string{
	evDeliver:    "deliver",
	evFire:       "fire",
	evDisconnect: "disconnect",
	evSync:       "fsync-done",
	evControl:    "control",
	evRetransmit: "retransmit",
}

func (k eventKind) String() string { return eventKindNames[k] }

// event is the payload of one pending event. Events live in a slab (a slice
// reused through a free list) so that scheduling does not allocate, and the
// heap orders small keys that point into it.
type event struct {
	kind  eventKind
	node  int32  // index of the target node
	peer  int32  // sender of a message, or the peer of a disconnect
	inc   uint32 // incarnation of the target the event belongs to
	conn  uint32 // connection generation a message was sent on
	timer TimerID
	tkind string
	arg   int64
	msg   Message
	name  string // control: what the action is; sync: the file name
	fn    func()
	upTo  int64  // sync: file length when the sync started
	gen   uint64 // sync: file mutation generation when it started
}

// key orders events by (virtual time, sequence number): ties in time are
// broken by the order in which the events were scheduled, which is itself
// deterministic.
type key struct {
	at  time.Duration
	seq uint64
	idx int32
}

func (a key) less(b key) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

// queue is a binary min-heap of keys (heap.go) over a slab of events.
type queue struct {
	order binaryHeap
	slab  []event
	free  []int32
	seq   uint64
	// handling is set while the event at the root of order is being
	// handled (take): it stays there until the handler's first push
	// replaces it, or until done removes it. Most handlers schedule at
	// least one event, so most events leave the heap in the same pass
	// that places the next one.
	handling bool
}

// len counts the events waiting, leaving out the one being handled.
func (q *queue) len() int {
	if q.handling {
		return q.order.len() - 1
	}
	return q.order.len()
}

// push schedules ev at time at and returns its sequence number.
func (q *queue) push(at time.Duration, ev event) uint64 {
	var idx int32
	if n := len(q.free); n > 0 {
		idx = q.free[n-1]
		q.free = q.free[:n-1]
		q.slab[idx] = ev
	} else {
		idx = int32(len(q.slab))
		q.slab = append(q.slab, ev)
	}
	q.seq++
	k := key{at: at, seq: q.seq, idx: idx}
	if q.handling {
		q.handling = false
		q.order.replaceTop(k)
	} else {
		q.order.push(k)
	}
	return q.seq
}

// peek returns the time of the earliest event; ok is false when empty. It
// is not called while an event is being handled.
func (q *queue) peek() (time.Duration, bool) {
	if len(q.order) == 0 {
		return 0, false
	}
	return q.order[0].at, true
}

// take returns the key of the earliest event, which is to be handled now,
// and leaves it at the root of the order until the first push or done.
// The event stays in its slot, q.slab[k.idx], until done: the dispatcher
// reads it there rather than copying a hundred-odd bytes out and passing
// them down by value, once per event. Events pushed meanwhile cannot take
// the slot, and should the slab grow, the old array still holds it.
func (q *queue) take() key {
	q.handling = true
	return q.order[0]
}

// done ends the handling of the event take returned: it leaves the order
// if no push replaced it, and its slot is recycled.
func (q *queue) done(idx int32) {
	if q.handling {
		q.handling = false
		q.order.pop()
	}
	q.slab[idx] = event{} // drop references for the garbage collector
	q.free = append(q.free, idx)
}
