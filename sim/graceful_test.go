package sim

import (
	"strings"
	"testing"
	"time"
)

// drainer is a GracefulStopper: asked to stop, it keeps ticking and calls
// StopDone at its third tick after the request, unless told to wait for
// ever (then only the deadline stops it).
type drainer struct {
	log      *[]string
	never    bool
	stopping bool
	ticks    int
}

func (d *drainer) note(env *Env, s string) {
	*d.log = append(*d.log, env.ObserverNow().String()+" "+s)
}
func (d *drainer) Start(env *Env)                           { d.note(env, "start"); env.After(10*ms, "tick", 0) }
func (d *drainer) Receive(env *Env, from NodeID, m Message) {}
func (d *drainer) Disconnected(env *Env, peer NodeID)       {}
func (d *drainer) Fire(env *Env, t Timer) {
	d.note(env, "tick")
	if d.stopping {
		d.ticks++
		if d.ticks == 3 && !d.never {
			env.StopDone()
			d.note(env, "done")
		}
	}
	env.After(10*ms, "tick", 0)
}
func (d *drainer) BeginStop(env *Env) time.Duration {
	d.note(env, "begin-stop")
	d.stopping = true
	return 100 * ms
}
func (d *drainer) Stop(env *Env) { d.note(env, "stop") }

func drainWorld(never bool) (*Sim, *[]string) {
	s := New(Config{Seed: 1})
	log := &[]string{}
	s.AddNode(0, "d", func() Node { return &drainer{log: log, never: never} })
	s.Start(0)
	return s, log
}

func TestGracefulStopRunsUntilTheNodeSaysDone(t *testing.T) {
	s, log := drainWorld(false)
	s.At(15*ms, "shutdown", func() { s.Shutdown(0) })
	s.At(25*ms, "check", func() {
		if !s.IsUp(0) || !s.IsStopping(0) {
			t.Errorf("at 25ms the node must still be up and stopping: up %v stopping %v", s.IsUp(0), s.IsStopping(0))
		}
	})
	s.Run(time.Second)
	// It ticks on after the request and stops right after its own signal
	// (at 40ms), not at the deadline (115ms), and never ticks again.
	want := "0s start|10ms tick|15ms begin-stop|20ms tick|30ms tick|40ms tick|40ms done|40ms stop"
	if got := strings.Join(*log, "|"); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if s.IsUp(0) || s.IsStopping(0) {
		t.Fatal("the node must be down once its stop finished")
	}
}

func TestGracefulStopIsForcedAtTheDeadline(t *testing.T) {
	s, log := drainWorld(true)
	s.At(15*ms, "shutdown", func() { s.Shutdown(0) })
	s.At(50*ms, "again", func() { s.Shutdown(0) }) // changes nothing
	s.Run(time.Second)
	got := strings.Join(*log, "|")
	if !strings.HasSuffix(got, "110ms tick|115ms stop") || strings.Contains(got, "120ms") {
		t.Fatalf("the stop must be forced at 15ms+100ms, once, and nothing run after it: %s", got)
	}
}

func TestRestartDuringAGracefulStopWaitsForIt(t *testing.T) {
	s, log := drainWorld(false)
	s.At(15*ms, "shutdown", func() { s.Shutdown(0) })
	s.At(22*ms, "restart", func() { s.Restart(0) })
	s.Run(45 * ms)
	want := "0s start|10ms tick|15ms begin-stop|20ms tick|30ms tick|40ms tick|40ms done|40ms stop|40ms start"
	if got := strings.Join(*log, "|"); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if !s.IsUp(0) || s.IsStopping(0) || s.Incarnation(0) != 2 {
		t.Fatalf("the restart must come once the stop is over: up %v stopping %v incarnation %d", s.IsUp(0), s.IsStopping(0), s.Incarnation(0))
	}
}

func TestCrashEndsAGracefulStop(t *testing.T) {
	s, log := drainWorld(true)
	s.At(15*ms, "shutdown", func() { s.Shutdown(0) })
	s.At(30*ms, "crash", func() { s.Crash(0) })
	s.At(60*ms, "start", func() { s.Start(0) })
	s.Run(200 * ms)
	got := strings.Join(*log, "|")
	if strings.Contains(got, " stop|") || strings.HasSuffix(got, " stop") {
		t.Fatalf("a crash must not run Stop, and the old deadline must not stop the new incarnation: %s", got)
	}
	if !s.IsUp(0) || s.IsStopping(0) {
		t.Fatalf("the restarted node must be up and not stopping: up %v stopping %v", s.IsUp(0), s.IsStopping(0))
	}
}

func TestGracefulStopReplaysTheSame(t *testing.T) {
	hash := func() uint64 {
		s, _ := drainWorld(false)
		s.At(15*ms, "shutdown", func() { s.Shutdown(0) })
		s.At(22*ms, "restart", func() { s.Restart(0) })
		s.Run(time.Second)
		return s.Hash()
	}
	if a, b := hash(), hash(); a != b {
		t.Fatalf("same run, hashes %x and %x", a, b)
	}
}
