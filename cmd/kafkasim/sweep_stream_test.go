package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// stripWall drops the wall-clock seconds, the one field that differs
// between two runs of the same seed.
func stripWall(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, `"wall_seconds":`); i >= 0 {
			j := strings.IndexAny(l[i:], ",}")
			l = l[:i] + l[i+j:]
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// TestInterruptedSweepReportsAndResumes: a SIGINT after the second result
// stops the sweep (exit 130) with the finished runs in results.jsonl and
// a report of them; a torn row from a kill is dropped; -resume runs only
// the rest, and the whole equals the uninterrupted sweep run by run.
func TestInterruptedSweepReportsAndResumes(t *testing.T) {
	withStore(t)
	dir := t.TempDir()
	whole, part := filepath.Join(dir, "whole"), filepath.Join(dir, "part")
	args := []string{"sweep", "-scenario", "baseline", "-seeds", "8", "-workers", "2", "-recheck", "0"}
	var out, errb bytes.Buffer
	if code := dispatch(append(args, "-out", whole), &out, &errb); code != 0 {
		t.Fatalf("whole sweep: exit %d: %s", code, errb.String())
	}
	afterSweepResult = func(n int) {
		if n == 2 {
			syscall.Kill(os.Getpid(), syscall.SIGINT)
		}
	}
	errb.Reset()
	code := dispatch(append(args, "-out", part), &out, &errb)
	afterSweepResult = nil
	if code != 130 || !strings.Contains(errb.String(), "-resume "+part) {
		t.Fatalf("interrupted sweep: exit %d: %s", code, errb.String())
	}
	rs, err := readResults(filepath.Join(part, "results.jsonl"))
	if err != nil || len(rs) < 2 || len(rs) >= 8 {
		t.Fatalf("interrupted sweep kept %d results (%v)", len(rs), err)
	}
	md, _ := os.ReadFile(filepath.Join(part, "summary.md"))
	if !strings.Contains(string(md), strconv.Itoa(len(rs))+" runs.") {
		t.Fatalf("the report of the interrupted sweep does not cover its %d runs:\n%s", len(rs), md)
	}
	// A kill mid-write leaves a torn row; -resume drops and redoes it.
	f, _ := os.OpenFile(filepath.Join(part, "results.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"scenario":"baseline","se`)
	f.Close()

	for _, bad := range [][]string{
		{"sweep", "-resume", part, "-seeds", "9"},
		{"sweep", "-resume", t.TempDir()},
	} {
		errb.Reset()
		if code := dispatch(bad, &out, &errb); code != 2 || errb.Len() == 0 {
			t.Fatalf("%v: exit %d: %s", bad, code, errb.String())
		}
	}
	errb.Reset()
	out.Reset()
	if code := dispatch([]string{"sweep", "-resume", part, "-workers", "1"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "torn") {
		t.Fatalf("resume: exit %d: %s", code, errb.String())
	}
	a, _ := os.ReadFile(filepath.Join(whole, "results.jsonl"))
	b, _ := os.ReadFile(filepath.Join(part, "results.jsonl"))
	if stripWall(string(a)) != stripWall(string(b)) {
		t.Fatalf("interrupted and resumed sweep differs from the whole one:\n%s\n---\n%s", a, b)
	}
	md, _ = os.ReadFile(filepath.Join(part, "summary.md"))
	if !strings.Contains(string(md), "8 runs.") {
		t.Fatalf("the resumed report does not cover 8 runs:\n%s", md)
	}
	// Nothing is left to do: resuming again runs nothing and agrees.
	if code := dispatch([]string{"sweep", "-resume", part}, &out, &errb); code != 0 {
		t.Fatalf("resume of a finished sweep: exit %d", code)
	}
	if c, _ := os.ReadFile(filepath.Join(part, "results.jsonl")); string(c) != string(b) {
		t.Fatal("resuming a finished sweep changed its results")
	}
	// A row that is no run of the sweep is bad input, named by line.
	f, _ = os.OpenFile(filepath.Join(part, "results.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"scenario":"baseline","seed":99,"ok":true}` + "\n")
	f.Close()
	errb.Reset()
	if code := dispatch([]string{"sweep", "-resume", part}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "results.jsonl:9:") {
		t.Fatalf("resume with a foreign row: exit %d: %s", code, errb.String())
	}
}

// TestSweepChecksOutBeforeTheFirstRun: a bad -out costs no run, and the
// seeds of a sweep too large to list are refused only when they pass the
// last seed.
func TestSweepChecksOutBeforeTheFirstRun(t *testing.T) {
	withStore(t)
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, []byte("x"), 0o644)
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "-scenario", "leader-failover", "-seeds", "99999999999999", "-out", file}, &out, &errb)
	if code != 2 || strings.Contains(errb.String(), "runs in") {
		t.Fatalf("sweep to a file: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := dispatch([]string{"sweep", "-scenario", "baseline", "-start", "18446744073709551615", "-seeds", "2"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "last seed") {
		t.Fatalf("seeds past the last: exit %d: %s", code, errb.String())
	}
}

// TestMergeRefusesOverlappingShards: the same shard twice (or two shards
// sharing a run) is refused with exit 2, naming the run and both places,
// and nothing is written; distinct shards merge, even with a finding about
// no one partition (written "/0").
func TestMergeRefusesOverlappingShards(t *testing.T) {
	withStore(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Mkdir(a, 0o755)
	os.Mkdir(b, 0o755)
	row := func(seed string) string {
		return `{"scenario":"baseline","seed":` + seed + `,"ok":true,"as_expected":true,"violations":[{"checker":"anomalies","anomaly":"g0","partition":"/0","error":false,"detail":"x"}]}` + "\n"
	}
	os.WriteFile(filepath.Join(a, "results.jsonl"), []byte(row("1")+row("2")), 0o644)
	os.WriteFile(filepath.Join(b, "results.jsonl"), []byte(row("3")+row("2")), 0o644)
	merged := filepath.Join(dir, "merged")
	var out, errb bytes.Buffer
	for _, shards := range [][]string{{a, a}, {a, b}} {
		errb.Reset()
		code := dispatch(append([]string{"merge", "-out", merged}, shards...), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "seed ") || !strings.Contains(errb.String(), "overlap") {
			t.Fatalf("merge %v: exit %d: %s", shards, code, errb.String())
		}
		if _, err := os.Stat(merged); err == nil {
			t.Fatalf("merge %v: a refused merge wrote %s", shards, merged)
		}
	}
	if !strings.Contains(errb.String(), filepath.Join(b, "results.jsonl")+":2") || !strings.Contains(errb.String(), filepath.Join(a, "results.jsonl")+":2") {
		t.Fatalf("the overlap message names not both places: %s", errb.String())
	}
	os.WriteFile(filepath.Join(b, "results.jsonl"), []byte(row("3")), 0o644)
	if code := dispatch([]string{"merge", "-out", merged, a, b}, &out, &errb); code != 0 {
		t.Fatalf("merge of distinct shards: exit %d: %s", code, errb.String())
	}
	if rs, err := readResults(filepath.Join(merged, "results.jsonl")); err != nil || len(rs) != 3 {
		t.Fatalf("merged %d rows, %v", len(rs), err)
	}
}
