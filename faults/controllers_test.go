package faults

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Faults on a metadata quorum: three controllers (100, 101, 102) beside
// brokers 1..3, with 101 the active controller.

var quorumIDs = []sim.NodeID{1, 2, 3, 100, 101, 102, client}

// newQuorumWorld builds and starts a toy world with three controllers,
// listed active first as a cluster lists them.
func newQuorumWorld(t testing.TB, seed uint64) *toyWorld {
	t.Helper()
	k := sim.New(sim.Config{Seed: seed, EventLimit: 10_000_000, Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
	o := &obs{
		starts: map[sim.NodeID][]time.Duration{}, stops: map[sim.NodeID]int{},
		discon: map[[2]sim.NodeID][]time.Duration{}, ticks: map[sim.NodeID][]time.Duration{},
	}
	for _, id := range quorumIDs {
		k.AddNode(id, fmt.Sprintf("n%d", id), func() sim.Node { return &toy{o: o, peers: quorumIDs} })
	}
	for _, id := range quorumIDs {
		k.Start(id)
	}
	return &toyWorld{
		k: k, o: o,
		brokers:     []model.BrokerID{1, 2, 3},
		controllers: []model.BrokerID{101, 100, 102},
		leader:      func() model.BrokerID { return 1 },
		isr:         func() []model.BrokerID { return []model.BrokerID{1, 2, 3} },
		coordinator: model.NoBroker,
	}
}

// quorumCuts lists every directed link of the quorum world cut now.
func (w *toyWorld) quorumCuts() map[[2]sim.NodeID]bool {
	out := map[[2]sim.NodeID]bool{}
	for _, a := range quorumIDs {
		for _, b := range quorumIDs {
			if a != b && w.k.IsCut(a, b) {
				out[[2]sim.NodeID{a, b}] = true
			}
		}
	}
	return out
}

// The controller lines of a schedule file, in Format's own form.
const controllerLines = `from 1s to 2s crash random-controller
at 2s power-loss all-controllers
from 2s to 3s pause all-controllers
from 3s to 4s partition isolate controller from brokers
from 3s to 4s partition isolate controller from controllers
from 4s to 5s partition isolate random-controller from controllers
from 4s to 5s partition isolate b2 from controllers
from 5s to 6s partition all-controllers | b1, b2, b3
from 6s to 7s latency random-controller +100ms
at 7s partition oneway random-controller controller
`

func TestControllerSyntaxRoundTrips(t *testing.T) {
	s, err := Parse(strings.NewReader(controllerLines), "controllers.faults")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != controllerLines {
		t.Fatalf("Format(Parse(x)) differs from x:\n%s\nwant:\n%s", got, controllerLines)
	}
	again, err := Parse(strings.NewReader(s.String()), "again")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, s) {
		t.Fatalf("Parse(Format(s)) != s:\n%#v\n%#v", again, s)
	}
	want := []Fault{
		{At: time.Second, End: 2 * time.Second, Kind: KindCrash, Target: RandomController()},
		{At: 2 * time.Second, Kind: KindPowerLoss, Target: AllControllers()},
	}
	if !reflect.DeepEqual(s[:2], Schedule(want)) {
		t.Fatalf("read %#v", s[:2])
	}
	if s[4].Scope != ScopeControllers || s[3].Scope != ScopeBrokers || s[4].Target != Controller() {
		t.Fatalf("scopes: %v, %v", s[3], s[4])
	}
}

func TestControllerSyntaxErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"at 1s partition oneway all-controllers b1", "one node at each end"},
		{"from 1s to 2s partition oneway b1 rack r1", "one node at each end"},
		{"at 1s reset rack r1 b2", "one node at each end"},
		{"at 1s reset all-controllers b2", "one node at each end"},
		{"at 1s partition isolate controller from quorum", "want servers, brokers, controllers or all"},
		{"at 1s crash all-controller", "all-controllers"},
	} {
		_, err := parseString(c.line)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "test.faults:1:") {
			t.Errorf("%q: got %v, want an error at test.faults:1 mentioning %q", c.line, err, c.want)
		}
	}
}

func TestIsolateControllerFromBrokersKeepsItsQuorum(t *testing.T) {
	w := newQuorumWorld(t, 1)
	n := w.apply(t, "from 100ms to 200ms partition isolate controller from brokers\n")
	w.k.Run(150 * time.Millisecond)
	want := setOf(both(101, 1, 2, 3))
	if got := w.quorumCuts(); !sameSet(got, want) {
		t.Fatalf("cut %v, want the active controller 101 from the brokers only: %v", got, want)
	}
	w.k.Run(300 * time.Millisecond)
	if len(w.quorumCuts()) != 0 {
		t.Fatalf("window end left cuts: %v", w.quorumCuts())
	}
	// Its quorum kept hearing it all along.
	if w.o.delivered(101, 100, 100*time.Millisecond, 200*time.Millisecond) == 0 || w.o.delivered(101, 1, 110*time.Millisecond, 200*time.Millisecond) != 0 {
		t.Fatal("the quorum lost 101, or a broker still heard it")
	}
	if ev := n.Log()[0]; !slices.Equal(ev.Nodes, []model.BrokerID{101}) || !strings.Contains(ev.Note, "b101 | b1, b2, b3") {
		t.Fatalf("log: %v", ev)
	}
}

func TestIsolateControllerFromQuorumKeepsTheBrokers(t *testing.T) {
	w := newQuorumWorld(t, 1)
	n := w.apply(t, "from 100ms to 200ms partition isolate controller from controllers\n")
	w.k.Run(150 * time.Millisecond)
	if got, want := w.quorumCuts(), setOf(both(101, 100, 102)); !sameSet(got, want) {
		t.Fatalf("cut %v, want 101 from 100 and 102 only: %v", got, want)
	}
	if ev := n.Log()[0]; !strings.Contains(ev.Note, "b101 | b100, b102") {
		t.Fatalf("log: %v", ev)
	}
	// A broker cut from the quorum still replicates with the brokers.
	w = newQuorumWorld(t, 1)
	w.apply(t, "from 100ms to 200ms partition isolate b2 from controllers\n")
	w.k.Run(150 * time.Millisecond)
	if got, want := w.quorumCuts(), setOf(both(2, 100, 101, 102)); !sameSet(got, want) {
		t.Fatalf("cut %v, want b2 from the controllers only: %v", got, want)
	}
}

func TestAllControllersFaultHitsTheWholeQuorum(t *testing.T) {
	w := newQuorumWorld(t, 1)
	n := w.apply(t, "from 100ms to 200ms crash all-controllers\nfrom 150ms to 250ms pause random-broker\n")
	w.k.Run(150 * time.Millisecond)
	for _, id := range []sim.NodeID{100, 101, 102} {
		if w.k.IsUp(id) {
			t.Fatalf("controller %d up inside the window", id)
		}
	}
	for _, id := range []sim.NodeID{1, 2, 3} {
		if !w.k.IsUp(id) {
			t.Fatalf("broker %d went down too", id)
		}
	}
	w.k.Run(300 * time.Millisecond)
	for _, id := range []sim.NodeID{100, 101, 102} {
		if !w.k.IsUp(id) || len(w.o.starts[id]) != 2 {
			t.Fatalf("controller %d not restarted once at the window end: up %v, starts %v", id, w.k.IsUp(id), w.o.starts[id])
		}
	}
	log := n.Log()
	if !slices.Equal(log[0].Nodes, []model.BrokerID{100, 101, 102}) || log[0].Note != "" {
		t.Fatalf("start: %v", log[0])
	}
	var end Event
	for _, e := range log {
		if e.Edge == EdgeEnd && e.Fault.Kind == KindCrash {
			end = e
		}
	}
	if !slices.Equal(end.Nodes, []model.BrokerID{100, 101, 102}) || end.Note != "" {
		t.Fatalf("end: %v", end)
	}
}

func TestAllControllersOverlapsHoldPerNode(t *testing.T) {
	// 101 is held down by a second window: the quorum's window end brings
	// back 100 and 102 and says why 101 stays down.
	w := newQuorumWorld(t, 1)
	n := w.apply(t, "from 100ms to 200ms crash all-controllers\nfrom 150ms to 300ms crash b101\n")
	w.k.Run(250 * time.Millisecond)
	if !w.k.IsUp(100) || w.k.IsUp(101) || !w.k.IsUp(102) {
		t.Fatalf("up: 100 %v, 101 %v, 102 %v; want 101 held down", w.k.IsUp(100), w.k.IsUp(101), w.k.IsUp(102))
	}
	var notes []string
	for _, e := range n.Log() {
		notes = append(notes, e.String())
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "b101 still held by another window") {
		t.Fatalf("log:\n%s", joined)
	}
	w.k.Run(350 * time.Millisecond)
	if !w.k.IsUp(101) {
		t.Fatal("101 not back after its own window")
	}
}

func TestRandomControllerDrawsAmongTheQuorum(t *testing.T) {
	hit := map[model.BrokerID]int{}
	for seed := uint64(1); seed <= 30; seed++ {
		w := newQuorumWorld(t, seed)
		n := w.apply(t, "at 100ms crash random-controller\n")
		w.k.Run(150 * time.Millisecond)
		ev := n.Log()[0]
		if len(ev.Nodes) != 1 || !slices.Contains(w.controllers, ev.Nodes[0]) {
			t.Fatalf("seed %d: hit %v", seed, ev.Nodes)
		}
		hit[ev.Nodes[0]]++
		// The same seed draws the same controller.
		w2 := newQuorumWorld(t, seed)
		n2 := w2.apply(t, "at 100ms crash random-controller\n")
		w2.k.Run(150 * time.Millisecond)
		if !slices.Equal(n2.Log()[0].Nodes, ev.Nodes) {
			t.Fatalf("seed %d drew %v then %v", seed, ev.Nodes, n2.Log()[0].Nodes)
		}
	}
	if len(hit) != 3 {
		t.Fatalf("30 seeds hit only %v", hit)
	}
	// A world without controllers: a recorded no-op.
	w := newQuorumWorld(t, 1)
	w.controllers = nil
	n := w.apply(t, "at 100ms crash random-controller\nat 100ms pause all-controllers\n")
	w.k.Run(150 * time.Millisecond)
	for _, e := range n.Log() {
		if !e.NoOp() || e.Note != "no controller" {
			t.Fatalf("want a no-op: %v", e)
		}
	}
}

func TestControllersAgainstBrokersSplit(t *testing.T) {
	w := newQuorumWorld(t, 1)
	w.apply(t, "from 100ms to 200ms partition all-controllers | b1, b2, b3\n")
	w.k.Run(150 * time.Millisecond)
	var want [][2]sim.NodeID
	for _, c := range []sim.NodeID{100, 101, 102} {
		want = append(want, both(c, 1, 2, 3)...)
	}
	if got := w.quorumCuts(); !sameSet(got, setOf(want)) {
		t.Fatalf("cut %v, want every controller from every broker", got)
	}
}

func quorumShape() Shape {
	return Shape{Brokers: []model.BrokerID{1, 2, 3}, Controllers: []model.BrokerID{100, 101, 102}, Partitions: []model.TopicPartition{tp0}}
}

func TestSwarmWithControllersAimsAtTheQuorum(t *testing.T) {
	o := allSwarm()
	o.Controllers = true
	seen := map[string]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		s := Swarm(seed, o, quorumShape())
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s)
		}
		back, err := parseString(s.String())
		if err != nil || !reflect.DeepEqual(back, s) {
			t.Fatalf("seed %d: does not round-trip: %v", seed, err)
		}
		for _, f := range s {
			for _, sel := range selectors(f) {
				switch {
				case sel.Kind == SelRandomController:
					seen["random-controller"]++
				case sel.Kind == SelAllControllers:
					seen["all-controllers"]++
				case sel.Kind == SelNode && sel.Node >= 100 && f.Peer != sel:
					seen["fixed controller"]++
				}
			}
			if f.Scope == ScopeControllers {
				seen["from controllers"]++
			}
		}
	}
	for _, k := range []string{"random-controller", "all-controllers", "fixed controller", "from controllers"} {
		if seen[k] == 0 {
			t.Errorf("100 seeds never drew %s: %v", k, seen)
		}
	}
}

func TestSwarmWithoutControllersIsUnchanged(t *testing.T) {
	// Off, the option changes nothing: the same draws as a shape with one
	// controller named only as "controller", and no quorum selector or
	// scope anywhere.
	for seed := uint64(1); seed <= 100; seed++ {
		s := Swarm(seed, allSwarm(), quorumShape())
		for _, f := range s {
			for _, sel := range selectors(f) {
				if sel.Kind == SelRandomController || sel.Kind == SelAllControllers || (f.Target == sel && sel.Kind == SelNode && sel.Node >= 100) {
					t.Fatalf("seed %d drew %v without Controllers", seed, f)
				}
			}
			if f.Scope == ScopeControllers {
				t.Fatalf("seed %d drew %v without Controllers", seed, f)
			}
		}
	}
	// The peer of a two-node fault was always any server, controllers
	// included; a swarm with the option differs from one without.
	on := allSwarm()
	on.Controllers = true
	if Swarm(7, on, quorumShape()).String() == Swarm(7, allSwarm(), quorumShape()).String() {
		t.Fatal("the option changed nothing for seed 7")
	}
}
