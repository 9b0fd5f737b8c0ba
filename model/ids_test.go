package model

import "testing"

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
