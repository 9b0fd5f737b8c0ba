package model

import (
	"encoding/json"
	"testing"
)

// Compare agrees with Less: by topic, then partition.
func TestTopicPartitionCompare(t *testing.T) {
	tps := []TopicPartition{TP("a", 0), TP("a", 1), TP("a", 10), TP("b", 0), TP("b/c", 2)}
	for _, x := range tps {
		for _, y := range tps {
			c := x.Compare(y)
			switch {
			case x.Less(y) && c >= 0, y.Less(x) && c <= 0, x == y && c != 0:
				t.Fatalf("%v.Compare(%v) = %d, disagreeing with Less", x, y, c)
			}
		}
	}
}

// TestZeroTopicPartitionRoundTrips: a finding about no one partition has
// the zero TopicPartition, which marshals to "/0"; it must read back (a
// results.jsonl holding such a finding is merged and reported again),
// while a real name with an empty topic stays refused by the parser.
func TestZeroTopicPartitionRoundTrips(t *testing.T) {
	b, err := json.Marshal(struct{ P TopicPartition }{})
	if err != nil {
		t.Fatal(err)
	}
	var back struct{ P TopicPartition }
	if err := json.Unmarshal(b, &back); err != nil || back.P != (TopicPartition{}) {
		t.Fatalf("%s read back as %+v, %v", b, back.P, err)
	}
	var tp TopicPartition
	if err := json.Unmarshal([]byte(`"/1"`), &tp); err == nil {
		t.Fatalf(`"/1" accepted as %+v`, tp)
	}
	if _, err := ParseTopicPartition("/0"); err == nil {
		t.Fatal(`ParseTopicPartition accepted "/0"`)
	}
}
