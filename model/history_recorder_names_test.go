package model

import (
	"fmt"
	"reflect"
	"testing"
)

// The recorder keeps topics and op kinds once and refers to them by index:
// ops that switch between topics, partitions and kinds (custom ones
// included), over more than one chunk, and sends completed on another
// partition, all come back exactly as recorded.
func TestRecorderInternsTopicsAndKinds(t *testing.T) {
	var r Recorder
	topics := []string{"a", "", "b", "a", "topic-c"}
	kinds := []OpF{FSend, FPoll, FSend, OpF("custom"), FAssign}
	var want History
	for i := 0; i < recorderChunk+100; i++ {
		op := Op{Process: i % 3, F: kinds[i%len(kinds)], Time: 1, TP: TP(topics[i%len(topics)], int32(i%4)),
			Value: fmt.Sprintf("v%d", i)}
		if i%7 == 0 {
			r.Event(op)
			op.Type, op.End = OpOK, op.Time
		} else {
			j := r.Invoke(op)
			if op.F == FSend {
				op.Offset = NoOffset
			}
			if i%5 == 0 && op.F == FSend {
				// The key chose another partition of another topic.
				op.TP, op.Offset = TP(topics[(i+1)%len(topics)], 9), Offset(i)
				r.SendOK(j, 2, op.TP, op.Offset)
				op.Type, op.End = OpOK, 2
			} else {
				op.Type = OpInvoke
			}
		}
		op.Index = i
		want = append(want, op)
	}
	if got := r.History(); !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("op %d: got %+v, want %+v", i, got[i], want[i])
			}
		}
		t.Fatalf("histories differ in length: %d vs %d", len(got), len(want))
	}
}
