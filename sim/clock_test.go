package sim

import (
	"testing"
	"time"
)

func TestDriftStretchesTimersAndNow(t *testing.T) {
	// A clock running 10% fast: a 100ms timer fires after about 90.9ms
	// of true time, and Now reads 10% ahead of the elapsed true time.
	s, log := world(t, 2, LinkConfig{}, plain)
	var localAtFire time.Duration
	s.Drift(1, 0.10)
	s.At(0, "arm", func() {
		s.nodes[1].env.After(100*ms, "fast", 0)
		s.nodes[0].env.After(100*ms, "true", 0)
	})
	s.At(50*ms, "look", func() { localAtFire = s.nodes[1].env.Now() })
	s.Run(time.Second)
	if localAtFire != 55*ms {
		t.Fatalf("fast clock reads %v at true 50ms, want 55ms", localAtFire)
	}
	mustContain(t, *log, "90.909091ms n1 fire fast(0)")
	mustContain(t, *log, "100ms n0 fire true(0)")
}

func TestSkewJumpsAndResyncRestores(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, plain)
	s.At(10*ms, "mark", func() {})
	s.At(110*ms, "mark", func() {})
	s.Run(10 * ms)
	s.Skew(0, -5*time.Second)
	if got := s.LocalTime(0); got != 10*ms-5*time.Second {
		t.Fatalf("after skew local time %v", got)
	}
	s.Drift(0, -0.5)
	s.Run(110 * ms)
	if got := s.LocalTime(0); got != 60*ms-5*time.Second {
		t.Fatalf("half-speed clock after 100ms true: %v", got)
	}
	s.ResyncClock(0)
	if got := s.LocalTime(0); got != 110*ms {
		t.Fatalf("after resync %v, want true time", got)
	}
}

// TestTimerNeverFiresBeforeItsLocalDeadline re-arms for "the time left"
// until the node's clock reaches a deadline, under drifts whose rate
// conversion rounds: the loop must end, and each fire must find the clock
// at or past what the timer was armed for.
func TestTimerNeverFiresBeforeItsLocalDeadline(t *testing.T) {
	for _, drift := range []float64{0.0286, -0.0303, 0.0016, -0.0099, 0.3333} {
		fires := 0
		s, _ := world(t, 1, LinkConfig{}, func(NodeID) *probe {
			var deadline time.Duration
			return &probe{
				onStart: func(env *Env) {
					deadline = env.Now() + 1234567891*time.Nanosecond
					env.After(deadline-env.Now(), "wait", 0)
				},
				onFire: func(env *Env, tm Timer) {
					fires++
					if left := deadline - env.Now(); left > 0 {
						env.After(left, "wait", 0)
					}
				},
			}
		})
		s.Drift(0, drift)
		s.Crash(0)
		s.Restart(0) // Start arms the first wait on the drifting clock
		s.Run(time.Hour)
		if fires > 3 {
			t.Fatalf("drift %v: %d fires to reach one deadline", drift, fires)
		}
	}
}
