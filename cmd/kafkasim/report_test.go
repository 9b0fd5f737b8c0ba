package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepVaryWritesAReportThatReportRebuilds(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	var stdout, stderr bytes.Buffer
	args := []string{"sweep", "-scenario", "leader-failover", "-seeds", "2", "-recheck", "0", "-vary", "broker.session.timeout.ms=3000,9000", "-out", out}
	if code := dispatch(args, &stdout, &stderr); code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"broker.session.timeout.ms=3000", "broker.session.timeout.ms=9000", "unavailable p50"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("sweep output lacks %q:\n%s", want, stdout.String())
		}
	}
	results, err := readResults(filepath.Join(out, "results.jsonl"))
	if err != nil || len(results) != 4 {
		t.Fatalf("results: %d, %v", len(results), err)
	}
	// The same seeds under each value.
	if results[0].Seed != results[2].Seed || results[0].Vary == results[2].Vary || len(results[0].Failovers) == 0 {
		t.Fatalf("results not paired by seed across values: %+v", results)
	}
	for _, name := range []string{"index.html", "summary.md", "cdf-unavailable.png", "cdf-unavailable.svg"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	// One run with a failover is replayed with its artifacts.
	ents, _ := os.ReadDir(filepath.Join(out, "runs"))
	if len(ents) != 1 {
		t.Fatalf("runs/: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", ents[0].Name(), "trace.json")); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "NONDETERMINISM") {
		t.Fatal(stderr.String())
	}

	// Rebuilt in place from results.jsonl (and the replayed runs beside it).
	before, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	for _, f := range []string{"summary.md", "index.html", "cdf-unavailable.svg"} {
		os.Remove(filepath.Join(out, f))
	}
	stdout.Reset()
	if code := dispatch([]string{"report", "-in", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("report: exit %d\n%s", code, stderr.String())
	}
	after, _ := os.ReadFile(filepath.Join(out, "summary.md"))
	if len(before) == 0 || string(before) != string(after) {
		t.Fatalf("report -in rebuilt a different summary.md:\n%s\n---\n%s", before, after)
	}
	for _, f := range []string{"index.html", "cdf-unavailable.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	// A merge's output (shards) reports the same way.
	merged := filepath.Join(dir, "merged")
	if code := dispatch([]string{"merge", "-out", merged, out}, &stdout, &stderr); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr.String())
	}
	if code := dispatch([]string{"report", "-in", merged}, &stdout, &stderr); code != 0 {
		t.Fatalf("report of a merge: exit %d\n%s", code, stderr.String())
	}
	// The plot's legend is in the page, beside it.
	html, _ := os.ReadFile(filepath.Join(merged, "index.html"))
	if _, err := os.Stat(filepath.Join(merged, "cdf-unavailable.svg")); err != nil || !strings.Contains(string(html), "broker.session.timeout.ms=9000 (n=") {
		t.Errorf("the merged report's CDF or its legend lacks the 9000 series (%v)", err)
	}
}

func TestSweepVaryRefusesBadInputAndWritesNothing(t *testing.T) {
	for _, vary := range []string{"no.such.key=1,2", "broker.session.timeout.ms=3000,soon", "broker.session.timeout.ms=", "broker.session.timeout.ms", "acks=1,1", "broker.session.timeout.ms=1000"} {
		out := filepath.Join(t.TempDir(), "sweep")
		var stdout, stderr bytes.Buffer
		code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "1", "-vary", vary, "-out", out}, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "-vary") {
			t.Errorf("-vary %q: exit %d, stderr %q", vary, code, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("-vary %q: %s was written", vary, out)
		}
	}
}

func TestReportRefusesBadInput(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"report"}, &stdout, &stderr); code != 2 {
		t.Errorf("no -in: exit %d", code)
	}
	if code := dispatch([]string{"report", "-in", t.TempDir()}, &stdout, &stderr); code != 2 {
		t.Errorf("no results.jsonl: exit %d", code)
	}
}

func TestRunOutWritesAChromeTrace(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"run", "-scenario", "leader-failover", "-seed", "2", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "election") {
		t.Errorf("run prints no failover table:\n%s", stdout.String())
	}
	b, err := os.ReadFile(filepath.Join(out, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr struct {
		TraceEvents []struct {
			Cat, Ph string
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	cats := map[string]bool{}
	for _, e := range tr.TraceEvents {
		cats[e.Cat] = true
	}
	for _, c := range []string{"fault", "election", "send", "failover"} {
		if !cats[c] {
			t.Errorf("trace.json has no %s event", c)
		}
	}
	var res struct {
		Failovers []map[string]any `json:"failovers"`
	}
	rb, _ := os.ReadFile(filepath.Join(out, "result.json"))
	if err := json.Unmarshal(rb, &res); err != nil || len(res.Failovers) == 0 || res.Failovers[0]["election_s"] == nil {
		t.Fatalf("result.json failovers: %v %v", res.Failovers, err)
	}
	for _, f := range []string{"timeline.png", "timeline.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
