package raft

import (
	"slices"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Config configures one node's part in a quorum.
type Config struct {
	// ID is this node's id (its node.id, also its sim.NodeID).
	ID model.BrokerID
	// Voters is controller.quorum.voters: the ids of the voting
	// controllers, the same on every node. An observer fetches from them.
	Voters []model.BrokerID
	// Observer makes this node an observer (a broker): it fetches and
	// applies the log but never votes or stands.
	Observer bool
	// Dir is the folder on the host's disk, as in "__cluster_metadata-0/".
	Dir string
	// ElectionTimeout is controller.quorum.election.timeout.ms (1 s).
	ElectionTimeout time.Duration
	// FetchTimeout is controller.quorum.fetch.timeout.ms (2 s).
	FetchTimeout time.Duration
	// ElectionBackoffMax is controller.quorum.election.backoff.max.ms
	// (1 s).
	ElectionBackoffMax time.Duration
	// SnapshotEvery is how many newly committed entries a node applies
	// before it writes a snapshot; 0 means DefaultSnapshotEvery.
	SnapshotEvery int
	// LoadRate, if positive, is how many bytes of committed entries and
	// snapshots the node's state machine replays per virtual second
	// (load.go): a kafkasim model of the metadata loader's work, which
	// otherwise takes no virtual time. 0 means free, as before.
	LoadRate int64
	// Watch, if set, is told what the node does, for the checkers.
	Watch Observer
	_     struct{}
}

// Defaults of Config's durations (Kafka's) and of SnapshotEvery.
const (
	DefaultElectionTimeout    = time.Second
	DefaultFetchTimeout       = 2 * time.Second
	DefaultElectionBackoffMax = time.Second
	DefaultSnapshotEvery      = 1000
)

// StateMachine is what the log replicates into: the host's state.
type StateMachine interface {
	// Apply makes one committed entry take effect. Entries come in offset
	// order, each exactly once per start of the node; control entries
	// are skipped, so offsets may jump.
	Apply(offset int64, epoch model.Epoch, data []byte)
	// Snapshot returns the state as of the last applied offset.
	Snapshot() []byte
	// Restore replaces the whole state with a snapshot's, at start or
	// when a leader sent one.
	Restore(offset int64, epoch model.Epoch, data []byte)
	// LeaderChanged says who leads now: leader in epoch (NoBroker while
	// nobody is known), isMe when this node is the leader and usable.
	LeaderChanged(leader model.BrokerID, epoch model.Epoch, isMe bool)
}

// Observer is the operator's view of a node, for the checkers. Its calls
// only report; an implementation must not change the run.
type Observer interface {
	QuorumLeader(node model.BrokerID, epoch model.Epoch)
	QuorumHighWatermark(node model.BrokerID, epoch model.Epoch, hw int64)
	QuorumApplied(node model.BrokerID, offset int64, epoch model.Epoch, digest uint64)
	QuorumSnapshotLoaded(node model.BrokerID, offset int64)
}

// role is what a node is doing in its epoch (QuorumState's states).
type role uint8

const (
	// unattached: an epoch, no leader known, not standing; a voter waits
	// for its election timeout, an observer looks for the leader.
	roleUnattached role = iota
	// prospective: asking for pre-votes (KIP-996), epoch unchanged.
	roleProspective
	// candidate: asking for votes in the epoch it just began.
	roleCandidate
	// leader of its epoch.
	roleLeader
	// follower (or observer) of a known leader, fetching from it.
	roleFollower
)

var roleNames = [...]string{"unattached", "prospective", "candidate", "leader", "follower"}

func (r role) String() string { return roleNames[r] }

// Timer kinds. Every kind of this package starts with "raft-", so that a
// host can tell them from its own.
const (
	timerElection     = "raft-election"
	timerFetchTimeout = "raft-fetch-timeout"
	timerFetchRetry   = "raft-fetch-retry"
	timerParked       = "raft-parked"
	timerCheckQuorum  = "raft-check-quorum"
	timerBeginQuorum  = "raft-begin-quorum"
	timerCommit       = "raft-commit"
	timerLoad         = "raft-load"
)

// Fixed settings of Kafka's raft client.
const (
	// fetchMaxWait is how long a leader parks a fetch it has nothing for
	// (KafkaRaftClient's fetchMaxWaitMs).
	fetchMaxWait = 500 * time.Millisecond
	// retryBackoff is controller.quorum.retry.backoff.ms.
	retryBackoff = 20 * time.Millisecond
	// fetchMaxEntries bounds the entries of one fetch response.
	fetchMaxEntries = 4096
)

// Raft is one node's part in the quorum. It is not a sim.Node: its host
// passes it its messages and timers and calls Start at each start.
type Raft struct {
	cfg Config
	sm  StateMachine
	env *sim.Env

	// Durable quorum state, as last synced (QuorumState).
	epoch    model.Epoch
	votedFor model.BrokerID
	leader   model.BrokerID

	role role
	step stepFunc // the role's (setRole)
	log  *raftLog
	// hw is the last committed offset this node knows; hwKnown is false
	// for a new leader until it commits an entry of its own epoch.
	hw          int64
	hwKnown     bool
	lastApplied int64
	sinceSnap   int
	snapData    []byte

	// Loading (LoadRate, load.go): the entry being replayed and when it
	// is done, a snapshot waiting to be restored, and the timer that
	// resumes the replay.
	loadOff   int64
	loadDone  time.Duration
	pending   *pendingRestore
	loadTimer sim.TimerID
	loadAt    time.Duration

	// Election.
	electionTimer sim.TimerID
	backingOff    bool
	granted       []model.BrokerID
	refused       []model.BrokerID

	// Fetching (followers and observers).
	fetchOut      bool
	fetchTarget   model.BrokerID
	fetchSeq      int64
	fetchTimer    sim.TimerID // fetch timeout
	retryTimer    sim.TimerID
	lastContact   time.Duration // last answer from the leader followed
	contact       bool          // lastContact is from the leader followed now
	followSince   time.Duration
	observerIndex int

	// Leading.
	epochStart int64 // offset of this leader's LeaderChange entry
	lead       *leaderState
	parked     map[model.BrokerID]parkedFetch
	unparked   []model.BrokerID // fetchers whose parked fetch awaits the news of the new role
	checkTimer sim.TimerID
	beginTimer sim.TimerID
	commitArm  sim.TimerID

	// What LeaderChanged last said.
	toldLeader model.BrokerID
	toldEpoch  model.Epoch
	toldIsMe   bool
	toldAny    bool
}

// New builds a node's raft; Start runs it.
func New(cfg Config, sm StateMachine) *Raft {
	if len(cfg.Voters) == 0 {
		panic("raft: no voters (an observer needs voters to fetch from)")
	}
	if !cfg.Observer && !slices.Contains(cfg.Voters, cfg.ID) {
		panic("raft: a voter must be in Voters")
	}
	if cfg.ElectionTimeout <= 0 {
		cfg.ElectionTimeout = DefaultElectionTimeout
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = DefaultFetchTimeout
	}
	if cfg.ElectionBackoffMax <= 0 {
		cfg.ElectionBackoffMax = DefaultElectionBackoffMax
	}
	if cfg.SnapshotEvery <= 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	cfg.Voters = slices.Clone(cfg.Voters)
	slices.Sort(cfg.Voters)
	return &Raft{cfg: cfg, sm: sm, votedFor: model.NoBroker, leader: model.NoBroker, fetchTarget: model.NoBroker}
}

func (r *Raft) fileName(s string) string { return r.cfg.Dir + s }

// Start recovers the quorum state, the snapshot and the log from the
// disk, restores the state machine from the snapshot, and takes up its
// role: a voter that knew a leader fetches from it, any other voter waits
// out an election timeout (a lone voter stands at once), and an observer
// looks for the leader.
func (r *Raft) Start(env *sim.Env) {
	r.env = env
	disk := env.Disk()
	q, formerly := readQuorumState(disk, r.fileName("quorum-state"))
	if formerly {
		r.epoch, r.votedFor, r.leader = q.epoch, q.votedFor, q.leader
	}
	snapOff, snapEpoch, data, ok := readSnapshot(disk, r.fileName("snapshot"))
	switch {
	case ok && r.cfg.LoadRate > 0:
		// Read now, restored once replayed (load.go).
		r.snapData = data
		r.hw = snapOff
		r.restoreLater(snapOff, snapEpoch, data)
	case ok:
		r.snapData = data
		r.sm.Restore(snapOff, snapEpoch, data)
		r.lastApplied, r.hw = snapOff, snapOff
		if w := r.cfg.Watch; w != nil {
			w.QuorumSnapshotLoaded(r.cfg.ID, snapOff)
		}
	}
	r.log = openLog(disk, r.fileName("log"), snapOff, snapEpoch)
	env.Trace("raft-start", "epoch="+itoa(int64(r.epoch))+" leader="+r.leader.String()+
		" voted="+r.votedFor.String()+" log="+itoa(r.log.startOffset())+".."+itoa(r.log.lastOffset()))
	switch {
	case r.leader != model.NoBroker && r.leader != r.cfg.ID:
		r.becomeFollower(r.epoch, r.leader)
	default:
		// A leader that restarts does not lead again in its old epoch
		// (Kafka resigns it): it waits, and stands in a new one. It was
		// its own candidate in that epoch, so it votes for nobody else
		// in it (Kafka's ResignedState grants no vote).
		wasCandidate := formerly && r.leader == model.NoBroker && r.votedFor == r.cfg.ID
		if r.leader == r.cfg.ID {
			r.votedFor = r.cfg.ID
		}
		r.leader = model.NoBroker
		r.becomeUnattached(r.epoch)
		switch {
		case r.cfg.Observer:
		case len(r.cfg.Voters) == 1:
			r.startPreVote()
		case wasCandidate:
			r.resumeCandidacy()
		case !formerly && r.epoch == 0:
			// A kafkasim deviation: a voter that was never in any epoch
			// (a freshly formatted controller) stands after a short
			// random delay, up to a tenth of the election timeout,
			// instead of a full one. There is no leader to disrupt, every
			// run starts a fresh cluster, and a first election of one to
			// two seconds would only push every scenario back; a voter
			// that restarts waits the full timeout, so failovers are
			// measured as Kafka has them.
			r.armElection(r.randomIn(0, r.cfg.ElectionTimeout/10))
		}
	}
	r.afterEvent()
}

// Receive handles a message if it belongs to the quorum protocol, and
// reports whether it did. The node's role steps it (step.go).
func (r *Raft) Receive(env *sim.Env, from sim.NodeID, m sim.Message) bool {
	r.env = env
	switch m.(type) {
	case model.VoteRequest, model.VoteResponse, model.BeginQuorumEpochRequest, model.BeginQuorumEpochResponse,
		model.QuorumFetchRequest, model.QuorumFetchResponse, model.FetchSnapshotRequest, model.FetchSnapshotResponse:
	default:
		return false
	}
	r.stepMessage(model.BrokerID(from), m)
	r.afterEvent()
	return true
}

// Fire handles a timer if it is one of this package's ("raft-" kinds), and
// reports whether it was. A timer that is still the one armed (a timer
// cancelled or re-armed since is ignored) becomes a local event that the
// node's role steps; the fetch retry is the same in every role.
func (r *Raft) Fire(env *sim.Env, t sim.Timer) bool {
	if !strings.HasPrefix(t.Kind, "raft-") {
		return false
	}
	r.env = env
	switch t.Kind {
	case timerElection:
		if t.ID == r.electionTimer {
			r.electionTimer = 0
			r.step(r, r.cfg.ID, electionTimedOut{})
		}
	case timerFetchTimeout:
		if t.ID == r.fetchTimer {
			r.fetchTimer = 0
			r.step(r, r.cfg.ID, fetchTimedOut{})
		}
	case timerFetchRetry:
		if t.ID == r.retryTimer {
			r.retryTimer = 0
			r.retryFetch()
		}
	case timerParked:
		r.step(r, model.BrokerID(t.Arg), parkedFetchDue{timer: t.ID})
	case timerCheckQuorum:
		if t.ID == r.checkTimer {
			r.checkTimer = 0
			r.step(r, r.cfg.ID, checkQuorumDue{})
		}
	case timerBeginQuorum:
		if t.ID == r.beginTimer {
			r.beginTimer = 0
			r.step(r, r.cfg.ID, beginQuorumDue{})
		}
	case timerCommit:
		if t.ID == r.commitArm {
			r.commitArm = 0
			r.step(r, r.cfg.ID, commitDue{})
		}
	case timerLoad:
		// The replay goes on in afterEvent.
		if t.ID == r.loadTimer {
			r.loadTimer = 0
		}
	}
	r.afterEvent()
	return true
}

// Disconnected handles a broken connection: a fetch in flight to that peer
// is lost (ask again shortly), and a fetch parked from it is dropped.
func (r *Raft) Disconnected(env *sim.Env, peer sim.NodeID) {
	r.env = env
	p := model.BrokerID(peer)
	if r.fetchOut && r.fetchTarget == p {
		r.fetchOut = false
		r.scheduleRetry()
	}
	if pf, ok := r.parked[p]; ok {
		env.Cancel(pf.timer)
		delete(r.parked, p)
	}
}

// Propose appends entries as one batch in the leader's epoch and returns
// the offset of the first. It refuses (false) unless this node is the
// leader and usable (its LeaderChange entry applied). The entries take
// effect on every node only when committed, through StateMachine.Apply.
// The slices must not be changed afterwards: the log and its messages
// share them.
func (r *Raft) Propose(env *sim.Env, entries [][]byte) (int64, bool) {
	r.env = env
	if !r.IsLeader() || len(entries) == 0 {
		return 0, false
	}
	b := model.QuorumBatch{BaseOffset: r.log.lastOffset() + 1, Epoch: r.epoch, Entries: slices.Clone(entries)}
	r.log.append(b)
	r.answerParked()
	// The leader's own append counts at once (it is synced); with other
	// voters the high watermark moves on their fetches, and with none it
	// moves now, and the entries are applied in an event of their own so
	// that the state machine is not called back from inside Propose.
	r.updateLeaderHW()
	if len(r.cfg.Voters) == 1 && r.commitArm == 0 {
		r.commitArm = env.After(0, timerCommit, 0)
	}
	return b.BaseOffset, true
}

// Leader is the leader this node knows and the epoch it is in (NoBroker
// while none is known). A leader names itself from its election on, before
// it is usable; see IsLeader.
func (r *Raft) Leader() (model.BrokerID, model.Epoch) { return r.leader, r.epoch }

// Epoch is the node's quorum epoch.
func (r *Raft) Epoch() model.Epoch { return r.epoch }

// IsLeader reports whether this node leads and is usable: its
// LeaderChange entry is committed and applied, so its state machine holds
// everything any leader committed.
func (r *Raft) IsLeader() bool {
	return r.role == roleLeader && r.hwKnown && r.lastApplied >= r.epochStart
}

// HighWatermark is the last committed offset this node knows.
func (r *Raft) HighWatermark() int64 { return r.hw }

// LastApplied is the last offset applied to the state machine (or
// restored from a snapshot).
func (r *Raft) LastApplied() int64 { return r.lastApplied }

// EndOffset is the offset of the last entry in the log: a usable leader's
// next proposal starts right after it.
func (r *Raft) EndOffset() int64 { return r.log.lastOffset() }

// LogStartOffset is the first offset the log holds (the one after the
// snapshot).
func (r *Raft) LogStartOffset() int64 { return r.log.startOffset() }

// Role names what the node is doing: unattached, prospective, candidate,
// leader or follower.
func (r *Raft) Role() string { return r.role.String() }

// persist syncs the quorum state before anything acts on it.
func (r *Raft) persist() {
	if r.cfg.Observer {
		// An observer never votes: it has nothing to forget, and finds
		// the leader again after a restart.
		return
	}
	writeQuorumState(r.env.Disk(), r.fileName("quorum-state"), quorumState{epoch: r.epoch, votedFor: r.votedFor, leader: r.leader})
}

// afterEvent runs after every event the node handled: apply what became
// committed, snapshot if due, and tell the host who leads.
func (r *Raft) afterEvent() {
	r.applyCommitted()
	r.maybeSnapshot()
	r.tellLeader()
}

// applyCommitted hands every newly committed entry to the state machine.
func (r *Raft) applyCommitted() {
	if r.restorePending() {
		return
	}
	limit := r.hw
	if last := r.log.lastOffset(); limit > last {
		limit = last
	}
	for r.lastApplied < limit {
		off := r.lastApplied + 1
		data, epoch, control := r.log.entry(off)
		if r.loading(off, epoch, len(data)) {
			return
		}
		if !control {
			r.sm.Apply(off, epoch, data)
		}
		r.lastApplied = off
		r.sinceSnap++
		if w := r.cfg.Watch; w != nil {
			w.QuorumApplied(r.cfg.ID, off, epoch, model.NewHash(uint64(epoch)).Bool(control).Bytes(data).Sum())
		}
	}
}

// tellLeader calls LeaderChanged when what it would say changed.
func (r *Raft) tellLeader() {
	leader, isMe := model.NoBroker, false
	switch r.role {
	case roleFollower:
		leader = r.leader
	case roleLeader:
		// A leader names itself only once it is usable.
		if r.IsLeader() {
			leader, isMe = r.leader, true
		}
	}
	if r.toldAny && leader == r.toldLeader && r.epoch == r.toldEpoch && isMe == r.toldIsMe {
		return
	}
	r.toldAny, r.toldLeader, r.toldEpoch, r.toldIsMe = true, leader, r.epoch, isMe
	r.sm.LeaderChanged(leader, r.epoch, isMe)
}

// setHW raises the high watermark and reports it; it never lowers it.
func (r *Raft) setHW(hw int64) {
	if hw <= r.hw {
		return
	}
	r.hw = hw
	if w := r.cfg.Watch; w != nil {
		w.QuorumHighWatermark(r.cfg.ID, r.epoch, hw)
	}
}

func (r *Raft) isVoter() bool { return !r.cfg.Observer }

func (r *Raft) majority() int { return len(r.cfg.Voters)/2 + 1 }

func (r *Raft) randomIn(lo, hi time.Duration) time.Duration {
	if hi <= lo {
		return lo
	}
	return lo + time.Duration(r.env.Rand().Int64N(int64(hi-lo)))
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
