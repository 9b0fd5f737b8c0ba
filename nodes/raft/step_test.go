package raft

import (
	"slices"
	"testing"

	"kafkasim/model"
)

// Rules that only one role's step applies, which the ported Kafka cases do
// not reach.

// A follower that has heard from its leader within the fetch timeout
// refuses a pre-vote, and grants it to the same log when it has not
// (FollowerState.canGrantVote; KafkaRaftClientPreVoteTest has the cases).
func TestAFollowerRefusesAPreVoteOnlyWhileItHearsFromItsLeader(t *testing.T) {
	preVote := model.VoteRequest{CandidateEpoch: 3, CandidateID: 2, LastOffsetEpoch: 0, LastOffset: 0, PreVote: true}

	heard := newClientContext(t, 1, []model.BrokerID{1, 2, 3}, withElectedLeader(2, 3))
	heard.deliver(3, model.QuorumFetchResponse{LeaderEpoch: 2, LeaderID: 3, HighWatermark: 0})
	heard.deliver(2, preVote)
	if resp := lastSent[model.VoteResponse](heard, 2); resp.Error != model.NoError || resp.VoteGranted {
		t.Fatalf("a follower that just heard from its leader answered the pre-vote %v, want refused", resp)
	}
	heard.wantState("follower", 2, 3, model.NoBroker)

	silent := newClientContext(t, 1, []model.BrokerID{1, 2, 3}, withElectedLeader(2, 3))
	silent.deliver(2, preVote)
	if resp := lastSent[model.VoteResponse](silent, 2); resp.Error != model.NoError || !resp.VoteGranted {
		t.Fatalf("a follower that never heard from its leader answered the pre-vote %v, want granted", resp)
	}
	// A pre-vote changes nothing.
	silent.wantState("follower", 2, 3, model.NoBroker)
}

// The leader records a voter's answer to BeginQuorumEpoch in its epoch as
// an acknowledgement (KafkaRaftClient.handleBeginQuorumEpochResponse); an
// answer from an older epoch is not one.
func TestALeaderCountsBeginQuorumEpochAnswersOfItsEpoch(t *testing.T) {
	c := newClientContext(t, 1, []model.BrokerID{1, 2, 3})
	c.becomeCandidate()
	c.grantVotes()
	epoch := c.raft().Epoch()
	c.wantState("leader", epoch, 1, 1)
	if got := c.raft().lead.nonAcknowledging(); !slices.Equal(got, []model.BrokerID{2, 3}) {
		t.Fatalf("before any answer the unacknowledged voters are %v", got)
	}
	c.deliver(2, model.BeginQuorumEpochResponse{LeaderEpoch: epoch, LeaderID: 1})
	c.deliver(3, model.BeginQuorumEpochResponse{LeaderEpoch: epoch - 1, LeaderID: model.NoBroker})
	if got := c.raft().lead.nonAcknowledging(); !slices.Equal(got, []model.BrokerID{3}) {
		t.Fatalf("after answers from 2 (epoch %d) and 3 (epoch %d) the unacknowledged voters are %v, want [3]",
			epoch, epoch-1, got)
	}
	c.wantState("leader", epoch, 1, 1)
}
