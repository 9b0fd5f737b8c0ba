package model

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// TransactionStateTopic is the internal topic of the transaction
// coordinators: the leader of its partition p coordinates every
// transactional.id that hashes to p, and the partition's records are the
// state of those transactional ids (Kafka's Topic.TRANSACTION_STATE_TOPIC_NAME).
const TransactionStateTopic = "__transaction_state"

// ConsumerOffsetsTopic is the internal topic of the group coordinators
// (Kafka's Topic.GROUP_METADATA_TOPIC_NAME); AddOffsetsToTxn adds one of
// its partitions to a transaction.
const ConsumerOffsetsTopic = "__consumer_offsets"

// TransactionLogValue is one transactional.id's state as a
// __transaction_state record holds it (Kafka's TransactionLogValue.json;
// the key, TransactionLogKey, is the transactional id alone). Version 0
// is the non-flexible format; version 1 (transaction.version 1 and up)
// is flexible, with PreviousProducerID, NextProducerID and
// ClientTransactionVersion as tagged fields. A tombstone (no value)
// deletes the transactional id.
type TransactionLogValue struct {
	ProducerID         ProducerID
	PreviousProducerID ProducerID // tag 0, version 1 only; NoProducerID by default
	NextProducerID     ProducerID // tag 1, version 1 only; NoProducerID by default
	ProducerEpoch      Epoch
	// TransactionTimeoutMs is the producer's transaction.timeout.ms.
	TransactionTimeoutMs int32
	// TransactionStatus is the TransactionState id.
	TransactionStatus int8
	// TransactionPartitions are the transaction's partitions, sorted
	// (Kafka groups them by topic, in a HashMap's order); none for Empty.
	TransactionPartitions            []TopicPartition
	TransactionLastUpdateTimestampMs int64
	TransactionStartTimestampMs      int64
	ClientTransactionVersion         int16 // tag 2, version 1 only; 0 by default
}

// transactionLogKeyVersion is the key's version, also
// CoordinatorRecordType.TRANSACTION_LOG.
const transactionLogKeyVersion int16 = 0

// The value's tagged fields (version 1).
const (
	tagPreviousProducerID uint64 = iota
	tagNextProducerID
	tagClientTransactionVersion
)

// ErrTransactionLogRecord is a __transaction_state record that cannot be
// read.
var ErrTransactionLogRecord = errors.New("unreadable __transaction_state record")

// TransactionLogRecord builds the record of a transactional id's state,
// its value in the given version (TransactionVersion.transactionLogValueVersion:
// 0, or 1 from transaction.version 1 on); a nil value is a tombstone.
func TransactionLogRecord(transactionalID string, v *TransactionLogValue, version int16) Record {
	key := binary.BigEndian.AppendUint16(nil, uint16(transactionLogKeyVersion))
	key = appendString16(key, transactionalID)
	if v == nil {
		return Record{Key: string(key)}
	}
	out := binary.BigEndian.AppendUint16(nil, uint16(version))
	out = binary.BigEndian.AppendUint64(out, uint64(v.ProducerID))
	out = binary.BigEndian.AppendUint16(out, uint16(v.ProducerEpoch))
	out = binary.BigEndian.AppendUint32(out, uint32(v.TransactionTimeoutMs))
	out = append(out, byte(v.TransactionStatus))
	out = appendTxnPartitions(out, v.TransactionPartitions, v.TransactionStatus == 0, version >= 1)
	out = binary.BigEndian.AppendUint64(out, uint64(v.TransactionLastUpdateTimestampMs))
	out = binary.BigEndian.AppendUint64(out, uint64(v.TransactionStartTimestampMs))
	if version >= 1 {
		out = appendTxnTags(out, v)
	}
	return Record{Key: string(key), Value: string(out)}
}

// appendTxnPartitions writes the partitions grouped by topic: a nullable
// array (null for Empty) of topic and partition ids, compact with empty
// tagged fields in the flexible version.
func appendTxnPartitions(out []byte, tps []TopicPartition, null, flexible bool) []byte {
	var topics [][]TopicPartition
	for _, tp := range tps {
		if n := len(topics); n > 0 && topics[n-1][0].Topic == tp.Topic {
			topics[n-1] = append(topics[n-1], tp)
		} else {
			topics = append(topics, []TopicPartition{tp})
		}
	}
	count := func(out []byte, n int, isNull bool) []byte {
		switch {
		case flexible && isNull:
			return binary.AppendUvarint(out, 0)
		case flexible:
			return binary.AppendUvarint(out, uint64(n)+1)
		case isNull:
			return binary.BigEndian.AppendUint32(out, 0xffffffff)
		}
		return binary.BigEndian.AppendUint32(out, uint32(n))
	}
	out = count(out, len(topics), null)
	for _, group := range topics {
		if flexible {
			out = count(out, len(group[0].Topic), false)
			out = append(out, group[0].Topic...)
		} else {
			out = appendString16(out, group[0].Topic)
		}
		out = count(out, len(group), false)
		for _, tp := range group {
			out = binary.BigEndian.AppendUint32(out, uint32(tp.Partition))
		}
		if flexible {
			out = binary.AppendUvarint(out, 0) // no tagged fields
		}
	}
	return out
}

// appendTxnTags writes the tagged fields that differ from their defaults,
// in tag order.
func appendTxnTags(out []byte, v *TransactionLogValue) []byte {
	type tagged struct {
		tag  uint64
		data []byte
	}
	var tags []tagged
	if v.PreviousProducerID != NoProducerID {
		tags = append(tags, tagged{tagPreviousProducerID, binary.BigEndian.AppendUint64(nil, uint64(v.PreviousProducerID))})
	}
	if v.NextProducerID != NoProducerID {
		tags = append(tags, tagged{tagNextProducerID, binary.BigEndian.AppendUint64(nil, uint64(v.NextProducerID))})
	}
	if v.ClientTransactionVersion != 0 {
		tags = append(tags, tagged{tagClientTransactionVersion, binary.BigEndian.AppendUint16(nil, uint16(v.ClientTransactionVersion))})
	}
	out = binary.AppendUvarint(out, uint64(len(tags)))
	for _, t := range tags {
		out = binary.AppendUvarint(out, t.tag)
		out = binary.AppendUvarint(out, uint64(len(t.data)))
		out = append(out, t.data...)
	}
	return out
}

func appendString16(out []byte, s string) []byte {
	out = binary.BigEndian.AppendUint16(out, uint16(len(s)))
	return append(out, s...)
}

// ReadTransactionLogRecord reads a __transaction_state record back
// (TransactionLog.readTxnRecordKey and readTxnRecordValue): the
// transactional id, and its state or nil for a tombstone.
func ReadTransactionLogRecord(r Record) (string, *TransactionLogValue, error) {
	k := txnReader{b: []byte(r.Key)}
	if version := k.i16(); k.err == nil && version != transactionLogKeyVersion {
		return "", nil, fmt.Errorf("%w: key version %d", ErrTransactionLogRecord, version)
	}
	id := k.str16()
	if k.err != nil {
		return "", nil, k.err
	}
	if r.Value == "" {
		return id, nil, nil
	}
	d := txnReader{b: []byte(r.Value)}
	version := d.i16()
	if d.err == nil && version != 0 && version != 1 {
		return id, nil, fmt.Errorf("%w: value version %d of %q", ErrTransactionLogRecord, version, id)
	}
	flexible := version == 1
	v := &TransactionLogValue{PreviousProducerID: NoProducerID, NextProducerID: NoProducerID}
	v.ProducerID = ProducerID(d.i64())
	v.ProducerEpoch = Epoch(d.i16())
	v.TransactionTimeoutMs = d.i32()
	v.TransactionStatus = int8(d.byte())
	v.TransactionPartitions = d.partitions(flexible)
	v.TransactionLastUpdateTimestampMs = d.i64()
	v.TransactionStartTimestampMs = d.i64()
	if flexible {
		d.tags(v)
	}
	if d.err == nil && len(d.b) > 0 {
		d.err = fmt.Errorf("%w: %d bytes left over", ErrTransactionLogRecord, len(d.b))
	}
	if d.err != nil {
		return id, nil, fmt.Errorf("value of %q: %w", id, d.err)
	}
	return id, v, nil
}

// txnReader reads the big-endian and varint fields of a record; the first
// short read sets err and every later read returns zero.
type txnReader struct {
	b   []byte
	err error
}

func (d *txnReader) take(n int) []byte {
	if d.err != nil || n < 0 || len(d.b) < n {
		if d.err == nil {
			d.err = fmt.Errorf("%w: truncated", ErrTransactionLogRecord)
		}
		return make([]byte, max(n, 0))
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *txnReader) byte() byte    { return d.take(1)[0] }
func (d *txnReader) i16() int16    { return int16(binary.BigEndian.Uint16(d.take(2))) }
func (d *txnReader) i32() int32    { return int32(binary.BigEndian.Uint32(d.take(4))) }
func (d *txnReader) i64() int64    { return int64(binary.BigEndian.Uint64(d.take(8))) }
func (d *txnReader) str16() string { return string(d.take(int(d.i16()))) }

func (d *txnReader) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	n, size := binary.Uvarint(d.b)
	if size <= 0 {
		d.err = fmt.Errorf("%w: bad varint", ErrTransactionLogRecord)
		return 0
	}
	d.b = d.b[size:]
	return n
}

// count reads an array or string length; -1 is null.
func (d *txnReader) count(flexible bool) int {
	if flexible {
		return int(d.uvarint()) - 1
	}
	return int(d.i32())
}

func (d *txnReader) partitions(flexible bool) []TopicPartition {
	var out []TopicPartition
	topics := d.count(flexible)
	for i := 0; i < topics && d.err == nil; i++ {
		var topic string
		if flexible {
			topic = string(d.take(d.count(true)))
		} else {
			topic = d.str16()
		}
		n := d.count(flexible)
		for j := 0; j < n && d.err == nil; j++ {
			out = append(out, TP(topic, d.i32()))
		}
		if flexible {
			d.skipTags()
		}
	}
	slices.SortFunc(out, TopicPartition.Compare)
	return out
}

func (d *txnReader) skipTags() {
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		d.uvarint()
		d.take(int(d.uvarint()))
	}
}

func (d *txnReader) tags(v *TransactionLogValue) {
	for n := d.uvarint(); n > 0 && d.err == nil; n-- {
		tag := d.uvarint()
		field := txnReader{b: d.take(int(d.uvarint()))}
		switch tag {
		case tagPreviousProducerID:
			v.PreviousProducerID = ProducerID(field.i64())
		case tagNextProducerID:
			v.NextProducerID = ProducerID(field.i64())
		case tagClientTransactionVersion:
			v.ClientTransactionVersion = field.i16()
		}
		if field.err != nil {
			d.err = field.err
		}
	}
}
