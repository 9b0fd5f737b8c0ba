package model

import (
	"reflect"
	"testing"
	"time"
)

// raftGoldenMessages pairs every quorum message, each field set, with its
// one-line description.
func raftGoldenMessages() []golden {
	batches := []QuorumBatch{{BaseOffset: 18, Epoch: 3, Control: true, Entries: [][]byte{{1}}},
		{BaseOffset: 19, Epoch: 3, Entries: [][]byte{[]byte("ab"), []byte("c")}}}
	return []golden{
		{VoteRequest{CandidateEpoch: 3, CandidateID: 100, LastOffsetEpoch: 2, LastOffset: 17, PreVote: true},
			"Vote b100 epoch=3 last=2@17 preVote"},
		{VoteResponse{Error: FencedLeaderEpoch, LeaderEpoch: 4, LeaderID: 101, VoteGranted: true, PreVote: true},
			"VoteResponse FENCED_LEADER_EPOCH epoch=4 leader=b101 granted preVote"},
		{BeginQuorumEpochRequest{LeaderEpoch: 3, LeaderID: 100}, "BeginQuorumEpoch b100 epoch=3"},
		{BeginQuorumEpochResponse{Error: FencedLeaderEpoch, LeaderEpoch: 3, LeaderID: 100},
			"BeginQuorumEpochResponse FENCED_LEADER_EPOCH epoch=3 leader=b100"},
		{QuorumFetchRequest{ReplicaID: 101, CurrentLeaderEpoch: 3, FetchOffset: 18, LastFetchedEpoch: 2, HighWatermark: 17, MaxWait: 500 * time.Millisecond},
			"QuorumFetch b101 epoch=3 off=18 lastEpoch=2 hw=17 maxWait=500ms"},
		{QuorumFetchResponse{Error: NotLeaderOrFollower, LeaderEpoch: 3, LeaderID: 100, HighWatermark: 17, LogStartOffset: 1,
			HasDiverging: true, Diverging: EpochEndOffset{Epoch: 2, EndOffset: 15}, HasSnapshot: true, SnapshotOffset: 40,
			SnapshotEpoch: 2, Batches: batches},
			"QuorumFetchResponse NOT_LEADER_OR_FOLLOWER epoch=3 leader=b100 hw=17 logStart=1 diverging=2@15 snapshot=2@40 [18..18]e3c [19..20]e3"},
		{FetchSnapshotRequest{ReplicaID: 101, CurrentLeaderEpoch: 3, SnapshotOffset: 40, SnapshotEpoch: 2},
			"FetchSnapshot b101 epoch=3 snapshot=2@40"},
		{FetchSnapshotResponse{Error: SnapshotNotFound, LeaderEpoch: 3, LeaderID: 100, SnapshotOffset: 40, SnapshotEpoch: 2, Data: []byte("xyz")},
			"FetchSnapshotResponse SNAPSHOT_NOT_FOUND epoch=3 leader=b100 snapshot=2@40 bytes=3"},
	}
}

func TestRaftMessageStrings(t *testing.T) {
	for _, g := range raftGoldenMessages() {
		if got := g.m.String(); got != g.want {
			t.Errorf("%T:\n got %s\nwant %s", g.m, got, g.want)
		}
	}
}

// TestRaftMessageDigests holds the quorum messages to the rules every
// message follows: every field reaches the digest, kinds differ (also
// from the other messages), and Digest does not allocate.
func TestRaftMessageDigests(t *testing.T) {
	seen := map[uint64]string{}
	for _, g := range append(goldenMessages(), raftGoldenMessages()...) {
		zero := reflect.Zero(reflect.TypeOf(g.m)).Interface().(Message)
		name := reflect.TypeOf(g.m).Name()
		if other, dup := seen[zero.Digest()]; dup {
			t.Errorf("zero %s and zero %s digest alike", name, other)
		}
		seen[zero.Digest()] = name
	}
	for _, g := range raftGoldenMessages() {
		base := g.m.Digest()
		forEachMutation(reflect.ValueOf(g.m), func(path string, mutated reflect.Value) {
			if mutated.Interface().(Message).Digest() == base {
				t.Errorf("%T: changing %s leaves the digest unchanged", g.m, path)
			}
		})
		m := g.m
		if a := testing.AllocsPerRun(100, func() { m.Digest() }); a != 0 {
			t.Errorf("%T.Digest allocates %.0f times", m, a)
		}
	}
}

func TestSnapshotNotFoundCode(t *testing.T) {
	if SnapshotNotFound != 98 || SnapshotNotFound.String() != "SNAPSHOT_NOT_FOUND" {
		t.Fatalf("SNAPSHOT_NOT_FOUND is %d %s", SnapshotNotFound, SnapshotNotFound)
	}
}
