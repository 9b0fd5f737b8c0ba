package cluster

import (
	"strconv"
	"testing"
)

// A Sequence hands out "<prefix>0", "<prefix>1", ... round-robin over the
// partitions, across the blocks it writes its values in, up to Count, and
// nothing once stopped.
func TestSequenceValues(t *testing.T) {
	w := &Sequence{Topic: "t", Partitions: 3, Prefix: "v", Count: 3*sequenceBlock + 7}
	for n := 0; n < w.Count; n++ {
		m, ok := w.Next(nil)
		if !ok {
			t.Fatalf("value %d: workload ended early", n)
		}
		if want := "v" + strconv.Itoa(n); m.Value != want || m.Topic != "t" || !m.HasPartition || m.Partition != int32(n%3) {
			t.Fatalf("value %d: %+v, want %s on t/%d", n, m, want, n%3)
		}
	}
	if m, ok := w.Next(nil); ok {
		t.Fatalf("past Count: %+v", m)
	}
	if w.Sent() != w.Count {
		t.Errorf("Sent %d, want %d", w.Sent(), w.Count)
	}

	u := &Sequence{Topic: "u", Prefix: "x-"}
	for n := 0; n < 1000; n++ {
		m, ok := u.Next(nil)
		if want := "x-" + strconv.Itoa(n); !ok || m.Value != want || m.HasPartition {
			t.Fatalf("value %d: %+v (ok %v), want %s without a partition", n, m, ok, want)
		}
	}
	u.Stop()
	if _, ok := u.Next(nil); ok {
		t.Errorf("a stopped workload handed out a value")
	}
}

// Values cost one allocation per block of them, not one or two each.
func TestSequenceAllocations(t *testing.T) {
	w := &Sequence{Topic: "t", Partitions: 3, Prefix: "v"}
	w.Next(nil)
	if avg := testing.AllocsPerRun(10*sequenceBlock, func() { w.Next(nil) }); avg > 1.5/sequenceBlock {
		t.Errorf("%.4f allocations per value, want about 1 per %d values", avg, sequenceBlock)
	}
}

// increment counts in decimal as strconv does, across the numbers that
// gain a digit.
func TestSequenceIncrement(t *testing.T) {
	for _, n := range []int64{0, 8, 9, 10, 99, 199, 999, 1009, 99999, 999999999999999999, 1<<62 - 1} {
		var buf [20]byte
		got := string(increment(strconv.AppendInt(buf[:0], n, 10)))
		if want := strconv.FormatInt(n+1, 10); got != want {
			t.Errorf("increment(%d) = %s, want %s", n, got, want)
		}
	}
}
