package client

import (
	"cmp"
	"slices"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// The rebalance as a member sees it, after Kafka's ConsumerCoordinator
// (onJoinPrepare, onLeaderElected, onJoinComplete) and KIP-429:
//
//   - eager (range, roundrobin, sticky, or a list with any of them): before
//     rejoining, commit (with auto-commit) and revoke every partition; the
//     new assignment is all gained;
//   - cooperative (cooperative-sticky only): keep fetching what the member
//     owns while it rejoins; after SyncGroup revoke only what the new
//     assignment leaves out, and if anything was revoked rejoin at once, so
//     that the second rebalance gives it to its new owner.
//
// Every change of ownership is a rebalance op, recorded at the instant it
// takes effect: lost and revoked partitions when the member stops reading
// them, gained ones when it takes the assignment. The callbacks run at the
// same instants, a revocation's before the partitions go (so it can still
// commit them), an assignment's after they come.

// prepareJoin is onJoinPrepare, run once per rebalance before the first
// JoinGroup. With auto-commit a member in a generation first commits what
// it consumed and waits for the answer (Kafka waits up to the rebalance
// timeout; here a request timeout bounds it); an eager member returns no
// records meanwhile (maybeMarkPartitionsPendingRevocation). Then it revokes
// everything (eager) or the partitions of topics it no longer subscribes to
// (cooperative). It reports whether the JoinGroup may go.
func (m *member) prepareJoin(env *sim.Env) bool {
	if m.prepared {
		return true
	}
	if m.cfg.AutoCommit && m.generation != noGeneration && m.phase == phaseStable && !m.prepDone {
		if m.prepCommit != 0 || len(m.commits) > 0 {
			return false // wait for the commits in flight
		}
		if m.commitPositions(env, true) {
			m.prepCommit = m.commits[len(m.commits)-1].corr
			return false
		}
	}
	m.prepared = true
	m.prepCommit = 0
	if len(m.subs.owned()) == 0 {
		return true
	}
	switch {
	case m.generation == noGeneration || m.memberID == "":
		m.losePartitions(env)
	case !m.cooperative:
		m.revokePartitions(env, slices.Clone(m.subs.owned()))
	default:
		var gone []model.TopicPartition
		for _, tp := range m.subs.owned() {
			if _, sub := slices.BinarySearch(m.topics, tp.Topic); !sub {
				gone = append(gone, tp)
			}
		}
		m.revokePartitions(env, gone)
	}
	return true
}

// pollsPaused reports whether poll must return nothing: an eager member
// waiting for its onJoinPrepare commit, whose partitions are about to be
// revoked, hands out no more records that the commit would not cover.
func (m *member) pollsPaused() bool {
	return !m.cooperative && m.prepCommit != 0
}

// leaderAssign is onLeaderElected: the leader runs the assignor the
// coordinator chose over every member's subscription and owned partitions,
// with the partition counts its own metadata knows. A topic without
// metadata is skipped, as Kafka's leader skips it; the leader then watches
// the metadata of every topic the group subscribes to, and asks for a new
// rebalance when a count it assigned from changes (a topic it did not know
// appears, partitions are added), as ConsumerCoordinator does with its
// assignment and metadata snapshots.
func (m *member) leaderAssign(r model.JoinGroupResponse) []model.MemberAssignment {
	// The coordinator picks among the members' own assignors; an unknown
	// name is a coordinator bug, and nobody gets anything rather than a
	// guess.
	a, ok := group.ByName(r.Protocol)
	members := make([]group.Member, len(r.Members))
	counts := map[string]int32{}
	var topics []string
	for i, gm := range r.Members {
		members[i] = group.Member{
			ID: gm.MemberID, InstanceID: gm.GroupInstanceID, Subscription: gm.Topics, Owned: gm.Owned,
			Generation: gm.GenerationID, RackID: gm.RackID,
			Assigned: gm.Assigned, AssignedGeneration: gm.AssignedGeneration,
		}
		topics = append(topics, gm.Topics...)
		for _, t := range gm.Topics {
			if n, known := m.md.partitions(t); known {
				counts[t] = n
			}
		}
	}
	slices.Sort(topics)
	m.groupTopics = slices.Compact(topics)
	m.assignedCounts = m.topicCounts(m.groupTopics)
	m.subs.setInterest()
	var as group.Assignment
	if ok {
		as = a.Assign(members, counts)
	}
	out := make([]model.MemberAssignment, 0, len(members))
	for _, gm := range r.Members {
		out = append(out, model.MemberAssignment{MemberID: gm.MemberID, Partitions: slices.Clone(as[gm.MemberID])})
	}
	slices.SortFunc(out, func(x, y model.MemberAssignment) int { return cmp.Compare(x.MemberID, y.MemberID) })
	return out
}

// topicCounts is the partition count of each topic, -1 when unknown.
func (m *member) topicCounts(topics []string) []int32 {
	out := make([]int32, len(topics))
	for i, t := range topics {
		out[i] = -1
		if n, known := m.md.partitions(t); known {
			out[i] = n
		}
	}
	return out
}

// leaderMetadataChanged reports whether the leader's metadata now gives
// other partition counts than those it last assigned from.
func (m *member) leaderMetadataChanged() bool {
	return m.assignedCounts != nil && !slices.Equal(m.assignedCounts, m.topicCounts(m.groupTopics))
}

// takeAssignment is onJoinComplete: the member's share of the new
// generation. An eager member owns nothing at this point, so all of it is
// gained; a cooperative one revokes what it owned and did not get back,
// and asks for the follow-up rebalance if it revoked anything.
func (m *member) takeAssignment(env *sim.Env, tps []model.TopicPartition) {
	tps = slices.Clone(tps)
	slices.SortFunc(tps, model.TopicPartition.Compare)
	tps = slices.Compact(tps)
	// The sticky assignors' onAssignment: remember it, with its
	// generation, for the next subscription's user data.
	m.assigned, m.assignedGen = append([]model.TopicPartition{}, tps...), m.generation
	var revoked, added []model.TopicPartition
	for _, tp := range m.subs.owned() {
		if _, keep := slices.BinarySearchFunc(tps, tp, model.TopicPartition.Compare); !keep {
			revoked = append(revoked, tp)
		}
	}
	for _, tp := range tps {
		if _, had := slices.BinarySearchFunc(m.subs.owned(), tp, model.TopicPartition.Compare); !had {
			added = append(added, tp)
		}
	}
	if len(revoked) > 0 && m.onRevoked != nil {
		m.onRevoked(env, slices.Clone(revoked))
	}
	m.recordRebalance(env, added, revoked)
	m.subs.setAssignment(env, tps)
	if m.onAssigned != nil {
		m.onAssigned(env, slices.Clone(added))
	}
	if len(revoked) > 0 && m.cooperative {
		m.rejoin = true
	}
}

// revokePartitions gives up tps in an orderly way (onPartitionsRevoked):
// the callback first, while the member still owns them, then it stops
// fetching them.
func (m *member) revokePartitions(env *sim.Env, tps []model.TopicPartition) {
	if len(tps) == 0 {
		return
	}
	if m.onRevoked != nil {
		m.onRevoked(env, slices.Clone(tps))
	}
	m.dropPartitions(env, tps)
}

// losePartitions gives up everything the member owns because it may
// already belong to someone else (onPartitionsLost): no commit is
// possible any more.
func (m *member) losePartitions(env *sim.Env) {
	if len(m.subs.owned()) == 0 {
		return
	}
	tps := slices.Clone(m.subs.owned())
	if m.onLost != nil {
		m.onLost(env, slices.Clone(tps))
	}
	m.dropPartitions(env, tps)
}

// dropPartitions records the loss of tps and stops fetching them; records
// buffered for them are dropped with their state.
func (m *member) dropPartitions(env *sim.Env, tps []model.TopicPartition) {
	m.recordRebalance(env, nil, tps)
	var keep []model.TopicPartition
	for _, tp := range m.subs.owned() {
		if !slices.Contains(tps, tp) {
			keep = append(keep, tp)
		}
	}
	m.subs.setAssignment(env, keep)
}

// recordRebalance records one change of ownership in the member's current
// generation; nothing when nothing changed.
func (m *member) recordRebalance(env *sim.Env, gained, lost []model.TopicPartition) {
	if m.rec == nil || (len(gained) == 0 && len(lost) == 0) {
		return
	}
	m.rec.Event(model.Op{
		Process: m.process, F: model.FRebalance, Time: env.ObserverNow(),
		Group: m.group, Generation: m.generation,
		Gained: slices.Clone(gained), Lost: slices.Clone(lost),
	})
}
