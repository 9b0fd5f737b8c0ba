package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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
		if id, ok := strings.CutPrefix(l[1], "#"); ok {
			if !strings.Contains(html, `id="`+id+`"`) {
				t.Errorf("the run page links %q, which has no anchor", l[1])
			}
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

// A run of hundreds of findings of one kind (acks1-failover's
// inconsistent offsets) counts them per kind before the timeline and
// lists every one after it, folded; errors come first.
func TestRunPageGroupsFindingsByKind(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "timeline.png"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := scenarios.Result{Scenario: "acks1-failover", Seed: 1, Expected: checkers.LostWrite, AsExpected: true, Valid: checkers.ValidViolation}
	res.Violations = append(res.Violations, checkers.Violation{Checker: "order", Anomaly: "nonmonotonic-send", Detail: "allowed under acks=1", Promise: "acks=1"})
	for i := range 60 {
		res.Violations = append(res.Violations, checkers.Violation{Checker: "anomalies", Anomaly: checkers.InconsistentOffsets, Partition: model.TP("t", int32(i%2)), Error: true,
			Detail: fmt.Sprintf("offset %d holds 2 different values", 100+i), Promise: "a partition is a log"})
	}
	res.Violations = append(res.Violations, checkers.Violation{Checker: "loss", Anomaly: checkers.LostWrite, Partition: model.TP("t", 0), Error: true, Detail: "offset 7 never read", Promise: "acked means kept"})
	if err := WriteRunPage(dir, res); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, RunPageFile))
	html := string(b)
	kinds := html[strings.Index(html, `<table id="kinds">`):strings.Index(html, "<h2>Timeline</h2>")]
	// Two error kinds (sorted by anomaly), then the allowed one.
	rows := regexp.MustCompile(`<tr><td class="(\w+)">\w+</td><td><a href="#kind-\d">([\w-]+)</a></td><td>(\w+)</td><td>(\d+)</td><td>([^<]*)</td></tr>`).FindAllStringSubmatch(kinds, -1)
	var got []string
	for _, r := range rows {
		got = append(got, strings.Join(r[1:], " "))
	}
	want := []string{"ERROR inconsistent-offsets anomalies 60 t/0 t/1", "ERROR lost-write loss 1 t/0", "allowed nonmonotonic-send order 1 "}
	if !slices.Equal(got, want) {
		t.Errorf("kinds table rows\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(html, "62 findings of 3 kinds") {
		t.Error("the page does not count the findings")
	}
	// Every finding is listed after the timeline, the shared promise once.
	after := html[strings.Index(html, `id="findings-list"`):]
	for i := range 60 {
		if !strings.Contains(after, fmt.Sprintf("offset %d holds 2 different values", 100+i)) {
			t.Errorf("finding %d is not listed", i)
		}
	}
	if n := strings.Count(after, "a partition is a log"); n != 1 {
		t.Errorf("the shared promise is said %d times, want once", n)
	}
	// The sixty are folded; the one lost write is open.
	if !strings.Contains(after, `<details id="kind-1">`) || !strings.Contains(after, `<details id="kind-2" open>`) {
		t.Error("the long kind should start folded and the short error kind open")
	}
}
