package model

import (
	"strconv"
	"strings"
	"time"
)

// The KRaft metadata quorum's own protocol (KIP-595, KIP-630, KIP-996):
// controllers elect a leader with Vote requests (a pre-vote first, which
// changes no epoch), the winner announces itself with BeginQuorumEpoch, and
// followers and observers pull the metadata log from the leader with
// QuorumFetch, and a snapshot with FetchSnapshot when the log they need was
// deleted. These are not the data plane's messages: the quorum's fetch
// carries whole batches of opaque entries, and its epochs are quorum epochs.

// API keys of the quorum's requests. Vote, BeginQuorumEpoch and
// FetchSnapshot have their Kafka keys. KRaft sends its fetches as Fetch
// (key 1) with a replica state; kafkasim gives the quorum's fetch a key of
// its own, outside Kafka's range, so that its digests never meet the data
// plane's.
const (
	apiVote             apiKey = 52
	apiBeginQuorumEpoch apiKey = 53
	apiFetchSnapshot    apiKey = 59
	apiQuorumFetch      apiKey = 1001
)

// SnapshotNotFound is Kafka's SNAPSHOT_NOT_FOUND: the requested snapshot
// is not (or no longer) the leader's.
const SnapshotNotFound ErrorCode = 98

// QuorumBatch is a batch of the metadata log: consecutive entries from
// BaseOffset, all written by the leader of Epoch, appended and replicated
// whole, so that a batch is atomic (Kafka's controller writes each
// operation's records as one batch, ControllerResult.atomicOf). A control
// batch holds the leader's LeaderChange entry, which the state machine
// never sees. Offsets start at 1.
type QuorumBatch struct {
	BaseOffset int64
	Epoch      Epoch
	Control    bool
	Entries    [][]byte
}

// LastOffset is the offset of the batch's last entry.
func (b *QuorumBatch) LastOffset() int64 { return b.BaseOffset + int64(len(b.Entries)) - 1 }

func (h Hash) quorumBatches(bs []QuorumBatch) Hash {
	h = h.Int(len(bs))
	for i := range bs {
		b := &bs[i]
		h = h.Int64(b.BaseOffset).Epoch(b.Epoch).Bool(b.Control).Int(len(b.Entries))
		for _, e := range b.Entries {
			h = h.Bytes(e)
		}
	}
	return h
}

// quorumBatchRanges reads " [17..19]e3 [20..20]e4c" (c: control).
func quorumBatchRanges(b *strings.Builder, bs []QuorumBatch) {
	for i := range bs {
		b.WriteString(" [")
		b.WriteString(strconv.FormatInt(bs[i].BaseOffset, 10))
		b.WriteString("..")
		b.WriteString(strconv.FormatInt(bs[i].LastOffset(), 10))
		b.WriteString("]e")
		b.WriteString(strconv.FormatInt(int64(bs[i].Epoch), 10))
		if bs[i].Control {
			b.WriteByte('c')
		}
	}
}

// VoteRequest asks a voter for its vote in CandidateEpoch (KIP-595), or,
// with PreVote, whether it would vote (KIP-996): a pre-vote changes no
// epoch and no vote, so a node cut off from the quorum that keeps failing
// pre-votes cannot raise the epoch and depose a healthy leader when it
// returns. A pre-vote's CandidateEpoch is the epoch the sender would stand
// in (its own plus one). LastOffsetEpoch and LastOffset describe the end
// of the candidate's log; a voter grants only to a log at least as up to
// date as its own.
type VoteRequest struct {
	CandidateEpoch  Epoch
	CandidateID     BrokerID
	LastOffsetEpoch Epoch
	LastOffset      int64
	PreVote         bool
}

// String reads "Vote b100 epoch=3 last=2@17" with " preVote" when set.
func (m VoteRequest) String() string {
	var b strings.Builder
	b.WriteString("Vote ")
	b.WriteString(m.CandidateID.String())
	kvInt(&b, "epoch", int64(m.CandidateEpoch))
	kv(&b, "last", itoa(int64(m.LastOffsetEpoch))+"@"+itoa(m.LastOffset))
	if m.PreVote {
		word(&b, "preVote")
	}
	return b.String()
}

// Digest covers every field.
func (m VoteRequest) Digest() uint64 {
	return request(apiVote).Epoch(m.CandidateEpoch).Broker(m.CandidateID).Epoch(m.LastOffsetEpoch).
		Int64(m.LastOffset).Bool(m.PreVote).Sum()
}

// VoteResponse answers a VoteRequest with the voter's own epoch and the
// leader it knows (NoBroker if none), so that a candidate behind the times
// learns of the newer epoch.
type VoteResponse struct {
	Error       ErrorCode
	LeaderEpoch Epoch
	LeaderID    BrokerID
	VoteGranted bool
	PreVote     bool
}

// String reads "VoteResponse NONE epoch=3 leader=none granted" (or
// "refused"), with " preVote" when set.
func (m VoteResponse) String() string {
	var b strings.Builder
	b.WriteString("VoteResponse")
	errWord(&b, m.Error)
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	kv(&b, "leader", m.LeaderID.String())
	if m.VoteGranted {
		word(&b, "granted")
	} else {
		word(&b, "refused")
	}
	if m.PreVote {
		word(&b, "preVote")
	}
	return b.String()
}

// Digest covers every field.
func (m VoteResponse) Digest() uint64 {
	return response(apiVote).Error(m.Error).Epoch(m.LeaderEpoch).Broker(m.LeaderID).
		Bool(m.VoteGranted).Bool(m.PreVote).Sum()
}

// BeginQuorumEpochRequest is a new leader telling a voter that it won
// LeaderEpoch, so that the voter starts fetching from it at once instead
// of waiting for its own election timeout.
type BeginQuorumEpochRequest struct {
	LeaderEpoch Epoch
	LeaderID    BrokerID
}

// String reads "BeginQuorumEpoch b100 epoch=3".
func (m BeginQuorumEpochRequest) String() string {
	var b strings.Builder
	b.WriteString("BeginQuorumEpoch ")
	b.WriteString(m.LeaderID.String())
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	return b.String()
}

// Digest covers every field.
func (m BeginQuorumEpochRequest) Digest() uint64 {
	return request(apiBeginQuorumEpoch).Epoch(m.LeaderEpoch).Broker(m.LeaderID).Sum()
}

// BeginQuorumEpochResponse answers with the voter's epoch and leader.
type BeginQuorumEpochResponse struct {
	Error       ErrorCode
	LeaderEpoch Epoch
	LeaderID    BrokerID
}

// String reads "BeginQuorumEpochResponse NONE epoch=3 leader=b100".
func (m BeginQuorumEpochResponse) String() string {
	var b strings.Builder
	b.WriteString("BeginQuorumEpochResponse")
	errWord(&b, m.Error)
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	kv(&b, "leader", m.LeaderID.String())
	return b.String()
}

// Digest covers every field.
func (m BeginQuorumEpochResponse) Digest() uint64 {
	return response(apiBeginQuorumEpoch).Error(m.Error).Epoch(m.LeaderEpoch).Broker(m.LeaderID).Sum()
}

// QuorumFetchRequest pulls the metadata log from the leader (KIP-595's
// Fetch): FetchOffset is the next offset the fetcher wants, and
// LastFetchedEpoch the epoch of the entry just before it, which the leader
// checks against its own log (log matching by epoch). A voter's fetch
// offset also tells the leader how far the voter has durably replicated,
// which drives the high watermark; an observer's counts for nothing. The
// leader parks a fetch it has nothing for up to MaxWait (a long poll).
type QuorumFetchRequest struct {
	ReplicaID          BrokerID
	CurrentLeaderEpoch Epoch
	FetchOffset        int64
	LastFetchedEpoch   Epoch
	// HighWatermark is the fetcher's own (KIP-1166): a leader that knows
	// a higher one answers at once instead of parking the fetch, so that
	// the fetcher learns what is committed without waiting out MaxWait.
	HighWatermark int64
	MaxWait       time.Duration
}

// String reads "QuorumFetch b101 epoch=3 off=18 lastEpoch=2 hw=17 maxWait=500ms".
func (m QuorumFetchRequest) String() string {
	var b strings.Builder
	b.WriteString("QuorumFetch ")
	b.WriteString(m.ReplicaID.String())
	kvInt(&b, "epoch", int64(m.CurrentLeaderEpoch))
	kvInt(&b, "off", m.FetchOffset)
	kvInt(&b, "lastEpoch", int64(m.LastFetchedEpoch))
	kvInt(&b, "hw", m.HighWatermark)
	kv(&b, "maxWait", m.MaxWait.String())
	return b.String()
}

// Digest covers every field.
func (m QuorumFetchRequest) Digest() uint64 {
	return request(apiQuorumFetch).Broker(m.ReplicaID).Epoch(m.CurrentLeaderEpoch).Int64(m.FetchOffset).
		Epoch(m.LastFetchedEpoch).Int64(m.HighWatermark).Duration(m.MaxWait).Sum()
}

// QuorumFetchResponse carries the leader's epoch and id and one of: the
// batches from the fetch offset on; a diverging epoch (the fetcher's log
// disagrees with the leader's after Diverging.EndOffset, which is the last
// offset of Diverging.Epoch on the leader, and must be truncated there);
// or a snapshot id (the entries asked for are only in the leader's
// snapshot). HighWatermark is the last committed offset as the leader
// knows it (-1 while a new leader does not know it yet).
type QuorumFetchResponse struct {
	Error          ErrorCode
	LeaderEpoch    Epoch
	LeaderID       BrokerID
	HighWatermark  int64
	LogStartOffset int64
	HasDiverging   bool
	Diverging      EpochEndOffset
	HasSnapshot    bool
	SnapshotOffset int64
	SnapshotEpoch  Epoch
	Batches        []QuorumBatch
}

// String reads "QuorumFetchResponse NONE epoch=3 leader=b100 hw=17
// logStart=1 [18..19]e3", with " diverging=2@15" or " snapshot=2@40".
func (m QuorumFetchResponse) String() string {
	var b strings.Builder
	b.WriteString("QuorumFetchResponse")
	errWord(&b, m.Error)
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	kv(&b, "leader", m.LeaderID.String())
	kvInt(&b, "hw", m.HighWatermark)
	kvInt(&b, "logStart", m.LogStartOffset)
	if m.HasDiverging {
		kv(&b, "diverging", m.Diverging.String())
	}
	if m.HasSnapshot {
		kv(&b, "snapshot", itoa(int64(m.SnapshotEpoch))+"@"+itoa(m.SnapshotOffset))
	}
	quorumBatchRanges(&b, m.Batches)
	return b.String()
}

// Digest covers every field.
func (m QuorumFetchResponse) Digest() uint64 {
	return response(apiQuorumFetch).Error(m.Error).Epoch(m.LeaderEpoch).Broker(m.LeaderID).
		Int64(m.HighWatermark).Int64(m.LogStartOffset).Bool(m.HasDiverging).
		Epoch(m.Diverging.Epoch).Offset(m.Diverging.EndOffset).Bool(m.HasSnapshot).
		Int64(m.SnapshotOffset).Epoch(m.SnapshotEpoch).quorumBatches(m.Batches).Sum()
}

// FetchSnapshotRequest asks the leader for its snapshot ending at
// SnapshotOffset (KIP-630). kafkasim sends a snapshot in one piece.
type FetchSnapshotRequest struct {
	ReplicaID          BrokerID
	CurrentLeaderEpoch Epoch
	SnapshotOffset     int64
	SnapshotEpoch      Epoch
}

// String reads "FetchSnapshot b101 epoch=3 snapshot=2@40".
func (m FetchSnapshotRequest) String() string {
	var b strings.Builder
	b.WriteString("FetchSnapshot ")
	b.WriteString(m.ReplicaID.String())
	kvInt(&b, "epoch", int64(m.CurrentLeaderEpoch))
	kv(&b, "snapshot", itoa(int64(m.SnapshotEpoch))+"@"+itoa(m.SnapshotOffset))
	return b.String()
}

// Digest covers every field.
func (m FetchSnapshotRequest) Digest() uint64 {
	return request(apiFetchSnapshot).Broker(m.ReplicaID).Epoch(m.CurrentLeaderEpoch).
		Int64(m.SnapshotOffset).Epoch(m.SnapshotEpoch).Sum()
}

// FetchSnapshotResponse carries the whole snapshot, or an error
// (SNAPSHOT_NOT_FOUND when the leader has replaced it since).
type FetchSnapshotResponse struct {
	Error          ErrorCode
	LeaderEpoch    Epoch
	LeaderID       BrokerID
	SnapshotOffset int64
	SnapshotEpoch  Epoch
	Data           []byte
}

// String reads "FetchSnapshotResponse NONE epoch=3 leader=b100
// snapshot=2@40 bytes=812".
func (m FetchSnapshotResponse) String() string {
	var b strings.Builder
	b.WriteString("FetchSnapshotResponse")
	errWord(&b, m.Error)
	kvInt(&b, "epoch", int64(m.LeaderEpoch))
	kv(&b, "leader", m.LeaderID.String())
	kv(&b, "snapshot", itoa(int64(m.SnapshotEpoch))+"@"+itoa(m.SnapshotOffset))
	kvInt(&b, "bytes", int64(len(m.Data)))
	return b.String()
}

// Digest covers every field.
func (m FetchSnapshotResponse) Digest() uint64 {
	return response(apiFetchSnapshot).Error(m.Error).Epoch(m.LeaderEpoch).Broker(m.LeaderID).
		Int64(m.SnapshotOffset).Epoch(m.SnapshotEpoch).Bytes(m.Data).Sum()
}
