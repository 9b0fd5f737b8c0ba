package scenarios

import (
	"reflect"
	"testing"

	"kafkasim/checkers"
)

func TestRowKeepsAFewFindingsOfEachAnomalyAndCountsTheRest(t *testing.T) {
	var vs []checkers.Violation
	for i := range 10 {
		vs = append(vs, checkers.Violation{Checker: "groups", Anomaly: checkers.GroupDuplicate, Ops: []int{i}})
	}
	for i := range 4 {
		vs = append(vs, checkers.Violation{Checker: "loss", Anomaly: checkers.Duplicate, Error: true, Ops: []int{100 + i}})
	}
	// The same anomaly as an allowed finding is a class of its own.
	vs = append(vs, checkers.Violation{Checker: "loss", Anomaly: checkers.Duplicate, Ops: []int{200}})
	r := Result{Scenario: "group-partition", Seed: 7, Valid: checkers.ValidViolation, Violations: vs}
	row := r.Row()

	var ops []int
	for _, v := range row.Violations {
		ops = append(ops, v.Ops[0])
	}
	if want := []int{0, 1, 2, 100, 101, 102, 200}; !reflect.DeepEqual(ops, want) {
		t.Errorf("kept findings' ops %v, want %v (the first %d of each anomaly and class, in order)", ops, want, RowFindingsPerAnomaly)
	}
	want := []OmittedFindings{{Anomaly: checkers.GroupDuplicate, Count: 7}, {Anomaly: checkers.Duplicate, Error: true, Count: 1}}
	if !reflect.DeepEqual(row.Omitted, want) {
		t.Errorf("omitted %+v, want %+v", row.Omitted, want)
	}
	if len(r.Violations) != 15 || r.Omitted != nil {
		t.Error("Row changed the result it was called on")
	}
	if row.Valid != r.Valid || row.Seed != r.Seed {
		t.Error("Row changed the verdict or the run's identity")
	}
}

func TestRowOfARunWithFewFindingsIsTheRun(t *testing.T) {
	r := Result{Scenario: "chaos", Seed: 1, Violations: []checkers.Violation{
		{Checker: "loss", Anomaly: checkers.LostWrite, Error: true},
		{Checker: "groups", Anomaly: checkers.GroupDuplicate},
	}}
	if row := r.Row(); !reflect.DeepEqual(row, r) {
		t.Errorf("Row of a run with %d findings changed it: %+v", len(r.Violations), row)
	}
}
