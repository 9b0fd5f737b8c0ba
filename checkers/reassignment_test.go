package checkers

import (
	"strings"
	"testing"
)

// TestReplicaRemovedBeforeReplacementInISR: a reassignment that completed
// while its new replica b4 was still outside the ISR is caught; the same
// reassignment completing once b4 was in it, and a cancellation that drops
// b4 while an old replica is out of the ISR, are not flagged.
func TestReplicaRemovedBeforeReplacementInISR(t *testing.T) {
	mustPass(t, check(t, reassignedRun(), Options{}))

	early := reassignedRun()
	early.Observations.Assignments[2].ISR = ids(1, 2)
	v := mustFind(t, check(t, early, Options{}), ReplicaRemovedEarly, t0)
	if !v.Error || !strings.Contains(v.Detail, "removed [b3]") || !strings.Contains(v.Detail, "[b4] not in the ISR") {
		t.Fatalf("want an error naming b3 removed and b4 outside the ISR, got %+v", v)
	}

	// Kafka's rule is every replica that stays, not only the new ones.
	oldOut := reassignedRun()
	oldOut.Observations.Assignments[2].ISR = ids(1, 4)
	mustFind(t, check(t, oldOut, Options{}), ReplicaRemovedEarly, t0)

	// A cancellation drops only the replica being added: allowed, even
	// with an old replica (b3) outside the ISR.
	cancelled := reassignedRun()
	a := &cancelled.Observations.Assignments[2]
	a.Replicas, a.ISR = ids(1, 2, 3), ids(1, 2)
	cancelled.Replicas[2] = ReplicaLog{Broker: 3, TP: t0, HW: 2, Records: ov(0, "new0", 1, "new1")}
	cancelled.Replicas[3].OutOfSync = true
	mustNotFind(t, check(t, cancelled, Options{}), ReplicaRemovedEarly)
}
