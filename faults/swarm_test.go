package faults

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

var toyShape = Shape{
	Brokers:     []model.BrokerID{1, 2, 3},
	Controllers: []model.BrokerID{100},
	Partitions:  []model.TopicPartition{tp0},
	Groups:      []string{"g"},
}

func allSwarm() SwarmOptions {
	return SwarmOptions{Kinds: SwarmKinds(), Start: time.Second, End: 60 * time.Second, MeanInterval: 5 * time.Second}
}

func TestSwarmZeroOptionsDrawNothing(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		if s := Swarm(seed, SwarmOptions{}, toyShape); len(s) != 0 {
			t.Fatalf("seed %d: zero options drew %v", seed, s)
		}
	}
	// Kinds alone are not enough: without a phase there is nowhere to
	// put a fault.
	if s := Swarm(1, SwarmOptions{Kinds: SwarmKinds()}, toyShape); len(s) != 0 {
		t.Fatalf("no phase end, yet drew %v", s)
	}
}

func TestSwarmSameSeedSameScheduleOtherSeedsDiffer(t *testing.T) {
	a := Swarm(42, allSwarm(), toyShape)
	b := Swarm(42, allSwarm(), toyShape)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("same seed, different schedules:\n%v\n%v", a, b)
	}
	if len(a) == 0 {
		t.Fatal("seed 42 drew nothing; the test shows nothing")
	}
	distinct := map[string]bool{}
	for seed := uint64(1); seed <= 20; seed++ {
		distinct[Swarm(seed, allSwarm(), toyShape).String()] = true
	}
	if len(distinct) < 19 {
		t.Fatalf("20 seeds drew only %d distinct schedules", len(distinct))
	}
}

// Every drawn schedule is valid, within the phase, and each run enables a
// subset of the kinds: over many seeds every kind is drawn somewhere and
// left out somewhere else.
func TestSwarmDrawsValidSubsets(t *testing.T) {
	o := allSwarm()
	drawn, missing := map[Kind]int{}, map[Kind]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		s := Swarm(seed, o, toyShape)
		if err := s.Validate(); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, s)
		}
		in := map[Kind]bool{}
		for _, f := range s {
			in[f.Kind] = true
			if f.At < o.Start || f.At >= o.End || f.End > o.End {
				t.Fatalf("seed %d: %s outside [%v, %v]", seed, f, o.Start, o.End)
			}
			if specs[f.Kind].when != whenAtOnly && !f.Windowed() {
				t.Fatalf("seed %d: %s drawn without a window", seed, f)
			}
		}
		for _, k := range SwarmKinds() {
			if in[k] {
				drawn[k]++
			} else {
				missing[k]++
			}
		}
	}
	for _, k := range SwarmKinds() {
		if drawn[k] < 40 || missing[k] < 40 {
			t.Errorf("kind %s drawn in %d runs and left out of %d; want each about half of 200", k, drawn[k], missing[k])
		}
	}
}

// Adding a kind leaves another kind's faults as they were, even one drawn
// later in the fixed order: each kind draws from its own stream.
func TestSwarmKindsDrawIndependently(t *testing.T) {
	only := func(s Schedule, k Kind) Schedule {
		var out Schedule
		for _, f := range s {
			if f.Kind == k {
				out = append(out, f)
			}
		}
		return out
	}
	nonEmpty := 0
	for seed := uint64(1); seed <= 20; seed++ {
		o := allSwarm()
		o.Kinds = []Kind{KindSkew}
		alone := Swarm(seed, o, toyShape)
		o.Kinds = []Kind{KindCrash, KindHalves, KindSkew}
		with := Swarm(seed, o, toyShape)
		if !reflect.DeepEqual(alone, only(with, KindSkew)) {
			t.Fatalf("seed %d: skews changed when kinds were added:\n%v\n%v", seed, alone, only(with, KindSkew))
		}
		if len(alone) > 0 && len(with) > len(alone) {
			nonEmpty++
		}
	}
	if nonEmpty == 0 {
		t.Fatal("no seed drew skews and other kinds together; the test shows nothing")
	}
}

func TestSwarmRefusesUndrawableKinds(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "restart") {
			t.Fatalf("recovered %v, want a panic naming restart", r)
		}
	}()
	Swarm(1, SwarmOptions{Kinds: []Kind{KindRestart}, End: time.Minute}, toyShape)
}

// runToy applies s to a fresh toy world of the given seed, runs it to the
// end and returns its trace hash.
func runToy(t *testing.T, seed uint64, s Schedule, until time.Duration) uint64 {
	t.Helper()
	w := newToyWorld(t, seed)
	if _, err := Apply(w, s); err != nil {
		t.Fatal(err)
	}
	w.k.Run(until)
	return w.k.Hash()
}

// A swarm schedule written out and read back replays to the same trace
// hash as the schedule as drawn; a schedule one fault shorter does not.
func TestSwarmScheduleReplaysToSameHash(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		drawn := Swarm(seed, allSwarm(), toyShape)
		if len(drawn) < 2 {
			continue
		}
		file, err := Parse(strings.NewReader(drawn.String()), "swarm.faults")
		if err != nil {
			t.Fatal(err)
		}
		direct := runToy(t, seed, drawn, 65*time.Second)
		replayed := runToy(t, seed, file, 65*time.Second)
		if direct != replayed {
			t.Fatalf("seed %d: drawn schedule hashes %x, its file %x", seed, direct, replayed)
		}
		if fewer := runToy(t, seed, drawn[1:], 65*time.Second); fewer == direct {
			t.Fatalf("seed %d: dropping %s did not change the hash", seed, drawn[0])
		}
	}
}
