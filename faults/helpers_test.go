package faults

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// ping is the toy nodes' only message: the sender's true send time, so a
// receiver can measure each message's latency.
type ping int64

func (p ping) Digest() uint64 { return uint64(p) }
func (p ping) String() string { return fmt.Sprintf("ping@%v", time.Duration(p)) }

// tickEvery is how often a toy node pings every peer.
const tickEvery = 10 * time.Millisecond

// recv is one delivery a toy node saw.
type recv struct {
	at, latency time.Duration
	from, to    sim.NodeID
}

// obs is what the toy nodes observed, kept outside the node values so that
// it survives their crashes.
type obs struct {
	recvs  []recv
	starts map[sim.NodeID][]time.Duration
	stops  map[sim.NodeID]int
	discon map[[2]sim.NodeID][]time.Duration // [at, peer] -> times
	ticks  map[sim.NodeID][]time.Duration
}

// toy is a node that pings every peer every tickEvery and logs what it
// receives: enough to see whether a fault stopped a node, cut a link or
// slowed it, and whether it touched anything else.
type toy struct {
	o     *obs
	peers []sim.NodeID
}

func (t *toy) Start(env *sim.Env) {
	t.o.starts[env.ID()] = append(t.o.starts[env.ID()], env.ObserverNow())
	env.After(tickEvery, "tick", 0)
}

func (t *toy) Fire(env *sim.Env, tm sim.Timer) {
	t.o.ticks[env.ID()] = append(t.o.ticks[env.ID()], env.ObserverNow())
	for _, p := range t.peers {
		if p != env.ID() {
			env.Send(p, ping(env.ObserverNow()))
		}
	}
	env.After(tickEvery, "tick", 0)
}

func (t *toy) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	now := env.ObserverNow()
	t.o.recvs = append(t.o.recvs, recv{at: now, latency: now - time.Duration(m.(ping)), from: from, to: env.ID()})
}

func (t *toy) Disconnected(env *sim.Env, peer sim.NodeID) {
	k := [2]sim.NodeID{env.ID(), peer}
	t.o.discon[k] = append(t.o.discon[k], env.ObserverNow())
}

func (t *toy) Stop(env *sim.Env) { t.o.stops[env.ID()]++ }

// toyWorld is a World over toy nodes: brokers 1..3, controller 100 and a
// client 1000, as a cluster numbers them. Its partition facts (leader, ISR,
// coordinator) are whatever the test sets, and may change over time.
type toyWorld struct {
	k           *sim.Sim
	o           *obs
	brokers     []model.BrokerID
	controllers []model.BrokerID
	leader      func() model.BrokerID
	isr         func() []model.BrokerID
	coordinator model.BrokerID
}

func (w *toyWorld) Sim() *sim.Sim                 { return w.k }
func (w *toyWorld) Brokers() []model.BrokerID     { return w.brokers }
func (w *toyWorld) Controllers() []model.BrokerID { return w.controllers }
func (w *toyWorld) LeaderOf(tp model.TopicPartition) model.BrokerID {
	if tp != tp0 || w.leader == nil {
		return model.NoBroker
	}
	return w.leader()
}
func (w *toyWorld) ISR(tp model.TopicPartition) []model.BrokerID {
	if tp != tp0 || w.isr == nil {
		return nil
	}
	return w.isr()
}
func (w *toyWorld) CoordinatorOf(g string) model.BrokerID {
	if g != "g" {
		return model.NoBroker
	}
	return w.coordinator
}

var tp0 = model.TP("t", 0)

const client sim.NodeID = 1000

// newToyWorld builds and starts the toy world with every link a fixed
// 1 ms: leader b1, ISR {b1, b2, b3}, no coordinator.
func newToyWorld(t testing.TB, seed uint64) *toyWorld {
	t.Helper()
	k := sim.New(sim.Config{Seed: seed, EventLimit: 10_000_000, Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
	o := &obs{
		starts: map[sim.NodeID][]time.Duration{}, stops: map[sim.NodeID]int{},
		discon: map[[2]sim.NodeID][]time.Duration{}, ticks: map[sim.NodeID][]time.Duration{},
	}
	ids := []sim.NodeID{1, 2, 3, 100, client}
	for _, id := range ids {
		name := fmt.Sprintf("b%d", id)
		if id == client {
			name = "client"
		}
		k.AddNode(id, name, func() sim.Node { return &toy{o: o, peers: ids} })
	}
	for _, id := range ids {
		k.Start(id)
	}
	return &toyWorld{
		k: k, o: o,
		brokers:     []model.BrokerID{1, 2, 3},
		controllers: []model.BrokerID{100},
		leader:      func() model.BrokerID { return 1 },
		isr:         func() []model.BrokerID { return []model.BrokerID{1, 2, 3} },
		coordinator: model.NoBroker,
	}
}

// ids of the toy world, for loops over links.
var toyIDs = []sim.NodeID{1, 2, 3, 100, client}

// mustParse parses a schedule the test wrote.
func mustParse(t testing.TB, src string) Schedule {
	t.Helper()
	s, err := parseString(src)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parseString(src string) (Schedule, error) {
	return Parse(strings.NewReader(src), "test.faults")
}

// apply parses and arms a schedule on w.
func (w *toyWorld) apply(t testing.TB, src string) *Nemesis {
	t.Helper()
	n, err := Apply(w, mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// delivered counts deliveries from one node to another in [t0, t1).
func (o *obs) delivered(from, to sim.NodeID, t0, t1 time.Duration) int {
	c := 0
	for _, r := range o.recvs {
		if r.from == from && r.to == to && r.at >= t0 && r.at < t1 {
			c++
		}
	}
	return c
}

// maxLatency is the largest latency of deliveries from one node to another
// that arrived in [t0, t1).
func (o *obs) maxLatency(from, to sim.NodeID, t0, t1 time.Duration) time.Duration {
	var m time.Duration
	for _, r := range o.recvs {
		if r.from == from && r.to == to && r.at >= t0 && r.at < t1 && r.latency > m {
			m = r.latency
		}
	}
	return m
}

// cutSet lists every directed link of the toy world that is cut now.
func (w *toyWorld) cutSet() map[[2]sim.NodeID]bool {
	out := map[[2]sim.NodeID]bool{}
	for _, a := range toyIDs {
		for _, b := range toyIDs {
			if a != b && w.k.IsCut(a, b) {
				out[[2]sim.NodeID{a, b}] = true
			}
		}
	}
	return out
}

// both returns the two directions between a and each of bs.
func both(a sim.NodeID, bs ...sim.NodeID) [][2]sim.NodeID {
	var out [][2]sim.NodeID
	for _, b := range bs {
		out = append(out, [2]sim.NodeID{a, b}, [2]sim.NodeID{b, a})
	}
	return out
}

func setOf(ls ...[][2]sim.NodeID) map[[2]sim.NodeID]bool {
	out := map[[2]sim.NodeID]bool{}
	for _, l := range ls {
		for _, x := range l {
			out[x] = true
		}
	}
	return out
}

func sameSet(a, b map[[2]sim.NodeID]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
