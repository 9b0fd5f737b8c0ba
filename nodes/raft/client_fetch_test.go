package raft

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// The fetch, truncation, high-watermark and commit cases of Kafka's
// KafkaRaftClientTest, against one Raft among scripted peers. Offsets are
// one-based (see client_election_test.go): Kafka's fetch offset N is
// FetchOffset N+1 here, its log end offset and high watermark N are the
// same N.

// batchOf is a batch of values in epoch starting at base.
func batchOf(base int64, epoch model.Epoch, values ...string) model.QuorumBatch {
	b := model.QuorumBatch{BaseOffset: base, Epoch: epoch}
	for _, v := range values {
		b.Entries = append(b.Entries, []byte(v))
	}
	return b
}

// wantFetch takes the last fetch sent to the peer and checks it.
func (c *clientContext) wantFetch(to model.BrokerID, epoch model.Epoch, offset int64, lastEpoch model.Epoch) model.QuorumFetchRequest {
	c.t.Helper()
	f := lastSent[model.QuorumFetchRequest](c, to)
	if f.CurrentLeaderEpoch != epoch || f.FetchOffset != offset || f.LastFetchedEpoch != lastEpoch {
		c.t.Fatalf("fetch %v to %v, want epoch %d offset %d after epoch %d", f, to, epoch, offset, lastEpoch)
	}
	return f
}

// wantFetchResponse takes the last fetch response sent to the peer and
// checks its error, epoch and leader.
func (c *clientContext) wantFetchResponse(to model.BrokerID, err model.ErrorCode, epoch model.Epoch, leader model.BrokerID) model.QuorumFetchResponse {
	c.t.Helper()
	r := lastSent[model.QuorumFetchResponse](c, to)
	if r.Error != err || r.LeaderEpoch != epoch || r.LeaderID != leader {
		c.t.Fatalf("fetch response %v to %v, want %v epoch %d leader %v", r, to, err, epoch, leader)
	}
	return r
}

func (c *clientContext) wantEnd(end int64) {
	c.t.Helper()
	if got := c.raft().EndOffset(); got != end {
		c.t.Fatalf("log ends at %d, want %d", got, end)
	}
}

func (c *clientContext) wantHW(hw int64) {
	c.t.Helper()
	if got := c.raft().HighWatermark(); got != hw {
		c.t.Fatalf("high watermark %d, want %d", got, hw)
	}
}

// wantApplied checks the values the state machine holds.
func (c *clientContext) wantApplied(values ...string) {
	c.t.Helper()
	if got := c.host().sm.values; !slices.Equal(got, values) {
		c.t.Fatalf("applied %q, want %q", got, values)
	}
}

// Kafka: KafkaRaftClientTest.testFollowerReplication
func TestFollowerReplication(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 3, "a", "b")}})
	c.wantEnd(2)
	// Appended and synced before the next fetch says it holds them.
	c.wantFetch(2, 5, 3, 3)
}

// kafkasim syncs every append, so this is Kafka's run with always-flush;
// an observer's unflushed tail is not modeled.
//
// Kafka: KafkaRaftClientTest.testObserverReplication
func TestObserverReplication(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{2}, asObserver(), withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 3, "a", "b")}})
	c.wantEnd(2)
}

// Kafka: KafkaRaftClientTest.testEmptyRecordSetInFetchResponse
func TestEmptyRecordSetInFetchResponse(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0})
	c.wantEnd(0)
	c.wantHW(0)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 5, "a", "b")}})
	c.wantEnd(2)
	c.wantHW(0)
	c.wantFetch(2, 5, 3, 5)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 2})
	c.wantEnd(2)
	c.wantHW(2)
}

// Kafka: KafkaRaftClientTest.testFetchResponseIgnoredAfterBecomingCandidate
func TestFetchResponseIgnoredAfterBecomingCandidate(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.runUntil("prospective", DefaultFetchTimeout+2*contextLatency, func() bool { return c.raft().Role() == "prospective" })
	c.grantPreVotes()
	c.wantState("candidate", 6, model.NoBroker, 1)
	// The answer to the fetch sent to the old leader comes in late.
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 3, "a", "b")}})
	c.wantEnd(0)
	c.wantState("candidate", 6, model.NoBroker, 1)
}

// Kafka: KafkaRaftClientTest.testFetchResponseIgnoredAfterBecomingFollowerOfDifferentLeader
func TestFetchResponseIgnoredAfterBecomingFollowerOfDifferentLeader(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2, 3}, withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(3, model.BeginQuorumEpochRequest{LeaderEpoch: 6, LeaderID: 3})
	c.wantState("follower", 6, 3, model.NoBroker)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 3, "a", "b")}})
	c.wantEnd(0)
	c.wantState("follower", 6, 3, model.NoBroker)
}

// Kafka: KafkaRaftClientTest.testFollowerLogReconciliation
func TestFollowerLogReconciliation(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withElectedLeader(5, 2),
		appendToLog(3, "foo", "bar"), appendToLog(3, "baz"))
	c.wantEnd(3)
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 4, 3)
	// The leader's epoch 3 ended at offset 2.
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 1, HasDiverging: true,
		Diverging: model.EpochEndOffset{Epoch: 3, EndOffset: 2}})
	c.wantEnd(2)
	// The truncation is synced (Kafka's first unflushed offset is 2).
	disk := c.s.Disk(1)
	if durable, _ := disk.Durable("__cluster_metadata-0/log"); int64(len(durable)) != disk.Size("__cluster_metadata-0/log") {
		t.Fatalf("%d of the log's %d bytes are synced", len(durable), disk.Size("__cluster_metadata-0/log"))
	}
	c.wantFetch(2, 5, 3, 3)
}

// Kafka: KafkaRaftClientTest.testLeaderImmediatelySendsDivergingEpoch
func TestLeaderImmediatelySendsDivergingEpoch(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(5),
		appendToLog(1, "a", "b", "c"), appendToLog(3, "d", "e", "f"), appendToLog(5, "g", "h", "i"))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	// The fetcher holds 6 entries, the last of epoch 2, which this log
	// never had: its epoch 1 ends at 3.
	c.deliver(2, fetchRequest(2, epoch, 7, 2, 500*time.Millisecond))
	r := c.wantFetchResponse(2, model.NoError, epoch, 1)
	if !r.HasDiverging || r.Diverging.Epoch != 1 || r.Diverging.EndOffset != 3 {
		t.Fatalf("fetch response %v, want diverging epoch 1 ending at 3", r)
	}
}

// Kafka: KafkaRaftClientTest.testInvalidFetchRequest
func TestInvalidFetchRequest(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	for _, f := range []model.QuorumFetchRequest{
		fetchRequest(2, epoch, -4, 0, 0),                // Kafka's fetch offset -5
		fetchRequest(2, epoch, 1, -1, 0),                // a negative last fetched epoch
		fetchRequest(2, epoch, 1, epoch+1, 0),           // a last fetched epoch after the current
		fetchRequest(2, epoch, 1, 0, -time.Millisecond), // a negative wait
	} {
		c.deliver(2, f)
		c.wantFetchResponse(2, model.InvalidRequest, epoch, 1)
	}
	c.deliver(2, fetchRequest(2, epoch+1, 1, 0, 0))
	c.wantFetchResponse(2, model.UnknownLeaderEpoch, epoch, 1)
}

// kafkasim's fetch carries the fetcher's high watermark (KIP-1166, later
// than the mirrored Kafka): a leader that knows a higher one answers at
// once. So the follower here first learns that the LeaderChange entry is
// committed, and the fetch that waits is the next one.
func (c *clientContext) parkFetch(from model.BrokerID, epoch model.Epoch) {
	c.t.Helper()
	c.deliver(from, fetchRequest(from, epoch, c.raft().EndOffset()+1, epoch, 500*time.Millisecond))
	c.wantFetchResponse(from, model.NoError, epoch, c.local)
	f := fetchRequest(from, epoch, c.raft().EndOffset()+1, epoch, 500*time.Millisecond)
	f.HighWatermark = c.raft().HighWatermark()
	c.deliver(from, f)
	noneSent[model.QuorumFetchResponse](c, from)
}

// Kafka: KafkaRaftClientTest.testPurgatoryFetchTimeout
func TestPurgatoryFetchTimeout(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	c.parkFetch(2, epoch)
	c.run(500 * time.Millisecond)
	if r := c.wantFetchResponse(2, model.NoError, epoch, 1); len(r.Batches) != 0 {
		t.Fatalf("the expired fetch got %v", r.Batches)
	}
}

// Kafka: KafkaRaftClientTest.testPurgatoryFetchSatisfiedByWrite
func TestPurgatoryFetchSatisfiedByWrite(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	c.parkFetch(2, epoch)
	c.run(contextLatency) // the LeaderChange entry is applied: the leader is usable
	if _, ok := c.raft().Propose(c.env(), [][]byte{[]byte("a"), []byte("b"), []byte("c")}); !ok {
		t.Fatal("the leader refused the append")
	}
	c.run(2 * contextLatency)
	r := c.wantFetchResponse(2, model.NoError, epoch, 1)
	if got, want := batchValues(r.Batches), []string{"5@2:a", "5@2:b", "5@2:c"}; !slices.Equal(got, want) {
		t.Fatalf("the parked fetch got %v, want %v", got, want)
	}
}

// Kafka: KafkaRaftClientTest.testPurgatoryFetchCompletedByFollowerTransition
func TestPurgatoryFetchCompletedByFollowerTransition(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2, 3}, withUnknownLeader(4))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	c.parkFetch(2, epoch)
	c.deliver(3, model.BeginQuorumEpochRequest{LeaderEpoch: epoch + 1, LeaderID: 3})
	c.wantState("follower", epoch+1, 3, model.NoBroker)
	if b := lastSent[model.BeginQuorumEpochResponse](c, 3); b.Error != model.NoError || b.LeaderEpoch != epoch+1 || b.LeaderID != 3 {
		t.Fatalf("BeginQuorumEpoch response %v", b)
	}
	// The parked fetch is answered at once, with the news.
	if r := c.wantFetchResponse(2, model.NotLeaderOrFollower, epoch+1, 3); len(r.Batches) != 0 {
		t.Fatalf("the failed fetch carried %v", r.Batches)
	}
}

// Kafka: KafkaRaftClientTest.testFetchShouldBeTreatedAsLeaderAcknowledgement
func TestFetchShouldBeTreatedAsLeaderAcknowledgement(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4))
	c.becomeCandidate()
	c.grantVotes()
	c.wantState("leader", 5, 1, 1)
	lastSent[model.BeginQuorumEpochRequest](c, 2)
	if got := c.raft().lead.nonAcknowledging(); !slices.Equal(got, []model.BrokerID{2}) {
		t.Fatalf("before any answer the unacknowledged voters are %v", got)
	}
	// No BeginQuorumEpoch answer, only a fetch.
	c.deliver(2, fetchRequest(2, 5, 1, 0, 500*time.Millisecond))
	c.wantFetchResponse(2, model.NoError, 5, 1)
	if got := c.raft().lead.nonAcknowledging(); len(got) != 0 {
		t.Fatalf("after a fetch the unacknowledged voters are %v", got)
	}
}

// Kafka: KafkaRaftClientTest.testInitializeObserverNoPreviousState
func TestInitializeObserverNoPreviousState(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{2, 3}, asObserver())
	c.run(2 * contextLatency)
	c.wantFetch(2, 0, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{Error: model.FencedLeaderEpoch, LeaderEpoch: 5, LeaderID: 2, HighWatermark: -1})
	c.wantState("follower", 5, 2, model.NoBroker)
}

// kafkasim's observer finds the quorum through the voters in turn (its
// controller.quorum.voters), where Kafka's may use bootstrap servers.
//
// Kafka: KafkaRaftClientTest.testObserverSendDiscoveryFetchAfterFetchTimeout
func TestObserverSendDiscoveryFetchAfterFetchTimeout(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{2, 3}, asObserver())
	c.run(2 * contextLatency)
	c.wantFetch(2, 0, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{Error: model.FencedLeaderEpoch, LeaderEpoch: 5, LeaderID: 2, HighWatermark: -1})
	c.wantState("follower", 5, 2, model.NoBroker)
	sentTo[model.QuorumFetchRequest](c, 2)
	c.runUntil("fetching elsewhere", DefaultFetchTimeout+2*contextLatency, func() bool { return len(c.peers[3].got) > 0 })
	c.wantFetch(3, 5, 1, 0)
}

// Kafka's case then has the observer grant a vote, which kafkasim's
// observers never do (their voter set is fixed; KIP-853 not modeled).
//
// Kafka: KafkaRaftClientTest.testFollowerAsObserverDoesNotBecomeCandidateAfterFetchTimeout
func TestFollowerAsObserverDoesNotBecomeCandidateAfterFetchTimeout(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{2}, asObserver(), withElectedLeader(5, 2), appendToLog(3, "foo"))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 2, 3)
	c.run(DefaultFetchTimeout + 10*time.Millisecond)
	noneSent[model.VoteRequest](c, 2)
	if r := c.raft(); r.Role() == "prospective" || r.Role() == "candidate" || r.Epoch() != 5 {
		t.Fatalf("the observer is %s in epoch %d after the fetch timeout", r.Role(), r.Epoch())
	}
}

// As above, kafkasim's observer grants no votes.
//
// Kafka: KafkaRaftClientTest.testUnattachedAsObserverDoesNotBecomeCandidateAfterElectionTimeout
func TestUnattachedAsObserverDoesNotBecomeCandidateAfterElectionTimeout(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{2}, asObserver(), withUnknownLeader(5))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.run(2 * DefaultElectionTimeout)
	noneSent[model.VoteRequest](c, 2)
	if r := c.raft(); r.Role() != "unattached" {
		t.Fatalf("the observer is %s after the election timeout", r.Role())
	}
	if got := sentTo[model.QuorumFetchRequest](c, 2); len(got) == 0 {
		t.Fatal("the observer stopped looking for the leader")
	}
}

// Kafka: KafkaRaftClientTest.testHandleCommitCallbackFiresAfterFollowerHighWatermarkAdvances
func TestHandleCommitCallbackFiresAfterFollowerHighWatermarkAdvances(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withElectedLeader(5, 2))
	c.run(2 * contextLatency)
	c.wantFetch(2, 5, 1, 0)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 0, Batches: []model.QuorumBatch{batchOf(1, 3, "a", "b", "c")}})
	c.wantHW(0)
	c.wantApplied()
	c.wantFetch(2, 5, 4, 3)
	c.deliver(2, model.QuorumFetchResponse{LeaderEpoch: 5, LeaderID: 2, HighWatermark: 3, Batches: []model.QuorumBatch{batchOf(4, 3, "d", "e", "f")}})
	c.wantHW(3)
	c.wantApplied("a", "b", "c")
	if s := c.host().sm; s.isMe {
		t.Fatal("a follower was told it leads")
	}
}

// commitAsLeader: leader of the epoch after 6 over Kafka's log of nine
// values in epochs 2 and 4, with the LeaderChange entry committed by a
// fetch from voter 2.
func commitAsLeader(t *testing.T, maxWait time.Duration) *clientContext {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(6),
		appendToLog(2, "a", "b", "c"), appendToLog(4, "d", "e", "f"), appendToLog(4, "g", "h", "i"))
	c.becomeLeader()
	c.wantEnd(10)
	c.deliver(2, fetchRequest(2, 7, 11, 7, maxWait))
	c.wantFetchResponse(2, model.NoError, 7, 1)
	c.wantHW(10)
	return c
}

// Kafka: KafkaRaftClientTest.testHandleCommitCallbackFiresInVotedState
func TestHandleCommitCallbackFiresInVotedState(t *testing.T) {
	c := commitAsLeader(t, 500*time.Millisecond)
	c.deliver(2, model.VoteRequest{CandidateEpoch: 8, CandidateID: 2, LastOffsetEpoch: 7, LastOffset: 10})
	c.wantState("unattached", 8, model.NoBroker, 2)
	c.wantHW(10)
	c.wantApplied("a", "b", "c", "d", "e", "f", "g", "h", "i")
	if s := c.host().sm; s.isMe || s.leader != model.NoBroker {
		t.Fatalf("a voter with no leader was told leader %v isMe %v", s.leader, s.isMe)
	}
}

// Kafka: KafkaRaftClientTest.testHandleCommitCallbackFiresInCandidateState
func TestHandleCommitCallbackFiresInCandidateState(t *testing.T) {
	c := commitAsLeader(t, 0)
	// A vote request from a candidate whose log is behind: refused, but
	// its epoch is taken.
	c.deliver(2, model.VoteRequest{CandidateEpoch: 8, CandidateID: 2, LastOffsetEpoch: 7, LastOffset: 9})
	c.wantState("unattached", 8, model.NoBroker, model.NoBroker)
	c.wantHW(10)
	c.becomeCandidate()
	c.wantState("candidate", 9, model.NoBroker, 1)
	c.wantApplied("a", "b", "c", "d", "e", "f", "g", "h", "i")
}

// Kafka: KafkaRaftClientTest.testLeaderAppendSingleMemberQuorum
func TestLeaderAppendSingleMemberQuorum(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1}, withPeers(2))
	c.run(10 * time.Millisecond)
	c.wantState("leader", 1, 1, 1)
	c.wantHW(1)
	if _, ok := c.raft().Propose(c.env(), [][]byte{[]byte("a"), []byte("b"), []byte("c")}); !ok {
		t.Fatal("the lone leader refused the append")
	}
	c.run(contextLatency)
	c.wantHW(4)
	// An observer reads the log from the start: the LeaderChange batch,
	// then the appended one.
	var got []model.QuorumBatch
	for off, last := int64(1), model.Epoch(0); ; {
		c.deliver(2, fetchRequest(2, 1, off, last, 0))
		r := c.wantFetchResponse(2, model.NoError, 1, 1)
		if len(r.Batches) == 0 {
			break
		}
		got = append(got, r.Batches...)
		b := r.Batches[len(r.Batches)-1]
		off, last = b.LastOffset()+1, b.Epoch
	}
	if len(got) != 2 || !got[0].Control || got[1].Control || got[1].Epoch != 1 {
		t.Fatalf("the observer read %v", got)
	}
	wantLeaderChange(t, c.raft(), 1, 1, []model.BrokerID{1})
	if v := batchValues(got[1:]); !slices.Equal(v, []string{"1@2:a", "1@2:b", "1@2:c"}) {
		t.Fatalf("the appended batch reads %v", v)
	}
}

// Kafka: KafkaRaftClientTest.testListenerCommitCallbackAfterLeaderWrite
func TestListenerCommitCallbackAfterLeaderWrite(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4))
	c.becomeLeader()
	epoch := c.raft().Epoch()
	if _, known := c.raft().lead.highWatermark(); known {
		t.Fatal("a new leader has a high watermark before any fetch")
	}
	c.wantEnd(1)
	c.deliver(2, fetchRequest(2, epoch, 2, epoch, 0))
	c.wantFetchResponse(2, model.NoError, epoch, 1)
	c.wantHW(1)
	c.run(contextLatency)
	off, ok := c.raft().Propose(c.env(), [][]byte{[]byte("a"), []byte("b"), []byte("c")})
	if !ok || off != 2 {
		t.Fatalf("append at %d (%v), want at 2", off, ok)
	}
	c.run(contextLatency)
	c.wantApplied()
	// A fetch that does not hold the append yet commits nothing new.
	c.deliver(2, fetchRequest(2, epoch, 2, epoch, 500*time.Millisecond))
	c.wantFetchResponse(2, model.NoError, epoch, 1)
	c.wantHW(1)
	c.wantApplied()
	c.deliver(2, fetchRequest(2, epoch, 5, epoch, 500*time.Millisecond))
	c.wantHW(4)
	c.wantApplied("a", "b", "c")
}

// The leader is told it leads (LeaderChanged with isMe, Kafka's
// handleLeaderChange claiming the epoch) only once everything up to its
// LeaderChange entry is committed and applied.
//
// Kafka: KafkaRaftClientTest.testHandleLeaderChangeFiresAfterListenerReachesEpochStartOffset
func TestHandleLeaderChangeFiresAfterListenerReachesEpochStartOffset(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2}, withUnknownLeader(4),
		appendToLog(1, "1", "2", "3"), appendToLog(1, "4", "5", "6"), appendToLog(2, "7", "8", "9"))
	c.becomeLeader()
	c.wantEnd(10)
	sm := c.host().sm
	if sm.isMe || len(sm.values) != 0 {
		t.Fatalf("before any fetch: told isMe %v, applied %v", sm.isMe, sm.values)
	}
	c.deliver(2, fetchRequest(2, 5, 4, 1, 500*time.Millisecond))
	if sm.isMe || len(sm.values) != 0 {
		t.Fatalf("after a fetch from offset 4: told isMe %v, applied %v", sm.isMe, sm.values)
	}
	c.deliver(2, fetchRequest(2, 5, 11, 5, 500*time.Millisecond))
	c.wantHW(10)
	c.wantApplied("1", "2", "3", "4", "5", "6", "7", "8", "9")
	if !sm.isMe || sm.epoch != 5 || !c.raft().IsLeader() {
		t.Fatalf("after the LeaderChange entry committed: told isMe %v in epoch %d", sm.isMe, sm.epoch)
	}
}

// Kafka: KafkaRaftClientTest.testHandleLeaderChangeFiresAfterListenerReachesEpochStartOffsetOnEmptyLog
func TestHandleLeaderChangeFiresAfterListenerReachesEpochStartOffsetOnEmptyLog(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2})
	c.becomeLeader()
	c.wantEnd(1)
	sm := c.host().sm
	c.deliver(2, fetchRequest(2, 1, 1, 0, 0))
	if sm.isMe || c.raft().HighWatermark() != 0 {
		t.Fatalf("after a fetch holding nothing: told isMe %v, high watermark %d", sm.isMe, c.raft().HighWatermark())
	}
	c.deliver(2, fetchRequest(2, 1, 2, 1, 0))
	c.wantHW(1)
	if !sm.isMe || sm.epoch != 1 {
		t.Fatalf("after the LeaderChange entry committed: told isMe %v in epoch %d", sm.isMe, sm.epoch)
	}
}
