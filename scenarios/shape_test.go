package scenarios

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
)

// TestShapeValidate takes the catalog's shape and refuses a repeated or
// empty topic, "t" (the fixture's own), a producer on a topic the fixture
// does not have, one keyed without keys or with a Zipf exponent of 0, and
// one whose keys miss a partition of its topic; 16 keys reach every
// partition of the catalog's topics, two keys cannot reach 12.
func TestShapeValidate(t *testing.T) {
	if err := realistic().validate(1); err != nil {
		t.Fatalf("the catalog's shape: %v", err)
	}
	one := []TopicShape{{Name: "a", Partitions: 1}}
	for _, sh := range []Shape{
		{Topics: []TopicShape{{Name: "a", Partitions: 1}, {Name: "a", Partitions: 2}}},
		{Topics: []TopicShape{{Name: "a", Partitions: 0}}},
		{Topics: []TopicShape{{Name: "t", Partitions: 1}}},
		{Topics: one, Producers: []ProducerShape{{Name: "p", Topics: []string{"b"}}}},
		{Topics: one, Producers: []ProducerShape{{Name: "p", Topics: []string{"a"}, Keys: KeysUniform}}},
		{Topics: one, Producers: []ProducerShape{{Name: "p", Topics: []string{"a"}, Keys: KeysZipf, KeyCount: 5}}},
		{Topics: one, Producers: []ProducerShape{{Name: "p", Topics: []string{"a"}}, {Name: "p", Topics: []string{"a"}}}},
		{Topics: []TopicShape{{Name: "a", Partitions: 12}}, Producers: []ProducerShape{{Name: "p", Topics: []string{"a"}, Keys: KeysUniform, KeyCount: 2}}},
	} {
		if sh.validate(1) == nil {
			t.Errorf("shape %+v accepted", sh)
		}
	}
	ok := Shape{Topics: one, Producers: []ProducerShape{{Name: "p", Topics: []string{"a", "t"}, Keys: KeysZipf, KeyCount: 5, ZipfExponent: 1}}}
	if err := ok.validate(1); err != nil {
		t.Errorf("a Zipf producer on a and t: %v", err)
	}
}

// TestZipfDrawFollowsItsLaw: over 200,000 draws from one stream the
// frequency of each of 10 keys is within 1% (absolute) of (i+1)^-s / H,
// for s = 1.2; the uniform draw gives each about a tenth; the same stream
// seed draws the same keys.
func TestZipfDrawFollowsItsLaw(t *testing.T) {
	const n, draws, s = 10, 200_000, 1.2
	count := func(p ProducerShape, seed uint64) []int {
		d := newKeyDraw(p, rand.New(rand.NewPCG(seed, 1)))
		out := make([]int, n)
		for range draws {
			out[d.next()]++
		}
		return out
	}
	zipf := count(ProducerShape{Keys: KeysZipf, KeyCount: n, ZipfExponent: s}, 7)
	h := 0.0
	for i := 1; i <= n; i++ {
		h += math.Pow(float64(i), -s)
	}
	for i, c := range zipf {
		want := math.Pow(float64(i+1), -s) / h
		if got := float64(c) / draws; math.Abs(got-want) > 0.01 {
			t.Errorf("key %d: frequency %.4f, Zipf's law says %.4f", i, got, want)
		}
	}
	for i, c := range count(ProducerShape{Keys: KeysUniform, KeyCount: n}, 7) {
		if got := float64(c) / draws; math.Abs(got-0.1) > 0.01 {
			t.Errorf("uniform key %d: frequency %.4f, want 0.1", i, got)
		}
	}
	again := count(ProducerShape{Keys: KeysZipf, KeyCount: n, ZipfExponent: s}, 7)
	for i := range again {
		if again[i] != zipf[i] {
			t.Fatalf("the same stream drew differently: %v then %v", zipf, again)
		}
	}
}

// TestShapeProducerValues: values are unique per producer node (a prefix
// per node), padded to ValueBytes when asked and left alone otherwise;
// in cover mode a keyed producer sends, in turn, a key that hashes to
// each partition it covers, and a keyless one names each partition.
func TestShapeProducerValues(t *testing.T) {
	sh := &Shape{Topics: []TopicShape{{Name: "a", Partitions: 3}}}
	keyed := ProducerShape{Name: "z", Count: 2, Topics: []string{"a"}, Keys: KeysZipf, KeyCount: 20, ZipfExponent: 1, ValueBytes: 64}
	w1 := sh.newShapeProducer(keyed, 1, 1, rand.New(rand.NewPCG(1, 1)))
	w2 := sh.newShapeProducer(keyed, 2, 1, rand.New(rand.NewPCG(1, 2)))
	a, _ := w1.Next(nil)
	b, _ := w2.Next(nil)
	if a.Value == b.Value || len(a.Value) != 64 || len(b.Value) != 64 || !strings.HasPrefix(a.Value, "z.1-0") {
		t.Fatalf("values %q and %q: want distinct, 64 bytes, z.1-0...", a.Value, b.Value)
	}
	if a.Key == "" || a.HasPartition {
		t.Fatalf("a keyed send: %+v", a)
	}
	w1.coverEveryPartition()
	got := map[int32]bool{}
	for range 3 {
		m, _ := w1.Next(nil)
		got[client.KeyPartition(m.Key, 3)] = true
	}
	if len(got) != 3 {
		t.Fatalf("three cover sends of a keyed producer reach %v, want every partition of a", got)
	}
	plain := sh.newShapeProducer(ProducerShape{Name: "s", Topics: []string{"a"}}, 1, 1, nil)
	m, _ := plain.Next(nil)
	if m.Value != "s-0" || m.Key != "" || m.HasPartition {
		t.Fatalf("a keyless send before the liveness phase: %+v", m)
	}
	plain.coverEveryPartition()
	named := map[int32]bool{}
	for range 3 {
		m, _ := plain.Next(nil)
		if !m.HasPartition {
			t.Fatalf("a cover send of a keyless producer names no partition: %+v", m)
		}
		named[m.Partition] = true
	}
	if len(named) != 3 {
		t.Fatalf("three cover sends of a keyless producer name %v, want every partition of a", named)
	}
}

// TestRealisticShapeRuns builds the catalog's shaped fixture and runs it
// for a few seconds: leaders are spread (every broker leads several data
// partitions), every partition of every topic takes acknowledged writes,
// keyed and keyless, and the group reads every topic.
func TestRealisticShapeRuns(t *testing.T) {
	s, err := NewScripted(ScriptOptions{Seed: 1, Config: shaped(), Fixture: Fixture{Shape: realistic(), Groups: readersGroup}})
	if err != nil {
		t.Fatal(err)
	}
	s.Sim.Run(s.Sim.Now() + 15*time.Second)
	if len(s.TPs) != 7 {
		t.Fatalf("TPs %v, want t/0, orders/0-3, events/0-1", s.TPs)
	}
	led := map[model.BrokerID]int{}
	for _, tp := range s.TPs {
		led[s.Leader(tp)]++
	}
	for _, b := range s.Brokers {
		if led[b] < 2 {
			t.Errorf("broker %v leads %d partitions, want at least 2 (leaders %v)", b, led[b], led)
		}
	}
	acked := map[model.TopicPartition]bool{}
	keyed, keyless, groupRead := 0, 0, map[string]bool{}
	members := map[int]bool{}
	for _, m := range s.Members {
		members[int(m.Node)] = true
	}
	for _, op := range s.History.History() {
		switch {
		case op.F == model.FSend && op.Type == model.OpOK:
			acked[op.TP] = true
			switch {
			case op.Key != "":
				keyed++
			case op.TP.Topic != "t":
				keyless++
			}
		case op.F == model.FPoll && op.Type == model.OpOK && members[op.Process]:
			for _, pr := range op.Records {
				if len(pr.Records) > 0 {
					groupRead[pr.TP.Topic] = true
				}
			}
		}
	}
	for _, tp := range s.TPs {
		if !acked[tp] {
			t.Errorf("no acknowledged send on %v", tp)
		}
	}
	if keyed == 0 || keyless == 0 {
		t.Errorf("keyed sends %d, keyless sends %d: want both", keyed, keyless)
	}
	for _, topic := range s.topics() {
		if !groupRead[topic] {
			t.Errorf("the group read nothing of %s (read %v)", topic, groupRead)
		}
	}
}

// TestShapeStartAndStop: a producer and a group that start at 3 s do
// nothing before it and work after it; a producer that stops at 2 s sends
// nothing invoked after it.
func TestShapeStartAndStop(t *testing.T) {
	sh := &Shape{Topics: []TopicShape{{Name: "a", Partitions: 2}}, Producers: []ProducerShape{
		{Name: "late", Topics: []string{"a"}, Start: 3 * time.Second},
		{Name: "early", Topics: []string{"a"}, Stop: 2 * time.Second},
	}}
	s, err := NewScripted(ScriptOptions{Seed: 2, Config: shaped(), Fixture: Fixture{Shape: sh, Groups: []GroupSpec{{Name: "g", Members: 1, Start: 3 * time.Second}}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Sim.Run(6 * time.Second)
	member := int(s.Members[0].Node)
	lateSends, earlySends, groupPolls := 0, 0, 0
	for _, op := range s.History.History() {
		switch {
		case op.F == model.FSend && strings.HasPrefix(op.Value, "late-"):
			lateSends++
			if op.Time < 3*time.Second {
				t.Fatalf("a send of the late producer at %v", op.Time)
			}
		case op.F == model.FSend && strings.HasPrefix(op.Value, "early-"):
			earlySends++
			if op.Time > 2*time.Second {
				t.Fatalf("a send of the early producer at %v, after it stopped", op.Time)
			}
		case op.Process == member:
			groupPolls++
			if op.Time < 3*time.Second {
				t.Fatalf("the late group's member acted at %v: %+v", op.Time, op)
			}
		}
	}
	if lateSends == 0 || earlySends == 0 || groupPolls == 0 {
		t.Fatalf("late sends %d, early sends %d, late member ops %d: want each", lateSends, earlySends, groupPolls)
	}
}
