package model

import (
	"fmt"
	"strings"
	"time"
)

// FetchRequest reads from partition leaders. Followers replicate with it
// (ReplicaID is their broker id) and consumers read with it (ReplicaID is
// NoBroker); the leader treats the two differently: a follower's fetch
// offset tells the leader how far that follower has come, which drives the
// high watermark and the ISR, and a consumer never reads past the high
// watermark.
type FetchRequest struct {
	CorrelationID int32
	ReplicaID     BrokerID
	// BrokerEpoch is the follower's registration epoch (KIP-380), which the
	// leader passes on when it asks to add the follower to the ISR, so that
	// the controller can refuse a replica that restarted meanwhile.
	// NoEpoch for consumers.
	BrokerEpoch Epoch
	// IsolationLevel is a consumer's isolation.level (KIP-98):
	// ReadUncommitted reads to the high watermark, ReadCommitted to the
	// last stable offset and is told of the aborted transactions. It
	// fills padding after BrokerEpoch, so it costs no bytes.
	IsolationLevel IsolationLevel
	// MaxWait and MinBytes make the fetch a long poll: the leader answers
	// when MinBytes are available or MaxWait has passed.
	MaxWait  time.Duration
	MinBytes int32
	MaxBytes int32
	// Partitions are sorted by topic-partition. In an incremental fetch
	// (KIP-227) they are only the partitions added to the session or whose
	// fetch parameters changed.
	Partitions []FetchPartition
	// SessionID and SessionEpoch are the fetch session (KIP-227, Kafka's
	// FetchMetadata): 0 and 0 ask for a full fetch and a new session, a
	// session id with epoch 0 closes that session and starts a full fetch,
	// epoch -1 (FinalEpoch) a full fetch without a session, and any other
	// epoch is an incremental fetch in the session.
	SessionID    int32
	SessionEpoch int32
	// Forgotten are the partitions an incremental fetch removes from its
	// session (forgotten_topics_data).
	Forgotten []TopicPartition

	// room is the allocation NewFetchRequest made for the request and its
	// answer, nil in a request built otherwise.
	room *fetchRequestBox
}

// IsolationLevel is Kafka's IsolationLevel (FetchRequest isolation_level).
type IsolationLevel int8

const (
	ReadUncommitted IsolationLevel = 0
	ReadCommitted   IsolationLevel = 1
)

// String is the consumer setting's value: read_uncommitted or
// read_committed (Kafka's IsolationLevel.toString, lower case).
func (l IsolationLevel) String() string {
	if l == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// UnmarshalText accepts read_uncommitted or read_committed, the values of
// Kafka's isolation.level.
func (l *IsolationLevel) UnmarshalText(b []byte) error {
	switch string(b) {
	case "read_uncommitted":
		*l = ReadUncommitted
	case "read_committed":
		*l = ReadCommitted
	default:
		return fmt.Errorf("%q is not one of read_uncommitted, read_committed", b)
	}
	return nil
}

// AbortedTransaction is one entry of a read_committed fetch's
// aborted_transactions: the producer, and the first offset of its
// aborted transaction (FetchResponseData.AbortedTransaction).
type AbortedTransaction struct {
	ProducerID  ProducerID
	FirstOffset Offset
}

// FetchTxnState is what a read_committed fetch adds to a partition's
// answer: last_stable_offset and aborted_transactions. It is shared and
// immutable once sent, as the batches are.
type FetchTxnState struct {
	LastStableOffset Offset
	Aborted          []AbortedTransaction
}

// FetchPartition is one partition of a FetchRequest.
type FetchPartition struct {
	TP          TopicPartition
	FetchOffset Offset
	// CurrentLeaderEpoch is the epoch the fetcher believes the leader has:
	// older gets FENCED_LEADER_EPOCH, newer UNKNOWN_LEADER_EPOCH (KIP-320).
	CurrentLeaderEpoch Epoch
	// LastFetchedEpoch is the epoch of the follower's last batch; the leader
	// answers a DivergingEpoch if that epoch ends earlier on its own log
	// (KIP-595's in-fetch truncation). NoEpoch when unknown.
	LastFetchedEpoch Epoch
	LogStartOffset   Offset
	MaxBytes         int32
}

// String reads "Fetch t/0 off=17 lastEpoch=3 curEpoch=4; brokerEpoch=12
// corr=9" for a follower, with "consumer" instead of the broker epoch for a
// consumer; several partitions are separated by commas.
func (m FetchRequest) String() string {
	var b strings.Builder
	b.WriteString("Fetch")
	if len(m.Partitions) == 0 {
		// An incremental fetch with nothing changed (KIP-227).
		word(&b, "(unchanged)")
	}
	for i := range m.Partitions {
		p := &m.Partitions[i]
		sep(&b, i)
		word(&b, p.TP.String())
		kvInt(&b, "off", int64(p.FetchOffset))
		kvInt(&b, "lastEpoch", int64(p.LastFetchedEpoch))
		kvInt(&b, "curEpoch", int64(p.CurrentLeaderEpoch))
	}
	b.WriteByte(';')
	if m.ReplicaID == NoBroker {
		word(&b, "consumer")
		if m.IsolationLevel == ReadCommitted {
			word(&b, "read_committed")
		}
	} else {
		kvInt(&b, "brokerEpoch", int64(m.BrokerEpoch))
	}
	if m.SessionID != 0 || m.SessionEpoch != 0 || len(m.Forgotten) > 0 {
		// Printed only for a session: a sessionless fetch reads as it
		// always did.
		kvInt(&b, "session", int64(m.SessionID))
		kvInt(&b, "sessionEpoch", int64(m.SessionEpoch))
		for _, tp := range m.Forgotten {
			kv(&b, "forget", tp.String())
		}
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m FetchRequest) Digest() uint64 {
	h := request(apiFetch).Int32(m.CorrelationID).Broker(m.ReplicaID).Epoch(m.BrokerEpoch).
		Duration(m.MaxWait).Int32(m.MinBytes).Int32(m.MaxBytes).Int(len(m.Partitions))
	if m.IsolationLevel != ReadUncommitted {
		h = h.Int64(int64(m.IsolationLevel)) // absent from read_uncommitted digests, as before
	}
	for i := range m.Partitions {
		p := &m.Partitions[i]
		h = h.TP(p.TP).Offset(p.FetchOffset).Epoch(p.CurrentLeaderEpoch).
			Epoch(p.LastFetchedEpoch).Offset(p.LogStartOffset).Int32(p.MaxBytes)
	}
	if m.SessionID != 0 || m.SessionEpoch != 0 || len(m.Forgotten) > 0 {
		// Covered only for a session, so that a sessionless fetch
		// digests as it always did.
		h = h.Int32(m.SessionID).Int32(m.SessionEpoch).Int(len(m.Forgotten))
		for _, tp := range m.Forgotten {
			h = h.TP(tp)
		}
	}
	return h.Sum()
}

// Fetch messages are the most frequent of a run, so nodes send them as
// pointers (*FetchRequest, *FetchResponse) made by NewFetchRequest and
// NewFetchResponseFor, which put a message and its partitions, when it has
// one, in one allocation. A sent message is shared by sender and
// receiver: neither may change it. Receivers accept both forms.
//
// A request from NewFetchRequest also brings the room for its answer in
// the same allocation: a fetch is answered once, so a round trip costs one
// allocation rather than two. The room is not part of the message (no
// field, String or Digest sees it); the first answer takes it, and any
// other (a datagram link may deliver a request twice) is allocated anew.
type fetchRequestBox struct {
	req    FetchRequest
	inline [1]FetchPartition
	answer fetchAnswerRoom
}

// fetchAnswerRoom is the room a request keeps for its answer; an answer
// took it when its Partitions are not nil (init never leaves them nil).
type fetchAnswerRoom struct {
	box fetchResponseBox
}

// NewFetchRequest returns a FetchRequest with room for n partitions
// (Partitions has length 0 and capacity n).
func NewFetchRequest(n int) *FetchRequest {
	bx := &fetchRequestBox{}
	if n <= len(bx.inline) {
		bx.req.Partitions = bx.inline[:0:n]
	} else {
		bx.req.Partitions = make([]FetchPartition, 0, n)
	}
	bx.req.room = bx
	return &bx.req
}

// ReuseFetchRequest returns req emptied for the next fetch, as
// NewFetchRequest(n) would make it, keeping its memory: a follower sends a
// fetch to each leader every few milliseconds, and a new one each time was
// the largest allocation of a run. A request not made by NewFetchRequest
// is not reused. The caller must know that nothing can read req or its
// answer any more: the answer has arrived and been handled. A leader keeps
// nothing of a request it has answered, and a network that delivers a
// message twice delivers a clone the second time (see Clone).
func ReuseFetchRequest(req *FetchRequest, n int) *FetchRequest {
	bx := req.room
	if bx == nil {
		return NewFetchRequest(n)
	}
	parts := bx.req.Partitions
	*bx = fetchRequestBox{}
	switch {
	case n <= len(bx.inline):
		bx.req.Partitions = bx.inline[:0:n]
	case cap(parts) >= n: // a slice of its own: inline holds fewer than n
		bx.req.Partitions = parts[:0]
	default:
		bx.req.Partitions = make([]FetchPartition, 0, n)
	}
	bx.req.room = bx
	return &bx.req
}

type fetchResponseBox struct {
	resp   FetchResponse
	inline [1]FetchPartitionResponse
}

// NewFetchResponse returns a FetchResponse with room for n partitions
// (Partitions has length 0 and capacity n).
func NewFetchResponse(n int) *FetchResponse {
	bx := &fetchResponseBox{}
	return bx.init(n)
}

// NewFetchResponseFor is NewFetchResponse for the answer to req: it uses
// the room req brought for it when it has some, n partitions fit in it,
// and no earlier answer to req took it.
func NewFetchResponseFor(req *FetchRequest, n int) *FetchResponse {
	if bx := req.room; bx != nil && bx.answer.box.resp.Partitions == nil && n <= len(bx.answer.box.inline) {
		return bx.answer.box.init(n)
	}
	return NewFetchResponse(n)
}

func (bx *fetchResponseBox) init(n int) *FetchResponse {
	if n <= len(bx.inline) {
		bx.resp.Partitions = bx.inline[:0:n]
	} else {
		bx.resp.Partitions = make([]FetchPartitionResponse, 0, n)
	}
	return &bx.resp
}

// FetchResponse answers a FetchRequest, one entry per partition asked.
type FetchResponse struct {
	CorrelationID int32
	// Error is a whole-request error; NoError when partitions carry theirs.
	Error ErrorCode
	// SessionID is the fetch session the answer belongs to (KIP-227): the
	// one a full fetch created, or the incremental fetch's own; 0 for none.
	SessionID int32
	// Partitions are every partition asked, or in an incremental answer
	// only those with something new (IncrementalFetchContext).
	Partitions []FetchPartitionResponse
}

// FetchPartitionResponse is one partition of a FetchResponse.
type FetchPartitionResponse struct {
	TP             TopicPartition
	HighWatermark  Offset
	LogStartOffset Offset
	// DivergingEpoch is where the follower's LastFetchedEpoch ends on the
	// leader, when HasDiverging.
	DivergingEpoch EpochEndOffset
	// Batches are the leader's batches as stored: offsets and leader epochs
	// assigned, to be copied as they are. They are the leader log's own
	// (see storage.Log.Read), shared with it and with whoever appends them:
	// nobody may change them.
	Batches []*Batch
	// Error and HasDiverging come last, where they share one word: a
	// request with the room for its answer then fits 248 bytes (the 256-byte
	// size class with Txn), not 264.
	Error ErrorCode
	// HasDiverging says the follower's LastFetchedEpoch ends earlier on the
	// leader, at DivergingEpoch: the follower must truncate before
	// fetching again, and Batches is empty. A flag rather than a sentinel,
	// so that a response built without it can never read as "truncate to
	// offset 0".
	HasDiverging bool
	// Txn is the answer's transactional part, set only for a
	// read_committed fetch (nil otherwise, so that the answers of other
	// fetches stay as they were).
	Txn *FetchTxnState
}

// String reads "FetchResponse t/0 NONE hw=17 logStart=0 [17..19]e3 corr=9",
// or "... diverging=3@15 ..." when the follower must truncate.
func (m FetchResponse) String() string {
	var b strings.Builder
	b.WriteString("FetchResponse")
	if m.Error != NoError {
		errWord(&b, m.Error)
	}
	for i := range m.Partitions {
		p := &m.Partitions[i]
		sep(&b, i)
		word(&b, p.TP.String())
		errWord(&b, p.Error)
		kvInt(&b, "hw", int64(p.HighWatermark))
		kvInt(&b, "logStart", int64(p.LogStartOffset))
		if p.HasDiverging {
			kv(&b, "diverging", p.DivergingEpoch.String())
		}
		if p.Txn != nil {
			kvInt(&b, "lso", int64(p.Txn.LastStableOffset))
			for _, a := range p.Txn.Aborted {
				kv(&b, "aborted", itoa(int64(a.ProducerID))+"@"+itoa(int64(a.FirstOffset)))
			}
		}
		batchRanges(&b, p.Batches)
	}
	if m.SessionID != 0 {
		kvInt(&b, "session", int64(m.SessionID))
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field, the records of every batch included.
func (m FetchResponse) Digest() uint64 {
	h := response(apiFetch).Int32(m.CorrelationID).Error(m.Error).Int(len(m.Partitions))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		h = h.TP(p.TP).Error(p.Error).Offset(p.HighWatermark).Offset(p.LogStartOffset).
			Bool(p.HasDiverging).Epoch(p.DivergingEpoch.Epoch).Offset(p.DivergingEpoch.EndOffset).
			Batches(p.Batches)
		if p.Txn != nil {
			h = h.Offset(p.Txn.LastStableOffset).Int(len(p.Txn.Aborted))
			for _, a := range p.Txn.Aborted {
				h = h.Int64(int64(a.ProducerID)).Offset(a.FirstOffset)
			}
		}
	}
	if m.SessionID != 0 {
		h = h.Int32(m.SessionID)
	}
	return h.Sum()
}

// OffsetsForLeaderEpochRequest asks a leader where given epochs end in its
// log. A follower sends it before fetching in the leader-epoch truncation
// modes that predate the diverging-epoch field of fetch (KIP-101 and
// KIP-279); consumers use it to validate their position after a leader
// change (KIP-320).
type OffsetsForLeaderEpochRequest struct {
	CorrelationID int32
	// ReplicaID is the follower's id, NoBroker for a consumer.
	ReplicaID  BrokerID
	Partitions []LeaderEpochQuery
}

// LeaderEpochQuery is one partition of an OffsetsForLeaderEpochRequest.
type LeaderEpochQuery struct {
	TP TopicPartition
	// CurrentLeaderEpoch fences a stale or too new leader, as in fetch.
	CurrentLeaderEpoch Epoch
	// LeaderEpoch is the epoch whose end offset is asked.
	LeaderEpoch Epoch
}

// String reads "OffsetsForLeaderEpoch t/0 epoch=3 curEpoch=4 corr=5".
func (m OffsetsForLeaderEpochRequest) String() string {
	var b strings.Builder
	b.WriteString("OffsetsForLeaderEpoch")
	for i := range m.Partitions {
		p := &m.Partitions[i]
		sep(&b, i)
		word(&b, p.TP.String())
		kvInt(&b, "epoch", int64(p.LeaderEpoch))
		kvInt(&b, "curEpoch", int64(p.CurrentLeaderEpoch))
	}
	if m.ReplicaID == NoBroker {
		word(&b, "consumer")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m OffsetsForLeaderEpochRequest) Digest() uint64 {
	h := request(apiOffsetForLeaderEpoch).Int32(m.CorrelationID).Broker(m.ReplicaID).Int(len(m.Partitions))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		h = h.TP(p.TP).Epoch(p.CurrentLeaderEpoch).Epoch(p.LeaderEpoch)
	}
	return h.Sum()
}

// OffsetsForLeaderEpochResponse answers, one entry per partition asked.
type OffsetsForLeaderEpochResponse struct {
	CorrelationID int32
	Partitions    []LeaderEpochAnswer
}

// LeaderEpochAnswer is one partition of an OffsetsForLeaderEpochResponse.
type LeaderEpochAnswer struct {
	TP    TopicPartition
	Error ErrorCode
	// HasEpoch says LeaderEpoch is present. KIP-101's first version of the
	// answer carried only the end offset; KIP-279 added the epoch (the
	// largest at or below the one asked) so that a follower whose epoch
	// the leader never had can truncate to the right place. The
	// leader-epoch-kip101 truncation mode answers without it.
	HasEpoch    bool
	LeaderEpoch Epoch
	EndOffset   Offset
}

// String reads "OffsetsForLeaderEpochResponse t/0 NONE epoch=3 end=15
// corr=5", with "epoch=absent" in the KIP-101 form.
func (m OffsetsForLeaderEpochResponse) String() string {
	var b strings.Builder
	b.WriteString("OffsetsForLeaderEpochResponse")
	for i := range m.Partitions {
		p := &m.Partitions[i]
		sep(&b, i)
		word(&b, p.TP.String())
		errWord(&b, p.Error)
		if p.HasEpoch {
			kvInt(&b, "epoch", int64(p.LeaderEpoch))
		} else {
			kv(&b, "epoch", "absent")
		}
		kvInt(&b, "end", int64(p.EndOffset))
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m OffsetsForLeaderEpochResponse) Digest() uint64 {
	h := response(apiOffsetForLeaderEpoch).Int32(m.CorrelationID).Int(len(m.Partitions))
	for i := range m.Partitions {
		p := &m.Partitions[i]
		h = h.TP(p.TP).Error(p.Error).Bool(p.HasEpoch).Epoch(p.LeaderEpoch).Offset(p.EndOffset)
	}
	return h.Sum()
}

// OffsetSpec is what ListOffsets asks for, Kafka's special timestamps.
type OffsetSpec int64

const (
	// SpecLatest asks for the log end (for consumers, the high watermark).
	SpecLatest OffsetSpec = -1
	// SpecEarliest asks for the log start offset.
	SpecEarliest OffsetSpec = -2
)

// String reads "latest" or "earliest", or the timestamp.
func (s OffsetSpec) String() string {
	switch s {
	case SpecLatest:
		return "latest"
	case SpecEarliest:
		return "earliest"
	}
	return "ts" + itoa(int64(s))
}

// ListOffsetsRequest asks a leader for the earliest or latest offset of a
// partition: what a consumer without a committed offset resets to
// (auto.offset.reset).
type ListOffsetsRequest struct {
	CorrelationID int32
	// ReplicaID is NoBroker for consumers.
	ReplicaID          BrokerID
	TP                 TopicPartition
	CurrentLeaderEpoch Epoch
	Spec               OffsetSpec
}

// String reads "ListOffsets t/0 latest curEpoch=4 corr=3".
func (m ListOffsetsRequest) String() string {
	var b strings.Builder
	b.WriteString("ListOffsets ")
	b.WriteString(m.TP.String())
	word(&b, m.Spec.String())
	kvInt(&b, "curEpoch", int64(m.CurrentLeaderEpoch))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m ListOffsetsRequest) Digest() uint64 {
	return request(apiListOffsets).Int32(m.CorrelationID).Broker(m.ReplicaID).TP(m.TP).
		Epoch(m.CurrentLeaderEpoch).Int64(int64(m.Spec)).Sum()
}

// ListOffsetsResponse answers with the offset and the leader epoch of the
// record before it (so a consumer can later validate its position).
type ListOffsetsResponse struct {
	CorrelationID int32
	TP            TopicPartition
	Error         ErrorCode
	Offset        Offset
	LeaderEpoch   Epoch
}

// String reads "ListOffsetsResponse t/0 NONE offset=17 epoch=4 corr=3".
func (m ListOffsetsResponse) String() string {
	var b strings.Builder
	b.WriteString("ListOffsetsResponse ")
	b.WriteString(m.TP.String())
	errWord(&b, m.Error)
	kvInt(&b, "offset", int64(m.Offset))
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m ListOffsetsResponse) Digest() uint64 {
	return response(apiListOffsets).Int32(m.CorrelationID).TP(m.TP).Error(m.Error).
		Offset(m.Offset).Epoch(m.LeaderEpoch).Sum()
}
