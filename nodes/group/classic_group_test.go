package group

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// The cases of Kafka's ClassicGroupTest, run against classicGroup and the
// coordinator's group-level steps with Kafka's inputs. Kafka's
// ClassicGroup completes response futures itself; here a parked request
// is a member's join or sync, and the coordinator answers it, so the tests
// that complete futures read the coordinator's replies. Where Kafka throws
// IllegalStateException or IllegalArgumentException for a coordinator bug,
// kafkasim panics.

const (
	kMemberID   = "memberId"
	kInstanceID = "groupInstanceId"
	kClient     = model.BrokerID(7) // the client a parked request came from
)

// groupUnderTest is a coordinator with one Empty group, "groupId", ready
// to take group-level steps (its effects collect in c.out).
func groupUnderTest() (*Coordinator, *classicGroup) {
	c := NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "m"})
	c.begin(0)
	g := newClassicGroup("groupId")
	c.groups[g.id] = g
	return c, g
}

// kmember is a member as Kafka's test builds one: rebalance timeout 60 s,
// session timeout 10 s, the given assignors in preference order.
func kmember(id, instance string, assignors ...model.Assignor) *member {
	return &member{id: id, instanceID: instance, rebalanceTimeout: 60 * time.Second, sessionTimeout: 10 * time.Second, assignors: assignors}
}

// awaitingJoin gives m a parked JoinGroup (Kafka: added with a join
// future).
func awaitingJoin(m *member, corr int32) *member {
	m.join = &parked{to: kClient, corr: corr}
	return m
}

// mustPanic runs f and fails unless it panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s did not panic", what)
		}
	}()
	f()
}

// walk applies transitions in order.
func walk(c *Coordinator, g *classicGroup, states ...State) {
	for _, s := range states {
		c.transition(g, s)
	}
}

// TestClassicGroupTransitions covers Kafka's state-machine cases, one
// subtest per Kafka method. Every group starts Empty, as Kafka's test
// group does (some method names keep the older initial state, Stable).
//
// Kafka: ClassicGroupTest.testCanRebalanceWhenStable
// Kafka: ClassicGroupTest.testCanRebalanceWhenCompletingRebalance
// Kafka: ClassicGroupTest.testCannotRebalanceWhenPreparingRebalance
// Kafka: ClassicGroupTest.testCannotRebalanceWhenDead
// Kafka: ClassicGroupTest.testStableToPreparingRebalanceTransition
// Kafka: ClassicGroupTest.testStableToDeadTransition
// Kafka: ClassicGroupTest.testAwaitingRebalanceToPreparingRebalanceTransition
// Kafka: ClassicGroupTest.testPreparingRebalanceToDeadTransition
// Kafka: ClassicGroupTest.testPreparingRebalanceToEmptyTransition
// Kafka: ClassicGroupTest.testEmptyToDeadTransition
// Kafka: ClassicGroupTest.testAwaitingRebalanceToStableTransition
// Kafka: ClassicGroupTest.testDeadToDeadIllegalTransition
// Kafka: ClassicGroupTest.testEmptyToStableIllegalTransition
// Kafka: ClassicGroupTest.testStableToStableIllegalTransition
// Kafka: ClassicGroupTest.testEmptyToAwaitingRebalanceIllegalTransition
// Kafka: ClassicGroupTest.testPreparingRebalanceToPreparingRebalanceIllegalTransition
// Kafka: ClassicGroupTest.testPreparingRebalanceToStableIllegalTransition
// Kafka: ClassicGroupTest.testAwaitingRebalanceToAwaitingRebalanceIllegalTransition
// Kafka: ClassicGroupTest.testDeadToStableIllegalTransition
// Kafka: ClassicGroupTest.testDeadToPreparingRebalanceIllegalTransition
// Kafka: ClassicGroupTest.testDeadToAwaitingRebalanceIllegalTransition
func TestClassicGroupTransitions(t *testing.T) {
	const pr, cr, st, em, dead = PreparingRebalance, CompletingRebalance, Stable, Empty, Dead
	for _, c := range []struct {
		method string
		steps  []State
		can    bool
	}{
		{"testCanRebalanceWhenStable", nil, true},
		{"testCanRebalanceWhenCompletingRebalance", []State{pr, cr}, true},
		{"testCannotRebalanceWhenPreparingRebalance", []State{pr}, false},
		{"testCannotRebalanceWhenDead", []State{pr, em, dead}, false},
	} {
		t.Run(c.method, func(t *testing.T) {
			co, g := groupUnderTest()
			walk(co, g, c.steps...)
			if g.canRebalance() != c.can {
				t.Fatalf("canRebalance in %s = %v, want %v", g.state, !c.can, c.can)
			}
		})
	}
	// Legal paths: the group ends in the last state. Dead may be entered
	// again (testDeadToDeadIllegalTransition asserts it stays Dead).
	for _, c := range []struct {
		method string
		steps  []State
	}{
		{"testStableToPreparingRebalanceTransition", []State{pr}},
		{"testStableToDeadTransition", []State{dead}},
		{"testAwaitingRebalanceToPreparingRebalanceTransition", []State{pr, cr, pr}},
		{"testPreparingRebalanceToDeadTransition", []State{pr, dead}},
		{"testPreparingRebalanceToEmptyTransition", []State{pr, em}},
		{"testEmptyToDeadTransition", []State{pr, em, dead}},
		{"testAwaitingRebalanceToStableTransition", []State{pr, cr, st}},
		{"testDeadToDeadIllegalTransition", []State{pr, dead, dead}},
	} {
		t.Run(c.method, func(t *testing.T) {
			co, g := groupUnderTest()
			walk(co, g, c.steps...)
			if want := c.steps[len(c.steps)-1]; g.state != want {
				t.Fatalf("state %s, want %s", g.state, want)
			}
		})
	}
	// Illegal transitions panic and leave the state alone.
	for _, c := range []struct {
		method string
		before []State
		to     State
	}{
		{"testEmptyToStableIllegalTransition", nil, st},
		{"testStableToStableIllegalTransition", []State{pr, cr, st}, st},
		{"testEmptyToAwaitingRebalanceIllegalTransition", nil, cr},
		{"testPreparingRebalanceToPreparingRebalanceIllegalTransition", []State{pr}, pr},
		{"testPreparingRebalanceToStableIllegalTransition", []State{pr}, st},
		{"testAwaitingRebalanceToAwaitingRebalanceIllegalTransition", []State{pr, cr}, cr},
		{"testDeadToStableIllegalTransition", []State{pr, dead}, st},
		{"testDeadToPreparingRebalanceIllegalTransition", []State{pr, dead}, pr},
		{"testDeadToAwaitingRebalanceIllegalTransition", []State{pr, dead}, cr},
	} {
		t.Run(c.method, func(t *testing.T) {
			co, g := groupUnderTest()
			walk(co, g, c.before...)
			from := g.state
			mustPanic(t, fmt.Sprintf("%s -> %s", from, c.to), func() { co.transition(g, c.to) })
			if g.state != from {
				t.Fatalf("state %s after a refused transition, want %s", g.state, from)
			}
		})
	}
}

// Kafka: ClassicGroupTest.testSelectProtocol
func TestSelectProtocol(t *testing.T) {
	_, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRange, model.AssignRoundRobin))
	g.add(kmember("member2", "", model.AssignRoundRobin, model.AssignRange))
	// One vote each: Kafka allows either; kafkasim breaks the tie by the
	// first member's preference.
	if got := g.selectProtocol(); got != model.AssignRange && got != model.AssignRoundRobin {
		t.Fatalf("two members: %q", got)
	}
	g.add(kmember("member3", "", model.AssignRoundRobin, model.AssignRange))
	if got := g.selectProtocol(); got != model.AssignRoundRobin {
		t.Fatalf("three members: %q, want roundrobin (two votes of three)", got)
	}
}

// Kafka: ClassicGroupTest.testSelectProtocolRaisesIfNoMembers
func TestSelectProtocolRaisesIfNoMembers(t *testing.T) {
	_, g := groupUnderTest()
	mustPanic(t, "selectProtocol with no members", func() { g.selectProtocol() })
}

// Kafka: ClassicGroupTest.testSelectProtocolChoosesCompatibleProtocol
func TestSelectProtocolChoosesCompatibleProtocol(t *testing.T) {
	_, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRange, model.AssignRoundRobin))
	g.add(kmember("member2", "", model.AssignRoundRobin, "foo"))
	if got := g.selectProtocol(); got != model.AssignRoundRobin {
		t.Fatalf("got %q, want roundrobin, the only assignor both support", got)
	}
}

// TestSupportsProtocols: Kafka also checks the protocol type, which is
// always "consumer" in kafkasim.
//
// Kafka: ClassicGroupTest.testSupportsProtocols
func TestSupportsProtocols(t *testing.T) {
	c, g := groupUnderTest()
	if !g.supportsProtocols([]model.Assignor{model.AssignRange, model.AssignRoundRobin}) {
		t.Fatal("an empty group supports any assignors")
	}
	g.add(kmember(kMemberID, "", model.AssignRange, model.AssignRoundRobin))
	c.transition(g, PreparingRebalance)
	for _, tc := range []struct {
		assignors []model.Assignor
		want      bool
	}{
		{[]model.Assignor{model.AssignRoundRobin, "foo"}, true},
		{[]model.Assignor{model.AssignRange, "bar"}, true},
		{[]model.Assignor{"foo", "bar"}, false},
	} {
		if got := g.supportsProtocols(tc.assignors); got != tc.want {
			t.Errorf("supportsProtocols(%v) = %v, want %v", tc.assignors, got, tc.want)
		}
	}
}

// Kafka: ClassicGroupTest.testInitNextGeneration
func TestInitNextGeneration(t *testing.T) {
	c, g := groupUnderTest()
	c.transition(g, PreparingRebalance)
	g.add(awaitingJoin(kmember(kMemberID, "", model.AssignRoundRobin), 1))
	if g.generation != 0 || g.protocol != "" {
		t.Fatalf("before: generation %d protocol %q", g.generation, g.protocol)
	}
	c.initNextGeneration(g)
	if g.generation != 1 || g.protocol != model.AssignRoundRobin {
		t.Fatalf("after: generation %d protocol %q, want 1 roundrobin", g.generation, g.protocol)
	}
}

// Kafka: ClassicGroupTest.testInitNextGenerationEmptyGroup
func TestInitNextGenerationEmptyGroup(t *testing.T) {
	c, g := groupUnderTest()
	if g.state != Empty || g.generation != 0 || g.protocol != "" {
		t.Fatalf("new group: %s generation %d protocol %q", g.state, g.generation, g.protocol)
	}
	c.transition(g, PreparingRebalance)
	c.initNextGeneration(g)
	if g.generation != 1 || g.protocol != "" || g.state != Empty {
		t.Fatalf("after: %s generation %d protocol %q, want Empty 1 none", g.state, g.generation, g.protocol)
	}
}

// Kafka: ClassicGroupTest.testUpdateMember
func TestUpdateMember(t *testing.T) {
	c, g := groupUnderTest()
	m := kmember(kMemberID, "", model.AssignRoundRobin)
	g.add(m)
	c.updateMember(g, m, nil, model.JoinGroupRequest{
		GroupID: g.id, MemberID: kMemberID,
		Assignors:        []model.Assignor{model.AssignRange, model.AssignRoundRobin},
		RebalanceTimeout: 120 * time.Second, SessionTimeout: 20 * time.Second,
	})
	if g.rebalanceTimeout() != 120*time.Second || m.sessionTimeout != 20*time.Second ||
		!slices.Equal(m.assignors, []model.Assignor{model.AssignRange, model.AssignRoundRobin}) {
		t.Fatalf("group rebalance timeout %v, member session %v assignors %v", g.rebalanceTimeout(), m.sessionTimeout, m.assignors)
	}
}

// Kafka: ClassicGroupTest.testReplaceGroupInstanceWithNonExistingMember
func TestReplaceGroupInstanceWithNonExistingMember(t *testing.T) {
	_, g := groupUnderTest()
	mustPanic(t, "replacing a member that does not exist", func() { g.replaceStatic(kMemberID, "newMemberId") })
}

// TestReplaceGroupInstance: a static member parked in both JoinGroup and
// SyncGroup is replaced by a new member id. The new id leads and holds the
// instance, and both old requests are answered FENCED_INSTANCE_ID.
//
// Kafka: ClassicGroupTest.testReplaceGroupInstance
func TestReplaceGroupInstance(t *testing.T) {
	c, g := groupUnderTest()
	m := awaitingJoin(kmember(kMemberID, kInstanceID, model.AssignRoundRobin), 1)
	m.sync = &parked{to: kClient, corr: 2}
	g.add(m)
	if g.leader != kMemberID || g.static[kInstanceID] != kMemberID {
		t.Fatalf("before: leader %q, instance held by %q", g.leader, g.static[kInstanceID])
	}
	c.replaceStaticMember(g, kMemberID, "newMemberId", 8, model.JoinGroupRequest{
		GroupID: g.id, GroupInstanceID: kInstanceID, CorrelationID: 9,
		Assignors: []model.Assignor{model.AssignRoundRobin}, SessionTimeout: 10 * time.Second, RebalanceTimeout: 60 * time.Second,
	})
	if g.leader != "newMemberId" || g.static[kInstanceID] != "newMemberId" {
		t.Fatalf("after: leader %q, instance held by %q", g.leader, g.static[kInstanceID])
	}
	var join, sync int
	for _, r := range c.out.Replies {
		if r.To != kClient {
			continue
		}
		switch resp := r.Msg.(type) {
		case model.JoinGroupResponse:
			if resp.Error != model.FencedInstanceID || resp.CorrelationID != 1 || resp.MemberID != kMemberID {
				t.Errorf("old join answered %v", resp)
			}
			join++
		case model.SyncGroupResponse:
			if resp.Error != model.FencedInstanceID || resp.CorrelationID != 2 {
				t.Errorf("old sync answered %v", resp)
			}
			sync++
		}
	}
	if join != 1 || sync != 1 {
		t.Fatalf("the old incarnation got %d join and %d sync answers, want one each: %v", join, sync, c.out.Replies)
	}
}

// awaiting counts the members with a parked JoinGroup and with a parked
// SyncGroup (Kafka's numAwaitingJoinResponse and isAwaitingSync).
func awaiting(g *classicGroup) (joins, syncs int) {
	for _, m := range g.members {
		if m.join != nil {
			joins++
		}
		if m.sync != nil {
			syncs++
		}
	}
	return joins, syncs
}

// Kafka: ClassicGroupTest.testCompleteJoinFuture
func TestCompleteJoinFuture(t *testing.T) {
	c, g := groupUnderTest()
	m := awaitingJoin(kmember(kMemberID, "", model.AssignRoundRobin), 3)
	g.add(m)
	if !g.hasAllMembersJoined() {
		t.Fatal("the only member is parked in JoinGroup: all have joined")
	}
	c.completeJoin(m, model.JoinGroupResponse{MemberID: m.id, Error: model.NoError})
	if len(c.out.Replies) != 1 || c.out.Replies[0].To != kClient {
		t.Fatalf("replies %v, want one to the member's client", c.out.Replies)
	}
	resp := c.out.Replies[0].Msg.(model.JoinGroupResponse)
	if resp.Error != model.NoError || resp.MemberID != kMemberID || resp.CorrelationID != 3 {
		t.Fatalf("answer %v", resp)
	}
	if joins, _ := awaiting(g); joins != 0 || m.join != nil {
		t.Fatalf("%d members still await a join response", joins)
	}
}

// Kafka: ClassicGroupTest.testNotCompleteJoinFuture
func TestNotCompleteJoinFuture(t *testing.T) {
	c, g := groupUnderTest()
	m := kmember(kMemberID, "", model.AssignRoundRobin)
	g.add(m)
	c.completeJoin(m, model.JoinGroupResponse{MemberID: m.id})
	if len(c.out.Replies) != 0 || m.join != nil {
		t.Fatalf("a member with no parked join got %v", c.out.Replies)
	}
}

// Kafka: ClassicGroupTest.testCompleteSyncFuture
func TestCompleteSyncFuture(t *testing.T) {
	c, g := groupUnderTest()
	m := kmember(kMemberID, "", model.AssignRoundRobin)
	g.add(m)
	m.sync = &parked{to: kClient, corr: 4}
	c.completeSync(m, model.SyncGroupResponse{Error: model.NoError})
	if len(c.out.Replies) != 1 || c.out.Replies[0].Msg.(model.SyncGroupResponse).Error != model.NoError ||
		c.out.Replies[0].Msg.(model.SyncGroupResponse).CorrelationID != 4 {
		t.Fatalf("replies %v, want the member's SyncGroup answered NONE", c.out.Replies)
	}
	if joins, syncs := awaiting(g); joins != 0 || syncs != 0 {
		t.Fatalf("still awaiting: %d joins, %d syncs", joins, syncs)
	}
}

// Kafka: ClassicGroupTest.testNotCompleteSyncFuture
func TestNotCompleteSyncFuture(t *testing.T) {
	c, g := groupUnderTest()
	m := kmember(kMemberID, "", model.AssignRoundRobin)
	g.add(m)
	c.completeSync(m, model.SyncGroupResponse{})
	if len(c.out.Replies) != 0 || m.sync != nil {
		t.Fatalf("a member with no parked sync got %v", c.out.Replies)
	}
}

// Kafka: ClassicGroupTest.testCannotAddPendingMemberIfStable
func TestCannotAddPendingMemberIfStable(t *testing.T) {
	_, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRoundRobin))
	mustPanic(t, "a member id made pending while a member", func() { g.addPending(kMemberID, &deadline{}) })
}

// Kafka: ClassicGroupTest.testRemovalFromPendingAfterMemberIsStable
func TestRemovalFromPendingAfterMemberIsStable(t *testing.T) {
	_, g := groupUnderTest()
	g.addPending(kMemberID, &deadline{})
	if g.members[kMemberID] != nil || !g.isPending(kMemberID) {
		t.Fatal("a pending id is pending and not a member")
	}
	g.add(kmember(kMemberID, "", model.AssignRoundRobin))
	if g.members[kMemberID] == nil || g.isPending(kMemberID) {
		t.Fatal("once added, the id is a member and no longer pending")
	}
}

// Kafka: ClassicGroupTest.testRemovalFromPendingWhenMemberIsRemoved
func TestRemovalFromPendingWhenMemberIsRemoved(t *testing.T) {
	_, g := groupUnderTest()
	g.addPending(kMemberID, &deadline{})
	g.remove(kMemberID)
	if g.members[kMemberID] != nil || g.isPending(kMemberID) {
		t.Fatal("a removed pending id is neither a member nor pending")
	}
}

// Kafka: ClassicGroupTest.testCannotAddStaticMemberIfAlreadyPresent
func TestCannotAddStaticMemberIfAlreadyPresent(t *testing.T) {
	_, g := groupUnderTest()
	m := kmember(kMemberID, kInstanceID, model.AssignRoundRobin)
	g.add(m)
	if g.members[kMemberID] == nil || g.static[kInstanceID] != kMemberID {
		t.Fatal("the static member is a member and holds its instance")
	}
	mustPanic(t, "adding a static member twice", func() { g.add(m) })
}

// Kafka: ClassicGroupTest.testCannotAddPendingSyncOfUnknownMember
func TestCannotAddPendingSyncOfUnknownMember(t *testing.T) {
	_, g := groupUnderTest()
	mustPanic(t, "pending sync of an unknown member", func() { g.addPendingSync(kMemberID) })
}

// Kafka: ClassicGroupTest.testCannotRemovePendingSyncOfUnknownMember
func TestCannotRemovePendingSyncOfUnknownMember(t *testing.T) {
	_, g := groupUnderTest()
	mustPanic(t, "removing the pending sync of an unknown member", func() { g.removePendingSync(kMemberID) })
}

func pendingSyncs(g *classicGroup) []string {
	var ids []string
	for id := range g.pendingSync {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Kafka: ClassicGroupTest.testCanAddAndRemovePendingSyncMember
func TestCanAddAndRemovePendingSyncMember(t *testing.T) {
	_, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRoundRobin))
	g.addPendingSync(kMemberID)
	if got := pendingSyncs(g); !slices.Equal(got, []string{kMemberID}) {
		t.Fatalf("pending sync %v", got)
	}
	g.removePendingSync(kMemberID)
	if got := pendingSyncs(g); len(got) != 0 {
		t.Fatalf("pending sync %v after removal", got)
	}
}

// Kafka: ClassicGroupTest.testRemovalFromPendingSyncWhenMemberIsRemoved
func TestRemovalFromPendingSyncWhenMemberIsRemoved(t *testing.T) {
	_, g := groupUnderTest()
	g.add(kmember(kMemberID, kInstanceID, model.AssignRoundRobin))
	g.addPendingSync(kMemberID)
	g.remove(kMemberID)
	if got := pendingSyncs(g); len(got) != 0 {
		t.Fatalf("pending sync %v after the member left", got)
	}
}

// Kafka: ClassicGroupTest.testNewGenerationClearsPendingSyncMembers
func TestNewGenerationClearsPendingSyncMembers(t *testing.T) {
	c, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRoundRobin))
	c.transition(g, PreparingRebalance)
	g.addPendingSync(kMemberID)
	c.initNextGeneration(g)
	if got := pendingSyncs(g); len(got) != 0 {
		t.Fatalf("pending sync %v in the new generation", got)
	}
}

// Kafka: ClassicGroupTest.testElectNewJoinedLeader
func TestElectNewJoinedLeader(t *testing.T) {
	c, g := groupUnderTest()
	g.add(kmember(kMemberID, "", model.AssignRoundRobin))
	if g.leader != kMemberID {
		t.Fatalf("leader %q, want the first member", g.leader)
	}
	g.add(awaitingJoin(kmember("new-leader", "", model.AssignRoundRobin), 1))
	g.add(kmember("new-member", "", model.AssignRoundRobin))
	if !c.maybeElectNewJoinedLeader(g) || g.leader != "new-leader" {
		t.Fatalf("leader %q, want new-leader, the one member that rejoined", g.leader)
	}
}

// Kafka: ClassicGroupTest.testMaybeElectNewJoinedLeaderChooseExisting
func TestMaybeElectNewJoinedLeaderChooseExisting(t *testing.T) {
	c, g := groupUnderTest()
	g.add(awaitingJoin(kmember(kMemberID, "", model.AssignRoundRobin), 1))
	g.add(kmember("new-member", "", model.AssignRoundRobin))
	if !c.maybeElectNewJoinedLeader(g) || g.leader != kMemberID {
		t.Fatalf("leader %q, want %q, which rejoined", g.leader, kMemberID)
	}
}

// TestValidateOffsetCommit follows Kafka's case step by step, but for its
// transactional commit (TxnOffsetCommit), which kafkasim does not have.
// Kafka runs it for every OffsetCommit version, with the same answers.
//
// Kafka: ClassicGroupTest.testValidateOffsetCommit
func TestValidateOffsetCommit(t *testing.T) {
	c, g := groupUnderTest()
	check := func(step string, member, instance string, gen model.Epoch, want model.ErrorCode) {
		t.Helper()
		got := c.validateOffsetCommit(model.OffsetCommitRequest{GroupID: g.id, MemberID: member, GroupInstanceID: instance, GenerationID: gen})
		if got != want {
			t.Fatalf("%s: %v, want %v", step, got, want)
		}
	}
	check("admin commit to an empty group", "", "", -1, model.NoError)
	m := kmember("member-id", "instance-id", model.AssignRoundRobin)
	m.rebalanceTimeout, m.sessionTimeout = 100*time.Millisecond, 100*time.Millisecond
	g.add(m)
	c.transition(g, PreparingRebalance)
	c.initNextGeneration(g)
	check("no member, group not empty", "", "", -1, model.UnknownMemberID)
	check("unknown member", "unknown", "unknown", -1, model.UnknownMemberID)
	check("unknown instance", "member-id", "unknown", -1, model.UnknownMemberID)
	check("stale generation", "member-id", "instance-id", 0, model.IllegalGeneration)
	check("completing the rebalance", "member-id", "instance-id", 1, model.RebalanceInProgress)
	c.transition(g, Stable)
	check("stable", "member-id", "instance-id", 1, model.NoError)
	g.replaceStatic("member-id", "new-member-id")
	check("old incarnation", "member-id", "instance-id", 1, model.FencedInstanceID)
	g.remove("new-instance-id") // as in Kafka's test: no such member, nothing changes
	c.transition(g, Dead)
	check("dead group", "member-id", "new-instance-id", 1, model.CoordinatorNotAvailable)
}
