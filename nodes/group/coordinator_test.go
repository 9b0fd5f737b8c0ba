package group

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

func TestNewDynamicMemberJoinsWithTheIDTheCoordinatorGaveIt(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "", "t"))
	r := one[model.JoinGroupResponse](h, 1)
	if r.Error != model.MemberIDRequired || r.MemberID == "" || r.GenerationID != model.NoEpoch {
		t.Fatalf("first join: %v", r)
	}
	if v := h.group("g"); v.State != Empty || !slices.Equal(v.Pending, []string{r.MemberID}) || len(v.Members) != 0 {
		t.Fatalf("after MEMBER_ID_REQUIRED: %+v", v)
	}
	h.join(1, joinReq("g", r.MemberID, "", "t"))
	h.none(1) // parked for the initial delay
	if v := h.group("g"); v.State != PreparingRebalance || len(v.Pending) != 0 || len(v.Members) != 1 {
		t.Fatalf("after the second join: %+v", v)
	}
	h.advance(testGroupConfig().InitialRebalanceDelay - time.Millisecond)
	h.none(1)
	h.advance(time.Millisecond)
	j := one[model.JoinGroupResponse](h, 1)
	if j.Error != model.NoError || j.GenerationID != 1 || j.LeaderID != r.MemberID || j.MemberID != r.MemberID ||
		j.Protocol != model.AssignRange || len(j.Members) != 1 || j.Members[0].MemberID != r.MemberID {
		t.Fatalf("join response: %v", j)
	}
	if v := h.group("g"); v.State != CompletingRebalance {
		t.Fatalf("state %s, want CompletingRebalance", v.State)
	}
}

func TestUnknownMemberIDInAGroupTheCoordinatorDoesNotHave(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "ghost", "", "t"))
	if r := one[model.JoinGroupResponse](h, 1); r.Error != model.UnknownMemberID {
		t.Fatalf("got %v", r)
	}
	// A made-up id in an existing group is unknown too.
	h.joinDynamic(2, "g", "t")
	h.join(1, joinReq("g", "ghost", "", "t"))
	if r := one[model.JoinGroupResponse](h, 1); r.Error != model.UnknownMemberID {
		t.Fatalf("got %v", r)
	}
}

func TestSessionTimeoutOutsideTheBrokerBoundsIsRefused(t *testing.T) {
	gc := testGroupConfig()
	for _, d := range []time.Duration{gc.MinSessionTimeout - time.Millisecond, gc.MaxSessionTimeout + time.Millisecond} {
		h := newHarness(t)
		r := joinReq("g", "", "", "t")
		r.SessionTimeout = d
		h.join(1, r)
		if got := one[model.JoinGroupResponse](h, 1); got.Error != model.InvalidSessionTimeout {
			t.Fatalf("session %v: %v", d, got)
		}
		if _, ok := h.c.Group("g"); ok {
			t.Fatalf("session %v: a refused join created the group", d)
		}
	}
}

func TestInconsistentProtocolIsRefused(t *testing.T) {
	h := newHarness(t)
	h.joinDynamic(1, "g", "t")
	r := joinReq("g", "", "", "t")
	r.Assignors = []model.Assignor{model.AssignSticky}
	h.join(2, r)
	if got := one[model.JoinGroupResponse](h, 2); got.Error != model.InconsistentGroupProtocol {
		t.Fatalf("got %v", got)
	}
}

func TestInitialRebalanceDelayGrowsWhileMembersKeepArriving(t *testing.T) {
	h := newHarness(t)
	delay := testGroupConfig().InitialRebalanceDelay
	h.joinDynamic(1, "g", "t")
	h.advance(delay - time.Second)
	h.joinDynamic(2, "g", "t")
	h.advance(time.Second) // the first delay ends: a member arrived, so it is extended
	h.none(1)
	h.none(2)
	h.advance(delay - time.Millisecond)
	h.none(1)
	h.advance(time.Millisecond)
	r1, r2 := one[model.JoinGroupResponse](h, 1), one[model.JoinGroupResponse](h, 2)
	if r1.GenerationID != 1 || r2.GenerationID != 1 || len(r1.Members) != 2 || len(r2.Members) != 0 || r1.LeaderID != r1.MemberID || r2.LeaderID != r1.MemberID {
		t.Fatalf("responses: %v / %v", r1, r2)
	}
}

func TestInitialRebalanceDelayIsBoundedByTheRebalanceTimeout(t *testing.T) {
	h := newHarness(t)
	delay := testGroupConfig().InitialRebalanceDelay
	h.joinDynamic(1, "g", "t")
	// A new member every delay/2 keeps extending, but never past the
	// rebalance timeout.
	for i := model.BrokerID(2); ; i++ {
		h.advance(delay / 2)
		if len(h.replies[1]) > 0 {
			break
		}
		if h.now > testRebalance+delay {
			t.Fatalf("join phase still open at %v", h.now)
		}
		h.joinDynamic(i, "g", "t")
	}
	if h.now > testRebalance+delay || h.now < testRebalance-delay {
		t.Fatalf("join completed at %v, want about the rebalance timeout %v", h.now, testRebalance)
	}
}

func TestJoinCompletesAsSoonAsEveryMemberRejoined(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 2)
	// Member 2 changes its subscription: a rebalance.
	h.join(2, joinReq("g", ids[2], "", "t", "u"))
	if v := h.group("g"); v.State != PreparingRebalance {
		t.Fatalf("state %s", v.State)
	}
	h.none(2)
	if code := h.heartbeat(1, "g", 1, ids[1], ""); code != model.RebalanceInProgress {
		t.Fatalf("heartbeat during the rebalance: %v", code)
	}
	h.join(1, joinReq("g", ids[1], "", "t"))
	r1, r2 := one[model.JoinGroupResponse](h, 1), one[model.JoinGroupResponse](h, 2)
	if r1.GenerationID != 2 || r2.GenerationID != 2 || r1.LeaderID != ids[1] || len(r1.Members) != 2 {
		t.Fatalf("responses: %v / %v", r1, r2)
	}
	m := r1.Members
	if m[0].MemberID > m[1].MemberID {
		t.Fatalf("leader's members not sorted by id: %v", m)
	}
}

func TestRebalanceTimeoutRemovesMembersThatDidNotRejoin(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 3)
	// The leader rejoins; member 3 rejoins; member 2 keeps heartbeating
	// (so its session holds) but never rejoins: a straggler.
	start := h.now
	h.join(1, joinReq("g", ids[1], "", "t"))
	h.join(3, joinReq("g", ids[3], "", "t"))
	for len(h.replies[1]) == 0 {
		h.advance(time.Second)
		if len(h.replies[1]) > 0 {
			break
		}
		if code := h.heartbeat(2, "g", 1, ids[2], ""); code != model.RebalanceInProgress {
			t.Fatalf("straggler's heartbeat at %v: %v", h.now, code)
		}
		if h.now > start+2*testRebalance {
			t.Fatal("the join phase never completed")
		}
	}
	if h.now != start+testRebalance {
		t.Fatalf("join phase completed at %v, want the rebalance timeout %v", h.now-start, testRebalance)
	}
	r1 := one[model.JoinGroupResponse](h, 1)
	one[model.JoinGroupResponse](h, 3)
	if r1.GenerationID != 2 || len(r1.Members) != 2 {
		t.Fatalf("leader's response: %v", r1)
	}
	v := h.group("g")
	if len(v.Members) != 2 || v.Members[0].ID != ids[1] || v.Members[1].ID != ids[3] {
		t.Fatalf("members %+v, want %s and %s", v.Members, ids[1], ids[3])
	}
	if code := h.heartbeat(2, "g", 1, ids[2], ""); code != model.UnknownMemberID {
		t.Fatalf("the removed member's heartbeat: %v", code)
	}
}

func TestAFollowerLeadsWhenTheLeaderDoesNotRejoin(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 2)
	h.join(2, joinReq("g", ids[2], "", "t", "u"))
	h.advance(testRebalance)
	r2 := one[model.JoinGroupResponse](h, 2)
	if r2.LeaderID != ids[2] || r2.GenerationID != 2 || len(r2.Members) != 1 {
		t.Fatalf("response %v: member 2 should lead alone", r2)
	}
}

func TestSyncWaitsForTheLeaderAndForItsWriteToCommit(t *testing.T) {
	h := newHarness(t)
	ids := map[model.BrokerID]string{1: h.joinDynamic(1, "g", "t"), 2: h.joinDynamic(2, "g", "t")}
	h.advance(2 * testGroupConfig().InitialRebalanceDelay) // the second member extended the delay
	one[model.JoinGroupResponse](h, 1)
	one[model.JoinGroupResponse](h, 2)
	h.sync(2, "g", 1, ids[2], "")
	h.none(2) // a follower waits for the leader
	assign := []model.MemberAssignment{{MemberID: ids[1], Partitions: []model.TopicPartition{model.TP("t", 0)}}, {MemberID: ids[2], Partitions: []model.TopicPartition{model.TP("t", 1)}}}
	h.sync(1, "g", 1, ids[1], "", assign...)
	if len(h.writes) != 1 {
		t.Fatalf("the leader's sync wrote %d batches, want 1", len(h.writes))
	}
	h.none(1)
	h.none(2)
	if v := h.group("g"); v.State != CompletingRebalance {
		t.Fatalf("state %s before the write commits", v.State)
	}
	h.commit()
	s1, s2 := one[model.SyncGroupResponse](h, 1), one[model.SyncGroupResponse](h, 2)
	if !slices.Equal(s1.Partitions, assign[0].Partitions) || !slices.Equal(s2.Partitions, assign[1].Partitions) {
		t.Fatalf("assignments %v / %v", s1, s2)
	}
	if v := h.group("g"); v.State != Stable {
		t.Fatalf("state %s after the write", v.State)
	}
	// A sync in Stable returns the current assignment at once.
	h.sync(2, "g", 1, ids[2], "")
	if s := one[model.SyncGroupResponse](h, 2); !slices.Equal(s.Partitions, assign[1].Partitions) {
		t.Fatalf("sync in Stable: %v", s)
	}
	// Wrong generation, unknown member, sync during a rebalance.
	h.sync(2, "g", 7, ids[2], "")
	if s := one[model.SyncGroupResponse](h, 2); s.Error != model.IllegalGeneration {
		t.Fatalf("wrong generation: %v", s)
	}
	h.sync(3, "g", 1, "ghost", "")
	if s := one[model.SyncGroupResponse](h, 3); s.Error != model.UnknownMemberID {
		t.Fatalf("unknown member: %v", s)
	}
	h.join(1, joinReq("g", ids[1], "", "t"))
	h.sync(2, "g", 1, ids[2], "")
	if s := one[model.SyncGroupResponse](h, 2); s.Error != model.RebalanceInProgress {
		t.Fatalf("sync while preparing a rebalance: %v", s)
	}
}

func TestAFailedAssignmentWriteStartsARebalance(t *testing.T) {
	for _, c := range []struct {
		append, want model.ErrorCode
	}{
		{model.NotEnoughReplicas, model.CoordinatorNotAvailable},
		{model.RequestTimedOut, model.CoordinatorNotAvailable},
		{model.NotLeaderOrFollower, model.NotCoordinator},
	} {
		h := newHarness(t)
		id := h.joinDynamic(1, "g", "t")
		h.advance(testGroupConfig().InitialRebalanceDelay)
		one[model.JoinGroupResponse](h, 1)
		h.sync(1, "g", 1, id, "", model.MemberAssignment{MemberID: id, Partitions: []model.TopicPartition{model.TP("t", 0)}})
		h.fail(c.append)
		if s := one[model.SyncGroupResponse](h, 1); s.Error != c.want {
			t.Fatalf("%v: sync answered %v, want %v", c.append, s, c.want)
		}
		v := h.group("g")
		if v.State != PreparingRebalance || v.Members[0].Assignment != nil {
			t.Fatalf("%v: %+v", c.append, v)
		}
	}
}

func TestHeartbeatAnswersPerState(t *testing.T) {
	h := newHarness(t)
	if code := h.heartbeat(1, "nope", 0, "x", ""); code != model.UnknownMemberID {
		t.Fatalf("unknown group: %v", code)
	}
	id := h.joinDynamic(1, "g", "t")
	h.advance(testGroupConfig().InitialRebalanceDelay)
	one[model.JoinGroupResponse](h, 1)
	// CompletingRebalance: between JoinGroup and SyncGroup a heartbeat is
	// an ordinary one.
	if code := h.heartbeat(1, "g", 1, id, ""); code != model.NoError {
		t.Fatalf("CompletingRebalance: %v", code)
	}
	h.sync(1, "g", 1, id, "", model.MemberAssignment{MemberID: id})
	h.commit()
	one[model.SyncGroupResponse](h, 1)
	if code := h.heartbeat(1, "g", 1, id, ""); code != model.NoError {
		t.Fatalf("Stable: %v", code)
	}
	if code := h.heartbeat(1, "g", 0, id, ""); code != model.IllegalGeneration {
		t.Fatalf("old generation: %v", code)
	}
	if code := h.heartbeat(1, "g", 1, "ghost", ""); code != model.UnknownMemberID {
		t.Fatalf("unknown member: %v", code)
	}
	h.joinDynamic(2, "g", "t")
	if code := h.heartbeat(1, "g", 1, id, ""); code != model.RebalanceInProgress {
		t.Fatalf("PreparingRebalance: %v", code)
	}
}

func TestASilentMemberIsRemovedAtSessionExpiry(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 2)
	start := h.now
	for h.now < 4*testSession {
		h.advance(3 * time.Second)
		code := h.heartbeat(1, "g", 1, ids[1], "")
		if code == model.RebalanceInProgress {
			break
		}
		if code != model.NoError {
			t.Fatalf("heartbeat at %v: %v", h.now, code)
		}
	}
	v := h.group("g")
	if v.State != PreparingRebalance || len(v.Members) != 1 || v.Members[0].ID != ids[1] {
		t.Fatalf("after member 2 went silent: %+v", v)
	}
	if h.now > start+testSession+3*time.Second {
		t.Fatalf("member 2 removed only at %v", h.now)
	}
	h.join(1, joinReq("g", ids[1], "", "t"))
	if r := one[model.JoinGroupResponse](h, 1); r.GenerationID != 2 || len(r.Members) != 1 {
		t.Fatalf("rejoin: %v", r)
	}
}

func TestLeaveGroupRebalancesAtOnce(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 2)
	if code := h.leave(3, "g", "ghost", ""); code != model.UnknownMemberID {
		t.Fatalf("unknown member leaving: %v", code)
	}
	if code := h.leave(2, "g", ids[2], ""); code != model.NoError {
		t.Fatalf("leave: %v", code)
	}
	if v := h.group("g"); v.State != PreparingRebalance || len(v.Members) != 1 {
		t.Fatalf("after leave: %+v", v)
	}
	// The last member leaving empties the group: a new generation with
	// nobody, persisted.
	h.commit()
	if code := h.leave(1, "g", ids[1], ""); code != model.NoError {
		t.Fatalf("leave: %v", code)
	}
	v := h.group("g")
	if v.State != Empty || v.Generation != 2 || len(h.writes) != 1 {
		t.Fatalf("after the last leave: %+v, %d writes", v, len(h.writes))
	}
}

func TestStaticMemberRejoinTakesItsPlaceWithoutARebalance(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "i1", "t"))
	h.none(1) // a static member joins at once, no MEMBER_ID_REQUIRED
	h.advance(testGroupConfig().InitialRebalanceDelay)
	r := one[model.JoinGroupResponse](h, 1)
	old := r.MemberID
	h.sync(1, "g", 1, old, "i1", model.MemberAssignment{MemberID: old, Partitions: []model.TopicPartition{model.TP("t", 0)}})
	h.commit()
	one[model.SyncGroupResponse](h, 1)

	// The process restarts and joins without its member id.
	h.join(2, joinReq("g", "", "i1", "t"))
	h.none(2)
	h.commit()
	nr := one[model.JoinGroupResponse](h, 2)
	if nr.Error != model.NoError || nr.MemberID == old || nr.GenerationID != 1 || nr.LeaderID != old || len(nr.Members) != 0 {
		t.Fatalf("rejoin response: %v (old id %s)", nr, old)
	}
	v := h.group("g")
	if v.State != Stable || v.Generation != 1 || v.Members[0].ID != nr.MemberID || v.Leader != nr.MemberID {
		t.Fatalf("group after the rejoin: %+v", v)
	}
	h.sync(2, "g", 1, nr.MemberID, "i1")
	if s := one[model.SyncGroupResponse](h, 2); !slices.Equal(s.Partitions, []model.TopicPartition{model.TP("t", 0)}) {
		t.Fatalf("the new incarnation's assignment: %v", s)
	}
	// The old incarnation is fenced.
	if code := h.heartbeat(1, "g", 1, old, "i1"); code != model.FencedInstanceID {
		t.Fatalf("old incarnation's heartbeat: %v", code)
	}
	if code := h.commitError(1, "g", 1, old, "i1"); code != model.FencedInstanceID {
		t.Fatalf("old incarnation's commit: %v", code)
	}
	if code := h.heartbeat(3, "g", 1, "x", "i9"); code != model.UnknownMemberID {
		t.Fatalf("unknown instance: %v", code)
	}
}

func TestStaticMemberRejoinWithANewSubscriptionRebalances(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "i1", "t"))
	h.advance(testGroupConfig().InitialRebalanceDelay)
	r := one[model.JoinGroupResponse](h, 1)
	h.sync(1, "g", 1, r.MemberID, "i1", model.MemberAssignment{MemberID: r.MemberID})
	h.commit()
	one[model.SyncGroupResponse](h, 1)
	h.join(2, joinReq("g", "", "i1", "t", "u"))
	nr := one[model.JoinGroupResponse](h, 2) // the only member rejoined: the phase completes at once
	if nr.GenerationID != 2 || nr.LeaderID != nr.MemberID || len(nr.Members) != 1 || !slices.Equal(nr.Members[0].Topics, []string{"t", "u"}) {
		t.Fatalf("rejoin with new topics: %v", nr)
	}
}

func TestAFailedStaticReplacementPutsTheOldMemberBack(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "i1", "t"))
	h.advance(testGroupConfig().InitialRebalanceDelay)
	old := one[model.JoinGroupResponse](h, 1).MemberID
	h.sync(1, "g", 1, old, "i1", model.MemberAssignment{MemberID: old})
	h.commit()
	one[model.SyncGroupResponse](h, 1)
	h.join(2, joinReq("g", "", "i1", "t"))
	h.fail(model.NotEnoughReplicas)
	if r := one[model.JoinGroupResponse](h, 2); r.Error != model.CoordinatorNotAvailable {
		t.Fatalf("rejoin whose write failed: %v", r)
	}
	if code := h.heartbeat(1, "g", 1, old, "i1"); code != model.NoError {
		t.Fatalf("the old member is back: %v", code)
	}
}

// Two restarts of one static member, both of whose writes fail (the log
// commits in order, so the second cannot commit without the first): the
// member the log still names comes back, not the one in between (the
// coordinator's property test found the one in between restored).
func TestTwoFailedStaticReplacementsPutTheCommittedMemberBack(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "i1", "t"))
	h.advance(testGroupConfig().InitialRebalanceDelay)
	old := one[model.JoinGroupResponse](h, 1).MemberID
	h.sync(1, "g", 1, old, "i1", model.MemberAssignment{MemberID: old, Partitions: []model.TopicPartition{model.TP("t", 0)}})
	h.commit()
	one[model.SyncGroupResponse](h, 1)
	h.join(2, joinReq("g", "", "i1", "t"))
	h.join(3, joinReq("g", "", "i1", "t"))
	h.fail(model.RequestTimedOut)
	v := h.group("g")
	if len(v.Members) != 1 || v.Members[0].ID != old || v.Leader != old {
		t.Fatalf("after both replacements failed the group is %+v, want %s back", v, old)
	}
	if !slices.Equal(v.Members[0].Assignment, []model.TopicPartition{model.TP("t", 0)}) {
		t.Fatalf("the restored member lost its assignment: %+v", v.Members[0])
	}
	if r := one[model.JoinGroupResponse](h, 3); r.Error != model.CoordinatorNotAvailable {
		t.Fatalf("the second rejoin: %v", r)
	}
}

func TestOffsetCommitChecksGenerationMemberAndState(t *testing.T) {
	h := newHarness(t)
	// A group the coordinator does not have: generation -1 commits
	// (manual assignment); a real generation is illegal.
	if code := h.commitError(9, "simple", -1, "", ""); code != model.NoError {
		t.Fatalf("simple commit: %v", code)
	}
	if code := h.commitError(9, "nope", 3, "m", ""); code != model.IllegalGeneration {
		t.Fatalf("commit to an unknown group with a generation: %v", code)
	}
	ids := h.stableGroup("g", 2)
	cases := []struct {
		name   string
		gen    model.Epoch
		member string
		want   model.ErrorCode
	}{
		{"current member and generation", 1, ids[1], model.NoError},
		{"old generation", 0, ids[1], model.IllegalGeneration},
		{"unknown member", 1, "ghost", model.UnknownMemberID},
		{"generation -1 with members", -1, "", model.UnknownMemberID},
	}
	for _, c := range cases {
		if code := h.commitError(1, "g", c.gen, c.member, ""); code != c.want {
			t.Fatalf("%s: %v, want %v", c.name, code, c.want)
		}
	}
	// PreparingRebalance: the old generation still commits (eager
	// members commit before they revoke).
	h.join(1, joinReq("g", ids[1], "", "t"))
	if code := h.commitError(2, "g", 1, ids[2], ""); code != model.NoError {
		t.Fatalf("commit while preparing a rebalance: %v", code)
	}
	h.join(2, joinReq("g", ids[2], "", "t"))
	one[model.JoinGroupResponse](h, 1)
	one[model.JoinGroupResponse](h, 2)
	// CompletingRebalance: REBALANCE_IN_PROGRESS for the new generation.
	if code := h.commitError(1, "g", 2, ids[1], ""); code != model.RebalanceInProgress {
		t.Fatalf("commit while completing a rebalance: %v", code)
	}
}

func TestACommitIsVisibleOnlyOnceItsWriteCommits(t *testing.T) {
	h := newHarness(t)
	tp := model.TP("t", 0)
	h.commitOffsets(1, "g", -1, "", model.CommitOffset{TP: tp, Offset: 10, LeaderEpoch: 2})
	h.none(1)
	if f := h.fetch(2, "g", tp); f.Offsets[0].Offset != model.NoOffset || f.Offsets[0].LeaderEpoch != model.NoEpoch {
		t.Fatalf("fetch before the write commits: %v", f)
	}
	h.commit()
	if r := one[model.OffsetCommitResponse](h, 1); r.Results[0].Error != model.NoError {
		t.Fatalf("commit: %v", r)
	}
	if f := h.fetch(2, "g", tp); f.Offsets[0].Offset != 10 || f.Offsets[0].LeaderEpoch != 2 {
		t.Fatalf("fetch after: %v", f)
	}
	// A failed write leaves the offset as it was and maps the error.
	h.commitOffsets(1, "g", -1, "", model.CommitOffset{TP: tp, Offset: 20, LeaderEpoch: 2})
	h.fail(model.NotLeaderOrFollower)
	if r := one[model.OffsetCommitResponse](h, 1); r.Results[0].Error != model.NotCoordinator {
		t.Fatalf("failed commit: %v", r)
	}
	if f := h.fetch(2, "g"); len(f.Offsets) != 1 || f.Offsets[0].Offset != 10 {
		t.Fatalf("fetch after a failed commit: %v", f)
	}
}

func TestReplayRebuildsGroupsAndOffsets(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 3)
	h.join(4, joinReq("s", "", "i1", "t"))
	h.advance(testGroupConfig().InitialRebalanceDelay)
	sid := one[model.JoinGroupResponse](h, 4).MemberID
	h.sync(4, "s", 1, sid, "i1", model.MemberAssignment{MemberID: sid, Partitions: []model.TopicPartition{model.TP("t", 2)}})
	h.commit()
	one[model.SyncGroupResponse](h, 4)
	h.commitOffsets(1, "g", 1, ids[1], model.CommitOffset{TP: model.TP("t", 0), Offset: 7, LeaderEpoch: 1}, model.CommitOffset{TP: model.TP("t", 1), Offset: 3, LeaderEpoch: 0})
	h.commitOffsets(2, "g", 1, ids[2], model.CommitOffset{TP: model.TP("t", 0), Offset: 9, LeaderEpoch: 1})
	h.commit()
	// A group that emptied.
	e := h.joinDynamic(5, "e", "t")
	h.advance(testGroupConfig().InitialRebalanceDelay)
	one[model.JoinGroupResponse](h, 5)
	h.leave(5, "e", e, "")
	h.commit()

	r := NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "n"})
	for _, rec := range h.log {
		if err := r.Replay(rec); err != nil {
			t.Fatal(err)
		}
	}
	r.Loaded(h.now)
	for _, id := range []string{"g", "s", "e"} {
		live, _ := h.c.Group(id)
		got, ok := r.Group(id)
		if !ok {
			t.Fatalf("group %s not replayed", id)
		}
		if got.State != live.State || got.Generation != live.Generation || got.Leader != live.Leader || got.Protocol != live.Protocol || len(got.Members) != len(live.Members) {
			t.Fatalf("group %s replayed as %+v, live %+v", id, got, live)
		}
		for i := range got.Members {
			g, l := got.Members[i], live.Members[i]
			if g.ID != l.ID || g.InstanceID != l.InstanceID || g.SessionTimeout != l.SessionTimeout || g.RebalanceTimeout != l.RebalanceTimeout ||
				!slices.Equal(g.Topics, l.Topics) || !slices.Equal(g.Assignment, l.Assignment) {
				t.Fatalf("group %s member %d replayed as %+v, live %+v", id, i, g, l)
			}
		}
	}
	if got, want := r.Offsets("g"), h.c.Offsets("g"); !slices.Equal(got, want) || len(got) != 2 || got[0].Offset != 9 {
		t.Fatalf("offsets replayed as %v, live %v", got, want)
	}
	// The loaded members' sessions run from the load: the silent ones go.
	r.HandleHeartbeat(h.now+testSession-time.Millisecond, 1, model.HeartbeatRequest{GroupID: "g", GenerationID: 1, MemberID: ids[1]})
	r.Expire(h.now + testSession)
	if v, _ := r.Group("g"); v.State != PreparingRebalance || len(v.Members) != 1 || v.Members[0].ID != ids[1] {
		t.Fatalf("after the loaded sessions expired: %+v", v)
	}
}

func TestTombstonesDeleteGroupsAndOffsets(t *testing.T) {
	c := NewCoordinator(Config{Group: testGroupConfig()})
	g := newClassicGroup("g")
	g.generation = 4
	for _, rec := range []model.Record{
		groupMetadataRecord(g),
		offsetCommitRecord("g", model.CommitOffset{TP: model.TP("t", 1), Offset: 5}, 0),
	} {
		if err := c.Replay(rec); err != nil {
			t.Fatal(err)
		}
		tomb := rec
		tomb.Value = ""
		if err := c.Replay(tomb); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := c.Group("g"); ok {
		t.Fatal("group survived its tombstone")
	}
	if _, ok := c.Offset("g", model.TP("t", 1)); ok {
		t.Fatal("offset survived its tombstone")
	}
	if err := c.Replay(model.Record{Key: "\x00\x09junk", Value: "x"}); err == nil {
		t.Fatal("an unknown record type replayed without error")
	}
	if err := c.Replay(model.Record{Key: "\x00\x01\x00"}); err == nil {
		t.Fatal("a truncated key replayed without error")
	}
}

func TestAPendingMemberIDHoldsTheJoinPhaseUntilItExpires(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 1)
	// A new member is told its id but does not come back.
	h.join(2, joinReq("g", "", "", "t"))
	one[model.JoinGroupResponse](h, 2)
	// The existing leader rejoins: the phase waits for the pending id.
	h.join(1, joinReq("g", ids[1], "", "t"))
	h.none(1)
	h.advance(testSession)
	if r := one[model.JoinGroupResponse](h, 1); r.GenerationID != 2 || len(r.Members) != 1 {
		t.Fatalf("join after the pending id expired: %v", r)
	}
	if v := h.group("g"); len(v.Pending) != 0 {
		t.Fatalf("pending ids left: %v", v.Pending)
	}
}

func TestMembersThatDoNotSyncAreRemoved(t *testing.T) {
	h := newHarness(t)
	ids := map[model.BrokerID]string{1: h.joinDynamic(1, "g", "t"), 2: h.joinDynamic(2, "g", "t")}
	h.advance(2 * testGroupConfig().InitialRebalanceDelay) // the second member extended the delay
	one[model.JoinGroupResponse](h, 1)
	one[model.JoinGroupResponse](h, 2)
	h.sync(1, "g", 1, ids[1], "", model.MemberAssignment{MemberID: ids[1]})
	h.commit()
	one[model.SyncGroupResponse](h, 1)
	for range testRebalance / (3 * time.Second) {
		h.advance(3 * time.Second)
		h.heartbeat(1, "g", 1, ids[1], "")
	}
	v := h.group("g")
	if v.State != PreparingRebalance || len(v.Members) != 1 || v.Members[0].ID != ids[1] {
		t.Fatalf("after the sync deadline: %+v", v)
	}
}

func TestCloseAnswersParkedMembersNotCoordinator(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 2)
	h.join(1, joinReq("g", ids[1], "", "t", "u"))
	h.commitOffsets(2, "g", 1, ids[2], model.CommitOffset{TP: model.TP("t", 1), Offset: 1})
	h.take(h.c.Close(h.now))
	if r := one[model.JoinGroupResponse](h, 1); r.Error != model.NotCoordinator {
		t.Fatalf("parked join: %v", r)
	}
	if r := one[model.OffsetCommitResponse](h, 2); r.Results[0].Error != model.NotCoordinator {
		t.Fatalf("pending commit: %v", r)
	}
	if v := h.group("g"); v.State != Dead {
		t.Fatalf("state %s after close", v.State)
	}
}

func TestResponsesToADisconnectedClientAreDropped(t *testing.T) {
	h := newHarness(t)
	h.joinDynamic(1, "g", "t")
	h.c.ForgetPeer(1)
	h.advance(testGroupConfig().InitialRebalanceDelay)
	h.none(1)
	if v := h.group("g"); v.State != CompletingRebalance || len(v.Members) != 1 {
		t.Fatalf("the member stays until its session says otherwise: %+v", v)
	}
}

func TestProtocolIsTheOneMostMembersPrefer(t *testing.T) {
	h := newHarness(t)
	r1 := joinReq("g", "", "", "t")
	r1.Assignors = []model.Assignor{model.AssignRange, model.AssignRoundRobin}
	r2 := joinReq("g", "", "", "t")
	r2.Assignors = []model.Assignor{model.AssignRoundRobin, model.AssignRange}
	r3 := joinReq("g", "", "", "t")
	r3.Assignors = []model.Assignor{model.AssignRoundRobin, model.AssignSticky}
	for i, r := range []model.JoinGroupRequest{r1, r2, r3} {
		c := model.BrokerID(i + 1)
		h.join(c, r)
		r.MemberID = one[model.JoinGroupResponse](h, c).MemberID
		h.join(c, r)
	}
	h.advance(2 * testGroupConfig().InitialRebalanceDelay)
	if r := one[model.JoinGroupResponse](h, 1); r.Protocol != model.AssignRoundRobin {
		t.Fatalf("protocol %s, want roundrobin (two votes of three)", r.Protocol)
	}
}

func TestAStaticMemberRestartingDuringTheJoinPhaseKeepsItsPlace(t *testing.T) {
	h := newHarness(t)
	h.join(1, joinReq("g", "", "i1", "t"))
	h.join(2, joinReq("g", "", "i2", "t"))
	h.advance(time.Second)
	// Instance i1 restarts before the phase completes; its first JoinGroup
	// is fenced and the new one takes the same place.
	h.join(3, joinReq("g", "", "i1", "t"))
	if r := one[model.JoinGroupResponse](h, 1); r.Error != model.FencedInstanceID {
		t.Fatalf("the first incarnation's join: %v", r)
	}
	h.advance(2 * testGroupConfig().InitialRebalanceDelay)
	r3, r2 := one[model.JoinGroupResponse](h, 3), one[model.JoinGroupResponse](h, 2)
	if r3.Error != model.NoError || r2.Error != model.NoError || r3.GenerationID != 1 || len(r3.Members) != 2 || r3.LeaderID != r3.MemberID {
		t.Fatalf("responses %v / %v", r3, r2)
	}
}

func TestACommitKeepsTheSessionAliveLikeAHeartbeat(t *testing.T) {
	h := newHarness(t)
	ids := h.stableGroup("g", 1)
	for range 10 {
		h.advance(testSession - time.Second)
		if code := h.commitError(1, "g", 1, ids[1], ""); code != model.NoError {
			t.Fatalf("commit at %v: %v", h.now, code)
		}
	}
	if v := h.group("g"); v.State != Stable || len(v.Members) != 1 {
		t.Fatalf("a member that only commits was dropped: %+v", v)
	}
	h.advance(testSession)
	if v := h.group("g"); v.State == Stable {
		t.Fatalf("a silent member survived its session: %+v", v)
	}
}
