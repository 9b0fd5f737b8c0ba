package controller

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/raft"
	"kafkasim/sim"
)

// Config configures a controller node.
type Config struct {
	// ID is the controller's node id (the cluster builder's are 100,
	// 101, ...).
	ID model.BrokerID
	// Voters is controller.quorum.voters: every controller's id. Empty
	// means this controller alone, a quorum of one.
	Voters []model.BrokerID
	// Cluster is the cluster's configuration: the controller reads
	// broker.heartbeat.interval.ms, broker.session.timeout.ms,
	// eligible.leader.replicas.enable, default.replication.factor and the
	// topic defaults (min.insync.replicas,
	// unclean.leader.election.enable).
	Cluster model.Config
	// SnapshotEvery is the quorum's snapshot interval in committed
	// entries (0: the raft package's default).
	SnapshotEvery int
	// MetadataLoadRate is the quorum's raft.Config.LoadRate: bytes of
	// metadata replayed per virtual second (0: free).
	MetadataLoadRate int64
	// Watch, if set, is told what the quorum does (for the checkers).
	Watch raft.Observer
	_     struct{}
}

// QuorumDir is the folder of the metadata quorum's files (log, snapshot,
// quorum-state) on a controller's or broker's disk, after KRaft's
// __cluster_metadata topic partition.
const QuorumDir = "__cluster_metadata-0/"

// Controller is one controller of the metadata quorum: a sim.Node. Its
// durable state is the quorum's log and snapshot on its disk; the metadata
// is their replay. The active controller (the quorum leader, once its
// LeaderChange entry is committed) also keeps soft state: broker sessions,
// rebuilt each time it becomes active.
type Controller struct {
	cfg   Config
	env   *sim.Env // this incarnation's environment, for CreateTopic
	raft  *raft.Raft
	state *metadataState

	// active: this controller leads the quorum and has replayed
	// everything up to its own LeaderChange entry (Kafka's
	// QuorumController.claim / activate).
	active bool
	// leader is the active controller this one knows of (NoBroker if
	// none), for NOT_CONTROLLER answers and MetadataResponses.
	leader model.BrokerID

	// ops are requests waiting for the one in flight to commit, oldest
	// first; inflight is the proposal being committed (nil if none).
	// Operations run one at a time so that each computes its records
	// from a state that includes every earlier operation's.
	ops      []func()
	inflight *proposal

	// sessions is the heartbeat bookkeeping per registered broker, in
	// memory only, like Kafka's BrokerHeartbeatManager: a controller that
	// becomes active gives every broker a fresh session.
	sessions map[model.BrokerID]*session
	// sessionTimer is armed at the earliest moment a live broker's session
	// can expire (0 when none is armed), sessionTimerAt that moment.
	sessionTimer   sim.TimerID
	sessionTimerAt time.Duration

	// balance says whether the preferred-leader check is armed
	// (balanceTimer) or how soon the next is due (rebalance.go).
	balance      balanceSchedule
	balanceTimer sim.TimerID
}

// Timer kinds.
const timerSession = "session-expiry"

// New builds a controller. The cluster builder hands the kernel
// func() sim.Node { return controller.New(cfg) } as the node's factory.
func New(cfg Config) *Controller {
	if len(cfg.Voters) == 0 {
		cfg.Voters = []model.BrokerID{cfg.ID}
	}
	return &Controller{cfg: cfg}
}

// Start recovers the metadata: the quorum restores its snapshot and log,
// and committed entries are applied as the quorum learns they are
// committed. The controller becomes active when the quorum makes it the
// leader (a lone controller at once).
func (c *Controller) Start(env *sim.Env) {
	c.env = env
	c.state = newMetadataState(c.cfg.Cluster)
	c.leader = model.NoBroker
	c.raft = raft.New(raft.Config{ID: c.cfg.ID, Voters: c.cfg.Voters, Dir: QuorumDir,
		SnapshotEvery: c.cfg.SnapshotEvery, LoadRate: c.cfg.MetadataLoadRate, Watch: c.cfg.Watch}, c)
	c.raft.Start(env)
	c.afterQuorum(env)
}

// Receive handles the quorum's messages and the controller's requests.
func (c *Controller) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	if c.raft.Receive(env, from, m) {
		c.afterQuorum(env)
		return
	}
	switch m := m.(type) {
	case model.BrokerRegistrationRequest:
		c.submit(env, func() { c.handleRegistration(env, from, m) })
	case model.BrokerHeartbeatRequest:
		c.submit(env, func() { c.handleHeartbeat(env, from, m) })
	case model.AlterPartitionRequest:
		c.submit(env, func() { c.handleAlterPartition(env, from, m) })
	case model.CreateTopicsRequest:
		c.submit(env, func() { c.handleCreateTopics(env, from, m) })
	case model.MetadataRequest:
		c.handleMetadata(env, from, m)
	default:
		// A controller answers only the controller APIs and Metadata; a
		// request for another API is a wiring mistake, but a running
		// cluster should not die of it, so it is traced and dropped.
		env.Trace("unexpected-message", "")
	}
}

// Fire handles the quorum's timers, the session-expiry timer and the
// preferred-leader check.
func (c *Controller) Fire(env *sim.Env, t sim.Timer) {
	if c.raft.Fire(env, t) {
		c.afterQuorum(env)
		return
	}
	if t.Kind == timerSession && t.ID == c.sessionTimer {
		c.sessionTimer = 0
		c.fenceExpired(env)
		c.armSessionTimer(env)
	}
	if t.Kind == timerBalance && t.ID == c.balanceTimer {
		c.fireBalance(env, t.ID)
	}
}

// Disconnected tells the quorum: a fetch or vote in flight to the peer is
// lost.
func (c *Controller) Disconnected(env *sim.Env, peer sim.NodeID) {
	c.raft.Disconnected(env, peer)
}

// MetadataOffset is the offset of the last metadata record applied.
func (c *Controller) MetadataOffset() int64 { return c.state.offset }

// ControllerEpoch is the quorum epoch this controller is in.
func (c *Controller) ControllerEpoch() model.Epoch { return c.raft.Epoch() }

// Active reports whether this controller is the active one: the quorum
// leader, caught up with everything committed before its epoch.
func (c *Controller) Active() bool { return c.active }

// Quorum is this controller's part in the metadata quorum, for the
// harness and the checkers to read (leader, epoch, high watermark).
func (c *Controller) Quorum() *raft.Raft { return c.raft }

// BrokerState is a registered broker as the controller records it.
type BrokerState struct {
	ID          model.BrokerID
	Epoch       model.Epoch
	Incarnation uint64
	Fenced      bool
	// Heard: this controller is active and has heard from the broker
	// (a heartbeat or a registration) since it became active.
	Heard bool
}

// Brokers lists the registered brokers, sorted by id, as of the last
// applied record.
func (c *Controller) Brokers() []BrokerState {
	out := make([]BrokerState, 0, len(c.state.brokerIDs))
	for _, id := range c.state.brokerIDs {
		b := c.state.brokers[id]
		sess := c.sessions[id]
		out = append(out, BrokerState{ID: b.ID, Epoch: b.Epoch, Incarnation: b.Incarnation, Fenced: b.Fenced, Heard: c.active && sess != nil && sess.heard})
	}
	return out
}

// Partitions lists every partition's state, sorted by topic and
// partition. The slices are shared with the controller and must not be
// changed.
func (c *Controller) Partitions() []model.PartitionState {
	var out []model.PartitionState
	c.state.eachPartition(func(_ *topicInfo, p *partitionInfo) { out = append(out, p.PartitionState) })
	return out
}

// Partition returns one partition's state.
func (c *Controller) Partition(tp model.TopicPartition) (model.PartitionState, bool) {
	p := c.state.partition(tp)
	if p == nil {
		return model.PartitionState{}, false
	}
	return p.PartitionState, true
}

// UncleanElections is how many times the partition's leader was elected
// from outside its ISR and ELR (the KIP-966 last known leader, or an
// unclean election), as the committed metadata says.
func (c *Controller) UncleanElections(tp model.TopicPartition) int {
	if p := c.state.partition(tp); p != nil {
		return p.UncleanElections
	}
	return 0
}

// ID is the controller's node id.
func (c *Controller) ID() model.BrokerID { return c.cfg.ID }
