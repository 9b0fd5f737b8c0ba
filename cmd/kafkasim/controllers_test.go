package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios"
)

func TestSweepSummaryShowsControllerFailoverWhenMeasured(t *testing.T) {
	r := scenarios.Result{Scenario: "controller-failover", Seed: 1, OK: true, AsExpected: true,
		ControllerFailovers: []scenarios.ControllerFailover{{Cause: faults.KindCrash, At: 10 * time.Second, OldLeader: 100, OldEpoch: 1,
			NewLeader: 101, NewEpoch: 2, Election: 1900 * time.Millisecond, FirstCommit: 2 * time.Second}}}
	var out bytes.Buffer
	if err := writeSweepSummary(&out, summaryOf([]scenarios.Result{r}), false, true); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.Contains(s, "controller failover beside partition-leader failover") || !strings.Contains(s, "2.000s") {
		t.Fatalf("summary:\n%s", s)
	}
	out.Reset()
	r.ControllerFailovers = nil
	if err := writeSweepSummary(&out, summaryOf([]scenarios.Result{r}), false, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "controller failover") {
		t.Fatalf("no controller failover, yet:\n%s", out.String())
	}
}
