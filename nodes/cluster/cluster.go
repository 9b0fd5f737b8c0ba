package cluster

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/nodes/controller"
	"kafkasim/sim"
)

// Conventional node ids: controllers are 100, 101, ...
const (
	DefaultControllerID model.BrokerID = 100
	FirstClientID       sim.NodeID     = 1000
)

// Options describe a cluster. The zero value of each field has a
// sensible default.
type Options struct {
	Seed    uint64
	Brokers int // default 3
	// Controllers is the size of the metadata quorum (default 3); 1 is
	// the single-controller configuration, a quorum of one.
	Controllers int
	// SnapshotEvery is the metadata quorum's snapshot interval in
	// committed entries (0: the raft package's default).
	SnapshotEvery int
	Config        model.Config // zero value: model.DefaultConfig()
	// Topics are created as soon as every broker has registered.
	Topics []model.TopicSpec
	// Link is every link's configuration; default a uniform 0.5–1.5 ms.
	Link       sim.LinkConfig
	EventLimit uint64 // default 100,000,000
	// DiskWriteback is how long unsynced writes stay in a broker's page
	// cache before the operating system writes them back (Linux's
	// vm.dirty_expire_centisecs); a power loss takes only younger ones.
	// Zero means 30 s, Linux's default; negative means never.
	DiskWriteback time.Duration
	// BrokerRacks are the brokers' broker.rack settings, the i-th for
	// broker i+1 ("" or beyond the list: no rack). With any rack set the
	// controller places replicas rack-aware (StripedReplicaPlacer).
	BrokerRacks []string
	// Trace carries the kernel's tracing settings (CheckpointEvery and the
	// Record fields of sim.Config); its other fields are ignored.
	Trace sim.Config
	_     struct{}
}

// Cluster is a built (and, after Start, running) cluster.
type Cluster struct {
	Sim     *sim.Sim
	Config  model.Config
	History *model.Recorder
	// Observed collects what the brokers, the group coordinators and the
	// metadata quorum reported over the run (observe.go).
	Observed    *Observations
	Brokers     []model.BrokerID
	Controllers []model.BrokerID

	topics       []model.TopicSpec
	created      map[string]bool
	topicsDone   bool
	nextClient   sim.NodeID
	started      bool
	createErrors []string
	// later are the clients Start leaves down, each started at its own
	// virtual time (AddClientAt), in the order they were added.
	later []laterClient
}

// laterClient is a client node that starts at a virtual time of its own.
type laterClient struct {
	id sim.NodeID
	at time.Duration
}

// New builds the controller and broker nodes (not yet started). It
// rejects an invalid configuration.
func New(opts Options) (*Cluster, error) {
	kc := opts.Config
	if kc == (model.Config{}) {
		kc = model.DefaultConfig()
	}
	if err := kc.Validate(); err != nil {
		return nil, err
	}
	n := opts.Brokers
	if n == 0 {
		n = 3
	}
	link := opts.Link
	if link == (sim.LinkConfig{}) {
		link = sim.LinkConfig{Latency: sim.Latency{Min: 500 * time.Microsecond, Max: 1500 * time.Microsecond}}
	}
	limit := opts.EventLimit
	if limit == 0 {
		limit = 100_000_000
	}
	kcfg := opts.Trace
	kcfg.Seed, kcfg.EventLimit, kcfg.Link = opts.Seed, limit, link
	kcfg.TCP = kc.Broker.NetworkTCP
	s := sim.New(kcfg)
	c := &Cluster{
		Sim:        s,
		Config:     kc,
		History:    &model.Recorder{},
		Observed:   &Observations{},
		topics:     opts.Topics,
		created:    map[string]bool{},
		nextClient: FirstClientID,
	}
	nc := opts.Controllers
	if nc == 0 {
		nc = 3
	}
	for i := 0; i < nc; i++ {
		c.Controllers = append(c.Controllers, DefaultControllerID+model.BrokerID(i))
	}
	c.Observed.Quorum.Voters = c.Controllers
	watch := QuorumRecorder{Sim: s, To: &c.Observed.Quorum}
	for _, id := range c.Controllers {
		ccfg := controller.Config{ID: id, Voters: c.Controllers, Cluster: kc, SnapshotEvery: opts.SnapshotEvery, Watch: watch}
		// The first controller keeps the single controller's name, and
		// with it its random stream.
		name := "controller"
		if id != DefaultControllerID {
			name = fmt.Sprintf("controller-%d", id)
		}
		s.AddNode(sim.NodeID(id), name, func() sim.Node { return controller.New(ccfg) })
	}
	writeback := opts.DiskWriteback
	if writeback == 0 {
		writeback = 30 * time.Second
	}
	for i := 1; i <= n; i++ {
		id := model.BrokerID(i)
		c.Brokers = append(c.Brokers, id)
		rack := ""
		if i <= len(opts.BrokerRacks) {
			rack = opts.BrokerRacks[i-1]
		}
		s.AddNode(sim.NodeID(id), id.String(), broker.Factory(broker.Config{ID: id, Voters: c.Controllers, Kafka: kc, Rack: rack,
			Observer: newObserver(s, c), SnapshotEvery: opts.SnapshotEvery, QuorumWatch: watch}))
		if writeback > 0 {
			s.Disk(sim.NodeID(id)).SetWriteback(writeback)
		}
	}
	return c, nil
}

// AddClient adds a client node built by f, with the next client id. It
// must be called before Start.
func (c *Cluster) AddClient(name string, f sim.Factory) sim.NodeID {
	if c.started {
		panic("cluster: AddClient after Start")
	}
	id := c.nextClient
	c.nextClient++
	c.Sim.AddNode(id, name, f)
	return id
}

// AddClientAt adds a client node like AddClient that Start leaves down
// and boots at virtual time at instead: a workload whose clients join a
// running cluster (a consumer group that subscribes later, a producer that
// starts after the others).
func (c *Cluster) AddClientAt(name string, f sim.Factory, at time.Duration) sim.NodeID {
	id := c.AddClient(name, f)
	c.later = append(c.later, laterClient{id: id, at: at})
	return id
}

// Start boots every node (a client added with AddClientAt at its own
// time) and arranges for the topics to be created once the brokers have
// registered.
func (c *Cluster) Start() {
	c.started = true
	for _, id := range c.Sim.Nodes() {
		if slices.ContainsFunc(c.later, func(l laterClient) bool { return l.id == id }) {
			continue
		}
		c.Sim.Start(id)
	}
	for _, l := range c.later {
		c.Sim.At(l.at, "start "+c.Sim.Name(l.id), func() { c.Sim.Start(l.id) })
	}
	c.Sim.At(0, "create-topics", c.createTopics)
}

// createTopics asks the active controller to create the topics once every
// broker is registered and unfenced, and checks every 50 ms until each
// topic exists (is committed): a controller that loses leadership before
// committing one drops it, and the next active controller is asked again.
func (c *Cluster) createTopics() {
	ctl := c.ControllerNode()
	ready := ctl != nil
	if ready {
		unfenced := 0
		for _, b := range ctl.Brokers() {
			if !b.Fenced {
				unfenced++
			}
		}
		ready = unfenced == len(c.Brokers)
	}
	if !ready {
		c.Sim.AfterFunc(50*time.Millisecond, "create-topics", c.createTopics)
		return
	}
	pending := 0
	for _, spec := range c.topics {
		if c.created[spec.Name] {
			continue
		}
		if _, ok := ctl.Partition(model.TP(spec.Name, 0)); ok {
			c.created[spec.Name] = true
			continue
		}
		switch code := ctl.CreateTopic(nil, spec); code {
		case model.NoError, model.NotController, model.TopicAlreadyExists:
			pending++
		default:
			c.created[spec.Name] = true
			c.createErrors = append(c.createErrors, fmt.Sprintf("%s: %v", spec.Name, code))
		}
	}
	if pending > 0 {
		c.Sim.AfterFunc(50*time.Millisecond, "create-topics", c.createTopics)
		return
	}
	c.topicsDone = true
}

// Ready reports whether the topics exist and every partition has a
// leader known to the controller.
func (c *Cluster) Ready() bool {
	ctl := c.ControllerNode()
	if !c.topicsDone || ctl == nil {
		return false
	}
	for _, ps := range ctl.Partitions() {
		if ps.Leader == model.NoBroker {
			return false
		}
	}
	return true
}

// RunUntilReady runs the cluster until Ready or the deadline, and returns
// an error naming what is missing at the deadline.
func (c *Cluster) RunUntilReady(deadline time.Duration) error {
	for !c.Ready() {
		if c.Sim.Now() >= deadline {
			return fmt.Errorf("cluster not ready at %v (topics created: %v, errors: %v)", c.Sim.Now(), c.topicsDone, c.createErrors)
		}
		c.Sim.Run(c.Sim.Now() + 10*time.Millisecond)
	}
	if len(c.createErrors) > 0 {
		return fmt.Errorf("topic creation failed: %v", c.createErrors)
	}
	return nil
}

// ControllerNode is the active controller's current incarnation: the
// quorum leader of the highest epoch that has taken office (nil while
// there is none, during an election).
func (c *Cluster) ControllerNode() *controller.Controller {
	var best *controller.Controller
	for _, id := range c.Controllers {
		n, _ := c.Sim.Node(sim.NodeID(id)).(*controller.Controller)
		if n != nil && n.Active() && (best == nil || n.ControllerEpoch() > best.ControllerEpoch()) {
			best = n
		}
	}
	return best
}

// ActiveController is the active controller's id, NoBroker if none.
func (c *Cluster) ActiveController() model.BrokerID {
	if n := c.ControllerNode(); n != nil {
		return n.ID()
	}
	return model.NoBroker
}

// ControllerByID is one controller's current incarnation (nil while down).
func (c *Cluster) ControllerByID(id model.BrokerID) *controller.Controller {
	n, _ := c.Sim.Node(sim.NodeID(id)).(*controller.Controller)
	return n
}

// Broker is a broker's current incarnation (nil while down).
func (c *Cluster) Broker(id model.BrokerID) *broker.Broker {
	n, _ := c.Sim.Node(sim.NodeID(id)).(*broker.Broker)
	return n
}

// Partition is the controller's current view of a partition.
func (c *Cluster) Partition(tp model.TopicPartition) (model.PartitionState, bool) {
	ctl := c.ControllerNode()
	if ctl == nil {
		return model.PartitionState{}, false
	}
	return ctl.Partition(tp)
}

// Leader is the partition's leader as the controller sees it.
func (c *Cluster) Leader(tp model.TopicPartition) model.BrokerID {
	ps, ok := c.Partition(tp)
	if !ok {
		return model.NoBroker
	}
	return ps.Leader
}

// Isolate cuts a broker off from the other brokers, both ways, leaving its
// links to the controller and the clients alone: the partition that makes
// a leader lose its followers while it still looks alive.
func (c *Cluster) Isolate(x model.BrokerID) {
	for _, y := range c.Brokers {
		if y != x {
			c.Sim.Cut(sim.NodeID(x), sim.NodeID(y))
			c.Sim.Cut(sim.NodeID(y), sim.NodeID(x))
		}
	}
}

// LeaderAndFollowers returns a partition's leader and its other replicas
// in assignment order (the order the controller elects them in).
func (c *Cluster) LeaderAndFollowers(tp model.TopicPartition) (model.BrokerID, []model.BrokerID) {
	ps, _ := c.Partition(tp)
	var f []model.BrokerID
	for _, r := range ps.Replicas {
		if r != ps.Leader {
			f = append(f, r)
		}
	}
	return ps.Leader, f
}
