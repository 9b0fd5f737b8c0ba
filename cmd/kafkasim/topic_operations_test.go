package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad topic operation line is bad input: file:line: reason, exit 2,
// nothing written.
func TestRunRefusesBadTopicOperationLines(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"at 12s create-topic u 0 3\n", `:1: create-topic: bad partitions "0": want a positive number`},
		{"# fine\nat 12s create-topic u 6 3\nat 13s add-partitions u\n", ":3: add-partitions: bad partition count end of line"},
		{"at 12s alter-config t min.insync.replicas\n", `:1: alter-config: bad config "min.insync.replicas": want name=value`},
		{"at 12s delete-topic __consumer_offsets\n", ":1: delete-topic __consumer_offsets: an internal topic may not be deleted"},
		{"at 12s create-topic u/1 6 3\n", `:1: create-topic: bad topic name "u/1"`},
	} {
		sched := writeTemp(t, "s.txt", c.text)
		dir := filepath.Join(t.TempDir(), "out")
		var out, errb bytes.Buffer
		code := dispatch([]string{"run", "-scenario", "baseline", "-schedule", sched, "-out", dir}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), sched+c.want) || out.Len() != 0 {
			t.Fatalf("%q: exit %d, stdout %q, stderr %q, want %q", c.text, code, out.String(), errb.String(), sched+c.want)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatalf("%q: bad input left %s behind", c.text, dir)
		}
	}
}

// Well-formed topic operations run, and the controller's refusals are
// the events' notes with Kafka's error codes; the run passes.
func TestRunTopicOperationsAnswerWithKafkasCodes(t *testing.T) {
	sched := writeTemp(t, "s.txt", "at 12s create-topic u 6 3\nat 13s create-topic u 6 3\nat 14s add-partitions u 4\n"+
		"at 15s alter-config u foo=1\nat 16s delete-topic nope\nat 17s create-topic w 1 9\nat 18s delete-topic u\n")
	dir := filepath.Join(t.TempDir(), "out")
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "-scenario", "baseline", "-schedule", sched, "-out", dir}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	log, err := os.ReadFile(filepath.Join(dir, "faults.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"at 12s create-topic u 6 3 -> b", "refused: TOPIC_ALREADY_EXISTS", "refused: INVALID_PARTITIONS",
		"refused: INVALID_CONFIG", "refused: UNKNOWN_TOPIC_OR_PARTITION", "refused: INVALID_REPLICATION_FACTOR",
	} {
		if !strings.Contains(string(log), want) {
			t.Errorf("faults.log lacks %q:\n%s", want, log)
		}
	}
}
