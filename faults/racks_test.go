package faults

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// rackedToyWorld is the toy world with racks: r1 holds b1 and the
// controller b100, r2 holds b2 and b3.
type rackedToyWorld struct{ *toyWorld }

func (w rackedToyWorld) RackNodes(rack string) []model.BrokerID {
	switch rack {
	case "r1":
		return []model.BrokerID{100, 1}
	case "r2":
		return []model.BrokerID{3, 2}
	}
	return nil
}

func (w rackedToyWorld) apply(t *testing.T, src string) *Nemesis {
	t.Helper()
	n, err := Apply(w, mustParse(t, src))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRackSelectorParsesAndPrints(t *testing.T) {
	src := "from 1s to 2s crash rack r1\n" +
		"from 1s to 2s partition isolate rack r2 from brokers\n" +
		"from 1s to 2s clog rack r1 rack r2 +50ms\n" +
		"at 3s partition rack r1 | rack r2\n"
	s := mustParse(t, src)
	if s[0].Target != Rack("r1") || !s[0].Target.Several() {
		t.Fatalf("crash rack r1 read as %#v", s[0].Target)
	}
	again := mustParse(t, s.String())
	if !reflect.DeepEqual(s, again) {
		t.Fatalf("printed and read again:\n%v\nvs\n%v", s, again)
	}
	for _, c := range []struct{ line, want string }{
		{"at 1s crash rack", "rack needs a rack name"},
		{"at 1s crash rack r/1", "rack needs a rack name"},
		{"at 1s reset rack r1 b1", "one node at each end"},
	} {
		if _, err := parseString(c.line); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.line, err, c.want)
		}
	}
}

// crash rack r1 takes down every node of the rack (a controller too) and
// nothing else; its window brings them all back.
func TestCrashRack(t *testing.T) {
	w := rackedToyWorld{newToyWorld(t, 1)}
	n := w.apply(t, "from 1s to 2s crash rack r1\n")
	w.k.Run(1500 * time.Millisecond)
	for id, up := range map[sim.NodeID]bool{1: false, 100: false, 2: true, 3: true} {
		if w.k.IsUp(id) != up {
			t.Errorf("in the window: b%d up %v, want %v", id, w.k.IsUp(id), up)
		}
	}
	w.k.Run(2500 * time.Millisecond)
	if !w.k.IsUp(1) || !w.k.IsUp(100) {
		t.Error("the rack did not come back")
	}
	if got := n.Log()[0].Nodes; !reflect.DeepEqual(got, []model.BrokerID{1, 100}) {
		t.Errorf("resolved to %v, want b1 b100 (sorted)", got)
	}
}

// isolate rack r2 cuts the rack from the other servers but keeps the
// links inside the rack: the "lose an availability zone" partition.
func TestIsolateRackKeepsItsOwnLinks(t *testing.T) {
	w := rackedToyWorld{newToyWorld(t, 1)}
	w.apply(t, "from 1s to 2s partition isolate rack r2\n")
	w.k.Run(1500 * time.Millisecond)
	cut := w.cutSet()
	var want [][2]sim.NodeID
	for _, in := range []sim.NodeID{2, 3} {
		want = append(want, both(in, 1, 100)...)
	}
	for _, l := range want {
		if !cut[l] {
			t.Errorf("link %v not cut", l)
		}
	}
	if len(cut) != len(want) {
		t.Errorf("cut %d links, want %d (b2 <-> b3 and the clients' links stay): %v", len(cut), len(want), cut)
	}
	w.k.Run(2500 * time.Millisecond)
	if len(w.cutSet()) != 0 {
		t.Error("the window's end left links cut")
	}
}

// clog rack r1 rack r2 slows every link from r1 to r2 and no other: not
// r2 to r1, not inside r1, not to the client.
func TestClogOfAGroup(t *testing.T) {
	w := rackedToyWorld{newToyWorld(t, 1)}
	w.apply(t, "from 1s to 2s clog rack r1 rack r2 +200ms\n")
	w.k.Run(3 * time.Second)
	for _, from := range []sim.NodeID{1, 100} {
		for _, to := range []sim.NodeID{2, 3} {
			if got := w.o.maxLatency(from, to, 1300*ms, 2*time.Second); got != 201*ms {
				t.Errorf("b%d -> b%d in the clog: %v, want 201ms", from, to, got)
			}
			if got := w.o.maxLatency(to, from, 1*time.Second, 2*time.Second); got != ms {
				t.Errorf("b%d -> b%d in the clog: %v, want 1ms (one direction)", to, from, got)
			}
		}
	}
	if got := w.o.maxLatency(1, 100, 1*time.Second, 2*time.Second); got != ms {
		t.Errorf("inside r1 in the clog: %v, want 1ms", got)
	}
	if got := w.o.maxLatency(1, 2, 2210*ms, 3*time.Second); got != ms {
		t.Errorf("after the clog: %v, want 1ms", got)
	}
}

// A triggered clog lasts its "for W" (its End is 0): the window is the
// trigger's, not End minus At.
func TestTriggeredClogLastsItsFor(t *testing.T) {
	f := Fault{At: 5 * time.Second, Kind: KindClog, Target: Node(1), Peer: Node(2), Delay: time.Second,
		On: &Trigger{Event: EventAck, TP: tp0, For: 3 * time.Second}}
	if got := f.windowLength(); got != 3*time.Second {
		t.Fatalf("window %v, want 3s", got)
	}
}

// A rack the world does not have, or a world without racks, names
// nobody: the fault is a recorded no-op.
func TestRackNobody(t *testing.T) {
	w := rackedToyWorld{newToyWorld(t, 1)}
	n := w.apply(t, "at 1s crash rack r9\n")
	w.k.Run(2 * time.Second)
	if e := n.Log()[0]; !e.NoOp() || e.Note != "no rack r9" {
		t.Fatalf("got %v", e)
	}
	plain := newToyWorld(t, 1)
	n = plain.apply(t, "at 1s crash rack r1\n")
	plain.k.Run(2 * time.Second)
	if e := n.Log()[0]; !e.NoOp() || !plain.k.IsUp(1) {
		t.Fatalf("a world without racks: %v", e)
	}
}
