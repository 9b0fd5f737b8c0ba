package model

import (
	"strings"
)

// The transaction protocol (KIP-98, KIP-890): a transactional producer
// asks its transaction coordinator (the leader of the __transaction_state
// partition its transactional.id hashes to) for a producer id and epoch
// (InitProducerIDRequest with a TransactionalID), adds partitions and a
// group's offsets to its transaction, and ends it; the coordinator writes
// the commit or abort markers into every partition of the transaction
// with WriteTxnMarkers. Field names follow Kafka's message schemas
// (clients/src/main/resources/common/message/*.json); partition lists are
// flattened to sorted TopicPartitions, as elsewhere in kafkasim.

const (
	apiAddPartitionsToTxn apiKey = 24
	apiAddOffsetsToTxn    apiKey = 25
	apiEndTxn             apiKey = 26
	apiWriteTxnMarkers    apiKey = 27
	apiTxnOffsetCommit    apiKey = 28
)

// AddPartitionsToTxnRequest adds partitions to the producer's ongoing
// transaction (the client's version 3 and below: one transaction). With
// VerifyOnly (version 4, sent broker to broker by a partition leader's
// AddPartitionsToTxnManager, KIP-890 part 1) it adds nothing and asks
// only whether the partitions are in the ongoing transaction.
type AddPartitionsToTxnRequest struct {
	CorrelationID   int32
	TransactionalID string
	ProducerID      ProducerID
	ProducerEpoch   Epoch
	// Partitions is Kafka's Topics, flattened and sorted.
	Partitions []TopicPartition
	VerifyOnly bool
}

// String reads "AddPartitionsToTxn tx pid=7:0 [t/0 t/1] corr=2".
func (m AddPartitionsToTxnRequest) String() string {
	var b strings.Builder
	b.WriteString("AddPartitionsToTxn ")
	b.WriteString(m.TransactionalID)
	producerEpochWord(&b, m.ProducerID, m.ProducerEpoch)
	word(&b, ListString(m.Partitions))
	if m.VerifyOnly {
		word(&b, "verify-only")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AddPartitionsToTxnRequest) Digest() uint64 {
	return request(apiAddPartitionsToTxn).Int32(m.CorrelationID).Str(m.TransactionalID).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).tps(m.Partitions).Bool(m.VerifyOnly).Sum()
}

// TxnPartitionResult is one partition's outcome in AddPartitionsToTxn
// and WriteTxnMarkers answers (Kafka's PartitionIndex and
// PartitionErrorCode, or ErrorCode for markers).
type TxnPartitionResult struct {
	TP    TopicPartition
	Error ErrorCode
}

func (r TxnPartitionResult) String() string { return r.TP.String() + ":" + r.Error.String() }

func (h Hash) txnResults(rs []TxnPartitionResult) Hash {
	h = h.Int(len(rs))
	for _, r := range rs {
		h = h.TP(r.TP).Error(r.Error)
	}
	return h
}

// AddPartitionsToTxnResponse answers each partition (Kafka's
// ResultsByTopicV3AndBelow); the coordinator gives them all one error.
type AddPartitionsToTxnResponse struct {
	CorrelationID int32
	Results       []TxnPartitionResult
}

// String reads "AddPartitionsToTxnResponse [t/0:NONE t/1:NONE] corr=2".
func (m AddPartitionsToTxnResponse) String() string {
	var b strings.Builder
	b.WriteString("AddPartitionsToTxnResponse")
	word(&b, ListString(m.Results))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AddPartitionsToTxnResponse) Digest() uint64 {
	return response(apiAddPartitionsToTxn).Int32(m.CorrelationID).txnResults(m.Results).Sum()
}

// AddOffsetsToTxnRequest adds the __consumer_offsets partition of GroupID
// to the transaction, before TxnOffsetCommit (KIP-98's
// sendOffsetsToTransaction).
type AddOffsetsToTxnRequest struct {
	CorrelationID   int32
	TransactionalID string
	ProducerID      ProducerID
	ProducerEpoch   Epoch
	GroupID         string
}

// String reads "AddOffsetsToTxn tx pid=7:0 group=g corr=3".
func (m AddOffsetsToTxnRequest) String() string {
	var b strings.Builder
	b.WriteString("AddOffsetsToTxn ")
	b.WriteString(m.TransactionalID)
	producerEpochWord(&b, m.ProducerID, m.ProducerEpoch)
	kv(&b, "group", m.GroupID)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AddOffsetsToTxnRequest) Digest() uint64 {
	return request(apiAddOffsetsToTxn).Int32(m.CorrelationID).Str(m.TransactionalID).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).Str(m.GroupID).Sum()
}

// AddOffsetsToTxnResponse answers AddOffsetsToTxn.
type AddOffsetsToTxnResponse struct {
	CorrelationID int32
	Error         ErrorCode
}

// String reads "AddOffsetsToTxnResponse NONE corr=3".
func (m AddOffsetsToTxnResponse) String() string {
	var b strings.Builder
	b.WriteString("AddOffsetsToTxnResponse")
	errWord(&b, m.Error)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m AddOffsetsToTxnResponse) Digest() uint64 {
	return response(apiAddOffsetsToTxn).Int32(m.CorrelationID).Error(m.Error).Sum()
}

// EndTxnRequest commits (Committed) or aborts the transaction.
type EndTxnRequest struct {
	CorrelationID   int32
	TransactionalID string
	ProducerID      ProducerID
	ProducerEpoch   Epoch
	Committed       bool
}

// String reads "EndTxn tx pid=7:0 commit corr=4".
func (m EndTxnRequest) String() string {
	var b strings.Builder
	b.WriteString("EndTxn ")
	b.WriteString(m.TransactionalID)
	producerEpochWord(&b, m.ProducerID, m.ProducerEpoch)
	word(&b, txnResultWord(m.Committed))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m EndTxnRequest) Digest() uint64 {
	return request(apiEndTxn).Int32(m.CorrelationID).Str(m.TransactionalID).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).Bool(m.Committed).Sum()
}

// EndTxnResponse answers EndTxn. With transaction version 2 (KIP-890 part
// 2, EndTxn version 5) it carries the producer id and epoch to use next,
// bumped by the end; otherwise NoProducerID and NoEpoch.
type EndTxnResponse struct {
	CorrelationID int32
	Error         ErrorCode
	ProducerID    ProducerID
	ProducerEpoch Epoch
}

// String reads "EndTxnResponse NONE pid=7:1 corr=4".
func (m EndTxnResponse) String() string {
	var b strings.Builder
	b.WriteString("EndTxnResponse")
	errWord(&b, m.Error)
	producerEpochWord(&b, m.ProducerID, m.ProducerEpoch)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m EndTxnResponse) Digest() uint64 {
	return response(apiEndTxn).Int32(m.CorrelationID).Error(m.Error).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).Sum()
}

// WritableTxnMarker is one transaction's marker for the partitions a
// broker leads: the producer's id and epoch, commit or abort
// (TransactionResult true is COMMIT), and the coordinator epoch (the
// leader epoch of its __transaction_state partition), which lets a
// partition reject a marker from a deposed coordinator.
type WritableTxnMarker struct {
	ProducerID        ProducerID
	ProducerEpoch     Epoch
	TransactionResult bool
	Partitions        []TopicPartition // Kafka's Topics, flattened and sorted
	CoordinatorEpoch  int32
}

func (w WritableTxnMarker) String() string {
	var b strings.Builder
	b.WriteString(txnResultWord(w.TransactionResult))
	producerEpochWord(&b, w.ProducerID, w.ProducerEpoch)
	word(&b, ListString(w.Partitions))
	kvInt(&b, "coordEpoch", int64(w.CoordinatorEpoch))
	return b.String()
}

// WriteTxnMarkersRequest asks a partition leader to append the markers.
type WriteTxnMarkersRequest struct {
	CorrelationID int32
	Markers       []WritableTxnMarker
}

// String reads "WriteTxnMarkers commit pid=7:0 [t/0] coordEpoch=3 corr=5".
func (m WriteTxnMarkersRequest) String() string {
	var b strings.Builder
	b.WriteString("WriteTxnMarkers")
	for i, w := range m.Markers {
		sep(&b, i)
		word(&b, w.String())
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m WriteTxnMarkersRequest) Digest() uint64 {
	h := request(apiWriteTxnMarkers).Int32(m.CorrelationID).Int(len(m.Markers))
	for _, w := range m.Markers {
		h = h.Int64(int64(w.ProducerID)).Epoch(w.ProducerEpoch).Bool(w.TransactionResult).
			tps(w.Partitions).Int32(w.CoordinatorEpoch)
	}
	return h.Sum()
}

// WritableTxnMarkerResult is one marker's outcome per partition.
type WritableTxnMarkerResult struct {
	ProducerID ProducerID
	Partitions []TxnPartitionResult
}

// WriteTxnMarkersResponse answers every marker of the request.
type WriteTxnMarkersResponse struct {
	CorrelationID int32
	Markers       []WritableTxnMarkerResult
}

// String reads "WriteTxnMarkersResponse pid=7 [t/0:NONE] corr=5".
func (m WriteTxnMarkersResponse) String() string {
	var b strings.Builder
	b.WriteString("WriteTxnMarkersResponse")
	for i, r := range m.Markers {
		sep(&b, i)
		kvInt(&b, "pid", int64(r.ProducerID))
		word(&b, ListString(r.Partitions))
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m WriteTxnMarkersResponse) Digest() uint64 {
	h := response(apiWriteTxnMarkers).Int32(m.CorrelationID).Int(len(m.Markers))
	for _, r := range m.Markers {
		h = h.Int64(int64(r.ProducerID)).txnResults(r.Partitions)
	}
	return h.Sum()
}

// producerEpochWord writes " pid=7:0".
func producerEpochWord(b *strings.Builder, pid ProducerID, epoch Epoch) {
	kv(b, "pid", itoa(int64(pid))+":"+itoa(int64(epoch)))
}

func txnResultWord(commit bool) string {
	if commit {
		return "commit"
	}
	return "abort"
}
