package scenarios

import (
	"slices"

	"kafkasim/checkers"
)

// A sweep writes one row per run to results.jsonl. Most runs' findings
// are a handful, but a run of a group scenario under partitions can hold
// hundreds of allowed findings that differ only in their operations (793
// group-duplicate findings in one group-partition run, 500 KB of JSON),
// and a 100,000-run campaign would write gigabytes of them. A row keeps
// the first RowFindingsPerAnomaly findings of each anomaly, errors and
// allowed ones apart, and counts the rest; the run's own directory
// (kafkasim run -out, or a sweep's replayed runs/) keeps every finding.

// RowFindingsPerAnomaly is how many findings of one anomaly and one
// class (error or allowed) a sweep row keeps.
const RowFindingsPerAnomaly = 3

// OmittedFindings counts the findings of one anomaly and class that a
// sweep row left out.
type OmittedFindings struct {
	Anomaly string `json:"anomaly"`
	Error   bool   `json:"error"`
	Count   int    `json:"count"`
}

// Row is r as a sweep writes it to results.jsonl: its findings cut to
// RowFindingsPerAnomaly of each anomaly and class, and what was cut
// counted in Omitted. Everything a report or a merge reads of a run —
// verdict, the anomalies that made it fail, failovers — is unchanged.
func (r Result) Row() Result {
	type class struct {
		anomaly string
		err     bool
	}
	kept := map[class]int{}
	var vs []checkers.Violation
	var omitted []OmittedFindings
	for _, v := range r.Violations {
		c := class{v.Anomaly, v.Error}
		if kept[c] < RowFindingsPerAnomaly {
			kept[c]++
			vs = append(vs, v)
			continue
		}
		i := slices.IndexFunc(omitted, func(o OmittedFindings) bool { return o.Anomaly == c.anomaly && o.Error == c.err })
		if i < 0 {
			omitted = append(omitted, OmittedFindings{Anomaly: c.anomaly, Error: c.err})
			i = len(omitted) - 1
		}
		omitted[i].Count++
	}
	if omitted == nil {
		return r
	}
	r.Violations = vs
	r.Omitted = append(slices.Clone(r.Omitted), omitted...)
	return r
}
