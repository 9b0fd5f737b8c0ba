package model

import (
	"strings"
	"testing"
)

// TestSealIntoMatchesSeal checks that SealInto sets the CRC Seal sets,
// whatever the buffer held before: a producer hands it the same buffer for
// every batch, so the bytes of a longer earlier batch are still there, and a
// seal that encoded after them, or over only part of them, would give a CRC
// no leader accepts.
func TestSealIntoMatchesSeal(t *testing.T) {
	long := strings.Repeat("v", 300) // outgrows any small buffer
	batches := []Batch{
		NewBatch(NoProducerID, NoEpoch, NoSequence),
		NewBatch(NoProducerID, NoEpoch, NoSequence, Record{Timestamp: 5, Value: "a"}),
		NewBatch(7, 2, 40, Record{Timestamp: 5, Key: "k", Value: "v"}, Record{Timestamp: 6, Value: long}),
		NewBatch(7, 2, 42, Record{Timestamp: 9, Key: "key", Value: "w"}).Rebase(17, 3),
		NewBatch(8, 0, 0, Record{Timestamp: 1, Value: "x"}, Record{Timestamp: 2, Value: "y"}, Record{Timestamp: 3, Value: "z"}),
	}
	var buf []byte
	for _, order := range [][]int{{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 2, 1}} {
		for _, i := range order {
			want := batches[i]
			got := want
			got.CRC = 0
			buf = got.SealInto(buf)
			if got.CRC != want.CRC {
				t.Fatalf("batch %d: SealInto CRC %08x, Seal %08x", i, got.CRC, want.CRC)
			}
			if !got.Valid() {
				t.Fatalf("batch %d: not valid after SealInto", i)
			}
		}
	}
	// A buffer that starts with unrelated bytes is written over, not
	// appended to.
	b := batches[2]
	b.CRC = 0
	b.SealInto([]byte(strings.Repeat("junk", 100)))
	if b.CRC != batches[2].CRC {
		t.Fatalf("SealInto over a full buffer: CRC %08x, Seal %08x", b.CRC, batches[2].CRC)
	}
}

// TestSealIntoReusesTheBuffer checks that SealInto writes into the room the
// buffer has rather than a new array, which is what it is for.
func TestSealIntoReusesTheBuffer(t *testing.T) {
	b := NewBatch(7, 2, 40, Record{Timestamp: 5, Key: "k", Value: "v"})
	buf := make([]byte, 0, 256)
	if got := b.SealInto(buf); &got[:1][0] != &buf[:1][0] {
		t.Fatal("SealInto moved to a new array although the buffer had room")
	}
	if n := testing.AllocsPerRun(100, func() { buf = b.SealInto(buf) }); n != 0 {
		t.Fatalf("SealInto into a buffer with room: %v allocations, want 0", n)
	}
}
