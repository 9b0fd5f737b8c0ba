package storage

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

// txnBatch is a transactional batch of producer p, n records.
func txnBatch(p model.ProducerID, seq int32, n int) model.Batch {
	b := seqBatch(0, seq, n)
	b.ProducerID = p
	b.Attributes = model.AttrTransactional
	b.Seal()
	return b
}

func endMarker(p model.ProducerID, commit bool) model.Batch {
	return model.EndTxnMarkerBatch(p, 0, commit, 0, 0)
}

// The last stable offset stops at the first offset of a transaction under
// way, and of a completed one until the high watermark passes its marker;
// an aborted transaction is listed for the fetches that overlap it. The
// index is rebuilt from the log after a crash and after a truncation.
func TestLastStableOffsetAndAbortedTransactions(t *testing.T) {
	for _, tc := range []struct {
		name    string
		batches []model.Batch // appended at offsets from 0, in order
		hw      model.Offset
		lso     model.Offset
		aborted []AbortedTxn
	}{
		{"no transactions", []model.Batch{plain(0, 0, 3)}, 3, 3, nil},
		{"one under way", []model.Batch{plain(0, 0, 2), txnBatch(7, 0, 2)}, 4, 2, nil},
		{"committed, marker below the hw", []model.Batch{txnBatch(7, 0, 2), endMarker(7, true)}, 3, 3, nil},
		{"committed, marker not yet replicated", []model.Batch{txnBatch(7, 0, 2), endMarker(7, true)}, 2, 0, nil},
		{"aborted", []model.Batch{txnBatch(7, 0, 2), endMarker(7, false), plain(3, 0, 1)}, 4, 4,
			[]AbortedTxn{{ProducerID: 7, FirstOffset: 0, LastOffset: 2, LastStableOffset: 3}}},
		{"aborted while another is under way", []model.Batch{txnBatch(8, 0, 1), txnBatch(7, 0, 2), endMarker(7, false)}, 4, 0,
			[]AbortedTxn{{ProducerID: 7, FirstOffset: 1, LastOffset: 3, LastStableOffset: 0}}},
		{"a marker for a transaction with nothing here", []model.Batch{plain(0, 0, 1), endMarker(7, false)}, 2, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			l, _ := w.open(smallSegments(1 << 20))
			for _, b := range tc.batches {
				l.Append(b.Rebase(l.LEO(), 0), 0)
			}
			check := func(when string, l *Log) {
				if got := l.LastStableOffset(tc.hw); got != tc.lso {
					t.Fatalf("%s: LSO at hw %d = %d, want %d", when, tc.hw, got, tc.lso)
				}
				if got := l.CollectAbortedTransactions(0, l.LEO()); !reflect.DeepEqual(got, tc.aborted) {
					t.Fatalf("%s: aborted %+v, want %+v", when, got, tc.aborted)
				}
				if len(tc.aborted) > 0 {
					if got := l.CollectAbortedTransactions(tc.aborted[0].LastOffset+1, l.LEO()+1); len(got) != 0 {
						t.Fatalf("%s: a fetch past the abort marker is told of %+v", when, got)
					}
				}
			}
			check("live", l)
			w.crash()
			l, _ = w.open(smallSegments(1 << 20))
			check("after a crash", l)
		})
	}
}

func TestTruncatingAMarkerReopensItsTransaction(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	for _, b := range []model.Batch{plain(0, 0, 1), txnBatch(7, 0, 2), endMarker(7, false)} {
		l.Append(b.Rebase(l.LEO(), 0), 0)
	}
	if got := l.LastStableOffset(4); got != 4 {
		t.Fatalf("LSO %d before the truncation, want 4", got)
	}
	l.TruncateTo(3) // the marker goes
	if got := l.LastStableOffset(3); got != 1 {
		t.Fatalf("LSO %d after the marker was truncated, want 1 (the transaction is under way again)", got)
	}
	if got := l.CollectAbortedTransactions(0, 3); len(got) != 0 {
		t.Fatalf("aborted %+v after the marker was truncated", got)
	}
}
