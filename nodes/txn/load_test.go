package txn

import (
	"testing"
	"time"

	"kafkasim/model"
)

// A transaction's start time survives its record whatever the node's
// clock read: a backward skew takes a simulated clock below 0, where
// Kafka's never goes, and a start written as "none" (-1) would make the
// next leader's completion of the loaded transaction an illegal
// transition (txn-chaos seeds 92100107, 92100176, 92100192 panicked so).
func TestStartTimeSurvivesTheLog(t *testing.T) {
	for _, start := range []time.Duration{-1535 * time.Millisecond, -1200 * time.Microsecond, -300 * time.Microsecond, 0, 5 * time.Second} {
		s := Snapshot{ProducerID: 7, ProducerEpoch: 1, Timeout: time.Minute, State: PrepareCommit, StartTime: start,
			Partitions: []model.TopicPartition{model.TP("t", 0)}, LastUpdate: time.Second}
		got := snapshotOf(logValue(s))
		if got.StartTime == -1 {
			t.Errorf("start %v: loaded as none", start)
		}
		if d := got.StartTime - start; d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("start %v: loaded as %v", start, got.StartTime)
		}
	}
	none := snapshotOf(logValue(Snapshot{ProducerID: 7, State: Empty, StartTime: -1, Timeout: time.Minute}))
	if none.StartTime != -1 {
		t.Errorf("no start loaded as %v", none.StartTime)
	}
}
