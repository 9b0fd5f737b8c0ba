package faults

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// SwarmOptions say which faults a random run may draw and within which
// bounds. The zero value draws no faults: a run is fault-free unless its
// options say otherwise. Fields other than Kinds and End default when
// zero.
type SwarmOptions struct {
	// Kinds may be drawn (see SwarmKinds). Each run enables a random
	// subset of them, as swarm testing does: a run with fewer kinds
	// exercises each of them harder, and across many seeds every
	// combination is tried.
	Kinds []Kind
	// Start and End bound the safety phase in absolute virtual time:
	// faults start at or after Start, and every window closes by End.
	// End 0 draws no faults.
	Start, End time.Duration
	// MeanInterval is the mean time between two faults of one enabled
	// kind; each run scales it, per kind, by a factor drawn between 1/4
	// and 4 (default 10s).
	MeanInterval time.Duration
	// WindowMin and WindowMax bound a window's length (default 500ms and
	// 10s).
	WindowMin, WindowMax time.Duration
	// SkewMax bounds a clock step (default 10s), DriftMax a clock's rate
	// error (default 0.05), DelayMax the extra delay of clog and latency
	// (default 500ms), SyncLatencyMax a slow disk's sync latency (default
	// 1s).
	SkewMax        time.Duration
	DriftMax       float64
	DelayMax       time.Duration
	SyncLatencyMax time.Duration
	// Controllers aims the swarm at the metadata quorum as much as at the
	// brokers: a fixed node may be any controller, the ways of choosing a
	// node add a random controller and all the controllers at once, and
	// an isolation may cut a node from the controllers only (a controller
	// from its quorum but not from the brokers). Off, the swarm names
	// only the active controller ("controller") and draws exactly what it
	// drew before controllers were a target.
	Controllers bool
	// Targets, if any, are what every fault that takes a node aims at,
	// drawn uniformly per fault, instead of the swarm's own ways of
	// choosing (a fixed node, the leader, ...): "rack r1", "member-of g",
	// "follower-of t/0 #1", "out-of-isr t/0". A kind that takes one node
	// at each end (oneway, reset) skips the targets that name several
	// nodes, and uses its own ways when that leaves none. Clog keeps
	// drawing its second end as a fixed server.
	Targets []Selector
	// Triggers, if any, are events (Events) a drawn fault may wait for:
	// with probability TriggerProb each fault becomes "on EVENT T/P after
	// its time [for its window]", the event and the partition drawn too.
	// They draw from streams of their own ("faults/swarm/trigger/KIND"),
	// so turning triggers on moves no other draw.
	Triggers    []string
	TriggerProb float64
	// MaxPerKind bounds the faults of one kind in one schedule (0: the
	// swarm's own bound, 1000).
	MaxPerKind int
	// Topics are the topics the topic operations (SwarmTopicOperations)
	// create and delete; add-partitions and alter-config name these and
	// the shape's topics. Without any, create-topic and delete-topic are
	// not drawn.
	Topics []string
	_      struct{}
}

// Shape is what Swarm may aim at: the world's servers and the names its
// selectors can use. It is known before the run, unlike the leaders,
// which selectors find when the faults fire.
type Shape struct {
	Brokers     []model.BrokerID
	Controllers []model.BrokerID
	Partitions  []model.TopicPartition
	Groups      []string
	// ReplicationFactor is how many replicas a drawn reassignment names
	// (0: three, or every broker when there are fewer).
	ReplicationFactor int
	// Spares are the spare brokers add-broker may start, in id order
	// (SwarmMemberOperations).
	Spares []model.BrokerID
	_      struct{}
}

// perKindMax bounds the faults of one kind in one schedule, whatever the
// interval and phase length: a limit on everything.
const perKindMax = 1000

func (o SwarmOptions) withDefaults() SwarmOptions {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MeanInterval, 10*time.Second)
	def(&o.WindowMin, 500*time.Millisecond)
	def(&o.WindowMax, 10*time.Second)
	def(&o.SkewMax, 10*time.Second)
	def(&o.DelayMax, 500*time.Millisecond)
	def(&o.SyncLatencyMax, time.Second)
	if o.DriftMax <= 0 {
		o.DriftMax = 0.05
	}
	o.WindowMax = max(o.WindowMax, o.WindowMin)
	return o
}

// Swarm draws a run's fault schedule from its seed. Every enabled kind
// draws from its own stream ("faults/swarm/KIND"), in the fixed order of
// the kinds, and every fault's parameters in a fixed order too: enabling
// one more kind, or changing one kind's bounds, leaves the faults of the
// others exactly as they were. Windowed kinds are always drawn with a
// window, so that whatever a fault breaks comes back within the safety
// phase. Swarm panics on a kind it cannot draw (a programmer's error).
func Swarm(seed uint64, opts SwarmOptions, shape Shape) Schedule {
	for _, k := range opts.Kinds {
		if !specs[k].swarm && !specs[k].swarmOp && !specs[k].swarmTopic && !specs[k].swarmMember {
			panic(fmt.Sprintf("faults: Swarm cannot draw kind %q (see SwarmKinds and SwarmOperations)", string(k)))
		}
	}
	if len(opts.Kinds) == 0 || opts.End <= opts.Start || len(shape.Brokers) == 0 {
		return nil
	}
	opts = opts.withDefaults()
	streams := sim.NewStreams(seed)
	var out Schedule
	for _, k := range kindOrder {
		if !slices.Contains(opts.Kinds, k) {
			continue
		}
		d := drawer{r: streams.Stream("faults/swarm/" + string(k)), o: opts, shape: shape}
		drawn := d.kind(k)
		if len(opts.Triggers) > 0 && opts.TriggerProb > 0 && len(shape.Partitions) > 0 {
			triggerSome(streams.Stream("faults/swarm/trigger/"+string(k)), opts, shape, drawn)
		}
		out = append(out, drawn...)
	}
	return out.Sorted()
}

// drawer draws the faults of one kind.
type drawer struct {
	r     *rand.Rand
	o     SwarmOptions
	shape Shape
	// gone are the brokers decommission drew (members.go).
	gone map[model.BrokerID]bool
}

func (d *drawer) kind(k Kind) Schedule {
	// Swarm testing: each kind is on in about half the runs.
	if d.r.IntN(2) == 0 {
		return nil
	}
	mean := float64(d.o.MeanInterval) * math.Pow(4, 2*d.r.Float64()-1)
	spec := specs[k]
	var out Schedule
	t := d.o.Start
	limit := perKindMax
	if d.o.MaxPerKind > 0 {
		limit = min(limit, d.o.MaxPerKind)
	}
	for range limit {
		// Gaps are exponential (faults of a kind arrive as a Poisson
		// process); computed in floating point so that a huge interval
		// ends the phase instead of overflowing the clock.
		next := float64(t) + d.r.ExpFloat64()*mean
		if next >= float64(d.o.End) {
			break
		}
		t = time.Duration(next)
		at := max(t.Round(time.Millisecond), d.o.Start)
		if at >= d.o.End {
			break
		}
		f := Fault{At: at, Kind: k}
		if spec.when != whenAtOnly {
			// Both at and End are below End and the window is at
			// least 1ms, so the window is never empty.
			f.End = min(at+d.duration(d.o.WindowMin, d.o.WindowMax), d.o.End)
		}
		switch spec.args {
		case argsNode:
			f.Target = d.selector(true)
		case argsTwo:
			f.Target = d.selector(false)
			f.Peer = d.peer(f.Target)
		case argsTP, argsReassign:
			if !d.operation(&f, spec) {
				return out
			}
		case argsCreateTopic, argsTopic, argsAddPartitions, argsAlterConfig:
			if !d.topicOperation(&f, spec) {
				return out
			}
		case argsBroker:
			if !d.memberOperation(&f, len(out)) {
				return out
			}
		}
		if spec.scope {
			scopes := 3 // servers, brokers, all
			if d.o.Controllers && len(d.shape.Controllers) > 0 {
				scopes++ // controllers
			}
			f.Scope = Scope(d.r.IntN(scopes))
		}
		switch k {
		case KindSkew:
			f.Delay = d.duration(d.o.SkewMax/100, d.o.SkewMax)
			if d.r.IntN(2) == 0 {
				f.Delay = -f.Delay
			}
		case KindDrift:
			f.Rate = math.Max(1e-4, math.Round(d.r.Float64()*d.o.DriftMax*1e4)/1e4)
			if d.r.IntN(2) == 0 {
				f.Rate = -f.Rate
			}
		case KindClog, KindLatency:
			f.Delay = d.duration(time.Millisecond, d.o.DelayMax)
		case KindSyncLat:
			f.Delay = d.duration(time.Millisecond, d.o.SyncLatencyMax)
		}
		out = append(out, f)
	}
	return out
}

// operation draws an operation's partition and, for reassign, its target
// replicas: as many as the shape's replication factor, distinct brokers
// in a drawn order (the first is the preferred leader). It is false when
// the shape has no partition to name.
func (d *drawer) operation(f *Fault, spec kindSpec) bool {
	tps := d.shape.Partitions
	if len(tps) == 0 {
		return false
	}
	f.TP = tps[d.r.IntN(len(tps))]
	if spec.args != argsReassign {
		return true
	}
	rf := d.shape.ReplicationFactor
	if rf <= 0 || rf > len(d.shape.Brokers) {
		rf = min(3, len(d.shape.Brokers))
	}
	for _, i := range d.r.Perm(len(d.shape.Brokers))[:rf] {
		f.Replicas = append(f.Replicas, d.shape.Brokers[i])
	}
	return true
}

// duration draws uniformly in [lo, hi], rounded to the millisecond so the
// schedule reads well, and at least 1ms.
func (d *drawer) duration(lo, hi time.Duration) time.Duration {
	v := lo
	if hi > lo {
		v += time.Duration(d.r.Int64N(int64(hi-lo) + 1))
	}
	return max(v.Round(time.Millisecond), time.Millisecond)
}

// selector draws a target: first a way of choosing (a fixed node, the
// controller, a random broker, a partition's leader or ISR follower, a
// group's coordinator; with Controllers, a random controller and, where
// several nodes may be named, all of them), among those the shape
// allows, then one of its kind. Drawing the way first keeps "the leader"
// as likely in a world of many brokers as in one of three. New ways go
// after the old ones, so that a swarm without Controllers draws what it
// always drew.
func (d *drawer) selector(several bool) Selector {
	if ts := d.targets(several); len(ts) > 0 {
		return ts[d.r.IntN(len(ts))]
	}
	type way func() Selector
	fixed := d.shape.Brokers
	quorum := d.o.Controllers && len(d.shape.Controllers) > 0
	if quorum {
		fixed = append(append([]model.BrokerID(nil), d.shape.Brokers...), d.shape.Controllers...)
		slices.Sort(fixed)
		fixed = slices.Compact(fixed)
	}
	ways := []way{
		func() Selector { return Node(fixed[d.r.IntN(len(fixed))]) },
		func() Selector { return RandomBroker() },
	}
	if len(d.shape.Controllers) > 0 {
		ways = append(ways, func() Selector { return Controller() })
	}
	if tps := d.shape.Partitions; len(tps) > 0 {
		ways = append(ways,
			func() Selector { return LeaderOf(tps[d.r.IntN(len(tps))]) },
			func() Selector { return ISRFollower(tps[d.r.IntN(len(tps))]) })
	}
	if gs := d.shape.Groups; len(gs) > 0 {
		ways = append(ways, func() Selector { return CoordinatorOf(gs[d.r.IntN(len(gs))]) })
	}
	if quorum {
		ways = append(ways, func() Selector { return RandomController() })
		if several {
			ways = append(ways, func() Selector { return AllControllers() })
		}
	}
	return ways[d.r.IntN(len(ways))]()
}

// peer draws the second node of a two-node fault: a fixed server, not the
// target when the target is a fixed node (that would be a no-op).
func (d *drawer) peer(target Selector) Selector {
	srv := append(append([]model.BrokerID(nil), d.shape.Brokers...), d.shape.Controllers...)
	slices.Sort(srv)
	srv = slices.Compact(srv)
	i := d.r.IntN(len(srv))
	if target.Kind == SelNode && srv[i] == target.Node && len(srv) > 1 {
		i = (i + 1) % len(srv)
	}
	return Node(srv[i])
}

// targets are the options' Targets a fault may aim at: all of them, or,
// for one end of a two-node fault, those that name one node.
func (d *drawer) targets(several bool) []Selector {
	if several {
		return d.o.Targets
	}
	var out []Selector
	for _, t := range d.o.Targets {
		if !t.Several() {
			out = append(out, t)
		}
	}
	return out
}

// triggerSome turns some of one kind's drawn faults into triggered ones:
// each, with probability o.TriggerProb, waits from its time for an event
// drawn from o.Triggers on a partition drawn from the shape, and keeps
// its window as "for W". The draws are three per fault, whether it is
// triggered or not, so one fault's fate does not move another's.
func triggerSome(r *rand.Rand, o SwarmOptions, shape Shape, s Schedule) {
	for i := range s {
		hit := r.Float64() < o.TriggerProb
		ev := o.Triggers[r.IntN(len(o.Triggers))]
		tp := shape.Partitions[r.IntN(len(shape.Partitions))]
		if !hit {
			continue
		}
		f := &s[i]
		on := &Trigger{Event: ev, TP: tp}
		if f.Windowed() {
			on.For = f.End - f.At
		}
		f.On, f.End = on, 0
	}
}
