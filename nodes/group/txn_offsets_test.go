package group

import (
	"testing"

	"kafkasim/model"
)

// appendAll completes the harness's pending writes as a host does,
// telling the coordinator where each went (WriteAppended) first.
func (h *harness) appendAll() {
	for _, w := range h.writes {
		h.c.WriteAppended(w.ID, model.Offset(len(h.log)))
		h.log = append(h.log, w.Records...)
	}
	ws := h.writes
	h.writes = nil
	for _, w := range ws {
		h.take(h.c.WriteDone(h.now, w.ID, model.NoError))
	}
}

// The commit marker of a transaction applies its pending offset only
// over a committed offset from an earlier record: a plain commit written
// after the transactional one stays (OffsetMetadataManager.replayEndTransactionMarker,
// "We always keep the most recent committed offset"). An abort drops the
// pending offset.
func TestCommitMarkerKeepsALaterPlainCommit(t *testing.T) {
	tp := model.TP("t", 0)
	for _, later := range []bool{false, true} {
		h := newHarness(t)
		h.take(h.c.HandleTxnOffsetCommit(h.now, 1, model.TxnOffsetCommitRequest{TransactionalID: "tx", GroupID: "g",
			ProducerID: 7, ProducerEpoch: 0, GenerationID: -1, Offsets: []model.CommitOffset{{TP: tp, Offset: 10}}}))
		if w := h.writes[0]; !w.Transactional || w.ProducerID != 7 {
			t.Fatalf("the transactional commit's write is %+v, want a transactional batch of producer 7", w)
		}
		h.appendAll()
		if _, ok := h.c.PendingTxnOffset(7, "g", tp); !ok {
			t.Fatal("no pending offset after the TxnOffsetCommit")
		}
		if later {
			h.take(h.c.HandleOffsetCommit(h.now, 2, model.OffsetCommitRequest{GroupID: "g", GenerationID: -1,
				Offsets: []model.CommitOffset{{TP: tp, Offset: 20}}}))
			h.appendAll()
		}
		h.c.ReplayEndTxnMarker(7, true)
		want := model.Offset(10)
		if later {
			want = 20
		}
		if got, _ := h.c.Offset("g", tp); got.Offset != want {
			t.Errorf("plain commit after: %v; offset %d, want %d", later, got.Offset, want)
		}
	}
	h := newHarness(t)
	h.take(h.c.HandleTxnOffsetCommit(h.now, 1, model.TxnOffsetCommitRequest{TransactionalID: "tx", GroupID: "g",
		ProducerID: 7, GenerationID: -1, Offsets: []model.CommitOffset{{TP: tp, Offset: 10}}}))
	h.appendAll()
	h.c.ReplayEndTxnMarker(7, false)
	if _, ok := h.c.Offset("g", tp); ok {
		t.Error("an aborted transaction's offset was applied")
	}
	if _, ok := h.c.PendingTxnOffset(7, "g", tp); ok {
		t.Error("an aborted transaction's offset stays pending")
	}
}
