package model

import (
	"errors"
	"reflect"
	"testing"
)

// TestTransactionLogRecordRoundTrip writes a transactional id's state in
// both value versions and reads it back: what version 0 has no field for
// (the tagged fields) comes back as its default, as Kafka's
// TransactionLog.readTxnRecordValue gives it.
func TestTransactionLogRecordRoundTrip(t *testing.T) {
	full := TransactionLogValue{ProducerID: 7, PreviousProducerID: 6, NextProducerID: 8, ProducerEpoch: 3,
		TransactionTimeoutMs: 60000, TransactionStatus: 2,
		TransactionPartitions:            []TopicPartition{TP("a", 1), TP("a", 4), TP("b", 0)},
		TransactionLastUpdateTimestampMs: 1234, TransactionStartTimestampMs: 1000, ClientTransactionVersion: 2}
	v0 := full
	v0.PreviousProducerID, v0.NextProducerID, v0.ClientTransactionVersion = NoProducerID, NoProducerID, 0
	empty := TransactionLogValue{ProducerID: 7, PreviousProducerID: NoProducerID, NextProducerID: NoProducerID,
		TransactionTimeoutMs: 60000, TransactionStartTimestampMs: -1}
	cases := []struct {
		name    string
		in      TransactionLogValue
		version int16
		want    TransactionLogValue
	}{
		{"version 1 keeps the tagged fields", full, 1, full},
		{"version 0 drops them", full, 0, v0},
		{"Empty has no partitions (version 1)", empty, 1, empty},
		{"Empty has no partitions (version 0)", empty, 0, empty},
	}
	for _, c := range cases {
		r := TransactionLogRecord("tx", &c.in, c.version)
		id, got, err := ReadTransactionLogRecord(r)
		if err != nil || id != "tx" || !reflect.DeepEqual(*got, c.want) {
			t.Errorf("%s: got %q %+v %v, want %+v", c.name, id, got, err, c.want)
		}
	}
}

// TestTransactionLogKeyLayout pins the key to Kafka's bytes: the version
// (0, also CoordinatorRecordType.TRANSACTION_LOG) and the id as an int16
// length and its bytes; a record without a value is a tombstone.
func TestTransactionLogKeyLayout(t *testing.T) {
	r := TransactionLogRecord("tx", nil, 1)
	if r.Key != "\x00\x00\x00\x02tx" || r.Value != "" {
		t.Fatalf("tombstone %q %q", r.Key, r.Value)
	}
	id, v, err := ReadTransactionLogRecord(r)
	if id != "tx" || v != nil || err != nil {
		t.Fatalf("read tombstone: %q %v %v", id, v, err)
	}
}

// TestTransactionLogUnreadable: a truncated value, an unknown value
// version and an unknown key version are errors, never a made-up state.
func TestTransactionLogUnreadable(t *testing.T) {
	good := TransactionLogRecord("tx", &TransactionLogValue{ProducerID: 1, TransactionStatus: 1,
		TransactionPartitions: []TopicPartition{TP("t", 0)}}, 1)
	cases := map[string]Record{
		"truncated":       {Key: good.Key, Value: good.Value[:len(good.Value)-3]},
		"value version 9": {Key: good.Key, Value: "\x00\x09" + good.Value[2:]},
		"key version 1":   {Key: "\x00\x01" + good.Key[2:], Value: good.Value},
		"trailing bytes":  {Key: good.Key, Value: good.Value + "x"},
		"truncated key":   {Key: good.Key[:3], Value: good.Value},
	}
	for name, r := range cases {
		if _, _, err := ReadTransactionLogRecord(r); !errors.Is(err, ErrTransactionLogRecord) {
			t.Errorf("%s: err %v", name, err)
		}
	}
}
