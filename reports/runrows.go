package reports

import (
	"slices"
	"strings"

	"kafkasim/checkers"
	"kafkasim/scenarios"
)

// RunRow is one run as the report's sortable, filterable table shows it:
// a few short strings per run, so that a Summary can keep many of them.
type RunRow struct {
	Scenario string
	Seed     uint64
	Vary     string
	// Verdict is "pass", "FAIL" (a scenario that must pass failed),
	// "unknown" (nothing forbidden found, not everything judged),
	// "anomaly shown" or "anomaly not shown" (a bug scenario).
	Verdict string
	// Anomalies are the run's error-level anomalies, sorted, each once
	// ("liveness" for a run that did not converge).
	Anomalies []string
	Failovers int
	// Dir is the replayed run's folder relative to the report ("" when
	// it was not replayed); the report fills it in.
	Dir string
}

// runRowsCap bounds the runs a Summary keeps rows for: a report of a
// million seeds lists the first ones and says how many more are in
// results.jsonl, so memory stays bounded as Summary promises.
const runRowsCap = 10000

// rowOf is r's row.
func rowOf(r scenarios.Result) RunRow {
	row := RunRow{Scenario: r.Scenario, Seed: r.Seed, Vary: r.Vary, Failovers: len(r.Failovers), Verdict: verdictOf(r)}
	for _, v := range r.Violations {
		if v.Error && !slices.Contains(row.Anomalies, v.Anomaly) {
			row.Anomalies = append(row.Anomalies, v.Anomaly)
		}
	}
	if r.Liveness != "" {
		row.Anomalies = append(row.Anomalies, "liveness")
	}
	slices.Sort(row.Anomalies)
	return row
}

// verdictOf names a run's outcome against what its scenario expects.
func verdictOf(r scenarios.Result) string {
	switch {
	case r.Expected != "" && r.AsExpected:
		return "anomaly shown"
	case r.Expected != "":
		return "anomaly not shown"
	case !r.OK:
		return "FAIL"
	case r.Valid == checkers.ValidUnknown:
		return "unknown"
	}
	return "pass"
}

// AnomalyList is the row's anomalies as one cell.
func (r RunRow) AnomalyList() string { return strings.Join(r.Anomalies, " ") }
