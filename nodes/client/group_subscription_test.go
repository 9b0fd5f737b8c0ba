package client

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A member's JoinGroup carries its generation (ConsumerProtocolSubscription
// v2) and, as the sticky assignors' user data, its last assignment with
// that assignment's generation: an eager member has revoked everything when
// it rejoins (Owned is empty), yet the leader still learns what it had and
// when. A member's first join carries none of it.
func TestGroupJoinCarriesGenerationAndLastAssignment(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	sixPartitions(gw)
	var ids []sim.NodeID
	for i := 0; i < 3; i++ {
		ids = append(ids, gw.member(cfg(t, "auto.offset.reset=earliest", "partition.assignment.strategy=sticky"),
			func(o *ConsumerOptions) { o.Assignors = []model.Assignor{model.AssignSticky} }))
	}
	for i, id := range ids {
		gw.start(time.Duration(i)*500*time.Millisecond, id)
	}
	gw.run(20 * time.Second)

	first := map[string]bool{}
	rejoins := 0
	for _, j := range groupRequests[model.JoinGroupRequest](gw.c) {
		if j.MemberID == "" {
			continue
		}
		if !first[j.MemberID] {
			first[j.MemberID] = true
			if j.GenerationID != model.NoEpoch || j.Assigned != nil || j.AssignedGeneration != model.NoEpoch {
				t.Errorf("first join %v: want no generation and no user data", j)
			}
			continue
		}
		if j.GenerationID < 1 || j.AssignedGeneration != j.GenerationID || len(j.Owned) != 0 || len(j.Assigned) == 0 {
			t.Errorf("rejoin %v: want its generation, no owned partitions (eager) and its last assignment of that generation", j)
		}
		rejoins++
	}
	if rejoins == 0 {
		t.Fatal("no member rejoined: the case did not happen")
	}
	for _, id := range ids {
		if a := gw.consumerAt(id).Assignment(); len(a) != 2 {
			t.Errorf("member %v owns %v, want two of the six", id, a)
		}
	}
}
