package model

import (
	"strconv"
	"strings"
	"time"
)

// ProduceRequest asks a partition's leader to append one batch.
type ProduceRequest struct {
	CorrelationID int32
	// Acks says when to answer; with AcksNone the leader never answers.
	Acks Acks
	// Timeout bounds how long an acks=all request waits for the ISR.
	Timeout time.Duration
	TP      TopicPartition
	// Batch is as the producer sealed it: offsets from 0, no leader epoch.
	Batch Batch
	// TransactionalID is the producer's transactional.id when the batch
	// is transactional (ProduceRequest's transactional_id), "" otherwise:
	// the leader verifies the transaction with its coordinator (KIP-890
	// part 1).
	TransactionalID string

	// room is the allocation NewProduceRequest made for the request and
	// its answer, nil in a request built otherwise.
	room *produceRequestBox
}

// A producer sends one produce request per batch attempt, and a leader
// answers each: the most frequent messages after fetches. A request from
// NewProduceRequest brings the room for its answer in the same
// allocation, as a fetch does (see NewFetchRequest), and
// ReuseProduceRequest lets a producer send it again once its answer is
// handled. The room is not part of the message (no field, String or
// Digest sees it). Receivers accept both the value and the pointer form.
type produceRequestBox struct {
	req      ProduceRequest
	answer   ProduceResponse
	answered bool // an answer took the room
}

// NewProduceRequest returns an empty ProduceRequest with room for its
// answer.
func NewProduceRequest() *ProduceRequest {
	bx := &produceRequestBox{}
	bx.req.room = bx
	return &bx.req
}

// ReuseProduceRequest returns req emptied, with its answer's room free,
// keeping its memory; a request not made by NewProduceRequest is not
// reused. The caller must know that nothing can read req or its answer any
// more: the answer has arrived and been handled. A leader keeps nothing of
// a request it has answered, and a network that delivers a message twice
// delivers a clone the second time (see Clone).
func ReuseProduceRequest(req *ProduceRequest) *ProduceRequest {
	bx := req.room
	if bx == nil {
		return NewProduceRequest()
	}
	*bx = produceRequestBox{}
	bx.req.room = bx
	return &bx.req
}

// NewProduceResponseFor returns the answer to req, zeroed: in the room req
// brought for it when it has one no earlier answer took, else a new one.
func NewProduceResponseFor(req *ProduceRequest) *ProduceResponse {
	if bx := req.room; bx != nil && !bx.answered {
		bx.answered = true
		bx.answer = ProduceResponse{}
		return &bx.answer
	}
	return &ProduceResponse{}
}

// String reads "Produce t/0 acks=all n=3 pid=7:0 seq=4 corr=12".
func (m ProduceRequest) String() string {
	var b strings.Builder
	b.WriteString("Produce ")
	b.WriteString(m.TP.String())
	kv(&b, "acks", m.Acks.String())
	kvInt(&b, "n", int64(len(m.Batch.Records)))
	producerID(&b, m.Batch.ProducerID, m.Batch.ProducerEpoch, m.Batch.BaseSequence)
	if m.TransactionalID != "" {
		kv(&b, "txn", m.TransactionalID)
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field; a request without a transactional id folds
// exactly what it did before the field existed, so that runs without
// transactions keep their trace hashes.
func (m ProduceRequest) Digest() uint64 {
	h := request(apiProduce).Int32(m.CorrelationID).Int32(int32(m.Acks)).Duration(m.Timeout).
		TP(m.TP).Batch(&m.Batch)
	if m.TransactionalID != "" {
		h = h.Str(m.TransactionalID)
	}
	return h.Sum()
}

// ProduceResponse answers a ProduceRequest. On NoError, BaseOffset is where
// the batch went (for a duplicate of a recent batch, where it went the first
// time); on an error it is NoOffset.
type ProduceResponse struct {
	TP             TopicPartition
	BaseOffset     Offset
	LogStartOffset Offset
	// CorrelationID and Error come last, where they share one word: every
	// answer is boxed into a sim.Message, in 48 bytes rather than 64.
	CorrelationID int32
	Error         ErrorCode
}

// String reads "ProduceResponse t/0 NONE base=17 logStart=0 corr=12".
func (m ProduceResponse) String() string {
	var b strings.Builder
	b.WriteString("ProduceResponse ")
	b.WriteString(m.TP.String())
	errWord(&b, m.Error)
	kvInt(&b, "base", int64(m.BaseOffset))
	kvInt(&b, "logStart", int64(m.LogStartOffset))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m ProduceResponse) Digest() uint64 {
	return response(apiProduce).Int32(m.CorrelationID).TP(m.TP).Error(m.Error).
		Offset(m.BaseOffset).Offset(m.LogStartOffset).Sum()
}

// InitProducerIDRequest asks for an idempotent producer identity (KIP-98).
// A producer that already has one sends it to have its epoch bumped
// (KIP-360) after a sequence error; a new one sends NoProducerID and
// NoEpoch. A transactional producer also sends its TransactionalID and
// TransactionTimeout (Kafka's TransactionTimeoutMs) to the transaction
// coordinator; an empty TransactionalID is Kafka's null.
type InitProducerIDRequest struct {
	CorrelationID      int32
	TransactionalID    string
	TransactionTimeout time.Duration
	ProducerID         ProducerID
	ProducerEpoch      Epoch
}

// String reads "InitProducerId corr=1", "InitProducerId pid=7:0 corr=1",
// or "InitProducerId txn=tx timeout=1m0s pid=7:0 corr=1".
func (m InitProducerIDRequest) String() string {
	var b strings.Builder
	b.WriteString("InitProducerId")
	if m.TransactionalID != "" {
		kv(&b, "txn", m.TransactionalID)
		kv(&b, "timeout", m.TransactionTimeout.String())
	}
	if m.ProducerID != NoProducerID {
		kv(&b, "pid", strconv.FormatInt(int64(m.ProducerID), 10)+":"+strconv.FormatInt(int64(m.ProducerEpoch), 10))
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field. The transactional fields are folded in only
// when there is a transactional id, so that an idempotent producer's
// request digests as it did before they existed.
func (m InitProducerIDRequest) Digest() uint64 {
	h := request(apiInitProducerID).Int32(m.CorrelationID).Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch)
	if m.TransactionalID != "" {
		h = h.Str(m.TransactionalID).Duration(m.TransactionTimeout)
	}
	return h.Sum()
}

// InitProducerIDResponse gives the producer id and epoch to use.
type InitProducerIDResponse struct {
	CorrelationID int32
	Error         ErrorCode
	ProducerID    ProducerID
	ProducerEpoch Epoch
}

// String reads "InitProducerIdResponse NONE pid=7:0 corr=1".
func (m InitProducerIDResponse) String() string {
	var b strings.Builder
	b.WriteString("InitProducerIdResponse")
	errWord(&b, m.Error)
	kv(&b, "pid", strconv.FormatInt(int64(m.ProducerID), 10)+":"+strconv.FormatInt(int64(m.ProducerEpoch), 10))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m InitProducerIDResponse) Digest() uint64 {
	return response(apiInitProducerID).Int32(m.CorrelationID).Error(m.Error).
		Int64(int64(m.ProducerID)).Epoch(m.ProducerEpoch).Sum()
}
