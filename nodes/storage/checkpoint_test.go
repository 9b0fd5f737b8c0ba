package storage

import (
	"reflect"
	"strings"
	"testing"
)

func TestCheckpointRoundTrip(t *testing.T) {
	w := newWorld(t, 1)
	const name = "replication-offset-checkpoint"
	if lines, ok, err := ReadCheckpoint(w.disk, name); ok || err != nil || lines != nil {
		t.Fatalf("missing file read as %v %v %v", lines, ok, err)
	}
	in := []string{"t 0 17", "t 1 4"}
	WriteCheckpoint(w.disk, name, in)
	if got := string(w.disk.Read(name)); got != "0\n2\nt 0 17\nt 1 4\n" {
		t.Fatalf("file content %q, want Kafka's version, count, entries", got)
	}
	lines, ok, err := ReadCheckpoint(w.disk, name)
	if !ok || err != nil || !reflect.DeepEqual(lines, in) {
		t.Fatalf("read back %v %v %v", lines, ok, err)
	}
	WriteCheckpoint(w.disk, name, nil)
	if lines, ok, err := ReadCheckpoint(w.disk, name); !ok || err != nil || len(lines) != 0 {
		t.Fatalf("empty checkpoint read as %v %v %v", lines, ok, err)
	}
	if w.disk.Exists(name + ".tmp") {
		t.Fatalf("temporary file left behind")
	}
}

func TestMalformedCheckpointReadsAsAbsentWithAnError(t *testing.T) {
	w := newWorld(t, 1)
	cases := map[string]string{
		"wrong version":      "1\n1\nx\n",
		"count too high":     "0\n3\nx\ny\n",
		"count too low":      "0\n1\nx\ny\n",
		"count not a number": "0\nmany\nx\n",
		"torn last line":     "0\n1\nx",
	}
	for what, content := range cases {
		w.disk.Create("c")
		w.disk.Append("c", []byte(content))
		lines, ok, err := ReadCheckpoint(w.disk, "c")
		if ok || lines != nil || err == nil || !strings.Contains(err.Error(), "checkpoint c") {
			t.Errorf("%s: read as %v %v %v, want absent with an error naming the file", what, lines, ok, err)
		}
	}
	// Kafka reads an empty file, or one with only a version, as no entries.
	for _, content := range []string{"", "0\n"} {
		w.disk.Create("c")
		w.disk.Append("c", []byte(content))
		if lines, ok, err := ReadCheckpoint(w.disk, "c"); !ok || err != nil || len(lines) != 0 {
			t.Errorf("%q read as %v %v %v, want present and empty", content, lines, ok, err)
		}
	}
}

func TestCheckpointWriteIsAtomicAcrossPowerLoss(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := newWorld(t, seed)
		WriteCheckpoint(w.disk, "c", []string{"old"})
		WriteCheckpoint(w.disk, "c", []string{"new", "entries"})
		w.powerLoss()
		lines, ok, err := ReadCheckpoint(w.disk, "c")
		if !ok || err != nil || !reflect.DeepEqual(lines, []string{"new", "entries"}) {
			t.Fatalf("seed %d: after power loss read %v %v %v, want the completed write", seed, lines, ok, err)
		}
	}
	// An interrupted write (the temporary file written, not yet renamed)
	// leaves the previous content whole.
	w := newWorld(t, 1)
	WriteCheckpoint(w.disk, "c", []string{"old"})
	w.disk.Create("c.tmp")
	w.disk.Append("c.tmp", []byte("0\n1\nhalf"))
	w.powerLoss()
	if lines, ok, _ := ReadCheckpoint(w.disk, "c"); !ok || !reflect.DeepEqual(lines, []string{"old"}) {
		t.Fatalf("interrupted write damaged the checkpoint: %v %v", lines, ok)
	}
}

func TestCheckpointEntryWithNewlinePanics(t *testing.T) {
	w := newWorld(t, 1)
	defer func() {
		if recover() == nil {
			t.Fatalf("an entry with a newline was written")
		}
	}()
	WriteCheckpoint(w.disk, "c", []string{"a\nb"})
}

// A caller keeps the buffer of WriteCheckpointEntries and writes the next
// checkpoint over it at once: every file written from it must keep its own
// bytes, in the page cache and across a power loss, which holds only
// because the disk copies what it is given.
func TestCheckpointEntriesReuseTheirBufferSafely(t *testing.T) {
	w := newWorld(t, 1)
	entries := func(prefix string) func([]byte, int) []byte {
		return func(dst []byte, i int) []byte { return append(append(dst, prefix...), byte('0'+i)) }
	}
	var buf []byte
	buf = WriteCheckpointEntries(w.disk, "a", buf, 3, entries("first "))
	buf = WriteCheckpointEntries(w.disk, "b", buf, 2, entries("second "))
	WriteCheckpointEntries(w.disk, "c", buf, 1, entries("x"))
	w.powerLoss()
	for name, want := range map[string][]string{"a": {"first 0", "first 1", "first 2"}, "b": {"second 0", "second 1"}, "c": {"x0"}} {
		if got, ok, err := ReadCheckpoint(w.disk, name); !ok || err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s read back as %q %v %v, want %q", name, got, ok, err, want)
		}
	}
	// The same bytes as WriteCheckpoint's, which is built on it.
	WriteCheckpoint(w.disk, "d", []string{"first 0", "first 1", "first 2"})
	if a, d := string(w.disk.Read("a")), string(w.disk.Read("d")); a != d {
		t.Fatalf("entries wrote %q, lines %q", a, d)
	}
}
