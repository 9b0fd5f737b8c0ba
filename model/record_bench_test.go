package model

import (
	"strconv"
	"testing"
	"time"
)

// benchBatch is a batch as BenchmarkCluster's producer sends them: a few
// keyless records with short values and timestamps of a minute or so.
func benchBatch(n int) Batch {
	recs := make([]Record, n)
	for i := range recs {
		recs[i] = Record{Timestamp: 61*time.Second + time.Duration(i)*time.Millisecond, Value: "v" + strconv.Itoa(60000+i)}
	}
	return NewBatchOf(7, 0, 1234, recs).Rebase(98765, 3)
}

// BenchmarkAppendValidBatch is a leader checking a producer's batch, or a
// follower the leader's: encode, then the hardware CRC.
func BenchmarkAppendValidBatch(b *testing.B) {
	bt := benchBatch(5)
	var buf []byte
	for b.Loop() {
		var ok bool
		buf, ok = AppendValidBatch(buf[:0], &bt)
		if !ok {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkSeal is a producer sealing a batch: encode on the stack, then
// the plain-Go CRC.
func BenchmarkSeal(b *testing.B) {
	bt := benchBatch(5)
	for b.Loop() {
		bt.Seal()
	}
}

// BenchmarkAppendSealed stamps a batch by encoding it again.
func BenchmarkAppendSealed(b *testing.B) {
	bt := benchBatch(5)
	var buf []byte
	for b.Loop() {
		buf = bt.AppendSealed(buf[:0])
	}
}

// BenchmarkRestampFrame is what a leader pays to stamp a batch it has just
// checked (AppendValidBatch), against BenchmarkAppendSealed, which encodes
// it again.
func BenchmarkRestampFrame(b *testing.B) {
	bt := benchBatch(5)
	buf, _ := AppendValidBatch(nil, &bt)
	for b.Loop() {
		RestampFrame(buf, 98766, 4)
	}
}
