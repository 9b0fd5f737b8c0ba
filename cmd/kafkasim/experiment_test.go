package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shortExperiment is a small experiment that runs in well under a second.
const shortExperiment = `name = "short"
[cluster]
brokers = 3
[config]
"default.replication.factor" = 3
"min.insync.replicas" = 2
[faults]
schedule = """
from 2s to 4s crash leader-of t/0
"""
[phases]
safety = "5s"
liveness_bound = "20s"
`

type runJSONOut struct {
	TraceHash  string `json:"trace_hash"`
	OK         bool   `json:"ok"`
	Experiment string `json:"experiment"`
	Hash       string `json:"experiment_sha256"`
}

func runExperiment(t *testing.T, args ...string) (runJSONOut, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"run"}, args...), &out, &errb)
	var r runJSONOut
	if code == 0 {
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatalf("%v:\n%s", err, out.String())
		}
	}
	return r, errb.String(), code
}

// TestRunExperimentFileAndItsCopy: run -f runs the file, names it and its
// hash in the result and reproduce line, keeps a copy in the run
// directory, and the copy, moved elsewhere with the original gone,
// replays to the same trace hash.
func TestRunExperimentFileAndItsCopy(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.toml")
	os.WriteFile(file, []byte(shortExperiment), 0o644)
	first, stderr, code := runExperiment(t, "-f", file, "-seed", "2", "-json", "-out", filepath.Join(dir, "run1"))
	if code != 0 || !first.OK {
		t.Fatalf("exit %d, %+v: %s", code, first, stderr)
	}
	copied := filepath.Join(dir, "run1", experimentFileName)
	if first.Experiment != copied || len(first.Hash) != 64 || !strings.Contains(stderr, "run -f "+copied+" -seed 2  # experiment sha256 "+first.Hash) {
		t.Fatalf("result names %q %q; stderr:\n%s", first.Experiment, first.Hash, stderr)
	}
	os.Remove(file)
	moved := filepath.Join(dir, "elsewhere")
	if err := os.Rename(filepath.Join(dir, "run1"), moved); err != nil {
		t.Fatal(err)
	}
	again, stderr, code := runExperiment(t, "-f", filepath.Join(moved, experimentFileName), "-seed", "2", "-json", "-out", filepath.Join(dir, "run2"))
	if code != 0 || again.TraceHash != first.TraceHash || again.Hash != first.Hash {
		t.Fatalf("the copy replays to %+v, the original %+v (exit %d): %s", again, first, code, stderr)
	}
}

// TestRunExperimentRefusesABadFile: a bad file is exit 2 with
// file:line:col, before anything runs or is written; -scenario and -f
// together are refused.
func TestRunExperimentRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bad.toml")
	os.WriteFile(file, []byte(strings.Replace(shortExperiment, "brokers = 3", "brokerz = 3", 1)), 0o644)
	out := filepath.Join(dir, "out")
	_, stderr, code := runExperiment(t, "-f", file, "-out", out)
	if code != 2 || !strings.Contains(stderr, file+`:3:1: unknown key "brokerz" in [cluster] (did you mean "brokers"?)`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a refused run wrote %s", out)
	}
	if _, stderr, code := runExperiment(t, "-f", file, "-scenario", "baseline"); code != 2 || !strings.Contains(stderr, "exclusive") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// TestShowPrintsARunnableFile: show prints a catalog scenario as a file
// that run -f accepts; an unknown name is exit 2.
func TestShowPrintsARunnableFile(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"show", "leader-failover"}, &out, &errb); code != 0 || !strings.Contains(out.String(), `kind = "spaced"`) {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	if code := dispatch([]string{"show", "leader-failovr"}, &out, &errb); code != 2 {
		t.Fatalf("unknown name: exit %d", code)
	}
}

// TestSweepExperimentFile: sweep -f runs the file's seeds, keeps its copy
// in the sweep directory, and every result names the copy.
func TestSweepExperimentFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.toml")
	os.WriteFile(file, []byte(shortExperiment), 0o644)
	out := filepath.Join(dir, "sweep")
	var stdout, stderr bytes.Buffer
	if code := dispatch([]string{"sweep", "-f", file, "-seeds", "2", "-workers", "1", "-recheck", "0", "-out", out, "-json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, experimentFileName)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d results:\n%s", len(lines), stdout.String())
	}
	for _, l := range lines {
		var r runJSONOut
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Experiment != filepath.Join(out, experimentFileName) {
			t.Fatalf("%v: %s", err, l)
		}
	}
}

// TestRunExperimentChecksItsScheduleAgainstTheCluster: an inline fault on
// a partition the cluster does not have is refused at its line of the
// experiment file, before the run; the same fault on one it has runs.
func TestRunExperimentChecksItsScheduleAgainstTheCluster(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "short.toml")
	os.WriteFile(file, []byte(strings.Replace(shortExperiment, "leader-of t/0", "leader-of t/7", 1)), 0o644)
	_, stderr, code := runExperiment(t, "-f", file, "-out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(stderr, file+":9: ") || !strings.Contains(stderr, "no partition t/7") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	os.WriteFile(file, []byte(shortExperiment), 0o644)
	if _, stderr, code := runExperiment(t, "-f", file, "-json", "-out", filepath.Join(dir, "out2")); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
