package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// reassigned is t/0 moved from b1,b2,b3 to b1,b2,b4, as the brokers
// observed its records: created, the reassignment started (b4 adding, b3
// removing), completed once b4 was in the ISR.
func reassigned() []model.AssignmentObservation {
	return []model.AssignmentObservation{
		{Time: ms(1), TP: t0, PartitionEpoch: 0, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
		{Time: ms(20), TP: t0, PartitionEpoch: 1, Replicas: ids(1, 2, 4, 3), ISR: ids(1, 2, 3), Adding: ids(4), Removing: ids(3), Before: ids(1, 2, 3)},
		{Time: ms(30), TP: t0, PartitionEpoch: 3, Replicas: ids(1, 2, 4), ISR: ids(1, 2, 4), Before: ids(1, 2, 4, 3), BeforeAdding: ids(4)},
	}
}

func ids(xs ...model.BrokerID) []model.BrokerID { return xs }

func ov(kv ...any) []model.OffsetValue {
	var out []model.OffsetValue
	for i := 0; i < len(kv); i += 2 {
		out = append(out, model.OffsetValue{Offset: model.Offset(kv[i].(int)), Value: kv[i+1].(string)})
	}
	return out
}

// reassignedRun is a fine run across that reassignment: b3 left at high
// watermark 1 with an uncommitted tail (stale1) that b1, b2 and b4 never
// had, and the harness read it as outside the ISR after every fault had
// healed.
func reassignedRun() Input {
	h := hist(sendOK(1, t0, "new0", 0, 10, 11), sendOK(1, t0, "new1", 1, 40, 41), poll(2, 42, 43, recs(t0, 0, "new0", 1, "new1")))
	return Input{History: h, Observations: model.Observations{Assignments: reassigned()}, Replicas: []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: ov(0, "new0", 1, "new1")},
		{Broker: 2, TP: t0, HW: 2, Records: ov(0, "new0", 1, "new1")},
		{Broker: 3, TP: t0, HW: 1, Records: ov(0, "new0", 1, "stale1"), OutOfSync: true, NeverRejoined: true},
		{Broker: 4, TP: t0, HW: 2, Records: ov(0, "new0", 1, "new1")},
	}}
}

// TestReplicaChecksFollowTheReplicaSet: a log a reassignment left behind is
// not expected to rejoin, and its uncommitted tail is not a divergence;
// the same logs judged as if the replica set never changed (no
// observations) are flagged on both counts.
func TestReplicaChecksFollowTheReplicaSet(t *testing.T) {
	mustPass(t, check(t, reassignedRun(), Options{}))

	fixed := reassignedRun()
	fixed.Observations.Assignments = nil
	r := check(t, fixed, Options{})
	mustFind(t, r, ReplicaNotRejoined, t0, 1)
	mustFind(t, r, ReplicaDivergence, t0, 1)

	// A removed replica is still expected while the last record that set
	// the replicas (here: the reassignment's start) keeps it.
	started := reassignedRun()
	started.Observations.Assignments = reassigned()[:2]
	mustFind(t, check(t, started, Options{}), ReplicaNotRejoined, t0)
}

// TestRemovedReplicaHeldToWhatItCommitted: below its own high watermark a
// removed replica's log must agree with the ISR's.
func TestRemovedReplicaHeldToWhatItCommitted(t *testing.T) {
	in := reassignedRun()
	in.Replicas[2].Records = ov(0, "other0", 1, "stale1")
	v := mustFind(t, check(t, in, Options{}), ReplicaDivergence, t0, 0)
	if !strings.Contains(v.Detail, "removed from the replicas") {
		t.Fatalf("want the removal named, got %q", v.Detail)
	}
	// Where every ISR and ELR replica lost its disk, the committed
	// records the removed log kept may have been lost and written again
	// (reassign-under-chaos seed 7100061): the difference is the loss.
	in.DiskLost = []model.TopicPartition{t0}
	mustNotFind(t, check(t, in, Options{}), ReplicaDivergence)
}

// TestWriteKeptOnlyByARemovedReplicaIsLost: Kafka deletes a removed
// replica's log, so an acknowledged write only it holds is lost.
func TestWriteKeptOnlyByARemovedReplicaIsLost(t *testing.T) {
	in := reassignedRun()
	for _, i := range []int{0, 1, 3} {
		in.Replicas[i].Records = ov(0, "new0")
		in.Replicas[i].HW = 1
	}
	in.Replicas[2].Records = ov(0, "new0", 1, "new1")
	mustFind(t, check(t, in, Options{}), AckedWriteLost, t0, 1)

	// Judged as if the replica set never changed, the removed log hides
	// the loss.
	in.Observations.Assignments = nil
	mustNotFind(t, check(t, in, Options{}), AckedWriteLost)
}
