package group

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

// TestSubscriptionReachesTheLeaderAndSurvivesALoad: the generation, rack
// and sticky user data a member sends with JoinGroup
// (ConsumerProtocolSubscription v2/v3) reach the leader in the
// JoinGroupResponse, and a coordinator that loads the group from its
// records relays the same to the next leader. Without them the sticky
// assignors could not tell a stale claim from a current one.
func TestSubscriptionReachesTheLeaderAndSurvivesALoad(t *testing.T) {
	h := newHarness(t)
	sub := model.Subscription{GenerationID: 3, RackID: "r1", Assigned: []model.TopicPartition{model.TP("t", 1)}, AssignedGeneration: 3}
	r := joinReq("g", "", "i1", "t")
	r.Owned = []model.TopicPartition{model.TP("t", 1)}
	r.Subscription = sub
	h.join(1, r)
	h.advance(testGroupConfig().InitialRebalanceDelay)
	resp := one[model.JoinGroupResponse](h, 1)
	if len(resp.Members) != 1 || !reflect.DeepEqual(resp.Members[0].Subscription, sub) {
		t.Fatalf("leader got %+v, want the member's subscription %+v", resp.Members, sub)
	}
	h.sync(1, "g", resp.GenerationID, resp.MemberID, "i1", model.MemberAssignment{MemberID: resp.MemberID, Partitions: r.Owned})
	h.commit()
	one[model.SyncGroupResponse](h, 1)

	loaded := NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "n"})
	for _, rec := range h.log {
		if err := loaded.Replay(rec); err != nil {
			t.Fatal(err)
		}
	}
	got := loaded.groups["g"].groupMembers()
	if len(got) != 1 || !reflect.DeepEqual(got[0].Subscription, sub) {
		t.Fatalf("after a load the leader would get %+v, want %+v", got, sub)
	}

	// A member that never had an assignment sends no user data, and a
	// load keeps it that way (StickyAssignor reads no claim from it).
	none := model.Subscription{GenerationID: model.NoEpoch, AssignedGeneration: model.NoEpoch}
	if back := readStickyUserData(stickyUserData(none)); back.Assigned != nil || back.AssignedGeneration != model.NoEpoch {
		t.Fatalf("no user data read back as %+v", back)
	}
}
