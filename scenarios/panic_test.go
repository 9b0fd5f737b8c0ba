package scenarios

import (
	"strings"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// panicking is a scenario whose cluster code panics on odd seeds, 2 s into
// the safety phase (a harness action stands in for a broker's panic: both
// run inside the simulator's event loop).
func panicking() Scenario {
	return Scenario{
		Name: "panics-on-odd-seeds", Spec: fixture.Spec{Brokers: 3, Partitions: 1},
		Safety: 5 * time.Second, LivenessBound: 20 * time.Second,
		Schedule: func(s *Scripted) faults.Schedule {
			if s.Sim.Seed()%2 == 1 {
				s.Sim.AfterFunc(2*time.Second, "boom", func() { boom() })
			}
			return nil
		},
	}
}

func boom() { panic("broker: partition t/0 opened twice") }

// A run whose simulated code panics fails with a panic finding that says
// what panicked, when, and in which function, instead of taking the
// process down; the run next to it, with no panic, passes.
func TestARunThatPanicsFailsWithWhereItPanicked(t *testing.T) {
	sc := panicking()
	res, err := Run(sc, 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK || res.AsExpected || res.Valid != checkers.ValidViolation || len(res.Violations) != 1 {
		t.Fatalf("ok %v as expected %v valid %s violations %v", res.OK, res.AsExpected, res.Valid, res.Violations)
	}
	v := res.Violations[0]
	for _, want := range []string{"opened twice", "at virtual time", "seed 1", "scenarios.boom (panic_test.go:"} {
		if v.Anomaly != checkers.Panic || !v.Error || !strings.Contains(v.Detail, want) {
			t.Fatalf("finding %+v does not say %q", v, want)
		}
	}
	if strings.Contains(v.Detail, "0x") {
		t.Fatalf("finding names addresses, which differ between replays: %s", v.Detail)
	}
	again, _ := Run(sc, 1, Options{})
	if again.TraceHash != res.TraceHash || again.Violations[0].Detail != v.Detail {
		t.Fatalf("a replay differs: %s %q, then %s %q", res.TraceHash, v.Detail, again.TraceHash, again.Violations[0].Detail)
	}
	fine, err := Run(sc, 2, Options{})
	if err != nil || !fine.OK {
		t.Fatalf("seed 2 has no panic and should pass: %v %+v", err, fine.Violations)
	}
}

// A sweep records a panicking run as a failure and runs the seeds after it.
func TestASweepGoesOnPastARunThatPanicked(t *testing.T) {
	out, err := Sweep(SweepOptions{Scenarios: []Scenario{panicking()}, Start: 1, Seeds: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 4 {
		t.Fatalf("%d results, want 4", len(out.Results))
	}
	for _, r := range out.Results {
		if r.OK != (r.Seed%2 == 0) {
			t.Fatalf("seed %d: ok %v", r.Seed, r.OK)
		}
	}
}

// A saved run that panicked is judged again to the same verdict: the panic
// is recorded, and the history it cut short is not judged as if complete.
func TestASavedRunThatPanickedIsJudgedAgainAsTheRun(t *testing.T) {
	res, err := Run(panicking(), 1, Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SaveRun(dir, res); err != nil {
		t.Fatal(err)
	}
	rc, err := CheckRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Same || rc.Result.Valid != checkers.ValidViolation || rc.Result.Violations[0].Detail != res.Violations[0].Detail {
		t.Fatalf("same %v valid %s added %v removed %v", rc.Same, rc.Result.Valid, rc.Added, rc.Removed)
	}
}

// A run that reaches the simulator's event limit (here a livelock: an
// action that schedules itself at the same instant for ever) fails with an
// event-limit finding instead of being judged as a frozen cluster.
func TestARunThatReachesTheEventLimitFails(t *testing.T) {
	sc := Scenario{
		Name: "livelock", Spec: fixture.Spec{Brokers: 3, Partitions: 1},
		Safety: 5 * time.Second, LivenessBound: 20 * time.Second,
		Schedule: func(s *Scripted) faults.Schedule {
			var spin func()
			spin = func() { s.Sim.AfterFunc(0, "spin", spin) }
			s.Sim.AfterFunc(2*time.Second, "spin", spin)
			return nil
		},
	}
	kc, err := ConfigFor(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := play(sc, 1, kc, sim.Config{EventLimit: 200_000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.cutShort == nil || s.cutShort.anomaly != checkers.EventLimit || !strings.Contains(s.cutShort.detail, "200000 events, at virtual time 2.21s") {
		t.Fatalf("cut short: %+v", s.cutShort)
	}
	fine, _, err := play(panicking(), 2, kc, sim.Config{EventLimit: 200_000}, nil)
	if err != nil || fine.cutShort != nil {
		t.Fatalf("a run within the limit was cut short: %v %+v", err, fine.cutShort)
	}
}
