package controller

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Config configures a controller node.
type Config struct {
	// ID is the controller's node id, which brokers have in their
	// configuration (the cluster builder's default is 100).
	ID model.BrokerID
	// Cluster is the cluster's configuration: the controller reads
	// broker.heartbeat.interval.ms, broker.session.timeout.ms,
	// eligible.leader.replicas.enable, default.replication.factor and the
	// topic defaults (min.insync.replicas,
	// unclean.leader.election.enable).
	Cluster model.Config
	_       struct{}
}

// Controller is the single metadata controller: a sim.Node. Its durable
// state is the metadata log on its disk; everything else (broker sessions,
// what each broker has confirmed) is soft state rebuilt at every start.
type Controller struct {
	cfg   Config
	env   *sim.Env // this incarnation's environment, for CreateTopic
	log   *metadataLog
	state *metadataState

	// sessions is the heartbeat bookkeeping per registered broker, in
	// memory only, like Kafka's BrokerHeartbeatManager: a controller that
	// restarts gives every broker a fresh session.
	sessions map[model.BrokerID]*session
	// sessionTimer is armed at the earliest moment a live broker's session
	// can expire (0 when none is armed), sessionTimerAt that moment.
	sessionTimer   sim.TimerID
	sessionTimerAt time.Duration

	// replayed and tornBytes describe the last start's recovery.
	replayed  int
	tornBytes int64
}

// Timer kinds.
const timerSession = "session-expiry"

// New builds a controller. The cluster builder hands the kernel
// func() sim.Node { return controller.New(cfg) } as the node's factory.
func New(cfg Config) *Controller {
	return &Controller{cfg: cfg}
}

// Start recovers the metadata from the log (dropping a torn tail), begins a
// new controller epoch with a durable LeaderChangeRecord, and gives every
// registered broker a fresh session.
func (c *Controller) Start(env *sim.Env) {
	c.env = env
	c.state = newMetadataState(c.cfg.Cluster)
	c.sessions = map[model.BrokerID]*session{}
	log, entries, torn := openLog(env.Disk())
	c.log = log
	for _, e := range entries {
		c.state.apply(e.offset, e.record)
	}
	c.replayed, c.tornBytes = len(entries), torn
	// Trace details are folded into the trace hash, so they are the same
	// whether or not the trace is recorded; metadata changes are rare
	// enough to describe every time.
	env.Trace("metadata-replayed", "records="+itoa(int64(len(entries)))+" tornBytes="+itoa(torn)+
		" offset="+itoa(c.state.offset))
	c.commit(env, []Record{LeaderChangeRecord{ControllerEpoch: c.state.controllerEpoch + 1, ControllerID: c.cfg.ID}})

	// Kafka's ClusterControlManager.activate touches every registered
	// broker: the new controller does not know when they were last heard
	// from, so each gets a full session before it can be fenced.
	now := env.Now()
	for _, id := range c.state.brokerIDs {
		c.sessions[id] = &session{lastContact: now}
	}
	c.armSessionTimer(env)
}

// Receive handles one request.
func (c *Controller) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	switch m := m.(type) {
	case model.BrokerRegistrationRequest:
		c.handleRegistration(env, from, m)
	case *model.BrokerRegistrationRequest:
		c.handleRegistration(env, from, *m)
	case model.BrokerHeartbeatRequest:
		c.handleHeartbeat(env, from, m)
	case *model.BrokerHeartbeatRequest:
		c.handleHeartbeat(env, from, *m)
	case model.AlterPartitionRequest:
		c.handleAlterPartition(env, from, m)
	case *model.AlterPartitionRequest:
		c.handleAlterPartition(env, from, *m)
	case model.CreateTopicsRequest:
		c.handleCreateTopics(env, from, m)
	case *model.CreateTopicsRequest:
		c.handleCreateTopics(env, from, *m)
	case model.MetadataRequest:
		c.handleMetadata(env, from, m)
	case *model.MetadataRequest:
		c.handleMetadata(env, from, *m)
	default:
		// A controller answers only the controller APIs and Metadata; a
		// request for another API is a wiring mistake, but a running
		// cluster should not die of it, so it is traced and dropped.
		env.Trace("unexpected-message", "")
	}
}

// Fire handles the session-expiry timer.
func (c *Controller) Fire(env *sim.Env, t sim.Timer) {
	if t.Kind == timerSession && t.ID == c.sessionTimer {
		c.sessionTimer = 0
		c.fenceExpired(env)
		c.armSessionTimer(env)
	}
}

// Disconnected forgets what the peer confirmed, if it is a broker. Updates
// lost with the connection need nothing more (the next push is cumulative,
// see publish.go), but a broken connection may also mean the broker
// restarted with nothing: until its next heartbeat confirms an offset
// again, pushes to it are snapshots, which a fresh broker can apply.
func (c *Controller) Disconnected(_ *sim.Env, peer sim.NodeID) {
	if s := c.sessions[model.BrokerID(peer)]; s != nil {
		s.confirmed = 0
	}
}

// commit makes records durable (one batch, synced) and then applies them,
// in order, to the state: the one path by which metadata changes. It
// returns the offset of the first record. Callers publish afterwards.
func (c *Controller) commit(env *sim.Env, records []Record) int64 {
	base := c.log.append(records)
	for i, r := range records {
		c.state.apply(base+int64(i), r)
		env.Trace("metadata-record", itoa(base+int64(i))+" "+r.String())
	}
	return base
}

// MetadataOffset is the offset of the last metadata record applied.
func (c *Controller) MetadataOffset() int64 { return c.state.offset }

// ControllerEpoch is the current controller epoch; it grows at every start.
func (c *Controller) ControllerEpoch() model.Epoch { return c.state.controllerEpoch }

// BrokerState is a registered broker as the controller records it.
type BrokerState struct {
	ID          model.BrokerID
	Epoch       model.Epoch
	Incarnation uint64
	Fenced      bool
}

// Brokers lists the registered brokers, sorted by id.
func (c *Controller) Brokers() []BrokerState {
	out := make([]BrokerState, 0, len(c.state.brokerIDs))
	for _, id := range c.state.brokerIDs {
		b := c.state.brokers[id]
		out = append(out, BrokerState{ID: b.ID, Epoch: b.Epoch, Incarnation: b.Incarnation, Fenced: b.Fenced})
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
