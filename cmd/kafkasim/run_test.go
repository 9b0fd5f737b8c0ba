package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListShowsTheCatalog(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"list"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, name := range []string{"baseline", "leader-failover", "kip101-hw-truncation", "jepsen-2013"} {
		if !strings.Contains(out.String(), name) {
			t.Fatalf("list lacks %s:\n%s", name, out.String())
		}
	}
}

func TestRunPassesAndFailsWithExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "-scenario", "baseline", "-seed", "3", "-json"}, &out, &errb); code != 0 {
		t.Fatalf("baseline: exit %d: %s", code, errb.String())
	}
	var res struct {
		Scenario  string `json:"scenario"`
		Seed      uint64 `json:"seed"`
		OK        bool   `json:"ok"`
		TraceHash string `json:"trace_hash"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || !res.OK || res.Seed != 3 || res.TraceHash == "" {
		t.Fatalf("json %+v (err %v):\n%s", res, err, out.String())
	}
	out.Reset()
	errb.Reset()
	dir := t.TempDir()
	code := dispatch([]string{"run", "-scenario", "kip101-hw-truncation", "-seed", "7", "-out", dir}, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "acked-write-lost") || !strings.Contains(errb.String(), "-seed 7") {
		t.Fatalf("kip101: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	for _, f := range []string{"history.jsonl", "result.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatalf("-out did not write %s: %v", f, err)
		}
	}
}

func TestRunRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"run", "-scenario", "no-such"},
		{"run", "-scenario", "baseline", "-set", "no.such.key=1"},
		{"run", "-scenario", "baseline", "-set", "min.insync.replicas=abc"},
		{"run", "-scenario", "baseline", "-set", "min.insync.replicas=9"},
		{"run", "-scenario", "baseline", "-seed", "x"},
		{"run", "-scenario", "baseline", "-set", "kafka.version=3.5"},
		{"run", "-scenario", "baseline", "-set", "kafka.version=3.6", "-set", "eligible.leader.replicas.enable=true"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		var out, errb bytes.Buffer
		code := dispatch(append(args, "-out", dir), &out, &errb)
		if code != 2 || errb.Len() == 0 || out.Len() != 0 {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errb.String())
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%v: bad input left %s behind", args, dir)
		}
	}
}

// TestAnUnknownKafkaVersionListsTheReleases: kafka.version outside the
// modelled releases is bad input whose message lists them.
func TestAnUnknownKafkaVersionListsTheReleases(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "-scenario", "baseline", "-set", "kafka.version=2.8"}, &out, &errb)
	if code != 2 || out.Len() != 0 || !strings.Contains(errb.String(), `kafka.version: "2.8" is not a release kafkasim models (want one of 3.6, 3.7, 3.8, 3.9, 4.0, 4.1)`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestRunWithoutSeedPlaysTheScenariosOwn: a historical bug run without
// -seed plays the seed its replay was written against (the one go test
// runs), and says so in its result, whether it is named from the catalog
// or run from the file kafkasim show prints for it; -seed still overrides
// it.
func TestRunWithoutSeedPlaysTheScenariosOwn(t *testing.T) {
	var shown, errb bytes.Buffer
	if code := dispatch([]string{"show", "kip101-hw-truncation"}, &shown, &errb); code != 0 || !strings.Contains(shown.String(), "seeds = [7]") {
		t.Fatalf("show: exit %d, want its seed 7 printed:\n%s%s", code, shown.String(), errb.String())
	}
	file := filepath.Join(t.TempDir(), "kip101.toml")
	if err := os.WriteFile(file, shown.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		seed uint64
	}{
		{[]string{"run", "-scenario", "kip101-hw-truncation", "-json"}, 7},
		{[]string{"run", "-scenario", "kip101-hw-truncation", "-seed", "8", "-json"}, 8},
		{[]string{"run", "-f", file, "-json"}, 7},
		{[]string{"run", "-f", file, "-seed", "8", "-json"}, 8},
	} {
		var out, errb bytes.Buffer
		code := dispatch(append(tc.args, "-out", t.TempDir()), &out, &errb)
		var res struct {
			Seed       uint64 `json:"seed"`
			AsExpected bool   `json:"as_expected"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || code != 1 || res.Seed != tc.seed || !res.AsExpected {
			t.Fatalf("%v: exit %d, result %+v (err %v), want seed %d shown as expected\n%s", tc.args, code, res, err, tc.seed, errb.String())
		}
	}
}
