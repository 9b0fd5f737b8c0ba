package cluster

import (
	"strconv"
	"strings"

	"kafkasim/nodes/client"
	"kafkasim/sim"
)

// Sequence is a producer workload of unique values "<prefix>0",
// "<prefix>1", ... spread round-robin over a topic's partitions, up to
// Count records (0: no end). It lives outside the producer node so that a
// restarted producer never reuses a value. Prefix must not change once
// values are handed out.
type Sequence struct {
	Topic      string
	Partitions int32
	Prefix     string
	Count      int
	next       int
	stopped    bool

	// The values from next on are cut from one string written for a
	// block of them (block, with ends[i] where value first+i ends), one
	// allocation per block instead of two per value: the producer sends
	// one every millisecond or so, and the history keeps every value to
	// the end of the run anyway.
	block string
	ends  []int
	first int
}

// sequenceBlock is how many values one block holds.
const sequenceBlock = 256

// Next implements client.Workload.
func (w *Sequence) Next(env *sim.Env) (client.Message, bool) {
	if w.stopped || (w.Count > 0 && w.next >= w.Count) {
		return client.Message{}, false
	}
	n := w.next
	w.next++
	m := client.Message{Topic: w.Topic, Value: w.value(n)}
	if w.Partitions > 0 {
		m.Partition, m.HasPartition = int32(n)%w.Partitions, true
	}
	return m, true
}

// value returns "<prefix>n", writing the block that holds it if needed.
func (w *Sequence) value(n int) string {
	i := n - w.first
	if w.block == "" || i < 0 || i >= len(w.ends) {
		w.fill(n)
		i = 0
	}
	start := 0
	if i > 0 {
		start = w.ends[i-1]
	}
	return w.block[start:w.ends[i]]
}

// fill writes the block of values from n on, no further than Count. It
// counts in decimal digits rather than formatting each number: a block's
// values are consecutive, and the producer takes one every millisecond or
// so of a run.
func (w *Sequence) fill(n int) {
	k := sequenceBlock
	if w.Count > 0 {
		k = min(k, w.Count-n)
	}
	var buf, last [20]byte // room for any int64 in decimal
	digits := strconv.AppendInt(buf[:0], int64(n), 10)
	var b strings.Builder
	b.Grow(k * (len(w.Prefix) + len(strconv.AppendInt(last[:0], int64(n+k), 10))))
	w.ends = w.ends[:0]
	for range k {
		b.WriteString(w.Prefix)
		b.Write(digits)
		w.ends = append(w.ends, b.Len())
		digits = increment(digits)
	}
	w.block, w.first = b.String(), n
}

// increment adds one to a non-negative decimal number written in digits,
// in place: a number that gains a digit (all nines, now all zeros) takes
// one more byte of digits' array, or a new one without room.
func increment(digits []byte) []byte {
	for i := len(digits) - 1; i >= 0; i-- {
		if digits[i] != '9' {
			digits[i]++
			return digits
		}
		digits[i] = '0'
	}
	digits = append(digits, '0')
	digits[0] = '1'
	return digits
}

// Stop ends the workload: the producer sends nothing more.
func (w *Sequence) Stop() { w.stopped = true }

// Sent is how many values the workload has handed out.
func (w *Sequence) Sent() int { return w.next }
