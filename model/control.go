package model

import (
	"encoding/binary"
	"time"
)

// Control records (KIP-98): a transaction's end is written into each of
// its partitions as a control batch (AttrControl and AttrTransactional
// set, the producer's id and epoch, no sequence) of one record whose key
// is Kafka's ControlRecordType key (version int16 0, type int16: ABORT 0,
// COMMIT 1) and whose value is its EndTransactionMarker (version int16 0,
// coordinator epoch int32), in Kafka's byte layout.

// Control record types (ControlRecordType).
const (
	ControlAbort  int16 = 0
	ControlCommit int16 = 1
)

// EndTxnMarkerBatch is the control batch a partition leader appends for a
// marker (MemoryRecords.withEndTransactionMarker).
func EndTxnMarkerBatch(pid ProducerID, epoch Epoch, commit bool, coordinatorEpoch int32, now time.Duration) Batch {
	typ := ControlAbort
	if commit {
		typ = ControlCommit
	}
	key := binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(nil, 0), uint16(typ))
	value := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16(nil, 0), uint32(coordinatorEpoch))
	b := Batch{LeaderEpoch: NoEpoch, ProducerID: pid, ProducerEpoch: epoch, BaseSequence: NoSequence,
		Attributes: AttrControl | AttrTransactional,
		Records:    []Record{{Timestamp: now, Key: string(key), Value: string(value)}}}
	b.Seal()
	return b
}

// EndTxnMarker reads a control batch's marker: commit or abort and the
// coordinator epoch; ok is false for a batch that is not a well-formed
// marker (EndTransactionMarker.deserialize, ControlRecordType.parse).
func EndTxnMarker(b *Batch) (commit bool, coordinatorEpoch int32, ok bool) {
	if !b.IsControl() || len(b.Records) != 1 {
		return false, 0, false
	}
	k, v := b.Records[0].Key, b.Records[0].Value
	if len(k) != 4 || len(v) != 6 || k[0] != 0 || k[1] != 0 || v[0] != 0 || v[1] != 0 {
		return false, 0, false
	}
	typ := int16(binary.BigEndian.Uint16([]byte(k[2:])))
	if typ != ControlAbort && typ != ControlCommit {
		return false, 0, false
	}
	return typ == ControlCommit, int32(binary.BigEndian.Uint32([]byte(v[2:]))), true
}
