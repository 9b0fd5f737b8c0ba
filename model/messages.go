package model

import (
	"strconv"
	"strings"
)

// Message is what nodes of the simulated cluster send each other: plain
// data, shared in memory by the simulation and so never changed once sent.
//
// Digest is folded into the run's trace hash for every delivered message;
// it covers every field and allocates nothing (see Hash). String describes
// the message on one line for traces and golden tests, without sender and
// receiver, which the trace printer adds: "b2->b1 " + m.String().
//
// The message types follow Kafka's wire protocol, simplified to one
// partition per request where Kafka's batching across partitions would only
// add noise, and keeping a sorted list of partitions where a broker batches
// them (fetch, epoch queries, metadata). Every message carries a
// correlation id: a client picks it, and the response repeats it so the
// client can match the two with several requests in flight.
type Message interface {
	Digest() uint64
	String() string
}

// apiKey is Kafka's API key of a request type. Digests start from it (two
// per key: request and response), so digests do not depend on the order in
// which message types are declared, and a trace hash stays comparable
// across builds that add message types.
type apiKey uint64

const (
	apiProduce              apiKey = 0
	apiFetch                apiKey = 1
	apiListOffsets          apiKey = 2
	apiMetadata             apiKey = 3
	apiUpdateMetadata       apiKey = 6
	apiOffsetCommit         apiKey = 8
	apiOffsetFetch          apiKey = 9
	apiFindCoordinator      apiKey = 10
	apiJoinGroup            apiKey = 11
	apiHeartbeat            apiKey = 12
	apiLeaveGroup           apiKey = 13
	apiSyncGroup            apiKey = 14
	apiApiVersions          apiKey = 18
	apiCreateTopics         apiKey = 19
	apiInitProducerID       apiKey = 22
	apiOffsetForLeaderEpoch apiKey = 23
	apiAlterPartition       apiKey = 56
	apiBrokerRegistration   apiKey = 62
	apiBrokerHeartbeat      apiKey = 63
)

// request and response start a digest for the given API.
func request(k apiKey) Hash  { return NewHash(uint64(k) << 1) }
func response(k apiKey) Hash { return NewHash(uint64(k)<<1 | 1) }

// PartitionState is the controller's record of one partition, as the
// controller publishes it to brokers and clients: who leads, under which
// epochs, and who may lead next.
type PartitionState struct {
	TP TopicPartition
	// Leader is NoBroker when no replica can lead.
	Leader BrokerID
	// LeaderEpoch grows with every new leader; PartitionEpoch with every
	// change of any field (KIP-497 uses it to reject stale AlterPartition
	// requests).
	LeaderEpoch    Epoch
	PartitionEpoch Epoch
	// Replicas is the assignment, in preference order.
	Replicas []BrokerID
	// ISR is the in-sync replica set; ELR the eligible leader replicas of
	// KIP-966, replicas that left the ISR while it was below
	// min.insync.replicas and still hold every committed record.
	ISR []BrokerID
	ELR []BrokerID
}

// String reads "t/0 leader=b1 epoch=3 pe=7 replicas=[b1 b2 b3] isr=[b1 b2] elr=[b3]".
func (p PartitionState) String() string {
	var b strings.Builder
	b.WriteString(p.TP.String())
	kv(&b, "leader", p.Leader.String())
	kvInt(&b, "epoch", int64(p.LeaderEpoch))
	kvInt(&b, "pe", int64(p.PartitionEpoch))
	kv(&b, "replicas", brokerList(p.Replicas))
	kv(&b, "isr", brokerList(p.ISR))
	kv(&b, "elr", brokerList(p.ELR))
	return b.String()
}

func (h Hash) partitionState(p *PartitionState) Hash {
	return h.TP(p.TP).Broker(p.Leader).Epoch(p.LeaderEpoch).Epoch(p.PartitionEpoch).
		Brokers(p.Replicas).Brokers(p.ISR).Brokers(p.ELR)
}

func (h Hash) partitionStates(ps []PartitionState) Hash {
	h = h.Int(len(ps))
	for i := range ps {
		h = h.partitionState(&ps[i])
	}
	return h
}

// EpochEndOffset is a leader's answer to "where does my epoch end on
// yours?": the largest epoch at or below the one asked, and the offset
// where the next epoch starts (the log end for the latest epoch).
type EpochEndOffset struct {
	Epoch     Epoch
	EndOffset Offset
}

// String reads "3@15": epoch 3 ends at offset 15.
func (e EpochEndOffset) String() string {
	return strconv.FormatInt(int64(e.Epoch), 10) + "@" + strconv.FormatInt(int64(e.EndOffset), 10)
}

// The helpers below build the one-line descriptions without fmt: a trace
// of a long run prints millions of them.

// kv writes " key=value".
func kv(b *strings.Builder, key, value string) {
	b.WriteByte(' ')
	b.WriteString(key)
	b.WriteByte('=')
	b.WriteString(value)
}

// kvInt writes " key=n".
func kvInt(b *strings.Builder, key string, n int64) {
	kv(b, key, strconv.FormatInt(n, 10))
}

// word writes " w".
func word(b *strings.Builder, w string) {
	b.WriteByte(' ')
	b.WriteString(w)
}

// corr writes " corr=n", last on every line, unless n is 0 (unset).
func corr(b *strings.Builder, n int32) {
	if n != 0 {
		kvInt(b, "corr", int64(n))
	}
}

// ListString writes a list of ids, partitions or anything printable the
// way every one-line description in kafkasim does: "[b1 b2 b3]", or "[]".
func ListString[T interface{ String() string }](xs []T) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range xs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.String())
	}
	b.WriteByte(']')
	return b.String()
}

// brokerList reads "[b1 b2 b3]", or "[]".
func brokerList(ids []BrokerID) string { return ListString(ids) }

// batchRanges reads " [17..19]e3 [20..20]e4": the offsets and epochs of
// each batch, which is what replication traces are about.
func batchRanges(b *strings.Builder, bs []*Batch) {
	for i := range bs {
		b.WriteString(" [")
		b.WriteString(strconv.FormatInt(int64(bs[i].BaseOffset), 10))
		b.WriteString("..")
		b.WriteString(strconv.FormatInt(int64(bs[i].LastOffset()), 10))
		b.WriteString("]e")
		b.WriteString(strconv.FormatInt(int64(bs[i].LeaderEpoch), 10))
	}
}

// producerID writes " pid=7:0 seq=4" for an idempotent batch, nothing
// otherwise.
func producerID(b *strings.Builder, pid ProducerID, epoch Epoch, seq int32) {
	if pid == NoProducerID {
		return
	}
	kv(b, "pid", strconv.FormatInt(int64(pid), 10)+":"+strconv.FormatInt(int64(epoch), 10))
	kvInt(b, "seq", int64(seq))
}

// errWord writes the error's Kafka name.
func errWord(b *strings.Builder, c ErrorCode) { word(b, c.String()) }

// sep writes ", " between list items.
func sep(b *strings.Builder, i int) {
	if i > 0 {
		b.WriteByte(',')
	}
}

// itoa formats an integer in base 10.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
