package client

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// tps lists t/0..t/n-1.
func tps(n int) []model.TopicPartition {
	out := make([]model.TopicPartition, n)
	for i := range out {
		out[i] = model.TP("t", int32(i))
	}
	return out
}

// sixPartitions creates topic t with six partitions led by broker 1, each
// holding a few records.
func sixPartitions(gw *groupWorld) {
	gw.c.topic("t", 1, 1, 1, 1, 1, 1)
	for _, tp := range tps(6) {
		gw.c.part(tp).appendValues(values(fmt.Sprintf("p%d-", tp.Partition), 0, 5)...)
	}
}

// A new dynamic member joins with no id, is told MEMBER_ID_REQUIRED with
// one, and joins again with it (KIP-394); it finds its coordinator after
// COORDINATOR_NOT_AVAILABLE answers, backing off between them. Alone in
// the group it leads, assigns itself everything, and records subscribe
// then one rebalance op that gains it all in generation 1.
func TestGroupJoinMemberIDRequired(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	sixPartitions(gw)
	gw.g.notAvailable = 2
	id := gw.member(cfg(t, "auto.offset.reset=earliest"), nil)
	gw.start(0, id)
	gw.run(3 * time.Second)

	finds := 0
	var findAt []time.Duration
	for _, r := range gw.c.received {
		if _, ok := r.msg.(model.FindCoordinatorRequest); ok {
			finds++
			findAt = append(findAt, r.at)
		}
	}
	if finds != 3 || findAt[2]-findAt[1] < findAt[1]-findAt[0] {
		t.Errorf("FindCoordinator at %v, want three, backing off (retry.backoff.ms growing)", findAt)
	}
	joins := groupRequests[model.JoinGroupRequest](gw.c)
	if len(joins) != 2 || joins[0].MemberID != "" || joins[1].MemberID != "m1" {
		t.Fatalf("joins %v, want one without a member id, then one with m1", joins)
	}
	j := joins[1]
	if !slices.Equal(j.Topics, []string{"t"}) || j.SessionTimeout != 45*time.Second || j.RebalanceTimeout != 300*time.Second ||
		!slices.Equal(j.Assignors, []model.Assignor{model.AssignRange, model.AssignCooperativeSticky}) {
		t.Errorf("join %v: want topics [t], session 45s, rebalance timeout = max.poll.interval.ms, assignors [range cooperative-sticky]", j)
	}
	syncs := groupRequests[model.SyncGroupRequest](gw.c)
	if len(syncs) != 1 || len(syncs[0].Assignments) != 1 || !slices.Equal(syncs[0].Assignments[0].Partitions, tps(6)) {
		t.Errorf("syncs %v, want the leader's assignment of all six partitions to itself", syncs)
	}
	c := gw.consumerAt(id)
	if c.MemberID() != "m1" || c.Generation() != 1 || !slices.Equal(c.Assignment(), tps(6)) {
		t.Errorf("member %q gen %d assignment %v", c.MemberID(), c.Generation(), c.Assignment())
	}
	h := gw.history()
	if h[0].F != model.FSubscribe || h[0].Group != "g" || !slices.Equal(h[0].Topics, []string{"t"}) {
		t.Errorf("first op %s, want subscribe g [t]", h[0].String())
	}
	rb := opsOf(h, int(id), model.FRebalance)
	if len(rb) != 1 || rb[0].Generation != 1 || !slices.Equal(rb[0].Gained, tps(6)) || len(rb[0].Lost) != 0 {
		t.Fatalf("rebalance ops %v, want one gaining all six in generation 1\n%s", rb, dump(h))
	}
	if got := gw.polled(model.TP("t", 3)); !slices.Equal(got, []string{"0=p3-0", "1=p3-1", "2=p3-2", "3=p3-3", "4=p3-4"}) {
		t.Errorf("polled t/3 %v", got)
	}
}

// Three members of a range group share six partitions two by two; the
// leader (the coordinator's first member) computed the assignment from
// every member's subscription, and no partition ever had two owners in
// the history, through the rebalances that each newcomer caused.
func TestGroupLeaderAssigns(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	sixPartitions(gw)
	var ids []sim.NodeID
	for i := 0; i < 3; i++ {
		ids = append(ids, gw.member(cfg(t, "auto.offset.reset=earliest", "partition.assignment.strategy=range"),
			func(o *ConsumerOptions) { o.Assignors = []model.Assignor{model.AssignRange} }))
	}
	for i, id := range ids {
		gw.start(time.Duration(i)*500*time.Millisecond, id)
	}
	gw.run(20 * time.Second)

	var union []model.TopicPartition
	for _, id := range ids {
		a := gw.consumerAt(id).Assignment()
		if len(a) != 2 {
			t.Errorf("member %v owns %v, want two partitions", id, a)
		}
		union = append(union, a...)
	}
	slices.SortFunc(union, model.TopicPartition.Compare)
	if !slices.Equal(union, tps(6)) {
		t.Errorf("assignments cover %v, want each of the six once", union)
	}
	var last model.SyncGroupRequest
	for _, s := range groupRequests[model.SyncGroupRequest](gw.c) {
		if len(s.Assignments) > 0 {
			last = s
		}
	}
	if last.MemberID != gw.g.leader || len(last.Assignments) != 3 || last.Assignments[0].MemberID != "m1" ||
		!slices.Equal(last.Assignments[0].Partitions, tps(2)) {
		t.Errorf("last leader sync %v (leader %s), want range's [t/0 t/1] for m1 first", last, gw.g.leader)
	}
	h := gw.history()
	if d := doubleOwner(h); d != "" {
		t.Errorf("%s\n%s", d, dump(h))
	}
	for _, id := range ids {
		if got := owned(h, int(id)); !slices.Equal(got, gw.consumerAt(id).Assignment()) {
			t.Errorf("history says %v owns %v, the consumer %v", id, got, gw.consumerAt(id).Assignment())
		}
	}
}

// Each heartbeat answer has its own consequence (AbstractCoordinator's
// HeartbeatResponseHandler): REBALANCE_IN_PROGRESS rejoins under the same
// member id (revoking first, eagerly); ILLEGAL_GENERATION loses the
// partitions and rejoins with the member id; UNKNOWN_MEMBER_ID loses them
// and rejoins without one; FENCED_INSTANCE_ID stops the static member for
// good; NOT_COORDINATOR looks the coordinator up again and keeps the
// partitions.
func TestGroupHeartbeatErrors(t *testing.T) {
	cases := []struct {
		code       model.ErrorCode
		static     bool
		lost       bool   // OnLost called
		revoked    bool   // OnRevoked called
		rejoinAs   string // member id of the next JoinGroup, "none" for no join
		finds      int    // FindCoordinator requests in all
		generation model.Epoch
	}{
		{code: model.RebalanceInProgress, revoked: true, rejoinAs: "m1", finds: 1, generation: 2},
		{code: model.IllegalGeneration, lost: true, rejoinAs: "m1", finds: 1, generation: 2},
		{code: model.UnknownMemberID, lost: true, rejoinAs: "", finds: 1, generation: 2},
		{code: model.FencedInstanceID, static: true, lost: true, rejoinAs: "none", finds: 1, generation: 1},
		{code: model.NotCoordinator, rejoinAs: "none", finds: 2, generation: 1},
	}
	for _, tc := range cases {
		t.Run(tc.code.String(), func(t *testing.T) {
			gw := newGroupTest(t, 2, 2)
			sixPartitions(gw)
			var lost, revoked [][]model.TopicPartition
			id := gw.member(cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s", "enable.auto.commit=false"), func(o *ConsumerOptions) {
				if tc.static {
					o.GroupInstanceID = "i1"
				}
				o.OnLost = func(_ *sim.Env, tps []model.TopicPartition) { lost = append(lost, tps) }
				o.OnRevoked = func(_ *sim.Env, tps []model.TopicPartition) { revoked = append(revoked, tps) }
			})
			gw.start(0, id)
			injected := false
			gw.g.inject = func(m sim.Message) (model.ErrorCode, bool) {
				if _, hb := m.(model.HeartbeatRequest); hb && gw.s.Now() > 4*time.Second && !injected {
					injected = true
					if tc.code == model.UnknownMemberID {
						delete(gw.g.members, "m1") // the coordinator forgot it
					}
					return tc.code, true
				}
				return model.NoError, false
			}
			gw.run(10 * time.Second)
			if !injected {
				t.Fatal("no heartbeat after 4s")
			}
			joins := groupRequests[model.JoinGroupRequest](gw.c)
			var after []model.JoinGroupRequest
			if len(joins) > 2 {
				after = joins[2:]
			}
			switch {
			case tc.rejoinAs == "none" && len(after) > 0:
				t.Errorf("joined again %v, want no join", after)
			case tc.rejoinAs != "none" && (len(after) == 0 || after[0].MemberID != tc.rejoinAs):
				t.Errorf("joins after the error %v, want the first with member id %q", after, tc.rejoinAs)
			}
			if (len(lost) > 0) != tc.lost || (len(revoked) > 0) != tc.revoked {
				t.Errorf("lost %v revoked %v, want lost %v revoked %v", lost, revoked, tc.lost, tc.revoked)
			}
			if n := len(groupRequests[model.FindCoordinatorRequest](gw.c)); n != tc.finds {
				t.Errorf("%d FindCoordinator, want %d", n, tc.finds)
			}
			c := gw.consumerAt(id)
			h := gw.history()
			rb := opsOf(h, int(id), model.FRebalance)
			if tc.lost || tc.revoked {
				if len(rb) < 2 || !slices.Equal(rb[1].Lost, tps(6)) || rb[1].Generation != 1 {
					t.Errorf("rebalance ops %v, want the second to drop all six in generation 1", rb)
				}
			} else if len(rb) != 1 {
				t.Errorf("rebalance ops %v, want only the first assignment", rb)
			}
			if c.Generation() != tc.generation && !(tc.code == model.FencedInstanceID && c.Generation() == noGeneration) {
				t.Errorf("generation %d, want %d", c.Generation(), tc.generation)
			}
			if tc.code == model.FencedInstanceID {
				var fails []model.Op
				for _, op := range opsOf(h, int(id), model.FPoll) {
					if op.Type == model.OpFail {
						fails = append(fails, op)
					}
				}
				if len(fails) != 1 || fails[0].Error != "FENCED_INSTANCE_ID" || len(c.Assignment()) != 0 {
					t.Errorf("failed polls %v, assignment %v: want one poll raising FENCED_INSTANCE_ID and nothing owned", fails, c.Assignment())
				}
				if n := len(groupRequests[model.HeartbeatRequest](gw.c)); gw.c.received[len(gw.c.received)-1].at < 5*time.Second && n == 0 {
					t.Error("no heartbeat at all")
				}
			}
		})
	}
}

// Eager: a member that must rejoin first commits what it consumed
// (auto-commit, onJoinPrepare), waits for the answer, revokes everything,
// and only then sends its JoinGroup; the history shows the commit, then
// the loss of all six partitions, then the new share.
func TestGroupEagerRevokesEverythingBeforeRejoin(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	sixPartitions(gw)
	var revokedAt []time.Duration
	conf := cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s", "auto.commit.interval.ms=1h")
	a := gw.member(conf, func(o *ConsumerOptions) {
		o.OnRevoked = func(env *sim.Env, tps []model.TopicPartition) { revokedAt = append(revokedAt, env.ObserverNow()) }
	})
	b := gw.member(conf, nil)
	gw.start(0, a)
	gw.start(5*time.Second, b)
	gw.run(15 * time.Second)

	h := gw.history()
	var commit, revoke model.Op
	for _, op := range h {
		if op.Process == int(a) && op.F == model.FCommit && commit.F == "" {
			commit = op
		}
		if op.Process == int(a) && op.F == model.FRebalance && len(op.Lost) > 0 && revoke.F == "" {
			revoke = op
		}
	}
	if commit.Type != model.OpOK || commit.Generation != 1 || len(commit.Offsets) != 6 || commit.Offsets[0].Offset != 5 {
		t.Fatalf("first commit %s, want ok in generation 1 with the six positions (5 each)\n%s", commit.String(), dump(h))
	}
	if !slices.Equal(revoke.Lost, tps(6)) || revoke.Time < commit.End || len(revokedAt) == 0 || revokedAt[0] != revoke.Time {
		t.Errorf("revocation %s (callback at %v), want all six, after the commit ended at %v", revoke.String(), revokedAt, commit.End)
	}
	var rejoin time.Duration
	for _, r := range gw.c.received {
		if j, ok := r.msg.(model.JoinGroupRequest); ok && j.MemberID == "m1" && r.at > 5*time.Second {
			rejoin = r.at
			if len(j.Owned) != 0 {
				t.Errorf("eager rejoin owns %v, want nothing", j.Owned)
			}
			break
		}
	}
	if rejoin == 0 || rejoin < revoke.Time {
		t.Errorf("rejoin at %v, revocation at %v: the JoinGroup must follow the revocation", rejoin, revoke.Time)
	}
	if len(gw.consumerAt(a).Assignment()) != 3 || len(gw.consumerAt(b).Assignment()) != 3 {
		t.Errorf("assignments %v %v, want three each", gw.consumerAt(a).Assignment(), gw.consumerAt(b).Assignment())
	}
	if d := doubleOwner(h); d != "" {
		t.Error(d)
	}
	if c := gw.g.committed[model.TP("t", 0)]; c.Offset != 5 || c.LeaderEpoch != 1 {
		t.Errorf("committed t/0 %v, want 5 with the leader epoch 1 of the record before it", c)
	}
}

// Cooperative (KIP-429): the member keeps fetching while it rejoins, then
// revokes only the partitions the new assignment leaves out and rejoins
// at once; the second rebalance gives them to the newcomer. The member
// never loses the partitions it keeps, and it polls them throughout.
func TestGroupCooperativeRevokesOnlyWhatMoves(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	sixPartitions(gw)
	conf := cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s", "partition.assignment.strategy=cooperative-sticky")
	var revokedA, assignedB [][]model.TopicPartition
	a := gw.member(conf, func(o *ConsumerOptions) {
		o.OnRevoked = func(_ *sim.Env, tps []model.TopicPartition) { revokedA = append(revokedA, tps) }
	})
	b := gw.member(conf, func(o *ConsumerOptions) {
		o.OnAssigned = func(_ *sim.Env, tps []model.TopicPartition) { assignedB = append(assignedB, tps) }
	})
	gw.start(0, a)
	gw.start(5*time.Second, b)
	for i := 1; i <= 80; i++ {
		i := i
		gw.at(time.Duration(i)*100*time.Millisecond, func() {
			for _, tp := range tps(6) {
				gw.c.part(tp).appendValues(fmt.Sprintf("p%d-x%d", tp.Partition, i))
			}
		})
	}
	gw.run(15 * time.Second)

	h := gw.history()
	ra := opsOf(h, int(a), model.FRebalance)
	rbOps := opsOf(h, int(b), model.FRebalance)
	if len(ra) != 2 || len(ra[1].Gained) != 0 || len(ra[1].Lost) != 3 || ra[1].Generation != 2 {
		t.Fatalf("a's rebalance ops %v, want the first gaining all six, the second revoking three in generation 2\n%s", ra, dump(h))
	}
	if len(rbOps) != 1 || !slices.Equal(rbOps[0].Gained, ra[1].Lost) || rbOps[0].Generation != 3 || rbOps[0].Time < ra[1].Time {
		t.Errorf("b's rebalance ops %v, want it to gain what a revoked, in generation 3, after", rbOps)
	}
	kept := gw.consumerAt(a).Assignment()
	if len(kept) != 3 {
		t.Fatalf("a kept %v", kept)
	}
	// onPartitionsRevoked only for what moved; onPartitionsAssigned after
	// every rebalance, empty in the first (Kafka calls it regardless).
	if len(revokedA) != 1 || !slices.Equal(revokedA[0], ra[1].Lost) {
		t.Errorf("a's OnRevoked calls %v, want one with %v", revokedA, ra[1].Lost)
	}
	if len(assignedB) != 2 || len(assignedB[0]) != 0 || !slices.Equal(assignedB[1], rbOps[0].Gained) {
		t.Errorf("b's OnAssigned calls %v, want [] then %v", assignedB, rbOps[0].Gained)
	}
	var joinsA []model.JoinGroupRequest
	for _, j := range groupRequests[model.JoinGroupRequest](gw.c) {
		if j.MemberID == "m1" {
			joinsA = append(joinsA, j)
		}
	}
	if len(joinsA) != 3 || !slices.Equal(joinsA[1].Owned, tps(6)) || !slices.Equal(joinsA[2].Owned, kept) {
		t.Errorf("a's joins %v, want the first, one owning all six, and the follow-up owning what it kept", joinsA)
	}
	// a polled a kept partition's records appended during the rebalance.
	tp := kept[0]
	polledDuring := false
	for _, op := range opsOf(h, int(a), model.FPoll) {
		for _, pr := range op.Records {
			if pr.TP == tp && op.Time > 5*time.Second && op.Time < rbOps[0].Time {
				polledDuring = true
			}
		}
	}
	if !polledDuring {
		t.Errorf("a did not poll %v during the rebalance", tp)
	}
	if d := doubleOwner(h); d != "" {
		t.Errorf("%s\n%s", d, dump(h))
	}
	// Nothing of a revoked partition was returned to a after its revocation.
	for _, op := range opsOf(h, int(a), model.FPoll) {
		for _, pr := range op.Records {
			if slices.Contains(ra[1].Lost, pr.TP) && op.Time >= ra[1].Time {
				t.Errorf("a polled revoked %v at %v", pr.TP, op.Time)
			}
		}
	}
}

// Every OffsetCommit is a commit op with the group, generation and next
// offsets: ok when accepted; fail with the error when the coordinator
// refused it (and ILLEGAL_GENERATION also loses the partitions); info when
// no answer came (request.timeout.ms).
func TestGroupCommitOps(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	gw.c.part(model.TP("t", 0)).appendValues(values("a", 0, 4)...)
	id := gw.member(cfg(t, "auto.offset.reset=earliest", "enable.auto.commit=false", "heartbeat.interval.ms=1s", "request.timeout.ms=5s"), nil)
	gw.start(0, id)
	gw.at(3*time.Second, func() { gw.consumerAt(id).Commit(nil) })
	gw.at(4*time.Second, func() {
		gw.g.inject = func(m sim.Message) (model.ErrorCode, bool) {
			if _, ok := m.(model.OffsetCommitRequest); ok {
				gw.g.inject = nil
				return model.IllegalGeneration, true
			}
			return model.NoError, false
		}
		gw.consumerAt(id).Commit(nil)
	})
	gw.at(8*time.Second, func() {
		gw.g.deaf[id] = true
		gw.consumerAt(id).Commit(nil)
	})
	gw.run(20 * time.Second)

	h := gw.history()
	commits := opsOf(h, int(id), model.FCommit)
	if len(commits) != 3 {
		t.Fatalf("commit ops %v, want three\n%s", commits, dump(h))
	}
	ok, bad, lost := commits[0], commits[1], commits[2]
	wantOffsets := []model.PartitionOffset{{TP: model.TP("t", 0), Offset: 4, From: model.NoOffset}, {TP: model.TP("t", 1), Offset: 0, From: model.NoOffset}}
	if ok.Type != model.OpOK || ok.Group != "g" || ok.Generation != 1 || !slices.Equal(ok.Offsets, wantOffsets) {
		t.Errorf("first commit %s, want ok g gen 1 %v", ok.String(), wantOffsets)
	}
	if bad.Type != model.OpFail || bad.Error != "ILLEGAL_GENERATION" {
		t.Errorf("second commit %s (%s), want fail ILLEGAL_GENERATION", bad.String(), bad.Error)
	}
	if rb := opsOf(h, int(id), model.FRebalance); len(rb) < 2 || len(rb[1].Lost) != 2 || rb[1].Time != bad.End {
		t.Errorf("rebalance ops %v, want the partitions lost when ILLEGAL_GENERATION came", rb)
	}
	if lost.Type != model.OpInfo || lost.Error != "timeout" || lost.End-lost.Time < 5*time.Second || lost.Generation != 2 {
		t.Errorf("third commit %s (%s), want info timeout after request.timeout.ms, generation 2", lost.String(), lost.Error)
	}
	if c := gw.g.committed[model.TP("t", 0)]; c.Offset != 4 {
		t.Errorf("committed %v, want only the first commit's 4", c)
	}
}

// A gained partition starts at its committed offset, validated against
// the leader first with the committed leader epoch (KIP-320), and without
// a reset op; a partition without one applies auto.offset.reset and says
// so in a reset op. A committed offset above the leader's log end for its
// epoch (the log was truncated since the commit) is caught by that
// validation.
func TestGroupPositionsFromCommittedOffsets(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1, 1)
	for i, tp := range tps(3) {
		gw.c.part(tp).appendValues(values(fmt.Sprintf("p%d-", i), 0, 10)...)
	}
	p2 := gw.c.part(model.TP("t", 2))
	p2.truncate(6)
	p2.epoch = 2
	p2.appendValues("p2-new6")
	gw.g.committed[model.TP("t", 0)] = model.CommitOffset{TP: model.TP("t", 0), Offset: 7, LeaderEpoch: 1}
	gw.g.committed[model.TP("t", 2)] = model.CommitOffset{TP: model.TP("t", 2), Offset: 9, LeaderEpoch: 1}
	id := gw.member(cfg(t, "auto.offset.reset=earliest"), nil)
	gw.start(0, id)
	gw.run(3 * time.Second)

	if got := gw.polled(model.TP("t", 0)); !slices.Equal(got, []string{"7=p0-7", "8=p0-8", "9=p0-9"}) {
		t.Errorf("polled t/0 %v, want from the committed 7", got)
	}
	if got := gw.polled(model.TP("t", 1)); len(got) != 10 {
		t.Errorf("polled t/1 %v, want all ten (earliest)", got)
	}
	if got := gw.polled(model.TP("t", 2)); !slices.Equal(got, []string{"6=p2-new6"}) {
		t.Errorf("polled t/2 %v, want from the truncation point 6", got)
	}
	resets := opsOf(gw.history(), int(id), model.FReset)
	want := []string{"t/1 -1->0 no-offset", "t/2 9->6 truncation"}
	var got []string
	for _, r := range resets {
		got = append(got, fmt.Sprintf("%s %d->%d %s", r.Offsets[0].TP, r.Offsets[0].From, r.Offsets[0].Offset, r.Error))
	}
	if !slices.Equal(got, want) {
		t.Errorf("resets %v, want %v", got, want)
	}
	validated := 0
	for _, r := range gw.c.received {
		if q, ok := r.msg.(model.OffsetsForLeaderEpochRequest); ok && q.Partitions[0].LeaderEpoch == 1 {
			validated++
		}
	}
	if validated != 2 {
		t.Errorf("%d validations with the committed epoch 1, want 2 (t/0 and t/2)", validated)
	}
}

// consumer.self.fencing: a member cut off from its coordinator but not
// from the partition leaders. With the switch on it drops its partitions
// no later than the coordinator expires it, and polls nothing of them
// afterwards, so the member that takes them over is never a second owner.
// Off, it is the classic zombie: it keeps polling after the coordinator
// gave its partitions away.
func TestGroupSelfFencing(t *testing.T) {
	for _, on := range []bool{true, false} {
		t.Run(fmt.Sprintf("self.fencing=%v", on), func(t *testing.T) {
			gw := newGroupTest(t, 2, 2) // coordinator b2, leaders b1
			gw.c.topic("t", 1, 1)
			conf := cfg(t, "auto.offset.reset=earliest", "session.timeout.ms=10s", "heartbeat.interval.ms=1s",
				fmt.Sprintf("consumer.self.fencing=%v", on))
			a := gw.member(conf, nil)
			b := gw.member(conf, nil)
			gw.start(0, a)
			gw.start(100*time.Millisecond, b)
			for i := 1; i <= 400; i++ {
				i := i
				gw.at(time.Duration(i)*100*time.Millisecond, func() {
					gw.c.part(model.TP("t", 0)).appendValues(fmt.Sprintf("x%d", i))
					gw.c.part(model.TP("t", 1)).appendValues(fmt.Sprintf("y%d", i))
				})
			}
			gw.at(10*time.Second, func() { gw.s.Cut(a, 2); gw.s.Cut(2, a) })
			gw.run(40 * time.Second)

			h := gw.history()
			if len(gw.g.expired) != 1 || gw.g.expired[0].id != "m1" {
				t.Fatalf("expired %v, want m1 (a)", gw.g.expired)
			}
			expiredAt := gw.g.expired[0].at
			var lastHB time.Duration
			for _, r := range gw.c.received {
				if hb, ok := r.msg.(model.HeartbeatRequest); ok && hb.MemberID == "m1" && r.at <= 10*time.Second {
					lastHB = r.at
				}
			}
			ra := opsOf(h, int(a), model.FRebalance)
			lastPoll := time.Duration(0)
			for _, op := range opsOf(h, int(a), model.FPoll) {
				lastPoll = op.Time
			}
			if len(gw.consumerAt(b).Assignment()) != 2 {
				t.Fatalf("b owns %v, want both after a expired", gw.consumerAt(b).Assignment())
			}
			if on {
				if len(ra) < 2 || len(ra[len(ra)-1].Lost) == 0 {
					t.Fatalf("a's rebalance ops %v, want a loss\n%s", ra, dump(h))
				}
				fence := ra[len(ra)-1].Time
				if fence > expiredAt || fence > lastHB+10*time.Second {
					t.Errorf("a fenced itself at %v, after the coordinator expired it at %v (last heartbeat received %v)", fence, expiredAt, lastHB)
				}
				if lastPoll > fence {
					t.Errorf("a polled at %v after fencing itself at %v", lastPoll, fence)
				}
				if d := doubleOwner(h); d != "" {
					t.Error(d)
				}
			} else {
				if last := ra[len(ra)-1]; last.Time > 10*time.Second || len(last.Gained) == 0 {
					t.Errorf("a's rebalance ops %v, want none after the cut", ra)
				}
				if lastPoll < expiredAt+5*time.Second {
					t.Errorf("a's last poll at %v, want it polling long after its expiry at %v (a zombie)", lastPoll, expiredAt)
				}
				if doubleOwner(h) == "" {
					t.Error("no partition with two owners: the zombie should overlap b")
				}
			}
		})
	}
}

// A graceful stop commits, revokes and sends LeaveGroup, so the others
// rebalance at once; a crashed member's restart subscribes again and
// resumes from the committed offsets; a static member does not leave.
func TestGroupStopLeavesAndRestartResumes(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	for i, tp := range tps(2) {
		gw.c.part(tp).appendValues(values(fmt.Sprintf("p%d-", i), 0, 5)...)
	}
	conf := cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s", "auto.commit.interval.ms=1s")
	a := gw.member(conf, nil)
	s := gw.member(conf, func(o *ConsumerOptions) { o.GroupInstanceID = "static" })
	gw.start(0, a)
	gw.start(0, s)
	gw.at(5*time.Second, func() { gw.s.Shutdown(a) })
	gw.at(8*time.Second, func() {
		gw.c.part(model.TP("t", 0)).appendValues("p0-5")
		gw.c.part(model.TP("t", 1)).appendValues("p1-5")
	})
	gw.at(10*time.Second, func() { gw.s.Crash(s) })
	gw.at(11*time.Second, func() { gw.s.Restart(s) })
	gw.run(30 * time.Second)

	leaves := groupRequests[model.LeaveGroupRequest](gw.c)
	if len(leaves) != 1 || leaves[0].MemberID == "" {
		t.Errorf("leaves %v, want one, from a (the static member never leaves)", leaves)
	}
	h := gw.history()
	ra := opsOf(h, int(a), model.FRebalance)
	if last := ra[len(ra)-1]; len(last.Lost) == 0 || last.Time != 5*time.Second {
		t.Errorf("a's last rebalance %s, want its partitions revoked at the stop", last.String())
	}
	subs := opsOf(h, int(s), model.FSubscribe)
	if len(subs) != 2 || subs[1].Time != 11*time.Second {
		t.Errorf("s subscribed %v, want again at its restart", subs)
	}
	// After the restart s reads only the records appended at 8s, which it
	// had polled but whose commit may not have gone out; nothing older.
	for _, op := range opsOf(h, int(s), model.FPoll) {
		if op.Time < 11*time.Second {
			continue
		}
		for _, pr := range op.Records {
			if pr.Records[0].Offset < 5 {
				t.Errorf("after the restart s polled %v from %d, want from the committed 5", pr.TP, pr.Records[0].Offset)
			}
		}
	}
	if d := doubleOwner(h); d != "" {
		t.Error(d)
	}
}

// A subscription change rejoins the group. A cooperative member first
// commits, then revokes only the partitions of the topic it dropped
// (onJoinPrepare), and keeps the others through the rebalance.
func TestGroupSubscribeChangeRejoins(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	gw.c.topic("u", 1, 1)
	id := gw.member(cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s", "partition.assignment.strategy=cooperative-sticky"),
		func(o *ConsumerOptions) { o.Topics = []string{"u", "t"} })
	gw.start(0, id)
	gw.at(5*time.Second, func() { gw.consumerAt(id).Subscribe(nil, []string{"t"}) })
	gw.run(10 * time.Second)

	h := gw.history()
	subs := opsOf(h, int(id), model.FSubscribe)
	if len(subs) != 2 || !slices.Equal(subs[0].Topics, []string{"t", "u"}) || !slices.Equal(subs[1].Topics, []string{"t"}) || subs[1].Group != "g" {
		t.Errorf("subscribe ops %v, want [t u] then [t] for group g", subs)
	}
	rb := opsOf(h, int(id), model.FRebalance)
	u := []model.TopicPartition{model.TP("u", 0), model.TP("u", 1)}
	if len(rb) != 2 || len(rb[0].Gained) != 4 || !slices.Equal(rb[1].Lost, u) || rb[1].Time < 5*time.Second || rb[1].Time > 5100*time.Millisecond || len(rb[1].Gained) != 0 {
		t.Fatalf("rebalance ops %v, want all four gained, then u's two revoked after the subscribe (and its commit)\n%s", rb, dump(h))
	}
	joins := groupRequests[model.JoinGroupRequest](gw.c)
	last := joins[len(joins)-1]
	if !slices.Equal(last.Topics, []string{"t"}) || !slices.Equal(last.Owned, tps(2)) {
		t.Errorf("last join %v, want topics [t] owning t/0 t/1", last)
	}
	if got := gw.consumerAt(id).Assignment(); !slices.Equal(got, tps(2)) || gw.consumerAt(id).Generation() != 2 {
		t.Errorf("assignment %v gen %d, want t's two partitions in generation 2", got, gw.consumerAt(id).Generation())
	}
}

// consumer.self.fencing through a long rebalance (cooperative, session
// 10s, rebalance timeout 20s). A member whose JoinGroup the coordinator
// holds for longer than a session keeps its partitions: its heartbeats,
// answered REBALANCE_IN_PROGRESS, show it is still counted (it may give
// them up, needlessly but safely, once the rebalance timeout has passed
// since the group was last known stable). A member whose
// JoinGroup was lost is dropped by the coordinator as a straggler at the
// rebalance timeout although it heartbeats; it gives its partitions up no
// later than that, so they never have two owners.
func TestGroupSelfFencingThroughLongRebalance(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	conf := cfg(t, "auto.offset.reset=earliest", "session.timeout.ms=10s", "heartbeat.interval.ms=1s",
		"max.poll.interval.ms=20s", "partition.assignment.strategy=cooperative-sticky", "consumer.self.fencing=true")
	a := gw.member(conf, nil)
	b := gw.member(conf, nil)
	c := gw.member(conf, nil)
	gw.start(0, a)
	gw.start(0, b)
	for i := 1; i <= 400; i++ {
		i := i
		gw.at(time.Duration(i)*100*time.Millisecond, func() {
			gw.c.part(model.TP("t", 0)).appendValues(fmt.Sprintf("x%d", i))
			gw.c.part(model.TP("t", 1)).appendValues(fmt.Sprintf("y%d", i))
		})
	}
	gw.at(4*time.Second, func() { gw.g.dropJoin[b] = true })
	gw.start(5*time.Second, c)
	gw.run(40 * time.Second)

	h := gw.history()
	if len(gw.g.expired) != 1 || gw.g.expired[0].id != "m2" {
		t.Fatalf("expired %v, want b (m2) dropped as a straggler\n%s", gw.g.expired, dump(h))
	}
	dropped := gw.g.expired[0].at
	if dropped < 24*time.Second {
		t.Fatalf("b dropped at %v, want after the 20s rebalance timeout", dropped)
	}
	// a's last heartbeat answered NONE went out at 4s or later; it may give
	// up at the rebalance timeout after that, not at the session timeout.
	for _, op := range opsOf(h, int(a), model.FRebalance) {
		if len(op.Lost) > 0 && op.Time < 24*time.Second {
			t.Errorf("a lost %v at %v while the coordinator held its JoinGroup", op.Lost, op.Time)
		}
	}
	rb := opsOf(h, int(b), model.FRebalance)
	if len(rb) < 2 || len(rb[1].Lost) != 1 || rb[1].Time > dropped {
		t.Errorf("b's rebalance ops %v, want its partition given up by %v", rb, dropped)
	}
	if d := doubleOwner(h); d != "" {
		t.Errorf("%s\n%s", d, dump(h))
	}
}

// A member paused past its session (a long GC pause) gives its partitions
// up the moment it runs again, before its first poll hands out anything:
// after the pause, the poll timer comes due before the wake-up that would
// otherwise notice the expired session.
func TestGroupSelfFencingAfterPause(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1)
	conf := cfg(t, "auto.offset.reset=earliest", "session.timeout.ms=10s", "heartbeat.interval.ms=1s", "consumer.self.fencing=true")
	a := gw.member(conf, nil)
	gw.start(0, a)
	for i := 1; i <= 300; i++ {
		i := i
		gw.at(time.Duration(i)*100*time.Millisecond, func() { gw.c.part(model.TP("t", 0)).appendValues(fmt.Sprintf("x%d", i)) })
	}
	gw.at(5*time.Second, func() { gw.s.Pause(a) })
	gw.at(25*time.Second, func() { gw.s.Resume(a) })
	gw.run(26 * time.Second)

	h := gw.history()
	rb := opsOf(h, int(a), model.FRebalance)
	if len(rb) < 2 || len(rb[1].Lost) != 1 || rb[1].Time != 25*time.Second {
		t.Fatalf("rebalance ops %v, want the partition lost at the resume\n%s", rb, dump(h))
	}
	for _, op := range opsOf(h, int(a), model.FPoll) {
		if op.Time >= 25*time.Second && op.Index < rb[1].Index {
			t.Errorf("%s: polled after the pause before giving the partition up", op.String())
		}
	}
}

// Subscribing to nothing unsubscribes: the member revokes everything and
// leaves at once; a later subscription joins anew under a new member id.
func TestGroupUnsubscribeLeaves(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	id := gw.member(cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s"), nil)
	gw.start(0, id)
	gw.at(3*time.Second, func() { gw.consumerAt(id).Subscribe(nil, nil) })
	gw.at(4*time.Second, func() {
		if n := len(gw.g.members); n != 0 {
			t.Errorf("the coordinator still has %d members a second after the unsubscribe", n)
		}
		gw.consumerAt(id).Subscribe(nil, []string{"t"})
	})
	gw.run(8 * time.Second)

	h := gw.history()
	rb := opsOf(h, int(id), model.FRebalance)
	if len(rb) != 3 || !slices.Equal(rb[1].Lost, tps(2)) || rb[1].Time != 3*time.Second || !slices.Equal(rb[2].Gained, tps(2)) {
		t.Fatalf("rebalance ops %v, want gained, all revoked at 3s, gained again\n%s", rb, dump(h))
	}
	if leaves := groupRequests[model.LeaveGroupRequest](gw.c); len(leaves) != 1 || leaves[0].MemberID != "m1" {
		t.Errorf("leaves %v, want one from m1", leaves)
	}
	if c := gw.consumerAt(id); c.MemberID() != "m2" || !slices.Equal(c.Assignment(), tps(2)) {
		t.Errorf("member %s owns %v, want m2 owning both", c.MemberID(), c.Assignment())
	}
}

// The leader assigns from its own metadata: a topic only another member
// subscribes to is unknown to it at first and gets no owner; once the
// leader's metadata has it, the leader rebalances and assigns it.
func TestGroupLeaderRebalancesOnNewMetadata(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	gw.c.topic("u", 1, 1)
	conf := cfg(t, "auto.offset.reset=earliest", "heartbeat.interval.ms=1s")
	a := gw.member(conf, nil)
	b := gw.member(conf, func(o *ConsumerOptions) { o.Topics = []string{"t", "u"} })
	gw.start(0, a)
	gw.start(time.Second, b)
	gw.run(10 * time.Second)

	h := gw.history()
	var first model.SyncGroupRequest
	for _, s := range groupRequests[model.SyncGroupRequest](gw.c) {
		if len(s.Assignments) == 2 {
			first = s
			break
		}
	}
	for _, as := range first.Assignments {
		for _, tp := range as.Partitions {
			if tp.Topic == "u" {
				t.Errorf("the leader's first two-member assignment %v has u, which it had no metadata for", first)
			}
		}
	}
	got := gw.consumerAt(b).Assignment()
	if !slices.Contains(got, model.TP("u", 0)) || !slices.Contains(got, model.TP("u", 1)) {
		t.Errorf("b owns %v, want u's partitions after the leader learned of u\n%s", got, dump(h))
	}
	if d := doubleOwner(h); d != "" {
		t.Error(d)
	}
}

// A coordinator that cannot complete rebalances (it answers every
// SyncGroup COORDINATOR_NOT_AVAILABLE, as one whose group metadata writes
// fail does) is retried with a growing backoff, not in a tight loop.
func TestGroupRetriableSyncErrorsBackOff(t *testing.T) {
	gw := newGroupTest(t, 2, 2)
	gw.c.topic("t", 1, 1)
	id := gw.member(cfg(t, "auto.offset.reset=earliest"), nil)
	gw.g.inject = func(m sim.Message) (model.ErrorCode, bool) {
		if _, ok := m.(model.SyncGroupRequest); ok {
			return model.CoordinatorNotAvailable, true
		}
		return model.NoError, false
	}
	gw.start(0, id)
	gw.run(20 * time.Second)

	var at []time.Duration
	for _, r := range gw.c.received {
		if _, ok := r.msg.(model.SyncGroupRequest); ok {
			at = append(at, r.at)
		}
	}
	if len(at) < 5 || len(at) > 30 {
		t.Fatalf("%d SyncGroups in 20s, want a handful (backing off to retry.backoff.max.ms)", len(at))
	}
	if gap := at[len(at)-1] - at[len(at)-2]; gap < 800*time.Millisecond {
		t.Errorf("last retries %v apart, want about retry.backoff.max.ms (1s)", gap)
	}
	if len(gw.consumerAt(id).Assignment()) != 0 {
		t.Error("assigned without a completed SyncGroup")
	}
}

// A member whose heartbeats go unanswered marks its coordinator unknown
// once session.timeout.ms has passed since the last answered one, as
// Kafka's heartbeat thread does (HeartbeatThread.run:
// heartbeat.sessionTimeoutExpired, markCoordinatorUnknown), long before
// the heartbeat's own request.timeout.ms (30 s); it looks for the
// coordinator again and keeps its partitions, as the classic consumer does.
func TestGroupSessionExpiryMarksTheCoordinatorUnknown(t *testing.T) {
	gw := newGroupTest(t, 2, 2) // coordinator b2, leaders b1
	gw.c.topic("t", 1, 1)
	conf := cfg(t, "auto.offset.reset=earliest", "session.timeout.ms=10s", "heartbeat.interval.ms=1s")
	a := gw.member(conf, nil)
	gw.start(0, a)
	gw.at(10*time.Second, func() { gw.g.deaf[a] = true })
	gw.run(25 * time.Second)

	var lastHB, find time.Duration
	for _, r := range gw.c.received {
		switch r.msg.(type) {
		case model.HeartbeatRequest:
			if r.at < 10*time.Second {
				lastHB = r.at
			}
		case model.FindCoordinatorRequest:
			if r.at > 10*time.Second && find == 0 {
				find = r.at
			}
		}
	}
	if lastHB == 0 {
		t.Fatal("no heartbeat was answered before the coordinator went deaf")
	}
	if find == 0 || find < lastHB+10*time.Second || find > lastHB+12*time.Second {
		t.Fatalf("the member looked for its coordinator again at %v, want within 2 s after its session, %v after the last answered heartbeat at %v", find, 10*time.Second, lastHB)
	}
	if got := gw.consumerAt(a).Assignment(); len(got) != 2 {
		t.Fatalf("the member owns %v after its session expired, want both partitions kept", got)
	}
}
