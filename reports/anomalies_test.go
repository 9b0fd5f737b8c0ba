package reports

import (
	"fmt"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// Ten thousand findings of one kind and one of another read as two rows:
// the error first, each with its count and first finding.
func TestAnomalyTableCountsEachAnomaly(t *testing.T) {
	var vs []checkers.Violation
	for i := range 10_000 {
		vs = append(vs, checkers.Violation{Checker: "anomalies", Anomaly: "duplicate", Partition: model.TP("t", 1), Detail: fmt.Sprintf("value v%d twice", i)})
	}
	vs = append(vs, checkers.Violation{Checker: "replicas", Anomaly: "acked-write-lost", Error: true, Partition: model.TP("t", 0), Detail: "v98 lost"})
	vs = append(vs, checkers.Violation{Checker: "anomalies", Anomaly: "duplicate", Error: true, Partition: model.TP("t", 2), Detail: "v7 twice"})
	got := AnomalyTable(vs).Rows
	want := [][]string{
		{"duplicate", "ERROR (10000 allowed)", "10001", "anomalies t/1: value v0 twice"},
		{"acked-write-lost", "ERROR", "1", "replicas t/0: v98 lost"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows %q\nwant %q", got, want)
	}
}

// One allowed finding is one row that says so; an empty list is no row.
func TestAnomalyTableAllowedAndEmpty(t *testing.T) {
	got := AnomalyTable([]checkers.Violation{{Checker: "order", Anomaly: "skip", Detail: "offset 3 skipped"}}).Rows
	if fmt.Sprint(got) != fmt.Sprint([][]string{{"skip", "allowed", "1", "order: offset 3 skipped"}}) {
		t.Fatalf("rows %q", got)
	}
	if rows := AnomalyTable(nil).Rows; len(rows) != 0 {
		t.Fatalf("no violations, rows %q", rows)
	}
}
