package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
)

// The kinds of ScheduleWriter: the catalog's ways of writing a safety
// phase's faults from the seed, as data, so that an experiment file can
// name them and the catalog can be printed as files.
const (
	// WriterSpaced: every GapMin to GapMax (drawn from the seed) of the
	// safety phase, a 2 to 12 s window of one of Faults, on a partition
	// drawn from the seed ({partition} in a fault).
	WriterSpaced = "spaced"
	// WriterMembers: every 5 to 15 s, a 2 to 20 s window of one of Faults
	// on a group ({group}) and one of its members ({member}).
	WriterMembers = "members"
	// WriterZombie: one group member at a time cut from its coordinator
	// for longer than its session.
	WriterZombie = "zombie"
	// WriterRollingRestart: every broker shut down cleanly in turn, 5 s
	// each, 10 s apart.
	WriterRollingRestart = "rolling-restart"
	// WriterRollingUpgrade: one rolling-restart line (every broker shut
	// down cleanly in turn, restarted, and waited for until it is back in
	// the ISR before the next stops), of as many rounds as 30 s a broker
	// fit the safety phase; light faults (a few hundred milliseconds of
	// latency on a broker or a clogged link) drawn from the seed, one per
	// 30 s slot.
	WriterRollingUpgrade = "rolling-upgrade"
	// WriterScript: a historical bug's scripted faults (Script names the
	// bug), written against the fixture's leaders and followers at the
	// moment it is ready: code, not data, because the moment a bug needs
	// is found by probing a twin of the run (Scripted.probe).
	WriterScript = "script"
	// WriterOnce: one window of one fault (Faults holds exactly one, with
	// {partition} the partition drawn from the seed), starting Start to
	// Start+Spread after readiness and lasting WindowMin to WindowMax,
	// each drawn to the millisecond. The leader-loss study is written so.
	WriterOnce = "once"
	// WriterGrowAndShrink: every spare broker added, some partitions
	// reassigned onto the spares, one original broker decommissioned,
	// under light faults drawn from the seed (growshrink.go).
	WriterGrowAndShrink = "grow-and-shrink"
)

// WriterKinds lists the ScheduleWriter kinds.
func WriterKinds() []string {
	return []string{WriterSpaced, WriterMembers, WriterZombie, WriterRollingRestart, WriterRollingUpgrade, WriterScript, WriterOnce, WriterGrowAndShrink}
}

// ScheduleWriter is a schedule writer and its parameters. Stream names the
// seeded random stream the writer draws from ("scenario/" + Stream), so
// that two scenarios sharing a stream name draw the same faults.
type ScheduleWriter struct {
	Kind           string
	Stream         string
	GapMin, GapMax time.Duration // WriterSpaced only
	Faults         []string      // WriterSpaced and WriterMembers
	Script         string        // WriterScript only
	// WriterOnce only: when the one window starts (Start plus up to
	// Spread after readiness) and how long it lasts.
	Start, Spread        time.Duration
	WindowMin, WindowMax time.Duration
}

// The placeholders a writer's faults may hold, and the fmt verbs the
// writers fill (every and memberFaults take them as %[1]s and %[2]v).
var (
	spacedPlaceholders  = strings.NewReplacer("{partition}", "%[1]s")
	membersPlaceholders = strings.NewReplacer("{group}", "%[1]s", "{member}", "%[2]v")
)

// Validate says what is wrong with w, if anything: an unknown kind, a
// parameter its kind does not take, a fault line that does not parse
// once its placeholders are filled.
func (w ScheduleWriter) Validate() error {
	if !slices.Contains(WriterKinds(), w.Kind) {
		return fmt.Errorf("unknown writer %q (one of %s)", w.Kind, strings.Join(WriterKinds(), ", "))
	}
	takesFaults := w.Kind == WriterSpaced || w.Kind == WriterMembers || w.Kind == WriterOnce
	once := w.Start != 0 || w.Spread != 0 || w.WindowMin != 0 || w.WindowMax != 0
	switch {
	case w.Kind == WriterScript && !slices.ContainsFunc(HistoricalBugs, func(h Historical) bool { return h.Name == w.Script }):
		return fmt.Errorf("script %q is not a historical bug (see kafkasim list)", w.Script)
	case w.Kind != WriterScript && w.Script != "":
		return fmt.Errorf("script is only for writer %q", WriterScript)
	case (w.Kind == WriterScript || w.Kind == WriterRollingRestart) && w.Stream != "":
		return fmt.Errorf("writer %q draws nothing from the seed: it takes no stream", w.Kind)
	case w.Kind != WriterScript && w.Kind != WriterRollingRestart && w.Stream == "":
		return fmt.Errorf("writer %q needs a stream name", w.Kind)
	case w.Kind == WriterSpaced && (w.GapMin <= 0 || w.GapMax <= w.GapMin):
		return fmt.Errorf("writer %q needs 0 < gap_min < gap_max", w.Kind)
	case w.Kind != WriterSpaced && (w.GapMin != 0 || w.GapMax != 0):
		return fmt.Errorf("gap_min and gap_max are only for writer %q", WriterSpaced)
	case w.Kind == WriterOnce && (w.Start < 0 || w.Spread <= 0 || w.WindowMin <= 0 || w.WindowMax <= w.WindowMin):
		return fmt.Errorf("writer %q needs start >= 0, spread > 0 and 0 < window_min < window_max", w.Kind)
	case w.Kind != WriterOnce && once:
		return fmt.Errorf("start, spread, window_min and window_max are only for writer %q", WriterOnce)
	case w.Kind == WriterOnce && len(w.Faults) != 1:
		return fmt.Errorf("writer %q takes exactly one fault", w.Kind)
	case takesFaults && len(w.Faults) == 0:
		return fmt.Errorf("writer %q needs at least one fault", w.Kind)
	case !takesFaults && len(w.Faults) > 0:
		return fmt.Errorf("writer %q takes no faults", w.Kind)
	}
	for _, f := range w.Faults {
		if strings.Contains(f, "%") {
			return fmt.Errorf("fault %q: %% is not allowed (placeholders are {partition}, {group}, {member})", f)
		}
		filled := strings.NewReplacer("{partition}", "t/0", "{group}", "g", "{member}", "1").Replace(f)
		if _, err := faults.Parse(strings.NewReader("from 1s to 2s "+filled+"\n"), "fault"); err != nil {
			return fmt.Errorf("fault %q: %v", f, err)
		}
	}
	return nil
}

// write writes the safety phase's faults for the ready fixture s.
func (w ScheduleWriter) write(s *Scripted) faults.Schedule {
	fill := func(r *strings.Replacer) []string {
		out := make([]string, len(w.Faults))
		for i, f := range w.Faults {
			out[i] = r.Replace(f)
		}
		return out
	}
	switch w.Kind {
	case WriterSpaced:
		return spaced(w.Stream, w.GapMin, w.GapMax, fill(spacedPlaceholders)...)(s)
	case WriterMembers:
		return memberFaults(w.Stream, fill(membersPlaceholders)...)(s)
	case WriterZombie:
		return zombieFaults(w.Stream)(s)
	case WriterRollingRestart:
		return rollingRestart(s)
	case WriterRollingUpgrade:
		return rollingUpgrade(w.Stream)(s)
	case WriterGrowAndShrink:
		return growShrink(w.Stream)(s)
	case WriterOnce:
		return w.once(s, fill(spacedPlaceholders)[0])
	case WriterScript:
		for _, h := range HistoricalBugs {
			if h.Name == w.Script {
				return h.Schedule(s)
			}
		}
	}
	panic(fmt.Sprintf("scenarios: schedule writer %+v was not validated", w))
}

// spacedWriter is the catalog's shorthand for a WriterSpaced.
func spacedWriter(stream string, gapMin, gapMax time.Duration, faults ...string) *ScheduleWriter {
	return &ScheduleWriter{Kind: WriterSpaced, Stream: stream, GapMin: gapMin, GapMax: gapMax, Faults: faults}
}

// everyWriter is spacedWriter with faults 5 to 15 s apart.
func everyWriter(stream string, faults ...string) *ScheduleWriter {
	return spacedWriter(stream, 5*time.Second, 15*time.Second, faults...)
}

// once writes WriterOnce's window: fault (a format with the partition as
// %[1]s) on a partition drawn from the seed. The draws come in a fixed
// order (partition, start, length) from the writer's stream, so scenarios
// sharing a stream pick the same partition and moment on the same seed.
func (w ScheduleWriter) once(s *Scripted, fault string) faults.Schedule {
	r := s.Sim.Rand("scenario/" + w.Stream)
	tp := s.TPs[r.IntN(len(s.TPs))]
	at := s.ready + w.Start + time.Duration(r.Int64N(w.Spread.Milliseconds()))*time.Millisecond
	d := w.WindowMin + time.Duration(r.Int64N((w.WindowMax-w.WindowMin).Milliseconds()))*time.Millisecond
	line := fmt.Sprintf("from %v to %v %s\n", at, at+d, fmt.Sprintf(fault, tp))
	return faults.MustParse(w.Stream, line)
}
