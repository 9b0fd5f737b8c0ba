package scenarios

import (
	"strings"
	"testing"
	"time"
)

// TestScheduleWriterValidate refuses each misuse of a writer's parameters
// and accepts the well-formed writer beside it.
func TestScheduleWriterValidate(t *testing.T) {
	once := ScheduleWriter{Kind: WriterOnce, Stream: "s", Faults: []string{"crash leader-of {partition}"},
		Start: time.Second, Spread: time.Second, WindowMin: time.Second, WindowMax: 2 * time.Second}
	spaced := *spacedWriter("s", time.Second, 2*time.Second, "crash leader-of {partition}")
	for _, ok := range []ScheduleWriter{once, spaced} {
		if err := ok.Validate(); err != nil {
			t.Errorf("%s: %v", ok.Kind, err)
		}
	}
	for _, c := range []struct {
		name string
		edit func(*ScheduleWriter)
		base ScheduleWriter
		want string
	}{
		{"once with two faults", func(w *ScheduleWriter) { w.Faults = append(w.Faults, "pause leader-of {partition}") }, once, "exactly one fault"},
		{"once without faults", func(w *ScheduleWriter) { w.Faults = nil }, once, "exactly one fault"},
		{"once with an empty window range", func(w *ScheduleWriter) { w.WindowMax = w.WindowMin }, once, "window_min < window_max"},
		{"once without spread", func(w *ScheduleWriter) { w.Spread = 0 }, once, "spread > 0"},
		{"once with gaps", func(w *ScheduleWriter) { w.GapMin, w.GapMax = time.Second, 2*time.Second }, once, "only for writer"},
		{"spaced with a start", func(w *ScheduleWriter) { w.Start = time.Second }, spaced, `only for writer "once"`},
	} {
		w := c.base
		w.Faults = append([]string(nil), c.base.Faults...)
		c.edit(&w)
		err := w.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}
