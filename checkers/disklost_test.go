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

// TestDiskLostExcusesAGroupMissingVanishedRecords: a group that never
// received an acknowledged record is an error, unless the record's
// partition lost its data on every ISR and ELR replica (the record
// vanished, and the group cannot read what is gone); on the partition
// beside it, which kept its disk, the same miss stays an error.
func TestDiskLostExcusesAGroupMissingVanishedRecords(t *testing.T) {
	t1 := model.TP("t", 1)
	h := hist(
		sendOK(1, t0, "a", 0, 0, 1),
		sendOK(1, t0, "b", 1, 1, 2),
		sendOK(1, t1, "c", 0, 1, 2),
		sendOK(1, t1, "d", 1, 2, 3),
		subscribe(10, 0, "g", "t"),
		rebalance(10, 5, "g", 1, tps(t0, t1), nil),
		poll(10, 10, 10, recs(t0, 1, "b"), recs(t1, 1, "d")),
	)
	errorOn := func(r Result, tp model.TopicPartition) (found, isErr bool) {
		for _, v := range r.Violations {
			if v.Anomaly == GroupUnseen && v.Partition == tp {
				return true, v.Error
			}
		}
		return false, false
	}
	r := check(t, Input{History: h}, Options{Subscribe: true})
	for _, tp := range []model.TopicPartition{t0, t1} {
		if found, isErr := errorOn(r, tp); !found || !isErr {
			t.Fatalf("without disk loss, the group missing a record of %v is an error:\n%s", tp, dump(r))
		}
	}
	r = check(t, Input{History: h, DiskLost: []model.TopicPartition{t0}}, Options{Subscribe: true})
	if found, isErr := errorOn(r, t0); !found || isErr {
		t.Fatalf("with t/0's disks lost, its group-unseen must be reported as allowed:\n%s", dump(r))
	}
	if found, isErr := errorOn(r, t1); !found || !isErr {
		t.Fatalf("t/1 kept its disk: its group-unseen stays an error:\n%s", dump(r))
	}
}
