package reports

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kafkasim/scenarios"
)

// runs plays leader-failover for a few seeds under two session timeouts,
// labelled as sweep -vary labels them.
func runs(t *testing.T) []scenarios.Result {
	t.Helper()
	sc, ok := scenarios.Find("leader-failover")
	if !ok {
		t.Fatal("no leader-failover scenario")
	}
	var out []scenarios.Result
	for _, kv := range []string{"broker.session.timeout.ms=3000", "broker.session.timeout.ms=9000"} {
		for seed := uint64(1); seed <= 2; seed++ {
			r, err := scenarios.Run(sc, seed, scenarios.Options{Set: []string{kv}, LinearizabilityBudget: -1})
			if err != nil {
				t.Fatal(err)
			}
			r.Vary = kv
			out = append(out, r)
		}
	}
	return out
}

func TestQuantileIsNearestRank(t *testing.T) {
	vs := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for q, want := range map[float64]time.Duration{0.5: 5, 0.9: 9, 0.99: 10, 1: 10, 0: 1} {
		if got := Quantile(vs, q); got != want {
			t.Errorf("q%v = %v, want %v", q, got, want)
		}
	}
	if Quantile(nil, 0.5) != -1 {
		t.Error("quantile of nothing should be -1")
	}
}

func TestSweepReportHasPlotsTablesAndLinksThatResolve(t *testing.T) {
	results := runs(t)
	failing := results[0]
	failing.OK = false
	failing.Seed = 99
	results = append(results, failing)
	dir := t.TempDir()
	// A replayed run's folder, as the sweep command writes it.
	runDir := filepath.Join(dir, RunsDir, RunDirName(failing))
	if err := os.MkdirAll(runDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runDir, "result.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteSweep(dir, results, SweepOptions{Command: "kafkasim sweep -vary x"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "summary.md", "cdf-unavailable.png", "cdf-unavailable.svg", "cdf-election.svg", "hist-unavailable.png"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Fatalf("%s missing or empty: %v", name, err)
		}
	}
	// The legend sits outside the plot, in the page, with counts.
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, series := range []string{"broker.session.timeout.ms=3000 (n=", "broker.session.timeout.ms=9000 (n="} {
		if !strings.Contains(string(html), series) {
			t.Errorf("the CDF's legend lacks series %q", series)
		}
	}
	links := regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(string(html), -1)
	if len(links) < 8 {
		t.Fatalf("index.html has only %d links", len(links))
	}
	sawArtifact := false
	for _, l := range links {
		target := l[1]
		if target == "results.jsonl" || strings.HasPrefix(target, "data:") {
			continue // written by the sweep command beside the report; inline
		}
		if id, ok := strings.CutPrefix(target, "#"); ok {
			if !strings.Contains(string(html), `id="`+id+`"`) {
				t.Errorf("index.html links %q, which has no anchor", target)
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(target))); err != nil {
			t.Errorf("index.html links %q, which does not exist", target)
		}
		sawArtifact = sawArtifact || strings.Contains(target, RunDirName(failing))
	}
	if !sawArtifact {
		t.Error("the failing run's artifacts are not linked")
	}
	for _, want := range []string{"<img src=\"cdf-unavailable.png\"", "broker.session.timeout.ms=9000", "go run ./cmd/kafkasim run -scenario leader-failover -seed 99 -set broker.session.timeout.ms=3000"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "| broker.session.timeout.ms=3000 | 3 | 1 |") || !strings.Contains(string(md), "unavailable p50") {
		t.Errorf("summary.md lacks the per-value rows:\n%s", md)
	}
	// The same results give the same report.
	again := t.TempDir()
	if err := os.MkdirAll(filepath.Join(again, RunsDir, RunDirName(failing)), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(again, RunsDir, RunDirName(failing), "result.json"), []byte("{}"), 0o644)
	if err := WriteSweep(again, results, SweepOptions{Command: "kafkasim sweep -vary x"}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"index.html", "summary.md", "cdf-unavailable.svg"} {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(again, name))
		if string(a) != string(b) {
			t.Errorf("%s differs between two reports of the same results", name)
		}
	}
}

func TestRunTimelineAndChromeTrace(t *testing.T) {
	res := runs(t)[0]
	if len(res.Failovers) == 0 {
		t.Fatal("leader-failover seed 1 had no failover")
	}
	dir := t.TempDir()
	files, err := WriteRun(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("wrote %v", files)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	for _, s := range []string{">acked writes (per second)<", ">t/0<", ">ISR size (replicas)<", ">high watermark (offset)<", ">fault windows<"} {
		if !strings.Contains(string(svg), s) {
			t.Errorf("timeline SVG lacks %q", s)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr Trace
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatalf("trace.json does not parse: %v", err)
	}
	count := map[string]int{}
	tracks := map[int]string{}
	for _, e := range tr.TraceEvents {
		count[e.Cat+"/"+e.Ph]++
		if e.Ph == "M" && e.Name == "thread_name" {
			tracks[e.Tid] = e.Args["name"].(string)
		}
	}
	for _, want := range []string{"fault/X", "election/i", "send/b", "send/e", "poll/i", "hw/C", "failover/X"} {
		if count[want] == 0 {
			t.Errorf("trace has no %s event (has %v)", want, count)
		}
	}
	if count["send/b"] != count["send/e"] {
		t.Errorf("%d send begins, %d ends", count["send/b"], count["send/e"])
	}
	for tid, name := range map[int]string{1: "b1", 2: "b2", 3: "b3", 0: "failovers"} {
		if tracks[tid] != name {
			t.Errorf("track %d is %q, want %q", tid, tracks[tid], name)
		}
	}
}
