package faults

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Nemesis is a schedule armed on a run's kernel: it fires the faults,
// remembers what each window's start did so that its end undoes exactly
// that, keeps the log of what every fault resolved to, and heals
// everything at the start of the liveness phase (Heal).
//
// Overlapping windows compose by holds: a node stays down (paused, cut,
// with a wrong clock, with a slow disk) while any window that put it so is
// open, and comes back when the last one closes. An instantaneous fault
// ("at") takes no hold: it changes the world and leaves it so, until a
// later fault or Heal changes it back.
type Nemesis struct {
	w   World
	s   *sim.Sim
	log []Event

	down      map[model.BrokerID]int // open crash windows per node
	paused    map[model.BrokerID]int // open pause windows per node
	clock     map[model.BrokerID]int // open skew and drift windows per node
	slowDisk  map[model.BrokerID]int // open sync-latency windows per node
	diskFound map[model.BrokerID]time.Duration
	cuts      map[link]int // cuts per directed link: windows and at-faults

	// What faults touched, for Heal: it undoes exactly these.
	crashed  map[model.BrokerID]bool
	froze    map[model.BrokerID]bool
	clocked  map[model.BrokerID]bool
	clogged  map[link]bool
	diskOrig map[model.BrokerID]time.Duration // sync latency before any fault

	// outside are the nodes that are not members of the cluster: spare
	// brokers not yet added, decommissioned brokers (members.go). No
	// crash, restart, window end or heal starts or stops them.
	outside map[model.BrokerID]bool

	healed bool
}

// armed is one fault of the schedule with what its start resolved to.
type armed struct {
	f      Fault
	stream string           // the fault's own random stream
	nodes  []model.BrokerID // what the start resolved to
	cut    []link           // what the start cut (partitions)
	noop   bool             // the start did nothing, so the end has nothing to undo
}

// Edge says which moment of a fault an Event records.
type Edge uint8

const (
	EdgeAt    Edge = iota // an instantaneous fault fired
	EdgeStart             // a window opened
	EdgeEnd               // a window closed
)

func (e Edge) String() string {
	switch e {
	case EdgeStart:
		return "start"
	case EdgeEnd:
		return "end"
	}
	return "at"
}

// Event is one line of a run's fault log: when, which fault, which nodes
// its selectors resolved to, and a note (why it did nothing, what a
// partition's sides were, what a window end found).
type Event struct {
	Time  time.Duration
	Edge  Edge
	Fault Fault
	Nodes []model.BrokerID // nil when the fault resolved to nobody
	Note  string
}

// NoOp reports whether the event changed nothing because its selectors
// resolved to nobody (or the liveness phase had begun). A fault that names
// no node (heal) has empty, non-nil Nodes.
func (e Event) NoOp() bool { return e.Nodes == nil }

// String is the event as a run's output prints it:
// "12s at: at 12s crash leader-of t/0 -> b2".
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %s: %s", e.Time, e.Edge, e.Fault)
	if e.Nodes == nil {
		b.WriteString(" -> nobody")
	} else if len(e.Nodes) > 0 {
		b.WriteString(" ->")
	}
	for _, id := range e.Nodes {
		b.WriteString(" " + id.String())
	}
	if e.Note != "" {
		b.WriteString(" (" + e.Note + ")")
	}
	return b.String()
}

// Apply arms s on the world's kernel: every fault's start (and, for a
// window, its end) becomes a kernel event at its time, named after the
// fault so that the schedule is part of the trace hash. Selectors resolve
// when the fault fires. It refuses a schedule that does not validate,
// names a node the world does not have, or has a fault earlier than the
// kernel's clock; then nothing is armed.
func Apply(w World, s Schedule) (*Nemesis, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	k := w.Sim()
	known := map[model.BrokerID]bool{}
	for _, id := range k.Nodes() {
		known[model.BrokerID(id)] = true
	}
	_, operates := w.(Operator)
	_, topicOps := w.(TopicOperator)
	_, memberOps := w.(MemberOperator)
	_, rolls := w.(RollingOperator)
	for i, f := range s {
		if f.Kind == KindRollingRestart && !rolls {
			return nil, fmt.Errorf("fault %d (%s): this world runs no rolling restarts", i+1, f)
		}
		if isMemberArgs(specs[f.Kind].args) && !memberOps {
			return nil, fmt.Errorf("fault %d (%s): this world runs no membership operations", i+1, f)
		}
		if f.Kind.IsOperation() && !operates {
			return nil, fmt.Errorf("fault %d (%s): this world runs no operations", i+1, f)
		}
		if isTopicArgs(specs[f.Kind].args) && !topicOps {
			return nil, fmt.Errorf("fault %d (%s): this world runs no topic operations", i+1, f)
		}
		if f.At < k.Now() {
			return nil, fmt.Errorf("fault %d (%s): at %v, before the run's clock (%v)", i+1, f, f.At, k.Now())
		}
		for _, sel := range selectors(f) {
			if sel.Kind == SelNode && !known[sel.Node] {
				return nil, fmt.Errorf("fault %d (%s): no node %v in this world", i+1, f, sel.Node)
			}
		}
	}
	n := &Nemesis{
		w: w, s: k,
		down: map[model.BrokerID]int{}, paused: map[model.BrokerID]int{},
		clock: map[model.BrokerID]int{}, slowDisk: map[model.BrokerID]int{},
		diskFound: map[model.BrokerID]time.Duration{}, cuts: map[link]int{},
		crashed: map[model.BrokerID]bool{}, froze: map[model.BrokerID]bool{},
		clocked: map[model.BrokerID]bool{}, clogged: map[link]bool{},
		diskOrig: map[model.BrokerID]time.Duration{},
		outside:  map[model.BrokerID]bool{},
	}
	// Each fault draws from its own stream, named for what it does (not
	// when) and its rank among faults that do the same: dropping another
	// fault, or moving or shortening this one, as shrinking does, leaves
	// its random choices as they were.
	seen := map[string]int{}
	ew, hasEvents := w.(EventWorld)
	for i, f := range s {
		text, what := f.String(), f.What()
		a := &armed{f: f, stream: "faults/fire/" + what + "#" + strconv.Itoa(seen[what])}
		seen[what]++
		if f.On != nil {
			if !hasEvents {
				return nil, fmt.Errorf("fault %d (%s): this world reports no events", i+1, f)
			}
			on := *f.On
			k.At(f.At, "arm "+text, func() {
				ew.OnEvent(on.Event, on.TP, func() {
					// In an event of its own: the one that made the
					// event is a node's handler, which a fault must not
					// interrupt halfway.
					k.At(k.Now(), "fault "+text, func() {
						if on.For == 0 {
							n.fire(a, EdgeAt)
							return
						}
						n.fire(a, EdgeStart)
						k.At(k.Now()+on.For, "fault end "+text, func() { n.fire(a, EdgeEnd) })
					})
				})
			})
			continue
		}
		if f.Windowed() {
			k.At(f.At, "fault start "+text, func() { n.fire(a, EdgeStart) })
			k.At(f.End, "fault end "+text, func() { n.fire(a, EdgeEnd) })
		} else {
			k.At(f.At, "fault "+text, func() { n.fire(a, EdgeAt) })
		}
	}
	return n, nil
}

// EventWorld is a World that reports events, for triggered faults (on
// EVENT T/P after T ...): OnEvent calls fn once, at the first event of the
// kind on tp from now on (Events lists the kinds).
type EventWorld interface {
	OnEvent(event string, tp model.TopicPartition, fn func())
}

// selectors lists every selector a fault names.
func selectors(f Fault) []Selector {
	var out []Selector
	for _, s := range []Selector{f.Target, f.Peer} {
		if !s.IsZero() {
			out = append(out, s)
		}
	}
	for _, g := range f.Groups {
		out = append(out, g...)
	}
	return out
}

// Log returns what every fault that fired so far resolved to, in firing
// order.
func (n *Nemesis) Log() []Event { return n.log }

func (n *Nemesis) record(a *armed, edge Edge, nodes []model.BrokerID, note string) {
	n.log = append(n.log, Event{Time: n.s.Now(), Edge: edge, Fault: a.f, Nodes: nodes, Note: note})
}

// fire runs one edge of one fault.
func (n *Nemesis) fire(a *armed, edge Edge) {
	if n.healed {
		n.record(a, edge, nil, "skipped: the liveness phase has begun")
		return
	}
	if edge == EdgeEnd {
		n.end(a)
		return
	}
	n.start(a, edge)
}

// start fires an instantaneous fault or opens a window.
func (n *Nemesis) start(a *armed, edge Edge) {
	f, win := a.f, edge == EdgeStart
	r := n.s.Rand(a.stream)
	switch {
	case f.Kind.IsOperation():
		n.operate(a, edge)
	case f.Kind.isPartition():
		ls, nodes, desc := n.partition(f, r)
		if len(ls) == 0 {
			a.noop = true
			n.record(a, edge, nil, desc)
			return
		}
		for _, l := range ls {
			n.cut(l)
		}
		if win {
			a.cut = ls
		}
		a.nodes = nodes
		n.record(a, edge, nodes, desc)
	case f.Kind == KindHeal:
		n.s.HealAll()
		clear(n.cuts)
		n.record(a, edge, []model.BrokerID{}, "")
	case f.Kind == KindClog && (f.Target.Several() || f.Peer.Several()):
		n.clogGroups(a, edge, r)
	case specs[f.Kind].args == argsTwo:
		x, why := f.Target.resolve(n.w, r)
		y, why2 := f.Peer.resolve(n.w, r)
		switch {
		case x == model.NoBroker || y == model.NoBroker:
			a.noop = true
			if why != "" && why2 != "" {
				why += "; "
			}
			n.record(a, edge, nil, why+why2)
			return
		case x == y:
			a.noop = true
			n.record(a, edge, nil, "both ends are "+x.String())
			return
		}
		a.nodes = []model.BrokerID{x, y}
		if f.Kind == KindReset {
			n.s.ResetConnection(node(x), node(y))
		} else {
			n.clog(link{x, y}, f.Delay, f.windowLength())
		}
		n.record(a, edge, a.nodes, "")
	default:
		ids, why := f.Target.resolveAll(n.w, r)
		if ids == nil {
			a.noop = true
			n.record(a, edge, nil, why)
			return
		}
		a.nodes = ids
		var notes []string
		for _, id := range ids {
			if note := n.startNode(f, id, win); note != "" {
				notes = append(notes, nodeNote(ids, id, note))
			}
		}
		n.record(a, edge, a.nodes, strings.Join(notes, "; "))
	}
}

// nodeNote prefixes a note with the node it is about when a fault hit
// several (all-controllers): "b101 already down".
func nodeNote(ids []model.BrokerID, id model.BrokerID, note string) string {
	if len(ids) == 1 {
		return note
	}
	return id.String() + " " + note
}

// startNode does a one-node fault to id and returns a note for the log
// ("" when it did what it says).
func (n *Nemesis) startNode(f Fault, id model.BrokerID, win bool) string {
	k, nid := n.s, node(id)
	if n.outside[id] && (f.Kind == KindCrash || f.Kind == KindPowerLoss || f.Kind == KindShutdown || f.Kind == KindRestart) {
		return "not a member of the cluster (a spare not added, or decommissioned)"
	}
	switch f.Kind {
	case KindCrash, KindPowerLoss, KindShutdown:
		if win {
			n.down[id]++
		}
		if !k.IsUp(nid) {
			return "already down"
		}
		n.crashed[id] = true
		switch f.Kind {
		case KindCrash:
			k.Crash(nid)
		case KindPowerLoss:
			k.PowerLoss(nid)
		default:
			k.Shutdown(nid)
		}
	case KindRestart:
		if k.IsUp(nid) && !k.IsStopping(nid) {
			return "already up"
		}
		k.Restart(nid) // a node still stopping restarts once it is down
	case KindPause:
		if win {
			n.paused[id]++
		}
		switch {
		case !k.IsUp(nid):
			return "down: nothing to pause"
		case k.IsPaused(nid):
			return "already paused"
		}
		n.froze[id] = true
		k.Pause(nid)
	case KindResume:
		if !k.IsPaused(nid) {
			return "not paused"
		}
		k.Resume(nid)
	case KindSkew, KindDrift:
		if win {
			n.clock[id]++
		}
		n.clocked[id] = true
		if f.Kind == KindSkew {
			k.Skew(nid, f.Delay)
		} else {
			k.Drift(nid, f.Rate)
		}
	case KindResync:
		k.ResyncClock(nid)
	case KindSyncLat:
		d := k.Disk(nid)
		if _, ok := n.diskOrig[id]; !ok {
			n.diskOrig[id] = d.SyncLatency()
		}
		if win {
			if n.slowDisk[id] == 0 {
				n.diskFound[id] = d.SyncLatency()
			}
			n.slowDisk[id]++
		}
		d.SetSyncLatency(f.Delay)
	case KindLatency:
		for _, o := range k.Nodes() {
			if p := model.BrokerID(o); p != id {
				n.clog(link{id, p}, f.Delay, f.windowLength())
				n.clog(link{p, id}, f.Delay, f.windowLength())
			}
		}
	default:
		panic("faults: no start for kind " + string(f.Kind))
	}
	return ""
}

// end closes a window: it undoes what the start did, to the nodes the
// start resolved to (not to whoever the selector would name now), unless
// another open window still holds them.
func (n *Nemesis) end(a *armed) {
	f := a.f
	if a.noop {
		n.record(a, EdgeEnd, nil, "the start did nothing")
		return
	}
	note := ""
	switch {
	case f.Kind.isPartition():
		held := 0
		for _, l := range a.cut {
			if !n.uncut(l) {
				held++
			}
		}
		if held > 0 {
			note = fmt.Sprintf("%d of %d links still cut by other faults", held, len(a.cut))
		}
	case f.Kind == KindClog || f.Kind == KindLatency:
		// The kernel's clog lasts exactly the window: nothing to undo.
	default:
		var notes []string
		for _, id := range a.nodes {
			if nn := n.endNode(f, id); nn != "" {
				notes = append(notes, nodeNote(a.nodes, id, nn))
			}
		}
		note = strings.Join(notes, "; ")
	}
	n.record(a, EdgeEnd, a.nodes, note)
}

// endNode undoes a one-node window on id, unless another open window still
// holds it, and returns a note for the log ("" when it healed).
func (n *Nemesis) endNode(f Fault, id model.BrokerID) (note string) {
	k, nid := n.s, node(id)
	switch f.Kind {
	case KindCrash, KindPowerLoss, KindShutdown:
		note = release(n.down, id)
		switch {
		case n.outside[id]:
			note = "decommissioned: left down"
		case note != "":
		case k.IsUp(nid) && !k.IsStopping(nid):
			note = "already up"
		default:
			k.Restart(nid) // a node still stopping restarts once it is down
		}
	case KindPause:
		note = release(n.paused, id)
		switch {
		case note != "":
		case !k.IsPaused(nid):
			note = "not paused"
		default:
			k.Resume(nid)
		}
	case KindSkew, KindDrift:
		if note = release(n.clock, id); note == "" {
			k.ResyncClock(nid)
		}
	case KindSyncLat:
		if note = release(n.slowDisk, id); note == "" {
			k.Disk(nid).SetSyncLatency(n.diskFound[id])
		}
	default:
		panic("faults: no end for kind " + string(f.Kind))
	}
	return note
}

// release drops one hold on id and returns "" when it was the last one (so
// the caller heals), or a note saying another window still holds it.
func release(holds map[model.BrokerID]int, id model.BrokerID) string {
	holds[id]--
	if holds[id] > 0 {
		return "still held by another window"
	}
	delete(holds, id)
	return ""
}

// cut adds one hold on a directed link, cutting it at the first.
func (n *Nemesis) cut(l link) {
	n.cuts[l]++
	if n.cuts[l] == 1 {
		n.s.Cut(node(l.from), node(l.to))
	}
}

// uncut drops one hold on a directed link and heals it at the last. It
// reports false when another fault still holds it cut. A link a "heal"
// fault already healed has no hold left and stays healed.
func (n *Nemesis) uncut(l link) bool {
	c := n.cuts[l]
	switch {
	case c == 0:
		return true
	case c > 1:
		n.cuts[l] = c - 1
		return false
	}
	delete(n.cuts, l)
	n.s.Heal(node(l.from), node(l.to))
	return true
}

// clogGroups slows every directed link from a node the target names to
// a node the peer names (other than itself), for the window: the clog of
// a group of nodes ("clog rack r1 rack r2 +200ms").
func (n *Nemesis) clogGroups(a *armed, edge Edge, r *rand.Rand) {
	f := a.f
	xs, why := f.Target.resolveAll(n.w, r)
	ys, why2 := f.Peer.resolveAll(n.w, r)
	if xs == nil || ys == nil {
		a.noop = true
		if why != "" && why2 != "" {
			why += "; "
		}
		n.record(a, edge, nil, why+why2)
		return
	}
	links := 0
	for _, x := range xs {
		for _, y := range ys {
			if x != y {
				n.clog(link{x, y}, f.Delay, f.windowLength())
				links++
			}
		}
	}
	if links == 0 {
		a.noop = true
		n.record(a, edge, nil, "both ends are "+describe([][]model.BrokerID{xs}))
		return
	}
	a.nodes = slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(xs), ys...))))
	n.record(a, edge, a.nodes, describe([][]model.BrokerID{xs, ys}))
}

// clog slows a directed link for d; the kernel ends it by itself.
func (n *Nemesis) clog(l link, extra, d time.Duration) {
	n.clogged[l] = true
	n.s.Clog(node(l.from), node(l.to), extra, d)
}
