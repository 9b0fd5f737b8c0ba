package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kafkasim/faults"
	"kafkasim/scenarios"
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A selector naming what the scenario's cluster does not have, or a fault
// before the cluster is ready, is bad input named by file and line, and
// nothing runs or is written.
func TestRunRefusesScheduleNamingWhatTheClusterLacks(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"# ok first\nat 12s crash leader-of t/0\nat 13s crash leader-of x/0\n", ":3: at 13s crash leader-of x/0: no topic \"x\""},
		{"at 12s crash leader-of t/7\n", ":1: at 12s crash leader-of t/7: no partition t/7"},
		{"\nfrom 12s to 14s partition isolate isr-follower t/3\n", ":2: from 12s to 14s partition isolate isr-follower t/3: no partition t/3"},
		{"at 12s crash b9\n", ":1: at 12s crash b9: no node b9"},
		{"at 0s crash b1\n", ":1: at 0s crash b1 is before the cluster of leader-failover is ready"},
	} {
		sched := writeTemp(t, "s.txt", c.text)
		dir := filepath.Join(t.TempDir(), "out")
		var out, errb bytes.Buffer
		code := dispatch([]string{"run", "-scenario", "leader-failover", "-seed", "3", "-schedule", sched, "-out", dir}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), sched+c.want) || out.Len() != 0 {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q, want %q", c.text, code, out.String(), errb.String(), sched+c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%q: bad input left %s behind", c.text, dir)
		}
	}
}

// An empty schedule and a fault after the faults end are warned of on
// stderr, and the run goes ahead; a schedule of faults that all fall in
// the run gets no warning.
func TestRunWarnsOfEmptyAndLateSchedules(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"# nothing\n\n", "the schedule has no faults"},
		{"at 12s crash leader-of t/0\nat 900s restart b1\n", ":2: at 15m0s restart b1 is after the faults of leader-failover end at"},
		{"from 30s to 900s pause b1\n", ":1: from 30s to 15m0s pause b1 ends after the faults of leader-failover end at"},
		{"at 12s crash leader-of t/0\nat 20s restart b1\n", ""},
	} {
		sched := writeTemp(t, "s.txt", c.text)
		var out, errb bytes.Buffer
		code := dispatch([]string{"run", "-scenario", "leader-failover", "-seed", "3", "-schedule", sched}, &out, &errb)
		if code == 2 {
			t.Fatalf("%q: exit 2: %s", c.text, errb.String())
		}
		if c.want == "" {
			if strings.Contains(errb.String(), "warning") {
				t.Fatalf("%q: a fine schedule warned: %s", c.text, errb.String())
			}
			continue
		}
		if !strings.Contains(errb.String(), "warning: ") || !strings.Contains(errb.String(), c.want) {
			t.Fatalf("%q: stderr %q lacks the warning %q", c.text, errb.String(), c.want)
		}
	}
}

// A scenario without a liveness phase runs on a few seconds after its
// faults: a fault past that never fires, and the warning says so.
func TestRunWarnsOfFaultAfterTheRunEnds(t *testing.T) {
	sched := writeTemp(t, "s.txt", "at 1h crash b1\n")
	var out, errb bytes.Buffer
	dispatch([]string{"run", "-scenario", "kip101-hw-truncation", "-seed", "1", "-schedule", sched}, &out, &errb)
	if !strings.Contains(errb.String(), sched+":1: at 1h0m0s crash b1 is after the run of kip101-hw-truncation ends at") {
		t.Fatalf("stderr %q", errb.String())
	}
}

// Checking a schedule builds a fixture of its own: the run given the file
// is the run scenarios.Run makes of the same schedule, hash for hash, and
// a BOM with CRLF line ends reads as the plain file.
func TestScheduleCheckLeavesTheRunAlone(t *testing.T) {
	text := "at 12s crash leader-of t/0\nat 20s restart b1\n"
	sc, _ := scenarios.Find("leader-failover")
	s := faults.MustParse("s", text)
	want, err := scenarios.Run(sc, 3, scenarios.Options{Schedule: &s})
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{text, "\uFEFF" + strings.ReplaceAll(text, "\n", "\r\n")} {
		var out, errb bytes.Buffer
		if code := dispatch([]string{"run", "-scenario", "leader-failover", "-seed", "3", "-json", "-schedule", writeTemp(t, "s.txt", file)}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var got struct {
			TraceHash string `json:"trace_hash"`
		}
		if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.TraceHash != want.TraceHash {
			t.Fatalf("trace hash %q (err %v), want %q", got.TraceHash, err, want.TraceHash)
		}
	}
}

// The group coordinators' offsets topic is a topic of the cluster like
// the workload's: its partitions may be named, one it does not have is
// refused.
func TestRunScheduleMayNameTheOffsetsTopic(t *testing.T) {
	ok := writeTemp(t, "s.txt", "at 30s crash leader-of __consumer_offsets/0\n")
	if code, _, errs := runCmd("run", "-scenario", "group-rebalance", "-seed", "1", "-schedule", ok); code == 2 {
		t.Fatalf("an offsets partition the cluster has was refused: %s", errs)
	}
	bad := writeTemp(t, "s.txt", "at 30s crash leader-of __consumer_offsets/99\n")
	code, _, errs := runCmd("run", "-scenario", "group-rebalance", "-seed", "1", "-schedule", bad)
	if code != 2 || !strings.Contains(errs, bad+":1: ") || !strings.Contains(errs, "__consumer_offsets/0..__consumer_offsets/4") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
