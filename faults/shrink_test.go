package faults

import (
	"reflect"
	"testing"
	"time"
)

// synthetic fails iff the schedule crashes b2 throughout [10s, 12s] and
// isolates the controller at some time: two faults are needed, and the
// crash cannot be shorter than [10s, 12s].
func synthetic(s Schedule) bool {
	crash, isolate := false, false
	for _, f := range s {
		if f.Kind == KindCrash && f.Target == Node(2) && f.Windowed() && f.At <= 10*time.Second && f.End >= 12*time.Second {
			crash = true
		}
		if f.Kind == KindIsolate && f.Target == Controller() {
			isolate = true
		}
	}
	return crash && isolate
}

// noisy is a failing schedule buried among faults that do not matter.
func noisy(t *testing.T) Schedule {
	o := allSwarm()
	o.End = 50 * time.Second
	s := Swarm(3, o, toyShape)
	s = append(s,
		Fault{At: 5 * time.Second, End: 20 * time.Second, Kind: KindCrash, Target: Node(2)},
		Fault{At: 30 * time.Second, End: 40 * time.Second, Kind: KindIsolate, Target: Controller()},
	)
	s = s.Sorted()
	if !synthetic(s) || len(s) < 20 {
		t.Fatalf("the noisy schedule (%d faults) does not fail", len(s))
	}
	return s
}

func TestShrinkFindsTheMinimalSchedule(t *testing.T) {
	s := noisy(t)
	got, runs := Shrink(s, synthetic, 0)
	if !synthetic(got) {
		t.Fatalf("shrunk schedule does not fail:\n%s", got)
	}
	if len(got) != 2 {
		t.Fatalf("shrunk to %d faults, want 2:\n%s", len(got), got)
	}
	crash, isolate := got[0], got[1]
	if crash.Kind != KindCrash {
		crash, isolate = isolate, crash
	}
	if crash.String() != "from 10s to 12s crash b2" {
		t.Errorf("crash shrunk to %q, want the window [10s, 12s] exactly", crash)
	}
	if isolate.Kind != KindIsolate || isolate.Target != Controller() || isolate.End-isolate.At > 200*time.Millisecond {
		t.Errorf("isolate shrunk to %q, want a short window", isolate)
	}
	if runs > RunsDefault {
		t.Errorf("%d runs, over the default budget %d", runs, RunsDefault)
	}
	t.Logf("%d faults shrunk to %d in %d runs:\n%s", len(s), len(got), runs, got)
}

func TestShrinkIsDeterministic(t *testing.T) {
	s := noisy(t)
	a, ra := Shrink(s, synthetic, 0)
	b, rb := Shrink(s, synthetic, 0)
	if !reflect.DeepEqual(a, b) || ra != rb {
		t.Fatalf("two shrinks of one schedule differ:\n%s(%d runs)\n%s(%d runs)", a, ra, b, rb)
	}
	// And it leaves its input alone.
	if !reflect.DeepEqual(s, noisy(t)) {
		t.Fatal("Shrink changed the schedule it was given")
	}
}

// The budget bounds the runs; what is returned still fails.
func TestShrinkKeepsToItsBudget(t *testing.T) {
	s := noisy(t)
	calls := 0
	counted := func(c Schedule) bool { calls++; return synthetic(c) }
	got, runs := Shrink(s, counted, 7)
	if calls != 7 || runs != 7 {
		t.Fatalf("%d calls, %d runs reported; want 7", calls, runs)
	}
	if !synthetic(got) || len(got) >= len(s) {
		t.Fatalf("after 7 runs: %d faults (from %d), failing %v", len(got), len(s), synthetic(got))
	}
}

func TestShrinkOfAPassingScheduleChangesNothing(t *testing.T) {
	s := Schedule{{At: time.Second, Kind: KindCrash, Target: Node(1)}}
	got, runs := Shrink(s, func(Schedule) bool { return false }, 0)
	if runs != 1 || !reflect.DeepEqual(got, s) {
		t.Fatalf("got %v after %d runs; want the input after 1", got, runs)
	}
}

// On the kernel: a toy run "fails" when b1 and b3 are down at the same
// moment. A swarm schedule that fails shrinks to two faults that still
// fail on the kernel, the same two every time.
func TestShrinkOnTheKernel(t *testing.T) {
	o := SwarmOptions{Kinds: []Kind{KindCrash, KindPowerLoss, KindPause, KindIsolate, KindClog}, Start: time.Second, End: 30 * time.Second, MeanInterval: 3 * time.Second}
	const seed = 9
	bothDown := func(s Schedule) bool {
		w := newToyWorld(t, seed)
		if _, err := Apply(w, s); err != nil {
			t.Fatal(err)
		}
		down := false
		var probe func()
		probe = func() {
			down = down || !w.k.IsUp(1) && !w.k.IsUp(3)
			if w.k.Now() < o.End {
				w.k.AfterFunc(10*time.Millisecond, "probe", probe)
			}
		}
		w.k.At(0, "probe", probe)
		w.k.Run(o.End + time.Second)
		return down
	}
	var s Schedule
	for sw := uint64(1); sw <= 100; sw++ {
		if c := Swarm(sw, o, toyShape); bothDown(c) && len(c) >= 8 {
			s = c
			break
		}
	}
	if s == nil {
		t.Fatal("no swarm seed in 1..100 makes b1 and b3 go down together")
	}
	got, runs := Shrink(s, bothDown, 0)
	if len(got) != 2 || !bothDown(got) {
		t.Fatalf("%d faults shrunk to %d (failing %v) in %d runs:\n%s", len(s), len(got), bothDown(got), runs, got)
	}
	again, _ := Shrink(s, bothDown, 0)
	if !reflect.DeepEqual(got, again) {
		t.Fatalf("two shrinks differ:\n%s\n%s", got, again)
	}
	for _, f := range got {
		if f.Kind != KindCrash && f.Kind != KindPowerLoss {
			t.Errorf("kept %s, which cannot take a node down", f)
		}
	}
	t.Logf("%d faults shrunk to %d in %d runs:\n%s", len(s), len(got), runs, got)
}
