package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepShardsMergeIntoTheWholeSweep(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "4", "-out", whole, "-recheck", "0"}, &out, &errb); code != 0 {
		t.Fatalf("whole sweep: exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	var shards []string
	for i := 0; i < 2; i++ {
		d := filepath.Join(dir, "shard"+string(rune('0'+i)))
		shards = append(shards, d)
		out.Reset()
		if code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "4", "-shard", string(rune('0'+i)) + "/2", "-out", d, "-recheck", "0"}, &out, &errb); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errb.String())
		}
	}
	merged := filepath.Join(dir, "merged")
	out.Reset()
	if code := dispatch(append([]string{"merge", "-out", merged}, shards...), &out, &errb); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errb.String())
	}
	a, _ := os.ReadFile(filepath.Join(whole, "results.jsonl"))
	b, _ := os.ReadFile(filepath.Join(merged, "results.jsonl"))
	// Wall seconds differ between runs; compare everything else.
	strip := func(s string) string {
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
	if strip(string(a)) != strip(string(b)) || len(a) == 0 {
		t.Fatalf("merged shards differ from the whole sweep:\n%s\n---\n%s", a, b)
	}
	if _, err := os.Stat(filepath.Join(merged, "summary.md")); err != nil {
		t.Fatal("merge wrote no summary.md")
	}
}

func TestSweepRefusesBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "-scenario", "nope"},
		{"sweep", "-shard", "2/2"},
		{"sweep", "-shard", "x"},
		{"sweep", "-seeds", "0"},
		{"sweep", "-set", "acks=7"},
	} {
		dir := filepath.Join(t.TempDir(), "out")
		var out, errb bytes.Buffer
		if code := dispatch(append(args, "-out", dir), &out, &errb); code != 2 || errb.Len() == 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, errb.String())
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%v: bad input left %s behind", args, dir)
		}
	}
	var out, errb bytes.Buffer
	bad := filepath.Join(t.TempDir(), "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "results.jsonl"), []byte("{\"scenario\":\"x\"}\nnot json\n"), 0o644)
	if code := dispatch([]string{"merge", "-out", t.TempDir(), bad}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "results.jsonl:2") {
		t.Fatalf("merge of a bad file: exit %d, stderr %q", code, errb.String())
	}
}
