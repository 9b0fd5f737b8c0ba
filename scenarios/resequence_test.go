package scenarios

import (
	"bytes"
	"slices"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// TestIdempotentEpochBumpDuplicatesAreAllowedWithTheirEvidence: chaos
// seed 54 with delivery.timeout.ms at 31 s (legal: at least linger.ms +
// request.timeout.ms) takes the path Kafka's idempotent producer takes
// across a leader change: batches written on a leader whose answers never
// came expire or are retried until the producer finds a gap, bumps its
// epoch and re-sequences its unacknowledged batches from 0
// (TransactionManager.bumpIdempotentProducerEpoch), and a leader that no
// longer holds them among the producer's last five appends them again
// (ProducerAppendInfo.checkSequence). The producers write each rewrite
// into the history; the checkers allow exactly those copies, and the run
// passes. Without the rewrites in the history (as in a Jepsen history)
// the same run is a violation: the rule, not a blind spot, lets it pass.
func TestIdempotentEpochBumpDuplicatesAreAllowedWithTheirEvidence(t *testing.T) {
	sc, ok := Find("chaos")
	if !ok {
		t.Fatal("no scenario chaos")
	}
	res, err := Run(sc, 54, Options{Set: []string{"delivery.timeout.ms=31000"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || res.Valid != checkers.ValidOK {
		t.Fatalf("want a pass, got %s:\n%s", res.Valid, failureReport(sc, res))
	}
	allowed := 0
	for _, v := range res.Violations {
		if v.Anomaly == checkers.Duplicate && !v.Error && v.Promise == checkers.PromiseResequence {
			allowed++
		}
	}
	if allowed == 0 {
		t.Fatalf("the run no longer takes the epoch-bump path (no allowed duplicate); pick another reproducer:\n%s", violationLines(res, 10))
	}

	stripped := slices.Clone(res.History)
	marked := 0
	for i := range stripped {
		if len(stripped[i].Resequenced) > 0 {
			marked++
			stripped[i].Resequenced = nil
		}
	}
	if marked == 0 {
		t.Fatal("allowed duplicates without a resequenced send in the history")
	}
	again := checkers.Check(checkers.Input{History: stripped, Replicas: res.Replicas, Observations: res.Observed, DiskLost: res.DiskLost}, res.CheckOptions)
	errs := 0
	for _, v := range again.Errors() {
		if v.Anomaly == checkers.Duplicate {
			errs++
		}
	}
	if errs != allowed || again.Valid != checkers.ValidViolation {
		t.Fatalf("without the rewrites: %d duplicate errors (verdict %s), want the %d allowed ones as errors", errs, again.Valid, allowed)
	}
	// The rewrites survive the history file, which kafkasim check -history
	// reads: judged from it, the run passes the same way.
	var buf bytes.Buffer
	if err := model.WriteHistory(&buf, res.History); err != nil {
		t.Fatal(err)
	}
	back, err := model.ReadHistory(&buf, "history.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		if !slices.Equal(back[i].Resequenced, res.History[i].Resequenced) {
			t.Fatalf("op %d's rewrites read back as %v, written %v", i, back[i].Resequenced, res.History[i].Resequenced)
		}
	}
	fromFile := checkers.Check(checkers.Input{History: back, Replicas: res.Replicas, Observations: res.Observed, DiskLost: res.DiskLost}, res.CheckOptions)
	if fromFile.Valid != checkers.ValidOK {
		t.Fatalf("judged from its history file the run is %s", fromFile.Summary())
	}
}
