package storage

import (
	"testing"
	"time"

	"kafkasim/model"
)

// A transaction marker moves its producer to the marker's epoch without
// becoming a batch to deduplicate against (ProducerAppendInfo.appendEndTxnMarker),
// whether the state is built by appends or rebuilt from the log after a
// crash.
func TestMarkersMoveTheEpochWithoutRetainingABatch(t *testing.T) {
	run := func(n int) []model.Batch {
		var bs []model.Batch
		for i := range n {
			bs = append(bs, seqBatch(0, int32(i), 1))
		}
		return bs
	}
	marker := func(epoch model.Epoch) model.Batch {
		return model.EndTxnMarkerBatch(pid, epoch, true, 0, 0)
	}
	for _, tc := range []struct {
		name      string
		batches   []model.Batch
		epoch     model.Epoch
		retained  int
		nextSeq   int32 // a batch of the state's epoch from this sequence is accepted
		nextEpoch model.Epoch
	}{
		{"a marker of the same epoch (TV1)", []model.Batch{seqBatch(0, 0, 2), marker(0)}, 0, 1, 2, 0},
		{"a bumped marker (TV2)", []model.Batch{seqBatch(0, 0, 2), marker(1)}, 1, 0, 0, 1},
		{"the next transaction after a bump", []model.Batch{seqBatch(0, 0, 2), marker(1), seqBatch(1, 0, 3)}, 1, 1, 3, 1},
		{"a marker alone", []model.Batch{marker(4)}, 4, 0, 0, 4},
		// Runs longer than BatchesRetained are folded from the newest
		// batch back (noteOlder), which must agree.
		{"a long run and a same-epoch marker", append(run(6), marker(0)), 0, 5, 6, 0},
		{"a long run and a bumped marker", append(run(6), marker(1)), 1, 0, 0, 1},
		{"a long run, a bump, the next transaction", append(append(run(6), marker(1)), seqBatch(1, 0, 1)), 1, 1, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			l, _ := w.open(smallSegments(1 << 20))
			for _, b := range tc.batches {
				l.Append(b.Rebase(l.LEO(), 0), 0)
			}
			check := func(when string, l *Log) {
				e, ok := l.Producers().Lookup(pid)
				if !ok || e.ProducerEpoch != tc.epoch || len(e.Batches) != tc.retained {
					t.Fatalf("%s: %+v (ok %v), want epoch %d with %d batches", when, e, ok, tc.epoch, tc.retained)
				}
				if _, err := l.Producers().CheckAppend(seqBatch(tc.nextEpoch, tc.nextSeq, 1)); err != model.NoError {
					t.Fatalf("%s: next batch epoch %d seq %d: %v", when, tc.nextEpoch, tc.nextSeq, err)
				}
				if tc.epoch > 0 {
					if _, err := l.Producers().CheckAppend(seqBatch(tc.epoch-1, 2, 1)); err != model.InvalidProducerEpoch {
						t.Fatalf("%s: a batch of the older epoch: %v, want INVALID_PRODUCER_EPOCH", when, err)
					}
				}
			}
			check("live", l)
			w.crash()
			l2, _ := w.open(smallSegments(1 << 20))
			check("after recovery", l2)
		})
	}
}

// A producer that a bumped marker left with its epoch and no batch of it
// survives a snapshot: a replica restarted from one still refuses the
// older epoch's late batch, as Kafka's writeSnapshot keeps every entry
// (txn-chaos seed 92100237: a restarted leader without the entry took a
// fenced producer's retried batch after the abort marker, and the next
// transaction's commit committed it).
func TestASnapshotKeepsAnEpochWithoutBatches(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20)
	l, _ := w.open(cfg)
	for _, b := range []model.Batch{seqBatch(3, 0, 2), model.EndTxnMarkerBatch(pid, 5, false, 0, 0)} {
		l.Append(b.Rebase(l.LEO(), 0), 0)
	}
	l.Flush()
	l.Close()
	if off, ok := l.Producers().LatestSnapshotOffset(); !ok || off != l.LEO() {
		t.Fatalf("latest snapshot %d (%v), want one at the log end %d", off, ok, l.LEO())
	}
	w.crash()
	l2, _ := OpenAfterCleanShutdown(w.disk, dir, cfg, time.Second)
	e, ok := l2.Producers().Lookup(pid)
	if !ok || e.ProducerEpoch != 5 || len(e.Batches) != 0 {
		t.Fatalf("after the restart: %+v (ok %v), want epoch 5 without batches", e, ok)
	}
	if _, err := l2.Producers().CheckAppend(seqBatch(3, 2, 1)); err != model.InvalidProducerEpoch {
		t.Fatalf("a late batch of epoch 3: %v, want INVALID_PRODUCER_EPOCH", err)
	}
}
