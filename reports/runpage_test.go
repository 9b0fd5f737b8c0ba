package reports

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/scenarios"
)

func TestRunPageLinksEveryFileAndExplainsEveryFinding(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"history.jsonl", "schedule.txt", "trace.json", "timeline.png", "timeline.svg", "linearizability-t-0.html", ".result.json.tmp"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res := scenarios.Result{Scenario: "leader-failover", Seed: 42, OK: false, Valid: checkers.ValidViolation,
		Violations: []checkers.Violation{
			{Checker: "loss", Anomaly: checkers.LostWrite, Partition: model.TP("t", 0), Error: true, Detail: "acknowledged offset 7 never read"},
			{Checker: "order", Anomaly: "poll-skip", Detail: "a skip acks=1 allows", Promise: "acks=1"},
		}}
	if err := WriteRunPage(dir, res); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, RunPageFile))
	html := string(page)
	for _, want := range []string{"FAIL: the run did not go", "acknowledged offset 7 never read", "a skip acks=1 allows", "ERROR", "allowed",
		"-scenario leader-failover -seed 42", `id="copy"`, "ui.perfetto.dev", "porcupine", `src="timeline.png"`} {
		if !strings.Contains(html, want) {
			t.Errorf("the run page lacks %q", want)
		}
	}
	linked := map[string]bool{}
	for _, l := range regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(html, -1) {
		if strings.HasPrefix(l[1], "data:") {
			continue
		}
		linked[l[1]] = true
		if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
			t.Errorf("the run page links %q, which does not exist", l[1])
		}
	}
	for _, n := range []string{"history.jsonl", "schedule.txt", "trace.json", "linearizability-t-0.html", "timeline.svg"} {
		if !linked[n] {
			t.Errorf("the run page does not link %s", n)
		}
	}
	if linked[".result.json.tmp"] {
		t.Error("the run page links a temporary file")
	}
	// A passing run says so, and has no findings table.
	ok := scenarios.Result{Scenario: "leader-failover", Seed: 1, OK: true, Valid: checkers.ValidOK}
	if err := WriteRunPage(dir, ok); err != nil {
		t.Fatal(err)
	}
	page, _ = os.ReadFile(filepath.Join(dir, RunPageFile))
	if !strings.Contains(string(page), "pass: the run went as its scenario expects") || strings.Contains(string(page), `id="findings"`) {
		t.Error("a passing run's page does not say it passed")
	}
}
