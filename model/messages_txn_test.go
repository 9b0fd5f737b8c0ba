package model

import "testing"

// txnGoldenMessages pairs a transaction-protocol message of every type
// with its description; like the others, every field is set.
func txnGoldenMessages() []golden {
	return []golden{
		{AddPartitionsToTxnRequest{CorrelationID: 2, TransactionalID: "tx", ProducerID: 7, ProducerEpoch: 1,
			Partitions: []TopicPartition{TP("t", 0), TP("t", 1)}, VerifyOnly: true},
			"AddPartitionsToTxn tx pid=7:1 [t/0 t/1] verify-only corr=2"},
		{AddPartitionsToTxnResponse{CorrelationID: 2, Results: []TxnPartitionResult{
			{TP: TP("t", 0), Error: ConcurrentTransactions}, {TP: TP("t", 1), Error: ConcurrentTransactions}}},
			"AddPartitionsToTxnResponse [t/0:CONCURRENT_TRANSACTIONS t/1:CONCURRENT_TRANSACTIONS] corr=2"},
		{TxnOffsetCommitRequest{CorrelationID: 9, TransactionalID: "tx", GroupID: "g", ProducerID: 7, ProducerEpoch: 1,
			GenerationID: 4, MemberID: "m1", GroupInstanceID: "i1", Offsets: []CommitOffset{{TP: TP("t", 0), Offset: 17, LeaderEpoch: 3}}},
			"TxnOffsetCommit tx g pid=7:1 gen=4 member=m1 instance=i1 t/0=17@3 corr=9"},
		{TxnOffsetCommitResponse{CorrelationID: 9, Results: []PartitionResult{{TP: TP("t", 0), Error: UnstableOffsetCommit}}},
			"TxnOffsetCommitResponse t/0 UNSTABLE_OFFSET_COMMIT corr=9"},
		{AddOffsetsToTxnRequest{CorrelationID: 3, TransactionalID: "tx", ProducerID: 7, ProducerEpoch: 1, GroupID: "g"},
			"AddOffsetsToTxn tx pid=7:1 group=g corr=3"},
		{AddOffsetsToTxnResponse{CorrelationID: 3, Error: ProducerFenced},
			"AddOffsetsToTxnResponse PRODUCER_FENCED corr=3"},
		{EndTxnRequest{CorrelationID: 4, TransactionalID: "tx", ProducerID: 7, ProducerEpoch: 1, Committed: true},
			"EndTxn tx pid=7:1 commit corr=4"},
		{EndTxnResponse{CorrelationID: 4, Error: InvalidTxnState, ProducerID: 7, ProducerEpoch: 2},
			"EndTxnResponse INVALID_TXN_STATE pid=7:2 corr=4"},
		{WriteTxnMarkersRequest{CorrelationID: 5, Markers: []WritableTxnMarker{
			{ProducerID: 7, ProducerEpoch: 2, TransactionResult: true, Partitions: []TopicPartition{TP("t", 0)}, CoordinatorEpoch: 3}}},
			"WriteTxnMarkers commit pid=7:2 [t/0] coordEpoch=3 corr=5"},
		{WriteTxnMarkersResponse{CorrelationID: 5, Markers: []WritableTxnMarkerResult{
			{ProducerID: 7, Partitions: []TxnPartitionResult{{TP: TP("t", 0), Error: NotLeaderOrFollower}}}}},
			"WriteTxnMarkersResponse pid=7 [t/0:NOT_LEADER_OR_FOLLOWER] corr=5"},
	}
}

// The fields transactions added to existing requests fold into their
// digests only when set, so a run without transactions keeps its trace
// hash, and a set field is still told apart.
func TestTransactionalFieldsFoldOnlyWhenSet(t *testing.T) {
	p := ProduceRequest{CorrelationID: 1, TP: TP("t", 0)}
	tp := p
	tp.TransactionalID = "tx"
	if p.Digest() == tp.Digest() {
		t.Error("a produce's transactional id does not reach its digest")
	}
	f := OffsetFetchRequest{CorrelationID: 1, GroupID: "g"}
	fs := f
	fs.RequireStable = true
	if f.Digest() == fs.Digest() {
		t.Error("an offset fetch's require_stable does not reach its digest")
	}
	if f.Digest() != request(apiOffsetFetch).Int32(1).Str("g").tps(nil).Sum() {
		t.Error("an offset fetch without require_stable folds more than before")
	}
}
