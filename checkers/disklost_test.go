package checkers

import (
	"testing"
	"time"

	"kafkasim/model"
)

// TestDiskLostExcusesOnlyTheConsequencesOfLoss: two acknowledged sends at
// one offset are an error, unless every replica of the partition lost its
// disk; a divergence between the replicas stays an error either way.
func TestDiskLostExcusesOnlyTheConsequencesOfLoss(t *testing.T) {
	tp := model.TP("t", 0)
	h := model.History{
		{Index: 0, Process: 1, Type: model.OpOK, F: model.FSend, Time: 1, End: 2 * time.Millisecond, TP: tp, Value: "a", Offset: 0},
		{Index: 1, Process: 1, Type: model.OpOK, F: model.FSend, Time: 3 * time.Millisecond, End: 4 * time.Millisecond, TP: tp, Value: "b", Offset: 0},
	}
	replicas := []ReplicaLog{
		{Broker: 1, TP: tp, HW: 2, Records: []model.OffsetValue{{Offset: 0, Value: "b"}, {Offset: 1, Value: "x"}}},
		{Broker: 2, TP: tp, HW: 2, Records: []model.OffsetValue{{Offset: 0, Value: "b"}, {Offset: 1, Value: "y"}}},
	}
	opts := Options{Idempotent: true, LinearizabilityBudget: -1}
	kinds := func(r Result) (errs, allowed map[string]bool) {
		errs, allowed = map[string]bool{}, map[string]bool{}
		for _, v := range r.Violations {
			if v.Error {
				errs[v.Anomaly] = true
			} else {
				allowed[v.Anomaly] = true
			}
		}
		return
	}
	errs, _ := kinds(Check(Input{History: h, Replicas: replicas}, opts))
	if !errs[InconsistentOffsets] || !errs[ReplicaDivergence] {
		t.Fatalf("without disk loss: errors %v, want inconsistent-offsets and replica-divergence", errs)
	}
	errs, allowed := kinds(Check(Input{History: h, Replicas: replicas, DiskLost: []model.TopicPartition{tp}}, opts))
	if errs[InconsistentOffsets] || !allowed[InconsistentOffsets] {
		t.Fatalf("with the disks lost, inconsistent-offsets must be reported as allowed: errors %v, allowed %v", errs, allowed)
	}
	if !errs[ReplicaDivergence] {
		t.Fatalf("losing disks excuses no replica divergence: errors %v", errs)
	}
}
