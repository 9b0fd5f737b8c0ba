package group

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/model"
)

// BenchmarkCoordinatorRebalance measures one full rebalance of a group of
// 10 members over 30 partitions in one shard: a member leaves, every other
// member rejoins, the leader syncs the assignment, its write commits, and
// every member gets its share. It reports rebalances per second.
func BenchmarkCoordinatorRebalance(b *testing.B) {
	const n = 10
	c := NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "m"})
	var now time.Duration
	ids := make([]string, n)
	var gen model.Epoch
	var writes []Write
	take := func(e Effects) []Reply {
		writes = append(writes, e.Writes...)
		return e.Replies
	}
	commit := func() []Reply {
		var out []Reply
		for len(writes) > 0 {
			w := writes[0]
			writes = writes[1:]
			out = append(out, take(c.WriteDone(now, w.ID, model.NoError))...)
		}
		return out
	}
	// rebalance rejoins members[from:] (each id, "" for a new one) and
	// syncs them, setting gen to the new generation.
	rebalance := func(from int) {
		// New members first: once every known member has rejoined, the
		// join phase completes without anyone still on the way.
		var replies []Reply
		for i := from; i < n; i++ {
			if ids[i] == "" {
				r := joinReq("g", "", "", "t")
				ids[i] = take(c.HandleJoinGroup(now, model.BrokerID(i), r))[0].Msg.(model.JoinGroupResponse).MemberID
				r.MemberID = ids[i]
				replies = append(replies, take(c.HandleJoinGroup(now, model.BrokerID(i), r))...)
			}
		}
		for i := from; i < n; i++ {
			if c.groups["g"].members[ids[i]].join == nil { // not parked already
				replies = append(replies, take(c.HandleJoinGroup(now, model.BrokerID(i), joinReq("g", ids[i], "", "t")))...)
			}
		}
		for len(replies) < n-from {
			now += time.Second
			replies = append(replies, take(c.Expire(now))...)
		}
		var leader model.JoinGroupResponse
		for _, r := range replies {
			if j := r.Msg.(model.JoinGroupResponse); len(j.Members) > 0 {
				leader = j
			}
		}
		gen = leader.GenerationID
		var ms []Member
		for _, m := range leader.Members {
			ms = append(ms, Member{ID: m.MemberID, Subscription: m.Topics})
		}
		a := Range{}.Assign(ms, map[string]int32{"t": 30})
		var assign []model.MemberAssignment
		for _, id := range a.Members() {
			assign = append(assign, model.MemberAssignment{MemberID: id, Partitions: a[id]})
		}
		for i := from; i < n; i++ {
			req := model.SyncGroupRequest{GroupID: "g", GenerationID: gen, MemberID: ids[i]}
			if ids[i] == leader.LeaderID {
				req.Assignments = assign
			}
			take(c.HandleSyncGroup(now, model.BrokerID(i), req))
		}
		if got := len(commit()); got != n-from {
			panic(fmt.Sprintf("%d sync answers, want %d", got, n-from))
		}
	}
	rebalance(0)
	b.ResetTimer()
	for range b.N {
		last := n - 1
		take(c.HandleLeaveGroup(now, model.BrokerID(last), model.LeaveGroupRequest{GroupID: "g", MemberID: ids[last]}))
		ids[last] = ""
		rebalance(0)
		if v, _ := c.Group("g"); v.State != Stable || v.Generation != gen {
			b.Fatalf("group %s gen %d", v.State, v.Generation)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rebalances/s")
}
