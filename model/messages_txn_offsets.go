package model

import "strings"

// TxnOffsetCommitRequest (KIP-98, KIP-447) commits a group's offsets
// inside the producer's transaction, after AddOffsetsToTxn added the
// group's __consumer_offsets partition to it: the group coordinator
// writes them as a transactional batch of the producer and serves them
// only once the transaction's commit marker reaches that partition
// (GroupCoordinator.commitTransactionalOffsets). Since KIP-447 (version
// 3) it carries the consumer's generation, member id and instance id, so
// that a zombie of an older generation is fenced.
type TxnOffsetCommitRequest struct {
	CorrelationID   int32
	TransactionalID string
	GroupID         string
	ProducerID      ProducerID
	ProducerEpoch   Epoch
	GenerationID    Epoch
	MemberID        string
	GroupInstanceID string
	// Offsets are sorted by topic-partition.
	Offsets []CommitOffset
}

// String reads "TxnOffsetCommit tx g pid=7:0 gen=4 member=m1 t/0=17@3 corr=9".
func (m TxnOffsetCommitRequest) String() string {
	var b strings.Builder
	b.WriteString("TxnOffsetCommit ")
	b.WriteString(m.TransactionalID)
	word(&b, m.GroupID)
	producerEpochWord(&b, m.ProducerID, m.ProducerEpoch)
	commitWords(&b, m.GenerationID, m.MemberID, m.GroupInstanceID, m.Offsets)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m TxnOffsetCommitRequest) Digest() uint64 {
	h := request(apiTxnOffsetCommit).Int32(m.CorrelationID).Str(m.TransactionalID).Str(m.GroupID).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).Epoch(m.GenerationID).
		Str(m.MemberID).Str(m.GroupInstanceID).Int(len(m.Offsets))
	for _, o := range m.Offsets {
		h = h.TP(o.TP).Offset(o.Offset).Epoch(o.LeaderEpoch)
	}
	return h.Sum()
}

// TxnOffsetCommitResponse answers per partition.
type TxnOffsetCommitResponse struct {
	CorrelationID int32
	Results       []PartitionResult
}

// String reads "TxnOffsetCommitResponse t/0 NONE corr=9".
func (m TxnOffsetCommitResponse) String() string {
	return partitionResultsString("TxnOffsetCommitResponse", m.Results, m.CorrelationID)
}

// Digest covers every field.
func (m TxnOffsetCommitResponse) Digest() uint64 {
	return partitionResultsDigest(apiTxnOffsetCommit, m.CorrelationID, m.Results)
}
