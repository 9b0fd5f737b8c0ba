package scenarios

import (
	"strings"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// TestRealisticShapeRuns builds the catalog's shaped fixture and runs it
// for a few seconds: leaders are spread (every broker leads several data
// partitions), every partition of every topic takes acknowledged writes,
// keyed and keyless, and the group reads every topic.
func TestRealisticShapeRuns(t *testing.T) {
	s, err := NewScripted(fixture.Options{Seed: 1, Config: shaped(), Spec: fixture.Spec{Shape: realistic(), Groups: readersGroup}})
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
	for _, topic := range s.Topics() {
		if !groupRead[topic] {
			t.Errorf("the group read nothing of %s (read %v)", topic, groupRead)
		}
	}
}

// TestShapeStartAndStop: a producer and a group that start at 3 s do
// nothing before it and work after it; a producer that stops at 2 s sends
// nothing invoked after it.
func TestShapeStartAndStop(t *testing.T) {
	sh := &fixture.Shape{Topics: []fixture.TopicShape{{Name: "a", Partitions: 2}}, Producers: []fixture.ProducerShape{
		{Name: "late", Topics: []string{"a"}, Start: 3 * time.Second},
		{Name: "early", Topics: []string{"a"}, Stop: 2 * time.Second},
	}}
	s, err := NewScripted(fixture.Options{Seed: 2, Config: shaped(), Spec: fixture.Spec{Shape: sh, Groups: []fixture.GroupSpec{{Name: "g", Members: 1, Start: 3 * time.Second}}}})
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
