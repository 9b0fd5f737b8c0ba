package raft

import (
	"math"
	"slices"
	"time"

	"kafkasim/model"
)

// leaderState is what a leader keeps for its epoch, as Kafka's
// LeaderState: how far every voter has replicated, the high watermark
// that follows from it, the check-quorum timer and the BeginQuorumEpoch
// timer. It does no I/O and sends nothing; Raft asks it and acts.
//
// Offsets are kafkasim's (one-based, inclusive): a voter's end is the
// last offset it holds, which is the same number as Kafka's zero-based
// fetch offset or log end offset, and the high watermark is the last
// committed offset, the same number as Kafka's exclusive high watermark.
type leaderState struct {
	local model.BrokerID
	epoch model.Epoch
	// epochStart is the offset of this leader's LeaderChange entry: the
	// high watermark must reach it before the leader tells any (Kafka's
	// epochStartOffset, which is the same entry's zero-based offset).
	epochStart int64
	voters     []model.BrokerID // sorted, the leader among them
	replicas   map[model.BrokerID]*replicaState

	hw      int64
	hwKnown bool

	// fetched are the voters (the leader never among them) that fetched
	// since the check-quorum timer was last reset.
	fetched             []model.BrokerID
	checkQuorumTimeout  time.Duration
	checkQuorumDeadline time.Duration

	beginQuorumTimeout  time.Duration
	beginQuorumDeadline time.Duration
}

// replicaState is what the leader knows of one voter (Kafka's
// LeaderState.ReplicaState, for voters only: kafkasim's leader keeps no
// state for observers).
type replicaState struct {
	end       int64 // last offset the voter holds and matched; valid when hasEnd
	hasEnd    bool
	lastFetch time.Duration
	// acked: the voter knows this leader, by a fetch or by answering
	// BeginQuorumEpoch (the leader itself from the start).
	acked bool
}

// checkQuorumFactor is how many fetch timeouts a leader waits for a
// majority to fetch before it resigns (LeaderState.CHECK_QUORUM_TIMEOUT_FACTOR).
const checkQuorumFactor = 1.5

// neverExpires is what the timers of a single-voter quorum report.
const neverExpires = time.Duration(math.MaxInt64)

func newLeaderState(local model.BrokerID, epoch model.Epoch, epochStart int64, voters []model.BrokerID,
	now, fetchTimeout time.Duration) *leaderState {
	s := &leaderState{local: local, epoch: epoch, epochStart: epochStart, voters: slices.Sorted(slices.Values(voters)),
		replicas:           map[model.BrokerID]*replicaState{},
		checkQuorumTimeout: time.Duration(float64(fetchTimeout) * checkQuorumFactor),
		beginQuorumTimeout: fetchTimeout / 2}
	for _, v := range s.voters {
		s.replicas[v] = &replicaState{acked: v == local}
	}
	s.checkQuorumDeadline = now + s.checkQuorumTimeout
	// The first BeginQuorumEpoch is due at once (Kafka's timer of 0).
	s.beginQuorumDeadline = now
	return s
}

func (s *leaderState) isVoter(id model.BrokerID) bool { return s.replicas[id] != nil }

// updateLocal records the leader's own log end (synced) and reports
// whether the high watermark moved (LeaderState.updateLocalState). The
// leader's log never shrinks in its epoch: an end below the last one is a
// bug.
func (s *leaderState) updateLocal(end int64) bool {
	st := s.replicas[s.local]
	if st.hasEnd && end < st.end {
		panic("raft: the leader's log end went back from " + itoa(st.end) + " to " + itoa(end))
	}
	st.end, st.hasEnd = end, true
	return s.maybeUpdateHW()
}

// updateReplica records a voter's fetch that matched the leader's log up
// to end, at now, and reports whether the high watermark moved
// (LeaderState.updateReplicaState). A fetcher that is not a voter counts
// for nothing. A voter's end may go back (it lost its disk); the high
// watermark never does.
func (s *leaderState) updateReplica(id model.BrokerID, now time.Duration, end int64) bool {
	if id == s.local {
		panic("raft: a fetch from the leader itself")
	}
	st := s.replicas[id]
	if st == nil {
		return false
	}
	st.end, st.hasEnd, st.acked = end, true, true
	st.lastFetch = max(st.lastFetch, now)
	s.updateCheckQuorum(id, now)
	return s.maybeUpdateHW()
}

// maybeUpdateHW moves the high watermark to the largest end a majority
// of voters hold, provided it reaches this leader's LeaderChange entry
// (the leader commits an entry of its own epoch before it exposes earlier
// ones) and is higher than the current one
// (LeaderState.maybeUpdateHighWatermark).
func (s *leaderState) maybeUpdateHW() bool {
	var ends []int64
	for _, v := range s.voters {
		if st := s.replicas[v]; st.hasEnd {
			ends = append(ends, st.end)
		}
	}
	// The voters sorted by end, highest first, those with none last: the
	// candidate is the one at index len(voters)/2.
	idx := len(s.voters) / 2
	if idx >= len(ends) {
		return false
	}
	slices.Sort(ends)
	slices.Reverse(ends)
	cand := ends[idx]
	if cand < s.epochStart || s.hwKnown && cand <= s.hw {
		return false
	}
	s.hw, s.hwKnown = cand, true
	return true
}

// highWatermark is the leader's high watermark, once it has one.
func (s *leaderState) highWatermark() (int64, bool) { return s.hw, s.hwKnown }

// acknowledge records that a voter answered BeginQuorumEpoch in this
// epoch (LeaderState.addAcknowledgementFrom). It reports false for a node
// that is not a voter, where Kafka throws.
func (s *leaderState) acknowledge(id model.BrokerID) bool {
	st := s.replicas[id]
	if st == nil {
		return false
	}
	st.acked = true
	return true
}

// nonAcknowledging are the voters that have not yet shown they know this
// leader, in id order.
func (s *leaderState) nonAcknowledging() []model.BrokerID {
	var out []model.BrokerID
	for _, v := range s.voters {
		if !s.replicas[v].acked {
			out = append(out, v)
		}
	}
	return out
}

// updateCheckQuorum counts a voter's fetch for the check-quorum timer:
// once a majority (the leader counting itself) has fetched since the last
// reset, the timer starts over (LeaderState.updateCheckQuorumForFollowingVoter).
func (s *leaderState) updateCheckQuorum(id model.BrokerID, now time.Duration) {
	if !s.isVoter(id) || id == s.local {
		return
	}
	if !slices.Contains(s.fetched, id) {
		s.fetched = append(s.fetched, id)
	}
	if len(s.fetched) >= len(s.voters)/2 {
		s.fetched = s.fetched[:0]
		s.checkQuorumDeadline = now + s.checkQuorumTimeout
	}
}

// untilCheckQuorumExpires is how long until the leader must resign for
// want of fetches from a majority; 0 means now. A lone voter never does
// (LeaderState.timeUntilCheckQuorumExpires).
func (s *leaderState) untilCheckQuorumExpires(now time.Duration) time.Duration {
	if len(s.voters) == 1 {
		return neverExpires
	}
	return max(s.checkQuorumDeadline-now, 0)
}

// untilBeginQuorumEpoch is how long until BeginQuorumEpoch is due again
// (LeaderState.timeUntilBeginQuorumEpochTimerExpires); 0 means now.
func (s *leaderState) untilBeginQuorumEpoch(now time.Duration) time.Duration {
	return max(s.beginQuorumDeadline-now, 0)
}

// resetBeginQuorumEpoch starts the wait for the next BeginQuorumEpoch
// round, half a fetch timeout (LeaderState.resetBeginQuorumEpochTimer).
func (s *leaderState) resetBeginQuorumEpoch(now time.Duration) {
	s.beginQuorumDeadline = now + s.beginQuorumTimeout
}
