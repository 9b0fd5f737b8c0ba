package raft

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// Stepping by role. Every message of the quorum protocol and every timer
// of a role goes to the step function of the role the node has now, as in
// etcd's raft (raft.go: the step field, set by becomeFollower,
// becomeCandidate and becomeLeader to stepFollower, stepCandidate or
// stepLeader). KRaft splits the same work by epoch state: each of
// KafkaRaftClient's states (UnattachedState, ProspectiveState,
// CandidateState, LeaderState, FollowerState; ResignedState is kafkasim's
// unattached, see Start) has its own canGrantVote, and
// KafkaRaftClient.pollCurrentState chooses pollUnattached,
// pollProspective, pollCandidate, pollLeader or pollFollower. A role's
// step handles what the role does differently and leaves the rest to
// stepDefault, what every role does alike.

// stepFunc handles one event in a role: a quorum message from a peer, or a
// local event (one of the types below) with from set to this node. A vote
// request reaches it screened (stepMessage).
type stepFunc func(r *Raft, from model.BrokerID, ev any)

// stepMessage steps a quorum message in the node's role after what every
// role does first, as etcd's Step does before r.step: a vote request
// that is invalid, stale, or in a newer epoch is dealt with by screenVote.
func (r *Raft) stepMessage(from model.BrokerID, m sim.Message) {
	if v, ok := m.(model.VoteRequest); ok && !r.screenVote(from, v) {
		return
	}
	r.step(r, from, m)
}

// Local events: a role's timer that fired, stepped like a message (as
// etcd's ticks become MsgHup, MsgBeat and MsgCheckQuorum).
type (
	// electionTimedOut: the election timeout, or a lost round's backoff,
	// is over.
	electionTimedOut struct{}
	// fetchTimedOut: the fetch timeout may be over.
	fetchTimedOut struct{}
	// checkQuorumDue: the leader's check-quorum deadline may be over.
	checkQuorumDue struct{}
	// beginQuorumDue: the next round of BeginQuorumEpoch may be due.
	beginQuorumDue struct{}
	// commitDue: a lone voter's proposal is to be committed.
	commitDue struct{}
	// parkedFetchDue: the wait of the fetch parked from the event's
	// sender is over (if timer is still that fetch's).
	parkedFetchDue struct{ timer sim.TimerID }
)

// setRole takes up a role and, with it, its step function: the one place
// that pairs them.
func (r *Raft) setRole(ro role) {
	r.role = ro
	switch ro {
	case roleUnattached:
		r.step = stepUnattached
	case roleProspective:
		r.step = stepProspective
	case roleCandidate:
		r.step = stepCandidate
	case roleLeader:
		r.step = stepLeader
	case roleFollower:
		r.step = stepFollower
	}
}

// stepUnattached: in an epoch with no leader known, not standing
// (UnattachedState). A voter stands when its election timeout is over; an
// observer looks for the leader and, past the fetch timeout, asks the next
// voter (KafkaRaftClient.pollUnattached).
func stepUnattached(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteRequest:
		grant := r.grantsVote(m)
		if grant && !m.PreVote {
			r.recordVote(m.CandidateID)
			// A vote given restarts the wait: the candidate should have
			// time to win before this voter stands itself.
			r.armElection(r.randomIn(r.cfg.ElectionTimeout, 2*r.cfg.ElectionTimeout))
		}
		r.replyVote(from, m, grant)
	case electionTimedOut:
		if r.isVoter() {
			r.startPreVote()
		}
	case fetchTimedOut:
		// Only an observer fetches while unattached.
		if r.cfg.Observer {
			r.onFetchTimeout()
		}
	default:
		stepDefault(r, from, ev)
	}
}

// stepProspective: asking for pre-votes in the next epoch without moving
// to it (ProspectiveState, KIP-996), or backing off after a lost round.
func stepProspective(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteRequest:
		grant := r.grantsVote(m)
		if grant && !m.PreVote {
			// Voting for another, it gives up its own candidacy.
			r.recordVote(m.CandidateID)
			r.becomeUnattached(r.epoch)
		}
		r.replyVote(from, m, grant)
	case model.VoteResponse:
		if !r.learn(m.LeaderEpoch, m.LeaderID) && m.PreVote && !r.backingOff && m.LeaderEpoch <= r.epoch &&
			r.countVote(from, m.VoteGranted) {
			r.becomeCandidate()
		}
	case electionTimedOut:
		r.onElectionLost()
	default:
		stepDefault(r, from, ev)
	}
}

// stepCandidate: asking for votes in the epoch it began (CandidateState).
// It grants pre-votes to logs as up to date as its own, and no vote: it
// voted for itself.
func stepCandidate(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteRequest:
		r.replyVote(from, m, m.PreVote && r.logUpToDate(m.LastOffsetEpoch, m.LastOffset))
	case model.VoteResponse:
		if !r.learn(m.LeaderEpoch, m.LeaderID) && !m.PreVote && m.LeaderEpoch == r.epoch &&
			r.countVote(from, m.VoteGranted) {
			r.becomeLeader()
		}
	case electionTimedOut:
		r.onElectionLost()
	default:
		stepDefault(r, from, ev)
	}
}

// stepLeader: leading its epoch (LeaderState, KafkaRaftClient.pollLeader).
// It serves fetches and snapshots, records the voters that answer its
// BeginQuorumEpoch (KafkaRaftClient.handleBeginQuorumEpochResponse), and
// runs the check-quorum, BeginQuorumEpoch and commit timers. It grants no
// vote and no pre-vote (LeaderState.canGrantVote).
func stepLeader(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteRequest:
		r.replyVote(from, m, false)
	case model.BeginQuorumEpochResponse:
		if m.Error == model.NoError && m.LeaderEpoch == r.epoch {
			r.lead.acknowledge(from)
		} else {
			r.learn(m.LeaderEpoch, m.LeaderID)
		}
	case model.QuorumFetchRequest:
		r.handleFetch(from, m)
	case model.FetchSnapshotRequest:
		r.handleFetchSnapshot(from, m)
	case parkedFetchDue:
		r.onParkedExpired(from, m.timer)
	case checkQuorumDue:
		r.checkQuorum()
	case beginQuorumDue:
		r.sendBeginQuorumEpoch()
	case commitDue:
		r.updateLeaderHW()
	default:
		stepDefault(r, from, ev)
	}
}

// stepFollower: following a known leader and fetching from it
// (FollowerState, KafkaRaftClient.pollFollower). It grants a pre-vote only
// if it has not heard from its leader within the fetch timeout: if it has,
// the leader is alive and the asker is the one cut off. It grants no vote:
// it has a leader in its epoch (FollowerState.canGrantVote).
func stepFollower(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteRequest:
		heard := r.contact && r.env.Now()-r.lastContact < r.cfg.FetchTimeout
		r.replyVote(from, m, m.PreVote && !heard && r.logUpToDate(m.LastOffsetEpoch, m.LastOffset))
	case model.QuorumFetchRequest:
		// Refused, naming the leader it follows.
		r.refuseFetch(from, m, r.leader)
	case model.QuorumFetchResponse:
		r.handleFollowerFetchResponse(from, m)
	case fetchTimedOut:
		r.onFetchTimeout()
	default:
		stepDefault(r, from, ev)
	}
}

// stepDefault is what every role does with an event its own step does not
// take: follow news of a leader or a newer epoch, refuse the leader's
// requests naming no leader, take a fetch answer only if it makes this node
// follow the sender, and ignore the timers of other roles.
func stepDefault(r *Raft, from model.BrokerID, ev any) {
	switch m := ev.(type) {
	case model.VoteResponse:
		r.learn(m.LeaderEpoch, m.LeaderID)
	case model.BeginQuorumEpochRequest:
		r.handleBeginQuorumEpoch(from, m)
	case model.BeginQuorumEpochResponse:
		r.learn(m.LeaderEpoch, m.LeaderID)
	case model.QuorumFetchRequest:
		r.refuseFetch(from, m, model.NoBroker)
	case model.QuorumFetchResponse:
		r.handleFetchResponse(from, m)
	case model.FetchSnapshotRequest:
		r.refuseFetchSnapshot(from, m)
	case model.FetchSnapshotResponse:
		r.handleFetchSnapshotResponse(from, m)
	}
}
