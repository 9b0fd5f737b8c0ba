package reports

import (
	"cmp"
	"fmt"
	"slices"

	"kafkasim/checkers"
)

// AnomalyTable summarises violations by anomaly before any detail: one
// row per anomaly with whether it broke a promise, how many findings it
// has, and its first finding, so that ten thousand findings of one kind
// and one of another read as two lines. Errors come first, then the most
// frequent; ties by name, so the order is the same every run.
func AnomalyTable(vs []checkers.Violation) Table {
	type row struct {
		anomaly string
		errors  int
		count   int
		first   *checkers.Violation
	}
	var rows []*row
	index := map[string]*row{}
	for i := range vs {
		v := &vs[i]
		r := index[v.Anomaly]
		if r == nil {
			r = &row{anomaly: v.Anomaly, first: v}
			index[v.Anomaly] = r
			rows = append(rows, r)
		}
		r.count++
		if v.Error {
			r.errors++
		}
	}
	slices.SortStableFunc(rows, func(a, b *row) int {
		if c := cmp.Compare(min(b.errors, 1), min(a.errors, 1)); c != 0 {
			return c
		}
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.anomaly, b.anomaly)
	})
	t := Table{Header: []string{"anomaly", "severity", "count", "first example"}}
	for _, r := range rows {
		sev := "allowed"
		if r.errors > 0 {
			sev = "ERROR"
			if r.errors < r.count {
				sev = fmt.Sprintf("ERROR (%d allowed)", r.count-r.errors)
			}
		}
		ex := r.first.Checker
		if r.first.Partition.Topic != "" {
			ex += " " + r.first.Partition.String()
		}
		ex += ": " + r.first.Detail
		t.Rows = append(t.Rows, []string{r.anomaly, sev, fmt.Sprint(r.count), ex})
	}
	return t
}
