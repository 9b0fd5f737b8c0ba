package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Config fixes a run's seed and limits.
type Config struct {
	// Seed is the one number every random choice of the run derives from.
	Seed uint64
	// EventLimit stops a run after this many processed events; 0 means no
	// limit. Every run should have one: it bounds a run that livelocks.
	EventLimit uint64
	// Link is the configuration every link starts with.
	Link LinkConfig
	// TCP selects the TCP-faithful network (see network.go): a cut is
	// silent and what is sent into it is retransmitted with TCP's
	// backoff, a power loss announces nothing, a closed socket is closed
	// (Env.Close). False keeps the announcing network: a cut or a power
	// loss resets the connection and tells both ends at once, and what is
	// sent into a cut is lost.
	TCP bool
	// CheckpointEvery records the trace hash after every this many trace
	// events (0: no checkpoints).
	CheckpointEvery uint64
	// Record keeps every trace event with a readable detail, for printing a
	// trace or naming the first event where two runs part. It costs time;
	// RecordFrom/RecordTo/RecordLimit bound what is kept.
	Record      bool
	RecordFrom  uint64 // first event index kept (default 1)
	RecordTo    uint64 // last event index kept (0: no end)
	RecordLimit int    // at most this many events kept (default 1,000,000)
}

// StopReason says why Run returned.
type StopReason string

const (
	StopTimeLimit  StopReason = "time-limit"  // the clock reached the deadline
	StopEventLimit StopReason = "event-limit" // Config.EventLimit events ran
	StopIdle       StopReason = "idle"        // no event was left
)

// Stats counts what happened in a run.
type Stats struct {
	Events    uint64 // processed queue events (deliveries, timers, ...)
	Sent      uint64 // messages sent
	Delivered uint64 // messages delivered to a node
	Dropped   uint64 // messages lost to cuts, resets, crashes
	Fired     uint64 // timers fired
}

type nodeStatus uint8

const (
	statusDown nodeStatus = iota
	statusUp
	statusPaused
)

// nodeState is everything the kernel keeps about one node across its
// incarnations.
type nodeState struct {
	id      NodeID
	idx     int32
	name    string
	factory Factory
	node    Node // nil while down
	env     *Env
	status  nodeStatus
	off     bool   // the machine lost power and has not booted: no kernel answers
	inc     uint32 // incarnation: bumps at every start
	timers  timerTable
	clock   nodeClock
	disk    *Disk
	rand    *rand.Rand
	held    []event // events that came due while paused, in order
	// stopping is a graceful stop under way (graceful.go);
	// restartAfterStop, a restart asked for meanwhile.
	stopping, restartAfterStop bool
	starts                     int
}

// Sim is one simulated world: a clock, an event queue, nodes, links and
// disks. It is not safe for use by more than one goroutine, and never needs
// to be: a run is single-threaded by design.
type Sim struct {
	cfg         Config
	streams     Streams
	now         time.Duration
	q           queue
	nodes       []*nodeState
	byID        map[NodeID]int32
	links       []*link
	hash        uint64
	events      uint64 // trace events folded into the hash
	checkpoints []Checkpoint
	rec         *recorder
	stats       Stats
	onKill      []KillHook
}

// New makes an empty world.
func New(cfg Config) *Sim {
	s := &Sim{
		cfg:     cfg,
		streams: NewStreams(cfg.Seed),
		byID:    map[NodeID]int32{},
		hash:    splitmix64(cfg.Seed),
	}
	if cfg.Record {
		r := &recorder{from: cfg.RecordFrom, to: cfg.RecordTo, limit: cfg.RecordLimit}
		if r.from == 0 {
			r.from = 1
		}
		if r.limit == 0 {
			r.limit = 1_000_000
		}
		s.rec = r
	}
	return s
}

// Seed is the run's seed.
func (s *Sim) Seed() uint64 { return s.cfg.Seed }

// Now is the true virtual time.
func (s *Sim) Now() time.Duration { return s.now }

// Rand returns a named random stream of this run (see Streams). Harness
// pieces (workloads, fault schedules) take theirs from here.
func (s *Sim) Rand(name string) *rand.Rand { return s.streams.Stream(name) }

// Hash is the running trace hash: equal for two runs exactly when they
// processed the same events in the same order (up to hash collisions).
func (s *Sim) Hash() uint64 { return s.hash }

// TraceEvents is the number of events folded into the hash.
func (s *Sim) TraceEvents() uint64 { return s.events }

// Checkpoints returns the hash checkpoints recorded so far.
func (s *Sim) Checkpoints() []Checkpoint { return s.checkpoints }

// Trace returns the recorded trace events (Config.Record).
func (s *Sim) Trace() []TraceEvent {
	if s.rec == nil {
		return nil
	}
	return s.rec.events
}

// Stats returns the run's counters.
// LimitReached reports whether Run has processed Config.EventLimit
// events, after which it runs no more.
func (s *Sim) LimitReached() bool {
	return s.cfg.EventLimit > 0 && s.stats.Events >= s.cfg.EventLimit
}

func (s *Sim) Stats() Stats { return s.stats }

// Pending is the number of events waiting in the queue.
func (s *Sim) Pending() int { return s.q.len() }

func (s *Sim) index(id NodeID) int32 {
	i, ok := s.byID[id]
	if !ok {
		panic(fmt.Sprintf("sim: unknown node %v", id))
	}
	return i
}

// AddNode declares a node with a name (used in traces and to derive its
// random streams) and a factory. The node stays down until Start. All nodes
// must be added before the run begins.
func (s *Sim) AddNode(id NodeID, name string, factory Factory) {
	if _, dup := s.byID[id]; dup {
		panic(fmt.Sprintf("sim: node %v added twice", id))
	}
	if s.events > 0 || s.q.len() > 0 {
		panic("sim: AddNode after the run began")
	}
	idx := int32(len(s.nodes))
	n := &nodeState{
		id:      id,
		idx:     idx,
		name:    name,
		factory: factory,
		rand:    s.streams.Stream("node/" + name),
		disk:    newDisk(name, s.streams.Stream("disk/"+name), &s.now),
	}
	s.nodes = append(s.nodes, n)
	s.byID[id] = idx
	// Grow the dense link table to the new size, keeping existing links.
	old, on := s.links, len(s.nodes)-1
	s.links = make([]*link, len(s.nodes)*len(s.nodes))
	for a := 0; a < on; a++ {
		copy(s.links[a*len(s.nodes):a*len(s.nodes)+on], old[a*on:(a+1)*on])
	}
}

// Nodes lists the node ids in the order they were added.
func (s *Sim) Nodes() []NodeID {
	out := make([]NodeID, len(s.nodes))
	for i, n := range s.nodes {
		out[i] = n.id
	}
	return out
}

// Node returns the current incarnation of a node, or nil while it is down.
// The harness uses it to read state at the end of a run; it must not change
// the node.
func (s *Sim) Node(id NodeID) Node { return s.nodes[s.index(id)].node }

// Name returns a node's name.
func (s *Sim) Name(id NodeID) string { return s.nodes[s.index(id)].name }

// Disk returns a node's disk.
func (s *Sim) Disk(id NodeID) *Disk { return s.nodes[s.index(id)].disk }

// At schedules a harness action (a fault, a workload step) at true time t.
// Its name is folded into the trace hash when it runs.
func (s *Sim) At(t time.Duration, name string, fn func()) {
	if t < s.now {
		t = s.now
	}
	s.q.push(t, event{kind: evControl, node: -1, name: name, fn: fn})
}

// AfterFunc schedules a harness action d after the current time.
func (s *Sim) AfterFunc(d time.Duration, name string, fn func()) { s.At(s.now+d, name, fn) }

// Run processes events until the clock would pass deadline, the event limit
// is reached, or nothing is left to do, and says which. After a time-limit
// stop the clock reads deadline, so runs can be continued in slices.
func (s *Sim) Run(deadline time.Duration) (reason StopReason) {
	defer func() {
		if r := recover(); r != nil {
			panic(fmt.Sprintf("%v\n(at virtual time %v, after %d events, seed %d)", r, s.now, s.stats.Events, s.cfg.Seed))
		}
	}()
	for {
		if s.cfg.EventLimit > 0 && s.stats.Events >= s.cfg.EventLimit {
			return StopEventLimit
		}
		at, ok := s.q.peek()
		if !ok {
			return StopIdle
		}
		if at > deadline {
			s.now = deadline
			return StopTimeLimit
		}
		k := s.q.take()
		s.now = k.at
		s.stats.Events++
		s.dispatch(&s.q.slab[k.idx])
		s.q.done(k.idx)
	}
}

// dispatch hands one due event to its node (or runs a harness action).
func (s *Sim) dispatch(ev *event) {
	if ev.kind == evControl {
		s.traceKind(-1, "control", kindControlDigest, fnv64(ev.name), s.detailString(ev.name))
		ev.fn()
		return
	}
	if ev.kind == evRetransmit {
		s.retransmit(ev) // the kernel's, whatever its process is doing
		return
	}
	n := s.nodes[ev.node]
	if ev.kind == evSync {
		// The device finishes the sync whether or not the process that
		// asked still lives; only a power loss kills it.
		if ev.conn == n.disk.powerEpoch {
			n.disk.completeSync(ev.name, ev.upTo, ev.gen)
		}
	}
	if n.inc != ev.inc || n.status == statusDown {
		if ev.kind == evDeliver {
			s.stats.Dropped++
		}
		return // for an incarnation that is gone
	}
	switch ev.kind {
	case evDeliver:
		l := s.link(ev.peer, ev.node)
		drained := l.conn != ev.conn
		if drained && (!l.drains(ev.conn, s.now) || l.cut) {
			s.stats.Dropped++
			return // the connection it travelled on broke
		}
		if l.cut && s.cfg.TCP && l.cfg.Datagram == nil {
			// Sent before the cut, it meets the cut on the way.
			s.catchInFlight(l, ev.peer, ev.node, ev.msg)
			return
		}
	case evFire, evSync:
		if !n.timers.live(ev.timer) {
			return // cancelled
		}
	}
	if n.status == statusPaused {
		n.held = append(n.held, *ev)
		return
	}
	s.deliver(n, ev)
}

// deliver calls the node's handler for an event that is due and valid.
func (s *Sim) deliver(n *nodeState, ev *event) {
	env := n.env
	switch ev.kind {
	case evDeliver:
		s.stats.Delivered++
		from := s.nodes[ev.peer].id
		s.traceKind(n.id, "deliver", kindDeliverDigest, ev.msg.Digest(), s.detailMsg(from, n.id, ev.msg))
		n.node.Receive(env, from, ev.msg)
	case evFire, evSync:
		s.stats.Fired++
		n.timers.release(ev.timer)
		s.traceKind(n.id, "fire", kindFireDigest, fnv64(ev.tkind)^uint64(ev.arg), s.detailTimer(ev.tkind, ev.arg))
		n.node.Fire(env, Timer{ID: ev.timer, Kind: ev.tkind, Arg: ev.arg})
	case evDisconnect:
		peer := s.nodes[ev.peer].id
		s.traceKind(n.id, "disconnect", kindDisconnectDigest, uint64(uint32(peer)), s.detailString(peer.String()))
		n.node.Disconnected(env, peer)
	}
}

// The detail helpers return nil unless the trace is recorded, so that a
// normal run formats nothing.
func (s *Sim) detailString(d string) func() string {
	if s.rec == nil {
		return nil
	}
	return func() string { return d }
}

func (s *Sim) detailMsg(from, to NodeID, m Message) func() string {
	if s.rec == nil {
		return nil
	}
	return func() string { return fmt.Sprintf("%v->%v %v", from, to, m) }
}

func (s *Sim) detailTimer(kind string, arg int64) func() string {
	if s.rec == nil {
		return nil
	}
	return func() string { return fmt.Sprintf("%s(%d)", kind, arg) }
}

// controlTrace folds a kernel-level action (crash, cut, ...) into the hash.
func (s *Sim) controlTrace(kind, detail string) {
	s.traceOut(-1, kind, fnv64(detail), s.detailString(detail))
}

func (s *Sim) after(n *nodeState, d time.Duration, kind string, arg int64) TimerID {
	if d < 0 {
		d = 0
	}
	id := n.timers.arm()
	at := s.now + n.clock.trueDelay(d)
	// Float rounding in the drift conversion must never let a timer fire
	// before the node's own clock has advanced by d: a node that re-arms
	// for "the time left" would otherwise spin at one instant forever.
	for target := n.clock.local(s.now) + d; n.clock.local(at) < target; {
		at++
	}
	s.q.push(at, event{kind: evFire, node: n.idx, inc: n.inc, timer: id, tkind: kind, arg: arg})
	return id
}

func (s *Sim) cancel(n *nodeState, id TimerID) { n.timers.release(id) }

func (s *Sim) syncAsync(n *nodeState, name, kind string, arg int64) TimerID {
	f := n.disk.get(name)
	id := n.timers.arm()
	s.q.push(s.now+n.disk.syncLatency, event{
		kind: evSync, node: n.idx, inc: n.inc, timer: id, tkind: kind, arg: arg,
		name: name, upTo: int64(f.length()), gen: f.gen, conn: n.disk.powerEpoch,
	})
	return id
}
