package reports

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// diffResults are three runs of leader-failover, each with one failover
// of the given write-unavailability window, the first failing when
// failFirst; and, with extra, one run of leader-isolation without a
// failover.
func diffResults(unavailable time.Duration, failFirst, extra bool) []scenarios.Result {
	var out []scenarios.Result
	for seed := uint64(1); seed <= 3; seed++ {
		r := scenarios.Result{Scenario: "leader-failover", Seed: seed, OK: true, AsExpected: true, Valid: checkers.ValidOK,
			Failovers: []scenarios.Failover{{TP: model.TP("t", 0), Cause: faults.KindCrash, At: 10 * time.Second, OldLeader: 1, NewLeader: 2,
				Election: time.Second, FirstAck: unavailable, Unavailable: unavailable, ConsumerGap: unavailable}}}
		if seed == 1 && failFirst {
			r.OK, r.AsExpected, r.Valid = false, false, checkers.ValidViolation
			r.Violations = []checkers.Violation{{Checker: "loss", Anomaly: checkers.LostWrite, Error: true}}
		}
		out = append(out, r)
	}
	if extra {
		out = append(out, scenarios.Result{Scenario: "leader-isolation", Seed: 1, OK: true, AsExpected: true, Valid: checkers.ValidOK})
	}
	return out
}

func diffRows(a, b []scenarios.Result) map[string][]string {
	rows := map[string][]string{}
	for _, r := range DiffTable(summaryOfResults(a).Groups(), summaryOfResults(b).Groups()).Rows {
		rows[r[0]+" | "+r[1]] = r[2:]
	}
	return rows
}

func summaryOfResults(rs []scenarios.Result) *Summary {
	s := NewSummary()
	for _, r := range rs {
		s.Add(r)
	}
	return s
}

func TestDiffTableShowsWhatMovedAndNothingElse(t *testing.T) {
	a := diffResults(2*time.Second, false, false)
	b := diffResults(3500*time.Millisecond, true, true)
	rows := diffRows(a, b)
	for key, want := range map[string]string{
		"leader-failover | runs":              "3 3 ",
		"leader-failover | failed":            "0 1 +1",
		"leader-failover | as expected":       "3 2 -1",
		"leader-failover | violations (runs)": " lost-write 1 changed",
		"leader-failover | election p50":      "1.000s 1.000s ",
		"leader-failover | unavailable p50":   "2.000s 3.500s +1.500s",
		"leader-isolation | runs":             "absent 1 ",
		"leader-isolation | unavailable p99":  "absent - ",
	} {
		if got := strings.Join(rows[key], " "); got != want {
			t.Errorf("%s: %q, want %q", key, got, want)
		}
	}
	// The same results on both sides: no change anywhere.
	for key, r := range diffRows(a, a) {
		if r[2] != "" {
			t.Errorf("%s changed (%q) between identical results", key, r[2])
		}
	}
	// A figure measured on one side only says so.
	none := []scenarios.Result{{Scenario: "leader-failover", Seed: 1, OK: true, AsExpected: true, Valid: checkers.ValidOK}}
	if got := diffRows(none, a)["leader-failover | unavailable p50"]; strings.Join(got, " ") != "- 2.000s now measured" {
		t.Errorf("unavailable p50 measured only in b: %q", got)
	}
}

func TestSummaryVerdict(t *testing.T) {
	if v := summaryOfResults(diffResults(time.Second, false, false)).Verdict(); v != "passed: all 3 runs went as their scenarios expect" {
		t.Errorf("passing runs: %q", v)
	}
	if v := summaryOfResults(diffResults(time.Second, true, false)).Verdict(); v != "1 failing of 3 runs" {
		t.Errorf("one failing run: %q", v)
	}
}

// A sweep of a bug scenario passes by failing: the banner says how many
// runs showed the anomaly, and a sweep of passing runs says nothing of it.
func TestBannerCountsRunsThatShowedTheirAnomaly(t *testing.T) {
	bug := diffResults(time.Second, false, true)
	for i := range 2 {
		bug[i].Scenario, bug[i].Expected, bug[i].OK = "acks1-failover", checkers.LostWrite, false
	}
	for _, c := range []struct {
		results []scenarios.Result
		want    string
	}{
		{bug, "Passed: all 4 runs went as their scenarios expect (2 of them by showing the anomaly their bug scenario reproduces)."},
		{diffResults(time.Second, false, false), "Passed: all 3 runs went as their scenarios expect.<"},
	} {
		dir := t.TempDir()
		if err := WriteSweep(dir, c.results, SweepOptions{}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "index.html"))
		if !strings.Contains(string(b), c.want) {
			t.Errorf("the banner lacks %q", c.want)
		}
	}
}
