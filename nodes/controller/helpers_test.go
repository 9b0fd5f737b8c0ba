package controller

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/raft"
	"kafkasim/sim"
)

const ctrlID = 100

// brokerLog is what a fake broker saw. It lives outside the node value, so
// it survives the broker's crashes, and the test reads it.
type brokerLog struct {
	// Set by the test before a (re)start.
	cleanShutdown bool // what the next registration says
	silent        bool // never register (a node that is not a broker)
	noHeartbeat   bool // register but never heartbeat

	// Current incarnation's view, as it replays the metadata log.
	epoch       model.Epoch
	incarnation uint64
	offset      int64
	view        map[model.TopicPartition]model.PartitionState
	live        []model.BrokerID
	fenced      []model.BrokerID

	// Everything received, across incarnations.
	registrations []model.BrokerRegistrationResponse
	heartbeats    []model.BrokerHeartbeatResponse
	applied       int // metadata records replayed
	snapshots     int // metadata snapshots restored
	alters        []model.AlterPartitionResponse
	creates       []model.CreateTopicsResponse
	metadata      []model.MetadataResponse
}

// fakeBroker registers, heartbeats every broker.heartbeat.interval.ms,
// replays the metadata log as an observer of the quorum (as a broker
// must), and records everything.
type fakeBroker struct {
	id        model.BrokerID
	interval  time.Duration
	snapEvery int
	cluster   model.Config
	log       *brokerLog
	corr      int32
	quorum    *raft.Raft
	img       *MetadataImage
}

// Test-injected requests use correlation ids from injected up, so that the
// fake does not react to their answers.
const injected = 9000

func (f *fakeBroker) Start(env *sim.Env) {
	l := f.log
	l.epoch = model.NoEpoch
	l.offset = 0
	l.view = map[model.TopicPartition]model.PartitionState{}
	l.live, l.fenced = nil, nil
	if l.silent {
		return
	}
	l.incarnation = env.Rand().Uint64()
	f.img = NewMetadataImage(f.cluster)
	f.quorum = raft.New(raft.Config{ID: f.id, Voters: []model.BrokerID{ctrlID}, Observer: true, Dir: QuorumDir,
		SnapshotEvery: f.snapEvery}, f)
	f.quorum.Start(env)
	f.publish()
	f.register(env)
}

// Apply, Snapshot, Restore and LeaderChanged are the fake's
// raft.StateMachine: the metadata image.
func (f *fakeBroker) Apply(offset int64, _ model.Epoch, data []byte) {
	f.img.Apply(offset, data)
	f.log.applied++
}

func (f *fakeBroker) Snapshot() []byte { return f.img.Snapshot() }

func (f *fakeBroker) Restore(_ int64, _ model.Epoch, data []byte) {
	f.img.Restore(data)
	f.log.snapshots++
}

func (f *fakeBroker) LeaderChanged(model.BrokerID, model.Epoch, bool) {}

// publish copies the image into the log's view.
func (f *fakeBroker) publish() {
	l := f.log
	tps, _, _ := f.img.TakeChanged()
	for _, tp := range tps {
		l.view[tp], _ = f.img.Partition(tp)
	}
	l.live, l.fenced = f.img.Brokers()
	l.offset = f.quorum.LastApplied()
}

func (f *fakeBroker) register(env *sim.Env) {
	f.corr++
	env.Send(ctrlID, model.BrokerRegistrationRequest{
		CorrelationID: f.corr, BrokerID: f.id, Incarnation: f.log.incarnation, CleanShutdown: f.log.cleanShutdown,
	})
}

func (f *fakeBroker) heartbeat(env *sim.Env) {
	f.corr++
	env.Send(ctrlID, model.BrokerHeartbeatRequest{
		CorrelationID: f.corr, BrokerID: f.id, BrokerEpoch: f.log.epoch, MetadataOffset: f.log.offset,
	})
}

func (f *fakeBroker) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	if f.quorum != nil && f.quorum.Receive(env, from, m) {
		before := f.log.offset
		f.publish()
		// Just caught up with its own registration: say so at once, as
		// a broker does.
		if l := f.log; l.epoch != model.NoEpoch && before < int64(l.epoch) && l.offset >= int64(l.epoch) && !l.noHeartbeat {
			f.heartbeat(env)
		}
		return
	}
	l := f.log
	switch m := m.(type) {
	case model.BrokerRegistrationResponse:
		l.registrations = append(l.registrations, m)
		if m.CorrelationID >= injected {
			return
		}
		if m.Error != model.NoError {
			env.After(100*time.Millisecond, "register", 0)
			return
		}
		l.epoch = m.BrokerEpoch
		if !l.noHeartbeat {
			f.heartbeat(env)
			env.After(f.interval, "heartbeat", int64(l.epoch))
		}
	case model.BrokerHeartbeatResponse:
		l.heartbeats = append(l.heartbeats, m)
		if m.CorrelationID < injected && m.Error == model.StaleBrokerEpoch {
			l.epoch = model.NoEpoch
			f.register(env)
		}
	case model.AlterPartitionResponse:
		l.alters = append(l.alters, m)
	case model.CreateTopicsResponse:
		l.creates = append(l.creates, m)
	case model.MetadataResponse:
		l.metadata = append(l.metadata, m)
	}
}

func (f *fakeBroker) Fire(env *sim.Env, t sim.Timer) {
	if f.quorum != nil && f.quorum.Fire(env, t) {
		f.publish()
		return
	}
	switch t.Kind {
	case "register":
		f.register(env)
	case "heartbeat":
		if model.Epoch(t.Arg) != f.log.epoch {
			return // a timer of an epoch this incarnation has left
		}
		f.heartbeat(env)
		env.After(f.interval, "heartbeat", t.Arg)
	}
}

func (f *fakeBroker) Disconnected(env *sim.Env, peer sim.NodeID) {
	if f.quorum != nil {
		f.quorum.Disconnected(env, peer)
	}
}

// viewList is the fake's view sorted like Controller.Partitions.
func (l *brokerLog) viewList() []model.PartitionState {
	var out []model.PartitionState
	for _, p := range l.view {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b model.PartitionState) int {
		if a.TP.Less(b.TP) {
			return -1
		}
		if b.TP.Less(a.TP) {
			return 1
		}
		return 0
	})
	return out
}

// cluster is a sim.Sim with a controller and fake brokers 1..n.
type cluster struct {
	t    *testing.T
	s    *sim.Sim
	cfg  model.Config
	logs map[model.BrokerID]*brokerLog
}

// snapshotEvery is the quorum's snapshot interval in these tests' clusters
// (0: the default); a test that wants snapshots sets it before building.
var snapshotEvery = 0

// testConfig is the default configuration with three replicas per topic.
func testConfig() model.Config {
	cfg := model.DefaultConfig()
	cfg.Broker.DefaultReplicationFactor = 3
	return cfg
}

// newCluster builds and starts the world: every link 1 ms, seed 1.
func newCluster(t *testing.T, cfg model.Config, brokers int) *cluster {
	t.Helper()
	return newClusterWith(t, cfg, brokers, 1, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}, nil)
}

// newClusterWith also takes the seed, the links, and a hook that can set
// the brokers' logs up before they start.
func newClusterWith(t *testing.T, cfg model.Config, brokers int, seed uint64, link sim.LinkConfig,
	setup func(map[model.BrokerID]*brokerLog)) *cluster {
	t.Helper()
	return newClusterSim(t, cfg, brokers, sim.Config{Seed: seed, EventLimit: 2_000_000, Link: link}, setup)
}

// newClusterSim takes the whole kernel configuration.
func newClusterSim(t *testing.T, cfg model.Config, brokers int, simCfg sim.Config,
	setup func(map[model.BrokerID]*brokerLog)) *cluster {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	c := &cluster{
		t:    t,
		s:    sim.New(simCfg),
		cfg:  cfg,
		logs: map[model.BrokerID]*brokerLog{},
	}
	snap := snapshotEvery
	c.s.AddNode(ctrlID, "controller", func() sim.Node { return New(Config{ID: ctrlID, Cluster: cfg, SnapshotEvery: snap}) })
	for i := 1; i <= brokers; i++ {
		id := model.BrokerID(i)
		l := &brokerLog{cleanShutdown: true}
		c.logs[id] = l
		interval := cfg.Controller.BrokerHeartbeatInterval
		c.s.AddNode(sim.NodeID(id), fmt.Sprintf("b%d", i), func() sim.Node {
			return &fakeBroker{id: id, interval: interval, snapEvery: snap, cluster: cfg, log: l}
		})
	}
	if setup != nil {
		setup(c.logs)
	}
	c.s.Start(ctrlID)
	for i := 1; i <= brokers; i++ {
		c.s.Start(sim.NodeID(i))
	}
	return c
}

// ctrl is the controller's current incarnation.
func (c *cluster) ctrl() *Controller {
	c.t.Helper()
	n, ok := c.s.Node(ctrlID).(*Controller)
	if !ok {
		c.t.Fatalf("controller is down")
	}
	return n
}

// runFor advances the world by d.
func (c *cluster) runFor(d time.Duration) { c.s.Run(c.s.Now() + d) }

// runUntil advances the world to true time t.
func (c *cluster) runUntil(t time.Duration) { c.s.Run(t) }

// broker returns the controller's record of a broker.
func (c *cluster) broker(id model.BrokerID) BrokerState {
	c.t.Helper()
	for _, b := range c.ctrl().Brokers() {
		if b.ID == id {
			return b
		}
	}
	c.t.Fatalf("%v is not registered", id)
	return BrokerState{}
}

// partition returns the controller's state of a partition.
func (c *cluster) partition(tp model.TopicPartition) model.PartitionState {
	c.t.Helper()
	p, ok := c.ctrl().Partition(tp)
	if !ok {
		c.t.Fatalf("no partition %v", tp)
	}
	return p
}

// createTopic creates a topic through the Go method and runs until it is
// committed.
func (c *cluster) createTopic(spec model.TopicSpec) {
	c.t.Helper()
	if code := c.ctrl().CreateTopic(nil, spec); code != model.NoError {
		c.t.Fatalf("CreateTopic %s: %v", spec.Name, code)
	}
	for i := 0; i < 100; i++ {
		if _, ok := c.ctrl().Partition(model.TP(spec.Name, 0)); ok {
			return
		}
		c.runFor(time.Millisecond)
	}
	c.t.Fatalf("topic %s not committed after 100ms", spec.Name)
}

// send delivers m from node from to the controller, as if from had sent it.
func (c *cluster) send(from model.BrokerID, m sim.Message) { c.s.SendAs(sim.NodeID(from), ctrlID, m) }

// started brings up the cluster and waits until every broker is unfenced.
func started(t *testing.T, cfg model.Config, brokers int) *cluster {
	t.Helper()
	c := newCluster(t, cfg, brokers)
	c.runFor(time.Second)
	for _, b := range c.ctrl().Brokers() {
		if b.Fenced {
			t.Fatalf("after 1s %v is still fenced", b.ID)
		}
	}
	return c
}

// isr builds an AlterPartition ISR with the members' current epochs.
func (c *cluster) isr(ids ...model.BrokerID) []model.ISRMember {
	var out []model.ISRMember
	for _, id := range ids {
		out = append(out, model.ISRMember{ID: id, BrokerEpoch: c.broker(id).Epoch})
	}
	return out
}

// alter sends an AlterPartition from the partition's leader with its
// current epochs and returns the answer.
func (c *cluster) alter(req model.AlterPartitionRequest) model.AlterPartitionResponse {
	c.t.Helper()
	l := c.logs[req.BrokerID]
	before := len(l.alters)
	c.send(req.BrokerID, req)
	c.runFor(10 * time.Millisecond)
	if len(l.alters) != before+1 {
		c.t.Fatalf("no answer to %v", req)
	}
	return l.alters[len(l.alters)-1]
}

func ids(xs ...model.BrokerID) []model.BrokerID { return xs }
