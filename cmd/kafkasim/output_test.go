package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/reports"
	"kafkasim/scenarios"
)

func widestLine(s string) (int, string) {
	n, at := 0, ""
	for line := range strings.SplitSeq(s, "\n") {
		if w := utf8.RuneCountInString(line); w > n {
			n, at = w, line
		}
	}
	return n, at
}

// run's output fits the terminal by default; -wide prints the tables
// whole, wider than that.
func TestRunOutputFitsUnlessWide(t *testing.T) {
	for _, sc := range []string{"leader-failover", "kip101-hw-truncation"} {
		code, out, errs := runCmd("run", "-scenario", sc, "-seed", "7")
		if code == 2 {
			t.Fatalf("%s: exit 2: %s", sc, errs)
		}
		if n, line := widestLine(out); n > reports.TerminalWidth {
			t.Fatalf("%s: a line %d columns wide:\n%s", sc, n, line)
		}
		_, wide, _ := runCmd("run", "-scenario", sc, "-seed", "7", "-wide")
		if n, _ := widestLine(wide); n <= reports.TerminalWidth || !strings.Contains(wide, "events") {
			t.Fatalf("%s -wide: %d columns, every column? %v\n%s", sc, n, strings.Contains(wide, "events"), wide)
		}
	}
	_, list, _ := runCmd("list")
	if n, line := widestLine(list); n > reports.TerminalWidth {
		t.Fatalf("list: a line %d columns wide:\n%s", n, line)
	}
}

// run -out and sweep -out end with the directory and what is in it.
func TestRunAndSweepEndWithTheFilesTheyWrote(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	_, _, errs := runCmd("run", "-scenario", "kip101-hw-truncation", "-seed", "7", "-out", dir)
	tail := errs[strings.LastIndex(errs, "wrote "):]
	if !strings.HasPrefix(tail, "wrote "+dir+"/\n") || !strings.Contains(tail, "result.json") || !strings.Contains(tail, "schedule.txt") {
		t.Fatalf("run does not end with what it wrote:\n%s", errs)
	}
	// Without -out the run goes to the run store, and says where.
	if _, _, errs := runCmd("run", "-scenario", "baseline", "-seed", "1"); !strings.Contains(errs, "wrote "+filepath.Join(storeRoot, "baseline")) {
		t.Fatalf("run without -out does not say where in the store it wrote:\n%s", errs)
	}
	sweep := filepath.Join(t.TempDir(), "sweep")
	_, _, errs = runCmd("sweep", "-scenario", "baseline", "-seeds", "1", "-recheck", "0", "-out", sweep)
	tail = errs[strings.LastIndex(errs, "wrote "):]
	if !strings.HasPrefix(tail, "wrote "+sweep+"/\n") || !strings.Contains(tail, "index.html") || !strings.Contains(tail, "results.jsonl") {
		t.Fatalf("sweep does not end with what it wrote:\n%s", errs)
	}
}

// With thousands of violations, run names every anomaly with its count
// before a bounded list of details.
func TestRunSummarisesViolationsByAnomaly(t *testing.T) {
	var vs []checkers.Violation
	for i := range 10_000 {
		vs = append(vs, checkers.Violation{Checker: "anomalies", Anomaly: "duplicate", Partition: model.TP("t", 0), Detail: fmt.Sprintf("v%d twice", i)})
	}
	vs = append(vs, checkers.Violation{Checker: "replicas", Anomaly: "acked-write-lost", Error: true, Partition: model.TP("t", 0), Detail: "v98 lost"})
	var b bytes.Buffer
	if err := writeViolations(&b, vs, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	summary := strings.Index(out, "10001 violations by anomaly:")
	lost, dup := strings.Index(out, "acked-write-lost │ ERROR"), strings.Index(out, "duplicate")
	if summary < 0 || lost < 0 || dup < 0 || !strings.Contains(out, "│ 10000 ") || !strings.Contains(out, "v0 twice") {
		t.Fatalf("no summary by anomaly:\n%s", out)
	}
	if strings.Count(out, "\n") > 40 || !strings.Contains(out, "... and 9981 more") {
		t.Fatalf("details not bounded:\n%s", out)
	}
	b.Reset()
	if err := writeViolations(&b, vs[len(vs)-2:], false); err != nil || strings.Count(b.String(), "v98 lost") != 1 || strings.Count(b.String(), "v9999 twice") != 1 {
		t.Fatalf("one finding per anomaly printed other than once each (%v):\n%s", err, b.String())
	}
	b.Reset()
	if err := writeViolations(&b, nil, false); err != nil || b.Len() != 0 {
		t.Fatalf("no violations printed %q (%v)", b.String(), err)
	}
}

// The progress bar names the scenario, the count done of the total, the
// failures so far and the rate.
func TestSweepProgressShowsScenarioFailuresAndRate(t *testing.T) {
	var b bytes.Buffer
	p := newSweepProgress(&b, 10)
	p.runDone(scenarios.Result{Scenario: "leader-failover", OK: true})
	p.runDone(scenarios.Result{Scenario: "leader-failover", OK: false})
	// A bug scenario's failing run is what it expects, not a failure.
	p.runDone(scenarios.Result{Scenario: "kip101-hw-truncation", Expected: "acked-write-lost", OK: false})
	out := b.String()
	last := out[strings.LastIndex(out, "\r")+1:]
	t.Logf("%q", last)
	for _, want := range []string{"kip101-hw-truncation", "1 failed", "3/10", "runs/s"} {
		if !strings.Contains(last, want) {
			t.Fatalf("progress %q lacks %q", last, want)
		}
	}
}

// A command's -h fits the terminal too.
func TestHelpFitsTheTerminal(t *testing.T) {
	for _, c := range []string{"run", "sweep", "check", "merge", "report", "shrink", "list"} {
		code, _, errs := runCmd(c, "-h")
		if code != 0 || !strings.Contains(errs, "usage: kafkasim "+c) && c != "list" {
			t.Fatalf("%s -h: exit %d\n%s", c, code, errs)
		}
		if n, line := widestLine(strings.ReplaceAll(errs, "\t", "    ")); n > reports.TerminalWidth {
			t.Fatalf("%s -h: a line %d columns wide:\n%s", c, n, line)
		}
	}
}
