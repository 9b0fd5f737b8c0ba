package faults

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// eventWorld is toyWorld reporting events that the test schedules.
type eventWorld struct {
	*toyWorld
	waiting []struct {
		event string
		tp    model.TopicPartition
		fn    func()
	}
}

func (w *eventWorld) OnEvent(event string, tp model.TopicPartition, fn func()) {
	w.waiting = append(w.waiting, struct {
		event string
		tp    model.TopicPartition
		fn    func()
	}{event, tp, fn})
}

func (w *eventWorld) emit(event string, tp model.TopicPartition) {
	kept := w.waiting[:0]
	var fire []func()
	for _, x := range w.waiting {
		if x.event == event && x.tp == tp {
			fire = append(fire, x.fn)
		} else {
			kept = append(kept, x)
		}
	}
	w.waiting = kept
	for _, fn := range fire {
		fn()
	}
}

// FuzzTriggers: triggered faults, armed at fuzzed times, against events
// at fuzzed times, each fire once, at the first event of their kind on
// their partition at or after they armed (an event at the very moment
// of arming may count or not, by event order), and never without one;
// a triggered window closes For after it opened. Each byte pair of data
// is one event: its time in ms, and which event on which partition.
func FuzzTriggers(f *testing.F) {
	f.Add([]byte{10, 0, 20, 1, 30, 2, 40, 3}, uint8(5), uint8(25))
	f.Add([]byte{1, 5, 1, 5, 2, 5}, uint8(1), uint8(2))
	f.Add([]byte{}, uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, armA, armB uint8) {
		w := &eventWorld{toyWorld: newToyWorld(t, 1)}
		tps := []model.TopicPartition{tp0, model.TP("t", 1)}
		kind := func(b byte) (string, model.TopicPartition) {
			return Events()[int(b)%len(Events())], tps[int(b/3)%len(tps)]
		}
		type ev struct {
			at    time.Duration
			event string
			tp    model.TopicPartition
		}
		var evs []ev
		for i := 0; i+1 < len(data) && i < 200; i += 2 {
			e, tp := kind(data[i+1])
			evs = append(evs, ev{time.Duration(data[i]) * time.Millisecond, e, tp})
		}
		base := w.k.Now() + time.Millisecond
		lines := []string{
			fmt.Sprintf("on ack t/0 after %v reset 1 2", base+time.Duration(armA)*time.Millisecond),
			fmt.Sprintf("on election t/1 after %v for 7ms pause 3", base+time.Duration(armB)*time.Millisecond),
			fmt.Sprintf("on alter-partition t/0 after %v reset 2 3", base+time.Duration(armB)*time.Millisecond),
		}
		sched, err := Parse(strings.NewReader(strings.Join(sortByArm(lines), "\n")+"\n"), "fuzz")
		if err != nil {
			t.Fatal(err)
		}
		n, err := Apply(w, sched)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			w.k.At(base+e.at, "event", func() { w.emit(e.event, e.tp) })
		}
		w.k.Run(base + time.Second)
		for _, f := range sched {
			var first, atArm time.Duration = -1, -1
			for _, e := range evs {
				switch at := base + e.at; {
				case e.event != f.On.Event || e.tp != f.On.TP:
				case at == f.At && atArm < 0:
					atArm = at
				case at > f.At && (first < 0 || at < first):
					first = at
				}
			}
			var starts, ends []time.Duration
			for _, e := range n.Log() {
				if e.Fault.String() == f.String() {
					if e.Edge == EdgeEnd {
						ends = append(ends, e.Time)
					} else {
						starts = append(starts, e.Time)
					}
				}
			}
			switch {
			case first < 0 && atArm < 0 && len(starts) > 0:
				t.Fatalf("%s fired at %v without an event", f, starts)
			case (first >= 0 || atArm >= 0) && len(starts) != 1:
				t.Fatalf("%s fired %d times (%v); events at %v, %v", f, len(starts), starts, atArm, first)
			case len(starts) == 1 && starts[0] != first && starts[0] != atArm:
				t.Fatalf("%s fired at %v, the first event after arming is at %v (%v at arming)", f, starts[0], first, atArm)
			case f.On.For > 0 && len(starts) == 1 && (len(ends) != 1 || ends[0] != starts[0]+f.On.For):
				t.Fatalf("%s opened at %v, closed at %v", f, starts, ends)
			}
		}
	})
}

// sortByArm orders "on ... after T ..." lines by T, as a schedule must be.
func sortByArm(lines []string) []string {
	out := slices.Clone(lines)
	slices.SortStableFunc(out, func(a, b string) int {
		ta, _ := time.ParseDuration(strings.Fields(a)[4])
		tb, _ := time.ParseDuration(strings.Fields(b)[4])
		return int(ta - tb)
	})
	return out
}
