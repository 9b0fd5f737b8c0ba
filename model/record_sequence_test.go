package model

import (
	"math"
	"testing"
)

// Sequences wrap from the largest int32 to 0, as DefaultRecordBatch's
// incrementSequence and decrementSequence do: a batch of three from
// 2147483646 holds 2147483646, 2147483647 and 0.
func TestSequencesWrapAtMaxInt32(t *testing.T) {
	cases := []struct{ seq, by, up int32 }{
		{0, 0, 0},
		{5, 3, 8},
		{math.MaxInt32 - 3, 3, math.MaxInt32},
		{math.MaxInt32 - 1, 2, 0},
		{math.MaxInt32, 1, 0},
		{math.MaxInt32, 10, 9},
		{math.MaxInt32 - 10, 20, 9},
	}
	for _, c := range cases {
		if got := IncrementSequence(c.seq, c.by); got != c.up {
			t.Errorf("IncrementSequence(%d, %d) = %d, want %d", c.seq, c.by, got, c.up)
		}
		if got := DecrementSequence(c.up, c.by); got != c.seq {
			t.Errorf("DecrementSequence(%d, %d) = %d, want %d", c.up, c.by, got, c.seq)
		}
	}
	recs := make([]Record, 3)
	if got := NewBatch(1, 0, math.MaxInt32-1, recs...).LastSequence(); got != 0 {
		t.Errorf("last sequence of three records from 2147483646: %d, want 0", got)
	}
	if got := NewBatch(1, 0, math.MaxInt32-2, recs...).LastSequence(); got != math.MaxInt32 {
		t.Errorf("last sequence of three records from 2147483645: %d, want 2147483647", got)
	}
}
