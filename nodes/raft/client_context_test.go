package raft

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// clientContext runs one real Raft (the local node) among scripted peers,
// in the way Kafka's RaftClientTestContext runs one KafkaRaftClient over a
// mock network: a test sets up the local node's disk (quorum state, log),
// starts it, hands it messages as if a peer had sent them, and looks at
// what it sent each peer and at its state. Links have a fixed latency, so
// that a message sent now arrives exactly one latency later.
type clientContext struct {
	t      *testing.T
	s      *sim.Sim
	w      *world // for the local host's state machine and its failures
	local  model.BrokerID
	voters []model.BrokerID
	peers  map[model.BrokerID]*peer
}

// contextLatency is every link's one-way latency.
const contextLatency = time.Millisecond

// peer is a scripted node: it records what it is sent and does nothing.
type peer struct{ got []sim.Message }

func (p *peer) Start(*sim.Env)                                  {}
func (p *peer) Receive(_ *sim.Env, _ sim.NodeID, m sim.Message) { p.got = append(p.got, m) }
func (p *peer) Fire(*sim.Env, sim.Timer)                        {}
func (p *peer) Disconnected(*sim.Env, sim.NodeID)               {}

// contextSetup is what a test puts on the local node's disk before it
// starts (RaftClientTestContext.Builder).
type contextSetup struct {
	observer  bool
	quorum    *quorumState
	batches   []model.QuorumBatch
	snapshot  *model.EpochEndOffset
	extraPeer []model.BrokerID
}

type contextOption func(*contextSetup)

// withElectedLeader: the quorum state says leader leads epoch.
func withElectedLeader(epoch model.Epoch, leader model.BrokerID) contextOption {
	return func(c *contextSetup) {
		c.quorum = &quorumState{epoch: epoch, votedFor: model.NoBroker, leader: leader}
	}
}

// withVotedCandidate: the quorum state says this node voted for candidate
// in epoch.
func withVotedCandidate(epoch model.Epoch, candidate model.BrokerID) contextOption {
	return func(c *contextSetup) {
		c.quorum = &quorumState{epoch: epoch, votedFor: candidate, leader: model.NoBroker}
	}
}

// withUnknownLeader: the quorum state is epoch with no leader and no vote.
func withUnknownLeader(epoch model.Epoch) contextOption {
	return func(c *contextSetup) {
		c.quorum = &quorumState{epoch: epoch, votedFor: model.NoBroker, leader: model.NoBroker}
	}
}

// appendToLog adds one batch of values in epoch to the log.
func appendToLog(epoch model.Epoch, values ...string) contextOption {
	return func(c *contextSetup) {
		b := model.QuorumBatch{BaseOffset: 1, Epoch: epoch}
		if n := len(c.batches); n > 0 {
			b.BaseOffset = c.batches[n-1].LastOffset() + 1
		} else if c.snapshot != nil {
			b.BaseOffset = int64(c.snapshot.EndOffset) + 1
		}
		for _, v := range values {
			b.Entries = append(b.Entries, []byte(v))
		}
		c.batches = append(c.batches, b)
	}
}

// asObserver makes the local node an observer (not among the voters).
func asObserver() contextOption { return func(c *contextSetup) { c.observer = true } }

// withPeers adds scripted nodes that are not voters (observers).
func withPeers(ids ...model.BrokerID) contextOption {
	return func(c *contextSetup) { c.extraPeer = append(c.extraPeer, ids...) }
}

// newClientContext builds and starts the local node among voters.
func newClientContext(t *testing.T, local model.BrokerID, voters []model.BrokerID, opts ...contextOption) *clientContext {
	t.Helper()
	var setup contextSetup
	for _, o := range opts {
		o(&setup)
	}
	c := &clientContext{t: t, local: local, voters: voters, peers: map[model.BrokerID]*peer{}}
	c.w = &world{t: t}
	c.s = sim.New(sim.Config{Seed: 1, EventLimit: 1_000_000, Link: sim.LinkConfig{Latency: sim.Fixed(contextLatency)}})
	cfg := Config{ID: local, Voters: voters, Observer: setup.observer, Dir: "__cluster_metadata-0/"}
	c.s.AddNode(sim.NodeID(local), local.String(), func() sim.Node { return &host{cfg: cfg, w: c.w} })
	ids := append(slices.Clone(voters), setup.extraPeer...)
	slices.Sort(ids)
	for _, id := range ids {
		if id == local {
			continue
		}
		p := &peer{}
		c.peers[id] = p
		c.s.AddNode(sim.NodeID(id), id.String(), func() sim.Node { return p })
	}
	disk := c.s.Disk(sim.NodeID(local))
	if setup.quorum != nil {
		writeQuorumState(disk, cfg.Dir+"quorum-state", *setup.quorum)
	}
	var snapOff int64
	var snapEpoch model.Epoch
	if setup.snapshot != nil {
		snapOff, snapEpoch = int64(setup.snapshot.EndOffset), model.Epoch(setup.snapshot.Epoch)
		writeSnapshot(disk, cfg.Dir+"snapshot", snapOff, snapEpoch, (&listSM{}).Snapshot())
	}
	l := openLog(disk, cfg.Dir+"log", snapOff, snapEpoch)
	for _, b := range setup.batches {
		l.append(b)
	}
	// The peers first: a message to a node that is down is refused.
	for _, id := range c.s.Nodes() {
		if model.BrokerID(id) != local {
			c.s.Start(id)
		}
	}
	c.s.Start(sim.NodeID(local))
	return c
}

// raft is the local node's Raft (a new value after a restart).
func (c *clientContext) raft() *Raft { return c.host().r }

func (c *clientContext) host() *host {
	h, _ := c.s.Node(sim.NodeID(c.local)).(*host)
	return h
}

func (c *clientContext) env() *sim.Env { return c.host().env }

// run advances virtual time by d.
func (c *clientContext) run(d time.Duration) {
	c.s.Run(c.s.Now() + d)
	c.check()
}

// check fails the test on what the state machine reported as wrong.
func (c *clientContext) check() {
	c.t.Helper()
	if len(c.w.failures) > 0 {
		c.t.Fatalf("%v", c.w.failures)
	}
}

// deliver hands m to the local node as if from sent it, and runs until
// the local node's answer (if any) has reached the sender.
func (c *clientContext) deliver(from model.BrokerID, m sim.Message) {
	c.s.SendAs(sim.NodeID(from), sim.NodeID(c.local), m)
	c.run(2 * contextLatency)
}

// sentTo returns, and forgets, the messages of type T the local node sent
// to the peer, leaving the others.
func sentTo[T sim.Message](c *clientContext, to model.BrokerID) []T {
	p := c.peers[to]
	var out []T
	var rest []sim.Message
	for _, m := range p.got {
		if v, ok := m.(T); ok {
			out = append(out, v)
		} else {
			rest = append(rest, m)
		}
	}
	p.got = rest
	return out
}

// lastSent is the last message of type T sent to the peer; the test fails
// if there is none. The others of type T are forgotten too.
func lastSent[T sim.Message](c *clientContext, to model.BrokerID) T {
	c.t.Helper()
	got := sentTo[T](c, to)
	if len(got) == 0 {
		var zero T
		c.t.Fatalf("%v sent %v no %T", c.local, to, zero)
	}
	return got[len(got)-1]
}

// noneSent fails the test if the local node sent the peer a T.
func noneSent[T sim.Message](c *clientContext, to model.BrokerID) {
	c.t.Helper()
	if got := sentTo[T](c, to); len(got) > 0 {
		c.t.Fatalf("%v sent %v %v", c.local, to, got)
	}
}

// others are the voters but the local node.
func (c *clientContext) others() []model.BrokerID {
	var out []model.BrokerID
	for _, v := range c.voters {
		if v != c.local {
			out = append(out, v)
		}
	}
	return out
}

// wantState checks the local node's role, epoch, leader and vote.
func (c *clientContext) wantState(role string, epoch model.Epoch, leader, voted model.BrokerID) {
	c.t.Helper()
	r := c.raft()
	l, e := r.Leader()
	if r.Role() != role || e != epoch || l != leader || r.votedFor != voted {
		c.t.Fatalf("%v is %s in epoch %d, leader %v, voted %v; want %s in %d, leader %v, voted %v",
			c.local, r.Role(), e, l, r.votedFor, role, epoch, leader, voted)
	}
}

// wantDurable checks the quorum-state file, what a restart would see.
func (c *clientContext) wantDurable(epoch model.Epoch, leader, voted model.BrokerID) {
	c.t.Helper()
	q, ok := readQuorumState(c.s.Disk(sim.NodeID(c.local)), "__cluster_metadata-0/quorum-state")
	if !ok || q.epoch != epoch || q.leader != leader || q.votedFor != voted {
		c.t.Fatalf("quorum-state %+v (present %v), want epoch %d leader %v voted %v", q, ok, epoch, leader, voted)
	}
}

// electionWait is long enough for any election timeout to expire.
func (c *clientContext) electionWait() time.Duration { return 2 * DefaultElectionTimeout }

// grantPreVotes answers the pre-vote requests the local node sent, voter
// by voter, with a grant until it stops asking; it fails the test if a
// voter it asked got none.
func (c *clientContext) grantPreVotes() {
	c.t.Helper()
	for _, v := range c.others() {
		if c.raft().Role() != "prospective" {
			return // a majority granted
		}
		req := lastSent[model.VoteRequest](c, v)
		if !req.PreVote {
			c.t.Fatalf("%v sent %v a vote request, want a pre-vote: %v", c.local, v, req)
		}
		c.deliver(v, model.VoteResponse{LeaderEpoch: c.raft().Epoch(), LeaderID: model.NoBroker, VoteGranted: true, PreVote: true})
	}
}

// grantVotes answers the vote requests of the candidate's epoch with a
// grant until it wins.
func (c *clientContext) grantVotes() {
	c.t.Helper()
	epoch := c.raft().Epoch()
	for _, v := range c.others() {
		if c.raft().Role() != "candidate" {
			return // a majority granted
		}
		req := lastSent[model.VoteRequest](c, v)
		if req.PreVote || req.CandidateEpoch != epoch {
			c.t.Fatalf("%v sent %v %v, want a vote request in epoch %d", c.local, v, req, epoch)
		}
		c.deliver(v, model.VoteResponse{LeaderEpoch: epoch, LeaderID: model.NoBroker, VoteGranted: true})
	}
}

// runUntil advances time in steps of a latency until cond holds, up to
// limit, and then one latency more, so that what the local node sent on
// the way has arrived; it fails the test if cond never holds.
func (c *clientContext) runUntil(what string, limit time.Duration, cond func() bool) {
	c.t.Helper()
	for end := c.s.Now() + limit; !cond(); {
		if c.s.Now() >= end {
			c.t.Fatalf("%v: not %s within %v", c.local, what, limit)
		}
		c.run(contextLatency)
	}
	c.run(contextLatency)
}

// becomeCandidate waits out the election timeout and grants the
// pre-votes: the local node is then a candidate in the next epoch.
// Kafka's raft at the mirrored commit has no pre-vote (KIP-996 came
// later), so where its tests go straight to the candidacy, these pass
// through the pre-vote first.
func (c *clientContext) becomeCandidate() {
	c.t.Helper()
	epoch := c.raft().Epoch()
	c.runUntil("prospective", c.electionWait(), func() bool { return c.raft().Role() == "prospective" })
	c.grantPreVotes()
	c.wantState("candidate", epoch+1, model.NoBroker, c.local)
}

// becomeLeader wins the next epoch's election
// (RaftClientTestContext.becomeLeader): every voter grants the pre-vote
// and the vote and answers BeginQuorumEpoch. The LeaderChange entry is not
// committed yet: no voter fetched.
func (c *clientContext) becomeLeader() {
	c.t.Helper()
	c.becomeCandidate()
	epoch := c.raft().Epoch()
	c.grantVotes()
	c.wantState("leader", epoch, c.local, c.local)
	for _, v := range c.others() {
		lastSent[model.BeginQuorumEpochRequest](c, v)
		c.deliver(v, model.BeginQuorumEpochResponse{LeaderEpoch: epoch, LeaderID: c.local})
	}
}

// fetch is a fetch request from a voter in epoch, for the entries from
// offset (one-based: the fetcher holds offset-1) after an entry of
// lastEpoch.
func fetchRequest(from model.BrokerID, epoch model.Epoch, offset int64, lastEpoch model.Epoch, maxWait time.Duration) model.QuorumFetchRequest {
	return model.QuorumFetchRequest{ReplicaID: from, CurrentLeaderEpoch: epoch, FetchOffset: offset,
		LastFetchedEpoch: lastEpoch, HighWatermark: 0, MaxWait: maxWait}
}

// values of batches, for comparisons.
func batchValues(bs []model.QuorumBatch) []string {
	var out []string
	for _, b := range bs {
		for _, e := range b.Entries {
			out = append(out, fmt.Sprintf("%d@%d:%s", b.Epoch, b.BaseOffset, e))
		}
	}
	return out
}
