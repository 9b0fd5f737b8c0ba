package reports

import (
	"fmt"
	"io"
	"strings"
	"time"

	"kafkasim/scenarios"
)

// Table is a header and rows of text, printed for a terminal (tablewriter)
// or as Markdown; the HTML report renders the same rows, so the three
// never disagree.
type Table struct {
	Header []string
	Rows   [][]string
	// DropFirst are the columns a terminal of TerminalWidth columns loses
	// first, in order, when the table does not fit (see Render); columns
	// not named go after them, from the right.
	DropFirst []int
}

// SummaryTable is one row per group (scenario, or -vary value): runs,
// failures, what the scenario expects, violations by kind, and the
// failover figures.
func SummaryTable(groups []Group) Table {
	t := Table{Header: []string{"group", "runs", "failed", "as expected", "expects", "violations (runs)",
		"failovers", "election p50", "election p99", "unavailable p50", "unavailable p99"},
		DropFirst: []int{4, 8, 9, 6, 3}}
	for _, g := range groups {
		s := Summarize(g)
		t.Rows = append(t.Rows, []string{s.Label, fmt.Sprint(s.Runs), fmt.Sprint(s.Failed), fmt.Sprint(s.AsExpected), s.Expects,
			strings.Join(s.Violations, ", "), fmt.Sprint(s.Failovers),
			Seconds(s.Election.P50), Seconds(s.Election.P99), Seconds(s.Unavailable.P50), Seconds(s.Unavailable.P99)})
	}
	return t
}

// LatencyTable is the comparison table of sweep -vary: per group, the
// p50, p90, p99 and max of metric m, how many failovers had no election or
// lost acknowledged offsets, and the violation counts.
func LatencyTable(groups []Group, m Metric) Table {
	t := Table{Header: []string{"group", "runs", "failovers", m.Name + " p50", "p90", "p99", "max", "unelected", "truncated", "failed runs", "violations (runs)"},
		DropFirst: []int{4, 7, 8}}
	for _, g := range groups {
		s := Summarize(g)
		q := QuantilesOf(g, m)
		t.Rows = append(t.Rows, []string{s.Label, fmt.Sprint(s.Runs), fmt.Sprint(s.Failovers),
			Seconds(q.P50), Seconds(q.P90), Seconds(q.P99), Seconds(q.Max),
			fmt.Sprint(s.Unelected), fmt.Sprint(s.Truncated), fmt.Sprint(s.Failed), strings.Join(s.Violations, ", ")})
	}
	return t
}

// FailoverTable lists one run's failovers.
func FailoverTable(res scenarios.Result) Table {
	t := Table{Header: []string{"partition", "at", "cause", "old", "new", "election", "first ack", "unavailable", "consumer gap", "truncated"},
		DropFirst: []int{6, 8}}
	for _, f := range res.Failovers {
		t.Rows = append(t.Rows, []string{f.TP.String(), Seconds(f.At), string(f.Cause), f.OldLeader.String(), f.NewLeader.String(),
			Seconds(f.Election), Seconds(f.FirstAck), Seconds(f.Unavailable), Seconds(f.ConsumerGap), fmt.Sprint(f.Truncated)})
	}
	return t
}

// Seconds prints a duration as seconds with millisecond precision ("-"
// when unmeasured): tables compare values, so one unit throughout.
func Seconds(d time.Duration) string {
	if d < 0 {
		return "-"
	}
	return fmt.Sprintf("%.3fs", d.Seconds())
}

// Markdown prints t as a Markdown table.
func (t Table) Markdown(w io.Writer) error {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	var b strings.Builder
	b.WriteString("|")
	for _, h := range t.Header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(t.Header)) + "\n")
	for _, r := range t.Rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
