package faults

import (
	"slices"
	"testing"
	"time"
)

// With targets, every fault that takes a node aims at one of them; the
// two-node kinds (oneway, reset) never at a rack, and clog may.
func TestSwarmDrawsItsTargets(t *testing.T) {
	targets := []Selector{Rack("r1"), MemberOf("g", 0), FollowerOf(tp0, 1), OutOfISR(tp0)}
	o := allSwarm()
	o.Targets = targets
	aimed := map[SelectorKind]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		s := Swarm(seed, o, toyShape)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range s {
			if f.Target.IsZero() {
				continue
			}
			if !slices.Contains(targets, f.Target) {
				t.Fatalf("seed %d: %v aims at %v, not a target", seed, f, f.Target)
			}
			if (f.Kind == KindOneWay || f.Kind == KindReset) && f.Target.Several() {
				t.Fatalf("seed %d: %v aims a one-node end at a rack", seed, f)
			}
			aimed[f.Target.Kind]++
		}
	}
	for _, k := range []SelectorKind{SelRack, SelMemberOf, SelFollowerOf, SelOutOfISR} {
		if aimed[k] == 0 {
			t.Errorf("no fault aimed at selector kind %d over 100 seeds", k)
		}
	}
}

// Triggers move no other draw: with them on, the same seed draws the same
// faults at the same times, some of them waiting for an event (a window
// kept as its for). With probability 1 every fault waits.
func TestSwarmTriggersMoveNoOtherDraw(t *testing.T) {
	plain := allSwarm()
	trig := plain
	trig.Triggers, trig.TriggerProb = []string{EventAck, EventElection}, 0.5
	all := trig
	all.TriggerProb = 1
	waited := 0
	for seed := uint64(1); seed <= 50; seed++ {
		a, b, c := Swarm(seed, plain, toyShape), Swarm(seed, trig, toyShape), Swarm(seed, all, toyShape)
		if len(a) != len(b) || len(a) != len(c) {
			t.Fatalf("seed %d: %d, %d and %d faults", seed, len(a), len(b), len(c))
		}
		if err := b.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i := range b {
			f := b[i]
			if f.On != nil {
				waited++
				if !slices.Contains(trig.Triggers, f.On.Event) || f.On.TP != tp0 {
					t.Fatalf("seed %d: %v waits for %v", seed, f, *f.On)
				}
				if f.End, f.On = f.At+f.On.For, nil; f.End == f.At {
					f.End = 0
				}
			}
			if f.String() != a[i].String() {
				t.Fatalf("seed %d fault %d: %v with triggers, %v without", seed, i, b[i], a[i])
			}
			if c[i].On == nil {
				t.Fatalf("seed %d: %v does not wait with probability 1", seed, c[i])
			}
		}
	}
	if waited == 0 {
		t.Fatal("no fault waited for an event at probability 0.5")
	}
}

// MaxPerKind bounds each kind's faults.
func TestSwarmMaxPerKind(t *testing.T) {
	o := allSwarm()
	o.MeanInterval, o.MaxPerKind = 100*time.Millisecond, 2
	for seed := uint64(1); seed <= 20; seed++ {
		per := map[Kind]int{}
		for _, f := range Swarm(seed, o, toyShape) {
			per[f.Kind]++
		}
		for k, n := range per {
			if n > 2 {
				t.Fatalf("seed %d: %d faults of %s, bound 2", seed, n, k)
			}
		}
	}
}
