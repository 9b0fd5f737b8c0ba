package raft

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// The cases of Kafka's LeaderStateTest, written from its inputs and
// expected outputs against leaderState. Kafka's leader there is node 0 in
// epoch 5 with a fetch timeout of 2 s; its offsets are zero-based, and a
// LeaderChange entry at Kafka's epochStartOffset E is kafkasim's offset
// E+1, while end offsets and high watermarks are the same numbers in both.
// Kafka runs several of these cases with and without directory ids
// (KIP-853); kafkasim's voters have none, which is Kafka's "without" run.

const (
	lsLocal        model.BrokerID = 0
	lsEpoch        model.Epoch    = 5
	lsFetchTimeout                = 2 * time.Second
)

// newTestLeaderState: the leader of epoch 5 whose LeaderChange entry sits
// at Kafka's zero-based epochStartOffset.
func newTestLeaderState(kafkaEpochStartOffset int64, voters ...model.BrokerID) *leaderState {
	return newLeaderState(lsLocal, lsEpoch, kafkaEpochStartOffset+1, append([]model.BrokerID{lsLocal}, voters...), 0, lsFetchTimeout)
}

func wantHW(t *testing.T, s *leaderState, want int64, known bool) {
	t.Helper()
	if hw, ok := s.highWatermark(); ok != known || known && hw != want {
		if known {
			t.Fatalf("high watermark %d (known %v), want %d", hw, ok, want)
		}
		t.Fatalf("high watermark %d known, want none yet", hw)
	}
}

func wantMoved(t *testing.T, what string, got, want bool) {
	t.Helper()
	if got != want {
		t.Fatalf("%s reported a move of the high watermark: %v, want %v", what, got, want)
	}
}

func wantNonAcked(t *testing.T, s *leaderState, want ...model.BrokerID) {
	t.Helper()
	if got := s.nonAcknowledging(); !slices.Equal(got, want) {
		t.Fatalf("non-acknowledging voters %v, want %v", got, want)
	}
}

// Kafka: LeaderStateTest.testFollowerAcknowledgement
func TestFollowerAcknowledgement(t *testing.T) {
	s := newTestLeaderState(0, 1, 2)
	wantNonAcked(t, s, 1, 2)
	s.acknowledge(1)
	wantNonAcked(t, s, 2)
	s.acknowledge(2)
	wantNonAcked(t, s)
}

// Kafka: LeaderStateTest.testNonFollowerAcknowledgement
func TestNonFollowerAcknowledgement(t *testing.T) {
	s := newTestLeaderState(0)
	if s.acknowledge(1) {
		t.Fatal("an acknowledgement from node 1, not a voter, was taken")
	}
	wantNonAcked(t, s)
}

// Kafka: LeaderStateTest.testUpdateHighWatermarkQuorumSizeOne
func TestUpdateHighWatermarkQuorumSizeOne(t *testing.T) {
	s := newTestLeaderState(15)
	wantHW(t, s, 0, false)
	wantMoved(t, "local end 15", s.updateLocal(15), false)
	wantNonAcked(t, s)
	wantHW(t, s, 0, false)
	wantMoved(t, "local end 16", s.updateLocal(16), true)
	wantHW(t, s, 16, true)
	wantMoved(t, "local end 20", s.updateLocal(20), true)
	wantHW(t, s, 20, true)
}

// Kafka: LeaderStateTest.testNonMonotonicLocalEndOffsetUpdate
func TestNonMonotonicLocalEndOffsetUpdate(t *testing.T) {
	s := newTestLeaderState(15)
	wantMoved(t, "local end 16", s.updateLocal(16), true)
	wantHW(t, s, 16, true)
	defer func() {
		if recover() == nil {
			t.Fatal("the leader's end going back from 16 to 15 was taken")
		}
	}()
	s.updateLocal(15)
}

// Kafka: LeaderStateTest.testIdempotentEndOffsetUpdate
func TestIdempotentEndOffsetUpdate(t *testing.T) {
	s := newTestLeaderState(15)
	wantHW(t, s, 0, false)
	wantMoved(t, "local end 16", s.updateLocal(16), true)
	wantMoved(t, "local end 16 again", s.updateLocal(16), false)
	wantHW(t, s, 16, true)
}

// Kafka: LeaderStateTest.testUpdateHighWatermarkQuorumSizeTwo
func TestUpdateHighWatermarkQuorumSizeTwo(t *testing.T) {
	s := newTestLeaderState(10, 1)
	wantMoved(t, "local end 13", s.updateLocal(13), false)
	wantNonAcked(t, s, 1)
	wantHW(t, s, 0, false)
	// Node 1 holds the entries before the LeaderChange entry only.
	wantMoved(t, "node 1 at 10", s.updateReplica(1, 0, 10), false)
	wantNonAcked(t, s)
	wantHW(t, s, 0, false)
	wantMoved(t, "node 1 at 11", s.updateReplica(1, 0, 11), true)
	wantHW(t, s, 11, true)
	wantMoved(t, "node 1 at 13", s.updateReplica(1, 0, 13), true)
	wantHW(t, s, 13, true)
}

// Kafka: LeaderStateTest.testUpdateHighWatermarkQuorumSizeThree
func TestUpdateHighWatermarkQuorumSizeThree(t *testing.T) {
	s := newTestLeaderState(10, 1, 2)
	wantMoved(t, "local end 15", s.updateLocal(15), false)
	wantNonAcked(t, s, 1, 2)
	wantHW(t, s, 0, false)
	wantMoved(t, "node 1 at 10", s.updateReplica(1, 0, 10), false)
	wantNonAcked(t, s, 2)
	wantHW(t, s, 0, false)
	wantMoved(t, "node 2 at 10", s.updateReplica(2, 0, 10), false)
	wantNonAcked(t, s)
	wantHW(t, s, 0, false)
	wantMoved(t, "node 2 at 15", s.updateReplica(2, 0, 15), true)
	wantHW(t, s, 15, true)
	wantMoved(t, "local end 20", s.updateLocal(20), false)
	wantHW(t, s, 15, true)
	wantMoved(t, "node 1 at 20", s.updateReplica(1, 0, 20), true)
	wantHW(t, s, 20, true)
	wantMoved(t, "node 2 at 20", s.updateReplica(2, 0, 20), false)
	wantHW(t, s, 20, true)
}

// Kafka: LeaderStateTest.testNonMonotonicHighWatermarkUpdate
func TestNonMonotonicHighWatermarkUpdate(t *testing.T) {
	s := newTestLeaderState(0, 1)
	s.updateLocal(10)
	s.updateReplica(1, 0, 10)
	wantHW(t, s, 10, true)
	// Node 1 lost its disk and fetches from further back: the high
	// watermark does not go back with it.
	wantMoved(t, "node 1 back at 5", s.updateReplica(1, 0, 5), false)
	wantHW(t, s, 10, true)
}

// Kafka: LeaderStateTest.testCheckQuorum
func TestCheckQuorum(t *testing.T) {
	const observer model.BrokerID = 5
	s := newTestLeaderState(0, 1, 2, 3, 4)
	timeout := lsFetchTimeout * 3 / 2
	now := time.Duration(0)
	if got := s.untilCheckQuorumExpires(now); got != timeout {
		t.Fatalf("a new leader's check quorum expires in %v, want %v", got, timeout)
	}
	now += timeout / 2
	if s.untilCheckQuorumExpires(now) <= 0 {
		t.Fatal("expired within the timeout")
	}
	// Two voters and the leader are a majority of five: the timer starts
	// over.
	s.updateCheckQuorum(1, now)
	s.updateCheckQuorum(2, now)
	if got := s.untilCheckQuorumExpires(now); got != timeout {
		t.Fatalf("after fetches from a majority: %v left, want %v", got, timeout)
	}
	now += timeout / 2
	remaining := s.untilCheckQuorumExpires(now)
	if remaining <= 0 {
		t.Fatal("expired within the timeout after the reset")
	}
	// One voter and one observer are not a majority: no reset.
	s.updateCheckQuorum(3, now)
	s.updateCheckQuorum(observer, now)
	if got := s.untilCheckQuorumExpires(now); got != remaining {
		t.Fatalf("fetches from one voter and an observer moved the deadline: %v left, want %v", got, remaining)
	}
	now += timeout / 2
	if got := s.untilCheckQuorumExpires(now); got != 0 {
		t.Fatalf("%v left after the timeout, want expired", got)
	}
}

// Kafka: LeaderStateTest.testCheckQuorumWithOneVoter
func TestCheckQuorumWithOneVoter(t *testing.T) {
	const observer model.BrokerID = 1
	s := newTestLeaderState(0)
	timeout := lsFetchTimeout * 3 / 2
	if got := s.untilCheckQuorumExpires(0); got != neverExpires {
		t.Fatalf("a lone voter's check quorum expires in %v", got)
	}
	if got := s.untilCheckQuorumExpires(timeout); got != neverExpires {
		t.Fatalf("a lone voter's check quorum expires in %v after the timeout", got)
	}
	s.updateCheckQuorum(observer, timeout)
	if got := s.untilCheckQuorumExpires(timeout); got != neverExpires {
		t.Fatalf("after an observer's fetch a lone voter's check quorum expires in %v", got)
	}
}

// Kafka: LeaderStateTest.testBeginQuorumEpochTimer
func TestBeginQuorumEpochTimer(t *testing.T) {
	s := newTestLeaderState(10, 1)
	every := lsFetchTimeout / 2
	now := time.Duration(0)
	if got := s.untilBeginQuorumEpoch(now); got != 0 {
		t.Fatalf("a new leader's first BeginQuorumEpoch is due in %v, want now", got)
	}
	now += 5 * time.Millisecond
	s.resetBeginQuorumEpoch(now)
	if got := s.untilBeginQuorumEpoch(now); got != every {
		t.Fatalf("after a reset the next is due in %v, want %v", got, every)
	}
	now += 5 * time.Millisecond
	if got := s.untilBeginQuorumEpoch(now); got != every-5*time.Millisecond {
		t.Fatalf("5 ms later the next is due in %v, want %v", got, every-5*time.Millisecond)
	}
	now += every
	if got := s.untilBeginQuorumEpoch(now); got != 0 {
		t.Fatalf("after the interval the next is due in %v, want now", got)
	}
}
