package raft

import (
	"encoding/binary"
	"slices"
	"time"

	"kafkasim/model"
)

// Role changes. Each one that changes the epoch, the vote or the leader
// syncs the quorum state first (persist), then acts.

// leaveRole undoes what the current role had armed or held, whichever
// role it was (as etcd's reset does): what only a leader holds is empty or
// disarmed in any other role.
func (r *Raft) leaveRole() {
	// Parked fetches are answered with the news rather than left to time
	// out, once the new role is taken (answerUnparked).
	r.unparked = r.parkedIDs()
	for _, id := range r.unparked {
		r.env.Cancel(r.parked[id].timer)
		delete(r.parked, id)
	}
	r.env.Cancel(r.checkTimer)
	r.env.Cancel(r.beginTimer)
	r.checkTimer, r.beginTimer = 0, 0
	r.lead = nil
	r.env.Cancel(r.electionTimer)
	r.env.Cancel(r.fetchTimer)
	r.electionTimer, r.fetchTimer = 0, 0
	r.backingOff = false
	r.granted, r.refused = nil, nil
}

// answerUnparked answers the fetches a former leader held with
// NOT_LEADER_OR_FOLLOWER and what it knows now: the new epoch and the new
// leader if it follows one, so that the fetchers need not wait for their
// fetches to expire (KafkaRaftClient.onBecomeFollower completing the
// fetch purgatory). A leader that resigned names no leader, which tells
// its followers to stand at once (kafkasim's stand-in for EndQuorumEpoch).
func (r *Raft) answerUnparked(leader model.BrokerID) {
	for _, id := range r.unparked {
		r.env.Send(node(id), model.QuorumFetchResponse{Error: model.NotLeaderOrFollower, LeaderEpoch: r.epoch,
			LeaderID: leader, HighWatermark: -1})
	}
	r.unparked = nil
}

// becomeUnattached moves to epoch (at or above the current one) with no
// leader. A voter arms its election timeout; an observer looks for the
// leader.
func (r *Raft) becomeUnattached(epoch model.Epoch) {
	r.leaveRole()
	if epoch > r.epoch {
		r.epoch, r.votedFor = epoch, model.NoBroker
	}
	r.leader = model.NoBroker
	r.persist()
	r.setRole(roleUnattached)
	r.hwKnown = true
	r.answerUnparked(model.NoBroker)
	if r.isVoter() {
		r.armElection(r.randomIn(r.cfg.ElectionTimeout, 2*r.cfg.ElectionTimeout))
		return
	}
	r.armFetchTimeout()
	r.sendFetch()
}

// becomeFollower follows leader in epoch (at or above the current one)
// and starts fetching from it.
func (r *Raft) becomeFollower(epoch model.Epoch, leader model.BrokerID) {
	r.leaveRole()
	if leader != r.leader || epoch != r.epoch {
		r.contact = false // nothing heard from this leader yet
	}
	if epoch > r.epoch {
		r.epoch, r.votedFor = epoch, model.NoBroker
	}
	r.leader = leader
	r.persist()
	r.setRole(roleFollower)
	r.hwKnown = true
	r.answerUnparked(r.leader)
	r.env.Trace("raft-follow", r.leader.String()+" epoch="+itoa(int64(r.epoch)))
	r.followSince = r.env.Now()
	r.armFetchTimeout()
	// A fetch in flight went to whoever this node thought led before;
	// its answer will be ignored.
	r.fetchOut = false
	r.sendFetch()
}

// startPreVote asks every other voter whether it would vote for this node
// in the next epoch (KIP-996), without changing the epoch.
func (r *Raft) startPreVote() {
	keepLeader := r.leader
	r.leaveRole()
	r.leader = keepLeader
	r.setRole(roleProspective)
	r.granted = []model.BrokerID{r.cfg.ID}
	r.env.Trace("raft-prevote", "epoch="+itoa(int64(r.epoch+1)))
	if r.won() {
		r.becomeCandidate()
		return
	}
	req := model.VoteRequest{CandidateEpoch: r.epoch + 1, CandidateID: r.cfg.ID,
		LastOffsetEpoch: r.log.lastEpoch(), LastOffset: r.log.lastOffset(), PreVote: true}
	r.sendToVoters(req)
	r.armElection(r.randomIn(r.cfg.ElectionTimeout, 2*r.cfg.ElectionTimeout))
}

// becomeCandidate begins the next epoch voting for itself and asks the
// other voters for their votes.
func (r *Raft) becomeCandidate() {
	r.leaveRole()
	r.epoch++
	r.votedFor = r.cfg.ID
	r.leader = model.NoBroker
	r.persist()
	r.setRole(roleCandidate)
	r.granted = []model.BrokerID{r.cfg.ID}
	r.env.Trace("raft-candidate", "epoch="+itoa(int64(r.epoch)))
	if r.won() {
		r.becomeLeader()
		return
	}
	r.sendToVoters(model.VoteRequest{CandidateEpoch: r.epoch, CandidateID: r.cfg.ID,
		LastOffsetEpoch: r.log.lastEpoch(), LastOffset: r.log.lastOffset()})
	r.armElection(r.randomIn(r.cfg.ElectionTimeout, 2*r.cfg.ElectionTimeout))
}

// resumeCandidacy takes up again, at a restart, the candidacy this voter
// had in its epoch: it asks the other voters for their votes in the same
// epoch, counting only its own (Kafka's QuorumState.initialize restores a
// voter that voted for itself as a candidate, and KafkaRaftClient asks
// again). Its vote is already durable.
func (r *Raft) resumeCandidacy() {
	r.leaveRole()
	r.setRole(roleCandidate)
	r.granted = []model.BrokerID{r.cfg.ID}
	r.env.Trace("raft-candidate", "epoch="+itoa(int64(r.epoch))+" resumed")
	r.sendToVoters(model.VoteRequest{CandidateEpoch: r.epoch, CandidateID: r.cfg.ID,
		LastOffsetEpoch: r.log.lastEpoch(), LastOffset: r.log.lastOffset()})
	r.armElection(r.randomIn(r.cfg.ElectionTimeout, 2*r.cfg.ElectionTimeout))
}

// becomeLeader takes the epoch it won: records itself as leader, appends
// its LeaderChange control batch, and tells the other voters.
func (r *Raft) becomeLeader() {
	r.leaveRole()
	r.leader = r.cfg.ID
	r.persist()
	r.setRole(roleLeader)
	r.hwKnown = false
	r.parked = map[model.BrokerID]parkedFetch{}
	r.epochStart = r.log.lastOffset() + 1
	r.lead = newLeaderState(r.cfg.ID, r.epoch, r.epochStart, r.cfg.Voters, r.env.Now(), r.cfg.FetchTimeout)
	r.log.append(model.QuorumBatch{BaseOffset: r.epochStart, Epoch: r.epoch, Control: true,
		Entries: [][]byte{leaderChangeEntry(r.cfg.ID, r.cfg.Voters)}})
	r.env.Trace("raft-leader", "epoch="+itoa(int64(r.epoch))+" start="+itoa(r.epochStart))
	if w := r.cfg.Watch; w != nil {
		w.QuorumLeader(r.cfg.ID, r.epoch)
	}
	r.sendBeginQuorumEpoch()
	r.armCheckQuorum()
	r.updateLeaderHW()
}

// leaderChangeEntry is the LeaderChange control record's content: the
// leader and the voters (Kafka's LeaderChangeMessage).
func leaderChangeEntry(leader model.BrokerID, voters []model.BrokerID) []byte {
	b := binary.AppendVarint(nil, int64(leader))
	b = binary.AppendUvarint(b, uint64(len(voters)))
	for _, v := range voters {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

func (r *Raft) won() bool { return len(r.granted) >= r.majority() }

func (r *Raft) sendToVoters(m interface {
	Digest() uint64
	String() string
}) {
	for _, v := range r.cfg.Voters {
		if v != r.cfg.ID {
			r.env.Send(node(v), m)
		}
	}
}

func (r *Raft) armElection(d time.Duration) {
	r.env.Cancel(r.electionTimer)
	r.electionTimer = r.env.After(d, timerElection, 0)
}

// onElectionLost runs when a prospective's or candidate's election
// timer ran out: a round that did not win backs off a random time up to
// the election backoff, and once the backoff is over the node stands
// again with a pre-vote (KafkaRaftClient.pollProspective and
// pollCandidate).
func (r *Raft) onElectionLost() {
	if r.backingOff {
		r.startPreVote()
		return
	}
	r.backOff()
}

// backOff ends a lost election round: the node stays (or becomes)
// prospective and asks again after a random backoff. A prospective may
// still name the leader it followed; a candidate names none (it began an
// epoch of its own).
func (r *Raft) backOff() {
	keepLeader := r.leader
	if keepLeader != model.NoBroker {
		// A prospective that lost its pre-vote while its old leader is
		// still named goes back to following it (KIP-996): the voters
		// that refused have heard from that leader, so it may well be
		// alive and only this node's link to it was cut.
		r.becomeFollower(r.epoch, keepLeader)
		return
	}
	r.leaveRole()
	r.leader = keepLeader
	r.setRole(roleProspective)
	r.backingOff = true
	r.armElection(r.randomIn(0, r.cfg.ElectionBackoffMax) + 1)
}

// onFetchTimeout: a follower that has not heard from its leader within
// the fetch timeout stands (pre-vote first); an observer forgets the
// leader and looks for another. Only a follower and an unattached
// observer step it.
func (r *Raft) onFetchTimeout() {
	if r.env.Now()-r.lastHeard() < r.cfg.FetchTimeout {
		r.armFetchTimeout()
		return
	}
	r.env.Trace("raft-fetch-timeout", r.leader.String())
	if r.cfg.Observer {
		r.observerIndex++
		r.becomeUnattached(r.epoch)
		return
	}
	r.startPreVote()
}

// lastHeard is when the fetch timeout counts from: the last answer from
// the leader, or when this node began following it.
func (r *Raft) lastHeard() time.Duration {
	if r.contact && r.lastContact > r.followSince {
		return r.lastContact
	}
	return r.followSince
}

func (r *Raft) armFetchTimeout() {
	r.env.Cancel(r.fetchTimer)
	d := r.lastHeard() + r.cfg.FetchTimeout - r.env.Now()
	if d <= 0 {
		d = r.cfg.FetchTimeout
	}
	r.fetchTimer = r.env.After(d, timerFetchTimeout, 0)
}

// logUpToDate: a log ending at (epoch, offset) is at least as up to date
// as this node's.
func (r *Raft) logUpToDate(epoch model.Epoch, offset int64) bool {
	mine := r.log.lastEpoch()
	return epoch > mine || epoch == mine && offset >= r.log.lastOffset()
}

// screenVote answers a vote or pre-vote the way every role does
// (KafkaRaftClient.handleVoteRequest), and reports whether the role's
// own rule is still to decide it (EpochState.canGrantVote; see the steps).
// A request that is invalid or in an older epoch is refused. A vote in a
// newer epoch first moves this node to that epoch, unattached, and the new
// role answers it (the request passes the screen in that epoch).
func (r *Raft) screenVote(from model.BrokerID, m model.VoteRequest) bool {
	code := model.NoError
	switch {
	case !r.isVoter() || !slices.Contains(r.cfg.Voters, from):
		code = model.InvalidRequest
	case m.LastOffset < 0 || m.LastOffsetEpoch < 0 || m.LastOffsetEpoch >= m.CandidateEpoch:
		// A log cannot end at a negative offset or epoch, nor in the epoch
		// it stands in or a later one (KafkaRaftClient.handleVoteRequest).
		code = model.InvalidRequest
	case m.CandidateEpoch < r.epoch:
		code = model.FencedLeaderEpoch
	case !m.PreVote && m.CandidateEpoch > r.epoch:
		// A pre-vote changes nothing here; a vote moves this node on.
		r.becomeUnattached(m.CandidateEpoch)
		r.step(r, from, m)
		return false
	default:
		return true
	}
	r.env.Send(node(from), model.VoteResponse{PreVote: m.PreVote, Error: code, LeaderEpoch: r.epoch, LeaderID: r.leader})
	return false
}

// replyVote answers a (pre-)vote with the role's decision and what this
// node knows of the epoch and its leader.
func (r *Raft) replyVote(from model.BrokerID, m model.VoteRequest, granted bool) {
	r.env.Send(node(from), model.VoteResponse{PreVote: m.PreVote, VoteGranted: granted, LeaderEpoch: r.epoch, LeaderID: r.leader})
}

// grantsVote is the rule of a node that neither leads, nor follows, nor
// stands in its epoch (unattached, or prospective, which has not moved to
// the epoch it asks for): a pre-vote for any log as up to date as its
// own, a vote too if it has voted for nobody else and knows no leader
// (UnattachedState.canGrantVote and ProspectiveState.canGrantVote).
func (r *Raft) grantsVote(m model.VoteRequest) bool {
	free := r.leader == model.NoBroker && (r.votedFor == model.NoBroker || r.votedFor == m.CandidateID)
	return (m.PreVote || free) && r.logUpToDate(m.LastOffsetEpoch, m.LastOffset)
}

// recordVote makes a granted vote durable before it is sent: a voter that
// forgot its vote could vote twice in one epoch.
func (r *Raft) recordVote(candidate model.BrokerID) {
	if r.votedFor != candidate {
		r.votedFor = candidate
		r.persist()
	}
}

// countVote counts a (pre-)vote answer in the current round and reports
// whether the round is won; a round that enough voters refused to make a
// majority impossible ends in a backoff.
func (r *Raft) countVote(from model.BrokerID, granted bool) bool {
	if granted {
		if !slices.Contains(r.granted, from) {
			r.granted = append(r.granted, from)
		}
		return r.won()
	}
	if !slices.Contains(r.refused, from) {
		r.refused = append(r.refused, from)
	}
	if len(r.refused) > len(r.cfg.Voters)-r.majority() {
		r.backOff()
	}
	return false
}

// learn acts on an epoch and leader another node reported: a newer epoch
// (or a leader for this epoch, which this node did not know) makes it
// follow that leader, or wait unattached in that epoch. It reports
// whether it changed role.
func (r *Raft) learn(epoch model.Epoch, leader model.BrokerID) bool {
	switch {
	case epoch > r.epoch && leader != model.NoBroker && leader != r.cfg.ID:
		r.becomeFollower(epoch, leader)
		return true
	case epoch > r.epoch:
		r.becomeUnattached(epoch)
		return true
	case epoch == r.epoch && leader != model.NoBroker && leader != r.cfg.ID &&
		r.leader != leader && r.role != roleLeader:
		// A prospective keeps the leader it followed: hearing that leader
		// named again by a voter that also lost it is no news.
		r.becomeFollower(epoch, leader)
		return true
	}
	return false
}

// handleBeginQuorumEpoch follows a leader that announces itself in an
// epoch at least as new as this node's.
func (r *Raft) handleBeginQuorumEpoch(from model.BrokerID, m model.BeginQuorumEpochRequest) {
	resp := model.BeginQuorumEpochResponse{}
	if m.LeaderEpoch < r.epoch {
		resp.Error = model.FencedLeaderEpoch
	} else {
		r.learn(m.LeaderEpoch, m.LeaderID)
	}
	resp.LeaderEpoch, resp.LeaderID = r.epoch, r.leader
	r.env.Send(node(from), resp)
}

// checkQuorum runs when the leader's check-quorum timer may have expired:
// a leader that has not been fetched from by a majority (itself included)
// within 1.5 fetch timeouts resigns, since the others have likely elected
// another (KafkaRaftClient.pollLeader with
// LeaderState.timeUntilCheckQuorumExpires). Fetches that came in since the
// timer was armed may have pushed the deadline on: then it waits again.
func (r *Raft) checkQuorum() {
	if r.lead.untilCheckQuorumExpires(r.env.Now()) == 0 {
		r.env.Trace("raft-resign", "epoch="+itoa(int64(r.epoch)))
		r.becomeUnattached(r.epoch)
		return
	}
	r.armCheckQuorum()
}

// armCheckQuorum sets the timer for the check-quorum deadline; a lone
// voter has none.
func (r *Raft) armCheckQuorum() {
	if d := r.lead.untilCheckQuorumExpires(r.env.Now()); d != neverExpires {
		r.env.Cancel(r.checkTimer)
		r.checkTimer = r.env.After(d, timerCheckQuorum, 0)
	}
}

// sendBeginQuorumEpoch tells every other voter that this node leads the
// epoch, at election and then every half fetch timeout, as a heartbeat
// (KafkaRaftClient.maybeSendBeginQuorumEpochRequests).
func (r *Raft) sendBeginQuorumEpoch() {
	if len(r.cfg.Voters) == 1 {
		return
	}
	now := r.env.Now()
	if r.lead.untilBeginQuorumEpoch(now) == 0 {
		r.sendToVoters(model.BeginQuorumEpochRequest{LeaderEpoch: r.epoch, LeaderID: r.cfg.ID})
		r.lead.resetBeginQuorumEpoch(now)
	}
	r.env.Cancel(r.beginTimer)
	r.beginTimer = r.env.After(r.lead.untilBeginQuorumEpoch(now), timerBeginQuorum, 0)
}
