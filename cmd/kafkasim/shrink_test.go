package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShrinkWritesAScheduleThatReplays shrinks the KIP-101 scenario's
// failing run, then replays the written file with run -schedule: it must
// fail the same way. A passing run has nothing to shrink: bad input, exit 2,
// and no file written.
func TestShrinkWritesAScheduleThatReplays(t *testing.T) {
	file := filepath.Join(t.TempDir(), "min.schedule")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"shrink", "-scenario", "kip101-hw-truncation", "-seed", "7", "-out", file}, &out, &errb); code != 0 {
		t.Fatalf("shrink: exit %d: %s", code, errb.String())
	}
	out.Reset()
	code := dispatch([]string{"run", "-scenario", "kip101-hw-truncation", "-seed", "7", "-schedule", file}, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "acked-write-lost") {
		t.Fatalf("replaying the shrunk schedule: exit %d\n%s", code, out.String())
	}
	// The file's header carries the reproduce line that replays it.
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := reproduceLines(string(text))
	if len(lines) != 1 || !strings.HasSuffix(lines[0], "-schedule "+file) {
		t.Fatalf("the shrunk file's reproduce lines %q, want one naming %s", lines, file)
	}
	direct := replayHash(t, "go run ./cmd/kafkasim run -scenario kip101-hw-truncation -seed 7 -schedule "+file)
	if h := replayHash(t, lines[0]); h != direct {
		t.Fatalf("%s: trace hash %s, run -schedule's %s", lines[0], h, direct)
	}
	errb.Reset()
	passing := filepath.Join(t.TempDir(), "nothing.schedule")
	if code := dispatch([]string{"shrink", "-scenario", "baseline", "-seed", "1", "-out", passing}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "nothing to shrink") {
		t.Fatalf("shrinking a passing run: exit %d, want 2; stderr %q", code, errb.String())
	}
	if _, err := os.Lstat(passing); !os.IsNotExist(err) {
		t.Fatalf("shrinking a passing run left %s behind (%v)", passing, err)
	}
}

func TestRunRefusesABadScheduleFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.schedule")
	os.WriteFile(file, []byte("# ok\nat 1s crash b1\nat 2s explode b2\n"), 0o644)
	var out, errb bytes.Buffer
	code := dispatch([]string{"run", "-scenario", "baseline", "-schedule", file}, &out, &errb)
	if code != 2 || !strings.Contains(errb.String(), "bad.schedule:3") || out.Len() != 0 {
		t.Fatalf("exit %d, stderr %q, stdout %q", code, errb.String(), out.String())
	}
}
