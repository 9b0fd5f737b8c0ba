package sim

import (
	"strings"
	"testing"
	"time"
)

// counter keeps a count in memory and persists nothing: after a crash the
// count must start over, because the kernel throws the value away.
type counter struct {
	n     int
	log   *[]string
	built *int
}

func (c *counter) Start(env *Env) {
	*c.built++
	env.After(10*ms, "tick", 0)
}
func (c *counter) Receive(env *Env, from NodeID, m Message) {}
func (c *counter) Fire(env *Env, t Timer) {
	c.n++
	*c.log = append(*c.log, env.ObserverNow().String()+" tick "+string(rune('0'+c.n)))
	env.After(10*ms, "tick", 0)
}
func (c *counter) Disconnected(env *Env, peer NodeID) {}

func TestCrashDiscardsMemoryAndTimersRestartBuildsANewValue(t *testing.T) {
	s := New(Config{Seed: 1})
	log, built := &[]string{}, 0
	s.AddNode(0, "c", func() Node { return &counter{log: log, built: &built} })
	s.Start(0)
	s.At(25*ms, "crash", func() { s.Crash(0) })
	s.At(50*ms, "restart", func() { s.Restart(0) })
	s.Run(75 * ms)
	want := "10ms tick 1|20ms tick 2|60ms tick 1|70ms tick 2"
	if got := strings.Join(*log, "|"); got != want {
		t.Fatalf("got %s, want %s (no tick while down, count restarts from memory zero)", got, want)
	}
	if built != 2 || s.Incarnation(0) != 2 {
		t.Fatalf("factory called %d times, incarnation %d; want 2 and 2", built, s.Incarnation(0))
	}
}

func TestCrashTellsPeersAndLosesInFlight(t *testing.T) {
	s, log := world(t, 3, LinkConfig{Latency: Fixed(10 * ms)}, plain)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)); sendNow(s, 1, 0, msg(2)) })
	s.At(5*ms, "crash", func() { s.Crash(1) })
	s.Run(time.Second)
	mustContain(t, *log, "5ms n0 disconnect n1")
	mustNotContain(t, *log, "10ms n0 recv msg(2) from n1") // sent by the crashed node
	for _, l := range *log {
		if strings.Contains(l, "n2 ") {
			t.Fatalf("n2 never talked to n1 and must hear nothing: %s", l)
		}
	}
}

func TestShutdownRunsStop(t *testing.T) {
	s := New(Config{Seed: 1})
	s.AddNode(0, "s", func() Node { return &stopper{} })
	s.Start(0)
	s.Shutdown(0)
	if got := string(s.Disk(0).Read("clean")); got != "yes" {
		t.Fatalf("clean-shutdown marker %q", got)
	}
	s.Start(0)
	s.Crash(0)
	if s.Disk(0).Exists("clean2") {
		t.Fatal("a crash must not run Stop")
	}
}

type stopper struct{ probe }

func (s *stopper) Start(env *Env) {}
func (s *stopper) Stop(env *Env) {
	name := "clean"
	if env.Disk().Exists("clean") {
		name = "clean2"
	}
	env.Disk().Append(name, []byte("yes"))
}

func TestPauseHoldsEverythingUntilResume(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, func(id NodeID) *probe {
		return &probe{onStart: func(env *Env) {
			if id == 1 {
				env.After(20*ms, "timer", 7)
			}
		}}
	})
	s.At(10*ms, "pause", func() { s.Pause(1) })
	s.At(15*ms, "send", func() { sendNow(s, 0, 1, msg(1)); sendNow(s, 0, 1, msg(2)) })
	s.At(100*ms, "resume", func() { s.Resume(1) })
	s.Run(time.Second)
	// Held events run at resume, in the order they came due: both
	// messages at 16ms, then the timer at 20ms.
	want := []string{"100ms n1 recv msg(1) from n0", "100ms n1 recv msg(2) from n0", "100ms n1 fire timer(7)"}
	if got := strings.Join(*log, "|"); got != strings.Join(want, "|") {
		t.Fatalf("got\n%s\nwant\n%s", join(*log), join(want))
	}
	if !s.IsUp(1) || s.IsPaused(1) {
		t.Fatal("node should be up and not paused")
	}
}

func TestPausedNodeKeepsConnections(t *testing.T) {
	s, log := world(t, 2, LinkConfig{Latency: Fixed(ms)}, plain)
	s.At(0, "send", func() { sendNow(s, 0, 1, msg(1)) })
	s.At(10*ms, "pause", func() { s.Pause(1) })
	s.At(20*ms, "send", func() { sendNow(s, 0, 1, msg(2)) })
	s.At(30*ms, "resume", func() { s.Resume(1) })
	s.Run(time.Second)
	for _, l := range *log {
		if strings.Contains(l, "disconnect") {
			t.Fatalf("a pause must not break connections: %s", l)
		}
	}
	mustContain(t, *log, "30ms n1 recv msg(2) from n0")
}

func TestCancelledTimerDoesNotFire(t *testing.T) {
	s, log := world(t, 1, LinkConfig{}, func(NodeID) *probe {
		return &probe{onStart: func(env *Env) {
			a := env.After(10*ms, "a", 0)
			env.After(20*ms, "b", 0)
			env.Cancel(a)
			env.Cancel(a) // twice is harmless
		}}
	})
	s.Run(time.Second)
	mustNotContain(t, *log, "10ms n0 fire a(0)")
	mustContain(t, *log, "20ms n0 fire b(0)")
}

func TestStopReasons(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, func(NodeID) *probe {
		return &probe{onStart: func(env *Env) { env.After(10*ms, "once", 0) }}
	})
	if r := s.Run(5 * ms); r != StopTimeLimit || s.Now() != 5*ms {
		t.Fatalf("got %v at %v, want time-limit at 5ms", r, s.Now())
	}
	if r := s.Run(time.Second); r != StopIdle || s.Now() != 10*ms {
		t.Fatalf("got %v at %v, want idle at 10ms", r, s.Now())
	}
	s2 := New(Config{Seed: 1, EventLimit: 50})
	s2.AddNode(0, "c", func() Node { return &counter{log: &[]string{}, built: new(int)} })
	s2.Start(0)
	if r := s2.Run(time.Hour); r != StopEventLimit || s2.Stats().Events != 50 {
		t.Fatalf("got %v after %d events, want event-limit after 50", r, s2.Stats().Events)
	}
}

func TestSameTimeEventsRunInScheduleOrder(t *testing.T) {
	s := New(Config{Seed: 1})
	var order []int
	for i := 0; i < 20; i++ {
		i := i
		s.At(5*ms, "x", func() { order = append(order, i) })
	}
	s.At(1*ms, "first", func() { order = append(order, -1) })
	s.Run(time.Second)
	if order[0] != -1 {
		t.Fatalf("earlier event ran late: %v", order)
	}
	for i := 1; i < len(order); i++ {
		if order[i] != i-1 {
			t.Fatalf("ties not broken by scheduling order: %v", order)
		}
	}
}

func TestNodePanicNamesTimeAndSeed(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, func(NodeID) *probe {
		return &probe{onStart: func(env *Env) { env.After(3*ms, "boom", 0) }, onFire: func(env *Env, t Timer) { panic("invariant broken") }}
	})
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "invariant broken") || !strings.Contains(r.(string), "3ms") || !strings.Contains(r.(string), "seed 7") {
			t.Fatalf("panic %v should carry the message, the time and the seed", r)
		}
	}()
	s.Run(time.Second)
}

// farewell sends a message to its peer from Stop.
type farewell struct{ probe }

func (f *farewell) Start(env *Env) {}
func (f *farewell) Stop(env *Env)  { env.Send(1, msg(99)) }

func TestShutdownDeliversWhatStopSentThenCloses(t *testing.T) {
	for _, how := range []string{"shutdown", "crash"} {
		s := New(Config{Seed: 1, Link: LinkConfig{Latency: Fixed(ms)}})
		log := &[]string{}
		s.AddNode(0, "leaving", func() Node { return &farewell{} })
		s.AddNode(1, "peer", func() Node { return &probe{log: log} })
		s.Start(1)
		s.Start(0)
		s.At(0, "hello", func() { sendNow(s, 0, 1, msg(1)) })
		s.At(time.Millisecond/2, how, func() {
			if how == "shutdown" {
				s.Shutdown(0)
			} else {
				s.Crash(0)
			}
		})
		s.Run(time.Second)
		got := strings.Join(*log, "|")
		want := "1ms n1 recv msg(1) from n0|1.5ms n1 recv msg(99) from n0|1.5ms n1 disconnect n0"
		if how == "crash" {
			want = "500µs n1 disconnect n0" // in-flight msg(1) is lost, nothing from Stop
		}
		if !strings.HasSuffix(got, want) {
			t.Fatalf("%s: got %s, want it to end with %s", how, got, want)
		}
	}
}

func TestKillHookSeesTheNodeBeforeItIsDiscarded(t *testing.T) {
	s := New(Config{Seed: 1})
	log, built := &[]string{}, 0
	s.AddNode(0, "c", func() Node { return &counter{log: log, built: &built} })
	var seen []string
	s.OnKill(func(id NodeID, n Node, how string) {
		c, ok := n.(*counter)
		if !ok {
			t.Fatalf("hook got %T, want the live node", n)
		}
		seen = append(seen, how+" n="+string(rune('0'+c.n)))
	})
	s.Start(0)
	s.At(25*ms, "crash", func() { s.Crash(0) })
	s.At(30*ms, "crash again", func() { s.Crash(0) }) // already down: no hook
	s.At(50*ms, "restart", func() { s.Restart(0) })
	s.At(65*ms, "power loss", func() { s.PowerLoss(0) })
	s.Run(75 * ms)
	s.Start(0)
	s.Shutdown(0)
	if got, want := strings.Join(seen, "|"), "crash n=2|power-loss n=1|shutdown n=0"; got != want {
		t.Fatalf("hooks saw %s, want %s", got, want)
	}
}

// The kernel hands a handler its event in place, in the queue's slab, and
// recycles the slot only once the handler returns. A handler that
// schedules thousands of events (so the slab grows and the free slots are
// all taken) must still leave every event to arrive intact and in order:
// each message reaches its node with its own payload, and each timer
// fires with its own argument. A slot recycled before its handler runs
// would hand the handler an emptied event, and nothing would arrive.
func TestEventsScheduledWhileOneIsHandledArriveIntact(t *testing.T) {
	const fanout = 5000
	var got []int64
	var fired []int64
	s, _ := world(t, 2, LinkConfig{Latency: Fixed(time.Millisecond)}, func(id NodeID) *probe {
		return &probe{
			onStart: func(env *Env) {
				if id == 0 {
					env.After(time.Millisecond, "burst", 7)
				}
			},
			onFire: func(env *Env, tm Timer) {
				if tm.Kind == "burst" {
					for i := range fanout {
						env.Send(1, msg(i))
						env.After(2*time.Millisecond, "echo", int64(i))
					}
					return
				}
				fired = append(fired, tm.Arg)
			},
			onRecv: func(env *Env, from NodeID, m Message) { got = append(got, int64(m.(msg))) },
		}
	})
	s.Run(time.Second)
	if len(got) != fanout || len(fired) != fanout {
		t.Fatalf("%d messages and %d timers arrived, want %d of each", len(got), len(fired), fanout)
	}
	for i := range fanout {
		if got[i] != int64(i) || fired[i] != int64(i) {
			t.Fatalf("event %d arrived as message %d and timer %d", i, got[i], fired[i])
		}
	}
}
