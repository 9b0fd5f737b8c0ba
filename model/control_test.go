package model

import (
	"bytes"
	"testing"
)

func TestEndTxnMarkerBatchRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		commit bool
		epoch  int32
	}{{true, 3}, {false, 0}, {true, 1 << 20}} {
		b := EndTxnMarkerBatch(7, 2, tc.commit, tc.epoch, 5).Rebase(40, 1)
		got, n, err := DecodeBatch(AppendBatch(nil, b))
		if err != nil || n == 0 || !got.IsControl() || !got.IsTransactional() || got.ProducerEpoch != 2 {
			t.Fatalf("decode: %v %v %+v", err, n, got)
		}
		commit, epoch, ok := EndTxnMarker(&got)
		if !ok || commit != tc.commit || epoch != tc.epoch {
			t.Fatalf("marker %v %v %v, want %v %v", commit, epoch, ok, tc.commit, tc.epoch)
		}
	}
	// Kafka's bytes: key version 0 type COMMIT 1; value version 0, epoch 3.
	b := EndTxnMarkerBatch(7, 2, true, 3, 0)
	if !bytes.Equal([]byte(b.Records[0].Key), []byte{0, 0, 0, 1}) || !bytes.Equal([]byte(b.Records[0].Value), []byte{0, 0, 0, 0, 0, 3}) {
		t.Fatalf("key %x value %x", b.Records[0].Key, b.Records[0].Value)
	}
	plain := NewBatch(7, 2, 0, Record{Key: "k"})
	if _, _, ok := EndTxnMarker(&plain); ok {
		t.Fatal("a data batch read as a marker")
	}
}

// A batch outside transactions encodes as it did before attributes
// existed (the run's disk sizes and CRCs stay), a transactional one in
// the same number of bytes.
func TestAttributesCostNoBytes(t *testing.T) {
	plain := NewBatch(7, 2, 0, Record{Key: "k", Value: "v"})
	enc := AppendBatch(nil, plain)
	if w := enc[frameHeaderBytes+20 : frameHeaderBytes+24]; !bytes.Equal(w, []byte{0, 0, 0, 2}) {
		t.Fatalf("plain batch's epoch word %x, want 00000002", w)
	}
	tx := plain
	tx.Attributes = AttrTransactional
	tx.Seal()
	enc2 := AppendBatch(nil, tx)
	if len(enc2) != len(enc) || tx.CRC == plain.CRC {
		t.Fatalf("transactional batch: %d bytes vs %d, crc %x vs %x", len(enc2), len(enc), tx.CRC, plain.CRC)
	}
	got, _, err := DecodeBatch(enc2)
	if err != nil || !got.IsTransactional() || got.IsControl() || got.ProducerEpoch != 2 {
		t.Fatalf("decode: %v %+v", err, got)
	}
	none := NewBatch(NoProducerID, NoEpoch, NoSequence, Record{Key: "k"})
	if got, _, _ := DecodeBatch(AppendBatch(nil, none)); got.ProducerEpoch != NoEpoch || got.Attributes != 0 {
		t.Fatalf("a batch without a producer: %+v", got)
	}
}
