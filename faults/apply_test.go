package faults

import (
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

const ms = time.Millisecond

// Each way of stopping a node stops exactly that node for exactly the
// window: the others keep their incarnation and keep talking to each
// other, and the node comes back at the window's end. The disk keeps what
// each kind says it keeps, and only a shutdown runs Stop.
func TestStopKindsTouchOnlyTheirNode(t *testing.T) {
	for _, c := range []struct {
		kind     string
		diskSize int64 // what survives of 7 synced + 8 unsynced bytes
		stops    int
	}{
		{"crash", 15, 0},
		{"power-loss", 7, 0},
		{"shutdown", 15, 1},
	} {
		t.Run(c.kind, func(t *testing.T) {
			w := newToyWorld(t, 1)
			d := w.k.Disk(2)
			d.SetTornWrites(false)
			d.Append("f", []byte("durable"))
			d.Sync("f")
			d.SyncDir()
			d.Append("f", []byte("volatile"))
			w.apply(t, "from 1s to 2s "+c.kind+" b2")

			w.k.Run(1500 * ms)
			if w.k.IsUp(2) {
				t.Fatal("b2 is up inside its window")
			}
			for _, id := range []sim.NodeID{1, 3, 100, client} {
				if !w.k.IsUp(id) || w.k.Incarnation(id) != 1 {
					t.Errorf("%v touched: up %v, incarnation %d", id, w.k.IsUp(id), w.k.Incarnation(id))
				}
			}
			if got := d.Size("f"); got != c.diskSize {
				t.Errorf("disk after %s holds %d bytes, want %d", c.kind, got, c.diskSize)
			}
			if w.o.stops[2] != c.stops {
				t.Errorf("Stop ran %d times, want %d", w.o.stops[2], c.stops)
			}
			w.k.Run(3 * time.Second)
			if !w.k.IsUp(2) || w.k.Incarnation(2) != 2 {
				t.Fatalf("b2 after the window: up %v, incarnation %d; want restarted once", w.k.IsUp(2), w.k.Incarnation(2))
			}
			if got := w.o.starts[2]; len(got) != 2 || got[1] != 2*time.Second {
				t.Errorf("b2 starts %v, want [0s 2s]", got)
			}
			if n := w.o.delivered(1, 2, 1010*ms, 2*time.Second); n != 0 {
				t.Errorf("b2 received %d pings while stopped", n)
			}
			if n := w.o.delivered(1, 3, 1010*ms, 2*time.Second); n < 90 {
				t.Errorf("b1 -> b3 delivered only %d pings during b2's window", n)
			}
			if n := w.o.delivered(1, 2, 2010*ms, 3*time.Second); n < 90 {
				t.Errorf("b2 received only %d pings after its restart", n)
			}
		})
	}
}

// An instantaneous crash leaves the node down until an explicit restart.
func TestAtCrashStaysDownUntilRestart(t *testing.T) {
	w := newToyWorld(t, 1)
	n := w.apply(t, "at 1s crash b3\nat 4s restart b3\nat 5s restart b3")
	w.k.Run(3900 * ms)
	if w.k.IsUp(3) {
		t.Fatal("b3 came back without a restart")
	}
	w.k.Run(6 * time.Second)
	if !w.k.IsUp(3) || w.k.Incarnation(3) != 2 {
		t.Fatalf("b3: up %v, incarnation %d; want restarted once", w.k.IsUp(3), w.k.Incarnation(3))
	}
	if got := n.Log()[2].Note; got != "already up" {
		t.Errorf("second restart noted %q, want \"already up\"", got)
	}
}

// A paused node handles nothing for the window, keeps its incarnation and
// its connections, and handles what waited when it resumes.
func TestPauseWindowFreezesOnlyItsNode(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "from 1s to 2s pause b2")
	w.k.Run(1500 * ms)
	if !w.k.IsPaused(2) {
		t.Fatal("b2 not paused inside its window")
	}
	for _, id := range []sim.NodeID{1, 3, 100, client} {
		if w.k.IsPaused(id) {
			t.Errorf("%v paused too", id)
		}
	}
	w.k.Run(3 * time.Second)
	if w.k.IsPaused(2) || w.k.Incarnation(2) != 1 {
		t.Fatalf("b2 after the window: paused %v, incarnation %d", w.k.IsPaused(2), w.k.Incarnation(2))
	}
	if n := w.o.delivered(1, 2, 1001*ms, 2*time.Second); n != 0 {
		t.Errorf("b2 handled %d pings while paused", n)
	}
	// What was sent to it while paused is handled at once at 2s, with
	// the latency of the wait.
	if n := w.o.delivered(1, 2, 2*time.Second, 2001*ms); n < 90 {
		t.Errorf("b2 handled only %d held pings at resume", n)
	}
	if n := w.o.delivered(1, 3, 1001*ms, 2*time.Second); n < 90 {
		t.Errorf("b1 -> b3 delivered only %d pings during the pause", n)
	}
}

// Isolation cuts exactly the node's links to its scope, both ways, and
// the window's end heals exactly those.
func TestIsolateCutsExactlyItsScope(t *testing.T) {
	for _, c := range []struct {
		line string
		want map[[2]sim.NodeID]bool
	}{
		{"partition isolate b2", setOf(both(2, 1, 3, 100))},
		{"partition isolate b2 from brokers", setOf(both(2, 1, 3))},
		{"partition isolate b2 from all", setOf(both(2, 1, 3, 100, client))},
		{"partition isolate controller", setOf(both(100, 1, 2, 3))},
	} {
		t.Run(c.line, func(t *testing.T) {
			w := newToyWorld(t, 1)
			w.apply(t, "from 1s to 2s "+c.line)
			w.k.Run(1500 * ms)
			if got := w.cutSet(); !sameSet(got, c.want) {
				t.Fatalf("cut %v, want %v", got, c.want)
			}
			w.k.Run(2500 * ms)
			if got := w.cutSet(); len(got) != 0 {
				t.Fatalf("still cut after the window: %v", got)
			}
		})
	}
}

// The random shapes split the servers (never the client) as they say.
func TestPartitionShapes(t *testing.T) {
	servers := []sim.NodeID{1, 2, 3, 100}
	reach := func(w *toyWorld, a, b sim.NodeID) bool { return !w.k.IsCut(a, b) && !w.k.IsCut(b, a) }
	for seed := uint64(1); seed <= 20; seed++ {
		t.Run("halves", func(t *testing.T) {
			w := newToyWorld(t, seed)
			w.apply(t, "from 1s to 2s partition halves")
			w.k.Run(1500 * ms)
			// Two sides of two: each server reaches exactly one other.
			for _, a := range servers {
				n := 0
				for _, b := range servers {
					if a != b && reach(w, a, b) {
						n++
					} else if a != b && !(w.k.IsCut(a, b) && w.k.IsCut(b, a)) {
						t.Fatalf("seed %d: %v-%v cut one way only", seed, a, b)
					}
				}
				if n != 1 {
					t.Fatalf("seed %d: %v reaches %d other servers, want 1: %v", seed, a, n, w.cutSet())
				}
				if !reach(w, a, client) {
					t.Fatalf("seed %d: halves cut the client from %v", seed, a)
				}
			}
		})
		t.Run("bridge", func(t *testing.T) {
			w := newToyWorld(t, seed)
			w.apply(t, "from 1s to 2s partition bridge")
			w.k.Run(1500 * ms)
			// One bridge reaches all; the other three are one side of
			// one and one of two: exactly two pairs are cut, both ways.
			bridges := 0
			for _, a := range servers {
				all := true
				for _, b := range servers {
					all = all && (a == b || reach(w, a, b))
				}
				if all {
					bridges++
				}
			}
			if got := len(w.cutSet()); got != 4 || bridges < 1 {
				t.Fatalf("seed %d: %d cut links, %d nodes reach all: %v", seed, got, bridges, w.cutSet())
			}
		})
		t.Run("ring", func(t *testing.T) {
			w := newToyWorld(t, seed)
			w.apply(t, "from 1s to 2s partition ring")
			w.k.Run(1500 * ms)
			// Each of four servers sees a majority (itself and two
			// others), and no two see the same one.
			seen := map[[4]bool]bool{}
			for _, a := range servers {
				var sees [4]bool
				n := 0
				for i, b := range servers {
					if a == b || reach(w, a, b) {
						sees[i] = true
						n++
					}
				}
				if n != 3 || seen[sees] {
					t.Fatalf("seed %d: %v sees %v (majority %d, seen before %v)", seed, a, sees, n, seen[sees])
				}
				seen[sees] = true
			}
			w.k.Run(2500 * ms)
			if len(w.cutSet()) != 0 {
				t.Fatalf("ring not healed: %v", w.cutSet())
			}
		})
	}
}

func TestOneWayAndExplicitGroups(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "from 1s to 2s partition oneway b1 b2\nfrom 3s to 4s partition b1, b2 | b3 | controller, 1000")
	w.k.Run(1500 * ms)
	if got, want := w.cutSet(), setOf([][2]sim.NodeID{{1, 2}}); !sameSet(got, want) {
		t.Fatalf("oneway cut %v, want %v", got, want)
	}
	if n := w.o.delivered(2, 1, 1010*ms, 1500*ms); n < 40 {
		t.Errorf("oneway b1 b2 stopped b2 -> b1 too (%d delivered)", n)
	}
	w.k.Run(3500 * ms)
	want := setOf(both(1, 3, 100, client), both(2, 3, 100, client), both(3, 100, client))
	if got := w.cutSet(); !sameSet(got, want) {
		t.Fatalf("groups cut %v, want %v", got, want)
	}
	w.k.Run(4500 * ms)
	if len(w.cutSet()) != 0 {
		t.Fatalf("not healed: %v", w.cutSet())
	}
}

// Overlapping windows hold: a link or a node comes back only when the last
// window that took it closes, and each end undoes only its own start.
func TestOverlappingWindowsHold(t *testing.T) {
	w := newToyWorld(t, 1)
	n := w.apply(t, `from 1s to 5s partition isolate b1
from 2s to 3s partition oneway b1 b2
from 2s to 3s partition oneway b3 b2
from 6s to 8s crash b2
from 7s to 9s crash b2`)
	w.k.Run(3500 * ms)
	if !w.k.IsCut(1, 2) {
		t.Error("the oneway's end healed b1 -> b2, which the isolate still holds")
	}
	if w.k.IsCut(3, 2) {
		t.Error("the oneway's end left b3 -> b2 cut")
	}
	w.k.Run(5500 * ms)
	if len(w.cutSet()) != 0 {
		t.Errorf("still cut after every window: %v", w.cutSet())
	}
	w.k.Run(8500 * ms)
	if w.k.IsUp(2) {
		t.Error("b2 restarted at 8s while the second crash window holds it until 9s")
	}
	w.k.Run(9500 * ms)
	if !w.k.IsUp(2) || w.k.Incarnation(2) != 2 {
		t.Errorf("b2 after both windows: up %v, incarnation %d", w.k.IsUp(2), w.k.Incarnation(2))
	}
	var notes []string
	for _, e := range n.Log() {
		notes = append(notes, e.Note)
	}
	if got := strings.Join(notes, "|"); !strings.Contains(got, "1 of 1 links still cut by other faults") ||
		!strings.Contains(got, "already down") || !strings.Contains(got, "still held by another window") {
		t.Errorf("log notes do not explain the holds: %q", got)
	}
}

// "heal" removes every cut at once; a window that ends later does not cut
// again or undo anything twice.
func TestHealFaultClearsEveryCut(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "at 1s partition halves\nfrom 1s to 3s partition isolate controller\nat 2s heal")
	w.k.Run(1500 * ms)
	if len(w.cutSet()) == 0 {
		t.Fatal("nothing cut before the heal")
	}
	w.k.Run(2500 * ms)
	if len(w.cutSet()) != 0 {
		t.Fatalf("cut after heal: %v", w.cutSet())
	}
	w.k.Run(3500 * ms)
	if len(w.cutSet()) != 0 {
		t.Fatalf("cut after the window's end: %v", w.cutSet())
	}
}

// A reset breaks the connection (both ends hear of it) and cuts nothing.
func TestResetBreaksOnlyTheConnection(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "at 1s reset b1 b2")
	w.k.Run(2 * time.Second)
	if got := w.o.discon[[2]sim.NodeID{1, 2}]; len(got) != 1 || got[0] != time.Second {
		t.Errorf("b1 heard of b2's disconnect at %v, want [1s]", got)
	}
	if got := w.o.discon[[2]sim.NodeID{2, 1}]; len(got) != 1 || got[0] != time.Second {
		t.Errorf("b2 heard of b1's disconnect at %v, want [1s]", got)
	}
	if len(w.o.discon) != 2 {
		t.Errorf("disconnects beyond b1-b2: %v", w.o.discon)
	}
	if len(w.cutSet()) != 0 {
		t.Errorf("reset cut links: %v", w.cutSet())
	}
	if n := w.o.delivered(1, 2, 1010*ms, 2*time.Second); n < 90 {
		t.Errorf("b1 -> b2 delivered only %d after the reset", n)
	}
}

// A clog slows one direction of one link for the window; latency slows
// every link of one node, both ways.
func TestClogAndLatencySlowOnlyTheirLinks(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, "from 1s to 2s clog b1 b2 +200ms\nfrom 3s to 4s latency b3 +100ms")
	w.k.Run(5 * time.Second)
	if got := w.o.maxLatency(1, 2, 1300*ms, 2*time.Second); got != 201*ms {
		t.Errorf("b1 -> b2 latency in the clog %v, want 201ms", got)
	}
	if got := w.o.maxLatency(2, 1, 1*time.Second, 2*time.Second); got != ms {
		t.Errorf("b2 -> b1 latency in the clog %v, want 1ms", got)
	}
	if got := w.o.maxLatency(1, 3, 1*time.Second, 2*time.Second); got != ms {
		t.Errorf("b1 -> b3 latency in the clog %v, want 1ms", got)
	}
	if got := w.o.maxLatency(1, 2, 2210*ms, 3*time.Second); got != ms {
		t.Errorf("b1 -> b2 latency after the clog %v, want 1ms", got)
	}
	for _, p := range []sim.NodeID{1, 2, 100, client} {
		if got := w.o.maxLatency(p, 3, 3200*ms, 4*time.Second); got != 101*ms {
			t.Errorf("%v -> b3 latency in the spike %v, want 101ms", p, got)
		}
		if got := w.o.maxLatency(3, p, 3200*ms, 4*time.Second); got != 101*ms {
			t.Errorf("b3 -> %v latency in the spike %v, want 101ms", p, got)
		}
	}
	if got := w.o.maxLatency(1, 2, 3*time.Second, 4*time.Second); got != ms {
		t.Errorf("b1 -> b2 latency in b3's spike %v, want 1ms", got)
	}
	if got := w.o.maxLatency(1, 3, 4110*ms, 5*time.Second); got != ms {
		t.Errorf("b1 -> b3 latency after the spike %v, want 1ms", got)
	}
}

// Skew steps one clock, drift changes one clock's rate; a window's end
// puts the clock back to true time, an instantaneous one leaves it.
func TestClockFaults(t *testing.T) {
	w := newToyWorld(t, 1)
	w.apply(t, `from 1s to 2s skew b1 -500ms
from 1s to 3s drift b2 +0.5
at 1s skew b3 +1s
at 4s resync b3`)
	w.k.Run(1500 * ms)
	if got := w.k.LocalTime(1); got != 1000*ms {
		t.Errorf("b1 clock %v at 1.5s, want 1s", got)
	}
	if got := w.k.LocalTime(2); got != 1750*ms {
		t.Errorf("b2 clock %v at 1.5s, want 1.75s", got)
	}
	if got := w.k.LocalTime(100); got != 1500*ms {
		t.Errorf("controller clock %v, want untouched", got)
	}
	w.k.Run(3500 * ms)
	for id, want := range map[sim.NodeID]time.Duration{1: 3500 * ms, 2: 3500 * ms, 3: 4500 * ms} {
		if got := w.k.LocalTime(id); got != want {
			t.Errorf("%v clock %v at 3.5s, want %v", id, got, want)
		}
	}
	w.k.Run(4500 * ms)
	if got := w.k.LocalTime(3); got != 4500*ms {
		t.Errorf("b3 clock %v after resync, want 4.5s", got)
	}
}

// Sync latency applies to one disk and the window restores what it found.
func TestSyncLatencyRestored(t *testing.T) {
	w := newToyWorld(t, 1)
	w.k.Disk(2).SetSyncLatency(3 * ms)
	w.apply(t, "from 1s to 2s sync-latency b2 400ms\nat 3s sync-latency b1 50ms")
	w.k.Run(1500 * ms)
	if got := w.k.Disk(2).SyncLatency(); got != 400*ms {
		t.Errorf("b2 sync latency %v in the window", got)
	}
	if got := w.k.Disk(1).SyncLatency(); got != 0 {
		t.Errorf("b1 sync latency %v, want untouched", got)
	}
	w.k.Run(3500 * ms)
	if got := w.k.Disk(2).SyncLatency(); got != 3*ms {
		t.Errorf("b2 sync latency %v after the window, want 3ms back", got)
	}
	if got := w.k.Disk(1).SyncLatency(); got != 50*ms {
		t.Errorf("b1 sync latency %v after at-fault, want 50ms", got)
	}
}

// Selectors resolve when the fault fires, and a window's end heals the
// node its start chose even though the selector now names another.
func TestSelectorsResolveAtFireTime(t *testing.T) {
	w := newToyWorld(t, 1)
	w.leader = func() model.BrokerID {
		if w.k.Now() < 1500*ms {
			return 1
		}
		return 3
	}
	n := w.apply(t, "from 1s to 3s pause leader-of t/0\nat 2s crash leader-of t/0")
	w.k.Run(2500 * ms)
	if !w.k.IsPaused(1) || w.k.IsUp(3) {
		t.Fatalf("at 2.5s: b1 paused %v (want true), b3 up %v (want false)", w.k.IsPaused(1), w.k.IsUp(3))
	}
	w.k.Run(3500 * ms)
	if w.k.IsPaused(1) {
		t.Fatal("the window's end did not resume b1, the node its start paused")
	}
	var got []string
	for _, e := range n.Log() {
		got = append(got, e.String())
	}
	want := []string{
		"1s start: from 1s to 3s pause leader-of t/0 -> b1",
		"2s at: at 2s crash leader-of t/0 -> b3",
		"3s end: from 1s to 3s pause leader-of t/0 -> b1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A selector that names nobody makes its fault a recorded no-op, and its
// window's end has nothing to undo.
func TestNobodyIsARecordedNoOp(t *testing.T) {
	w := newToyWorld(t, 1)
	w.leader = func() model.BrokerID { return model.NoBroker }
	w.isr = func() []model.BrokerID { return nil }
	n := w.apply(t, `from 1s to 2s crash leader-of t/0
at 1s pause isr-follower t/0
at 1s partition oneway coordinator-of g b1
at 1s partition isolate b2 from brokers`)
	w.k.Run(3 * time.Second)
	for _, id := range toyIDs {
		if !w.k.IsUp(id) || w.k.IsPaused(id) || w.k.Incarnation(id) != 1 {
			t.Errorf("%v touched by a no-op", id)
		}
	}
	log := n.Log()
	wantNotes := []string{"t/0 has no leader", "t/0 has no follower in its ISR", "group g has no coordinator", "", "the start did nothing"}
	if len(log) != len(wantNotes) {
		t.Fatalf("log %v", log)
	}
	for i, e := range log {
		if e.Note != wantNotes[i] && !(i == 3 && e.Note == "b2 | b1, b3") {
			t.Errorf("event %d note %q, want %q", i, e.Note, wantNotes[i])
		}
		if noop := i != 3; e.NoOp() != noop {
			t.Errorf("event %d (%v) NoOp %v", i, e, e.NoOp())
		}
	}
	if !strings.HasSuffix(log[0].String(), "-> nobody (t/0 has no leader)") {
		t.Errorf("no-op prints as %q", log[0])
	}
}

// isr-follower never names the leader, and over many draws names every
// other member of the ISR.
func TestISRFollowerIsNeverTheLeader(t *testing.T) {
	w := newToyWorld(t, 1)
	w.leader = func() model.BrokerID { return 2 }
	var src strings.Builder
	for i := 1; i <= 40; i++ {
		src.WriteString("at " + (time.Duration(i) * 10 * ms).String() + " resync isr-follower t/0\n")
	}
	n := w.apply(t, src.String())
	w.k.Run(time.Second)
	picked := map[model.BrokerID]int{}
	for _, e := range n.Log() {
		picked[e.Nodes[0]]++
	}
	if picked[2] != 0 || picked[1] == 0 || picked[3] == 0 {
		t.Errorf("isr-follower picked %v; want b1 and b3, never the leader b2", picked)
	}
}

func TestApplyRefusesBadSchedules(t *testing.T) {
	w := newToyWorld(t, 1)
	if _, err := Apply(w, mustParse(t, "at 1s crash b7")); err == nil || !strings.Contains(err.Error(), "no node b7") {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := Apply(w, Schedule{{At: time.Second, Kind: KindClog, Target: Node(1), Peer: Node(2)}}); err == nil {
		t.Error("accepted a clog without a window or delay")
	}
	w.k.Run(2 * time.Second)
	if _, err := Apply(w, mustParse(t, "at 1s crash b1")); err == nil || !strings.Contains(err.Error(), "before the run's clock") {
		t.Errorf("fault in the past: %v", err)
	}
}
