package reports

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// DiffTable compares two sweeps' groups (or two runs', a group each),
// figure by figure: one row per group and figure with a's value, b's and
// the change, groups in a's order and then b's new ones. A group only one
// side has reads "absent" on the other. It is what `serve`'s diff page
// shows: whether a change of code or configuration moved a verdict or a
// failover figure.
func DiffTable(a, b []Group) Table {
	t := Table{Header: []string{"group", "figure", "a", "b", "change"}}
	stats := func(gs []Group) map[string]GroupStats {
		m := map[string]GroupStats{}
		for _, g := range gs {
			m[g.Label] = Summarize(g)
		}
		return m
	}
	sa, sb := stats(a), stats(b)
	var labels []string
	for _, gs := range [][]Group{a, b} {
		for _, g := range gs {
			if !slices.Contains(labels, g.Label) {
				labels = append(labels, g.Label)
			}
		}
	}
	for _, l := range labels {
		ga, inA := sa[l]
		gb, inB := sb[l]
		for _, f := range diffFigures {
			va, vb := "absent", "absent"
			if inA {
				va = f.value(ga)
			}
			if inB {
				vb = f.value(gb)
			}
			change := ""
			if inA && inB {
				change = f.change(ga, gb)
			}
			t.Rows = append(t.Rows, []string{l, f.name, va, vb, change})
		}
	}
	return t
}

// diffFigure is one compared figure of a group: how it reads, and how the
// change from a to b reads ("" when there is none).
type diffFigure struct {
	name   string
	value  func(GroupStats) string
	change func(a, b GroupStats) string
}

var diffFigures = []diffFigure{
	countFigure("runs", func(s GroupStats) int { return s.Runs }),
	countFigure("failed", func(s GroupStats) int { return s.Failed }),
	countFigure("as expected", func(s GroupStats) int { return s.AsExpected }),
	{"violations (runs)", func(s GroupStats) string { return strings.Join(s.Violations, ", ") }, func(a, b GroupStats) string {
		if strings.Join(a.Violations, ", ") == strings.Join(b.Violations, ", ") {
			return ""
		}
		return "changed"
	}},
	countFigure("failovers", func(s GroupStats) int { return s.Failovers }),
	durationFigure("election p50", func(s GroupStats) time.Duration { return s.Election.P50 }),
	durationFigure("election p99", func(s GroupStats) time.Duration { return s.Election.P99 }),
	durationFigure("unavailable p50", func(s GroupStats) time.Duration { return s.Unavailable.P50 }),
	durationFigure("unavailable p99", func(s GroupStats) time.Duration { return s.Unavailable.P99 }),
}

func countFigure(name string, get func(GroupStats) int) diffFigure {
	return diffFigure{name, func(s GroupStats) string { return fmt.Sprint(get(s)) }, func(a, b GroupStats) string {
		if d := get(b) - get(a); d != 0 {
			return fmt.Sprintf("%+d", d)
		}
		return ""
	}}
}

// durationFigure compares a quantile; one that only one side measured
// (-1 on the other) says so instead of a difference.
func durationFigure(name string, get func(GroupStats) time.Duration) diffFigure {
	return diffFigure{name, func(s GroupStats) string { return Seconds(get(s)) }, func(a, b GroupStats) string {
		x, y := get(a), get(b)
		switch {
		case x == y:
			return ""
		case x < 0:
			return "now measured"
		case y < 0:
			return "no longer measured"
		}
		return fmt.Sprintf("%+.3fs", (y - x).Seconds())
	}}
}

// Verdict is the banner's sentence for the runs a Summary holds.
func (s *Summary) Verdict() string {
	switch {
	case s.AsExpected() && !s.Unknown():
		return fmt.Sprintf("passed: all %d runs went as their scenarios expect", s.Runs())
	case s.FailingCount() > 0:
		return fmt.Sprintf("%d failing of %d runs", s.FailingCount(), s.Runs())
	case s.Unknown():
		return fmt.Sprintf("unknown: no violation in %d runs, but some verdicts could not be reached", s.Runs())
	}
	return fmt.Sprintf("not as expected: a bug scenario did not show its anomaly on any of its seeds (%d runs)", s.Runs())
}
