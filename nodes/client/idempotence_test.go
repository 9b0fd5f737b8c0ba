package client

import (
	"testing"

	"kafkasim/model"
)

// A batch given up with UNKNOWN_PRODUCER_ID resets its partition's
// sequences (resetSequenceForPartition): the next batch starts again at 0,
// whatever state the sender looked up last.
func TestIdempotenceResetPartitionStartsAtZero(t *testing.T) {
	s := newIdempotence(true)
	s.setID(7, 0)
	tp := model.TP("t", 0)
	newBatch := func(n int) *batch {
		return &batch{tp: tp, recs: make([]model.Record, n), pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence}
	}
	a, b := newBatch(2), newBatch(3)
	s.assign(a)
	s.assign(b)
	if a.seq != 0 || b.seq != 2 {
		t.Fatalf("sequences %d and %d, want 0 and 2", a.seq, b.seq)
	}
	s.completed(a, 10)
	if s.stopDrain(newBatch(1)) || s.firstInflightSeq(tp) != 2 {
		t.Fatalf("after the first batch: first in flight %d, want 2", s.firstInflightSeq(tp))
	}
	s.failed(b, model.UnknownProducerID, false)
	if s.hasInflight(tp) {
		t.Errorf("the reset partition still has batches in flight")
	}
	c := newBatch(1)
	s.assign(c)
	if c.seq != 0 || c.pid != 7 {
		t.Errorf("after the reset the next batch has pid %d seq %d, want pid 7 seq 0", c.pid, c.seq)
	}
}
