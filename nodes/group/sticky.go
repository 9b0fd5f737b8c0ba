package group

import (
	"fmt"
	"slices"

	"kafkasim/model"
)

// Sticky is Kafka's StickyAssignor (KIP-54), for the eager protocol: the
// assignment is balanced and, within that, keeps as many of the members'
// current partitions as possible. Members still revoke everything before
// rejoining (eager), but they get most of it straight back.
type Sticky struct{}

func (Sticky) Name() string       { return string(model.AssignSticky) }
func (Sticky) Protocol() Protocol { return Eager }

func (Sticky) Assign(members []Member, partitions map[string]int32) Assignment {
	return StickyTarget(members, partitions)
}

// StickyTarget is the balanced, sticky assignment that both Sticky and
// CooperativeSticky aim for (AbstractStickyAssignor.assign).
//
// When every member subscribes to the same topics (the common case, and
// Kafka's constrainedAssign), the partition counts differ by at most one,
// and among such assignments the result keeps the largest possible number
// of owned partitions. The choices Kafka leaves to hash-map order are made
// by fixed rules instead: the extra partitions go to the earliest members
// in member order that can use them, a member over its quota keeps its
// lowest partitions, and free partitions fill members in member order, a
// contiguous run each. Those rules make the result canonical: if members
// then own any part of it that contains what they kept, StickyTarget
// returns the same assignment again, which is what lets a
// cooperative-sticky follow-up rebalance land on exactly the target of the
// first one.
//
// With different subscriptions (Kafka's generalAssign) it keeps every
// valid owned partition, hands each free one to the eligible member with
// the fewest, then moves partitions from a member to an eligible one with
// at least two fewer until no such move exists. That is a simplification of
// Kafka's balance loop: it reaches a state no single move improves, not
// necessarily Kafka's.
func StickyTarget(members []Member, partitions map[string]int32) Assignment {
	ms := sortedMembers(members)
	a := emptyAssignment(ms)
	if len(ms) == 0 {
		return a
	}
	owned := validClaims(ms, partitions)
	if identicalSubscriptions(ms, partitions) {
		constrainedAssign(ms, partitions, owned, a)
	} else {
		generalAssign(ms, partitions, owned, a)
	}
	for id, tps := range a {
		a[id] = sortTPs(tps)
	}
	return a
}

// validClaims returns, per member in ms order, the sorted owned partitions
// the assignor may keep. Like AbstractStickyAssignor it trusts only claims
// from the highest generation among the members that claim anything (an
// older generation's claims are stale: the partitions moved since), and a
// partition claimed by two members of that generation belongs to neither.
// A claim on a topic the member no longer subscribes to, or on a partition
// that does not exist, is dropped.
func validClaims(ms []Member, partitions map[string]int32) [][]model.TopicPartition {
	maxGen := model.NoEpoch
	for _, m := range ms {
		if len(m.Owned) > 0 && m.Generation > maxGen {
			maxGen = m.Generation
		}
	}
	claims := map[model.TopicPartition]int{}
	per := make([][]model.TopicPartition, len(ms))
	for i, m := range ms {
		if m.Generation != maxGen {
			continue
		}
		for _, tp := range m.Owned {
			n, ok := partitions[tp.Topic]
			if !ok || tp.Partition < 0 || tp.Partition >= n || !subscribes(m, tp.Topic) {
				continue
			}
			if !slices.Contains(per[i], tp) {
				per[i] = append(per[i], tp)
				claims[tp]++
			}
		}
	}
	for i := range per {
		per[i] = slices.DeleteFunc(per[i], func(tp model.TopicPartition) bool { return claims[tp] > 1 })
		sortTPs(per[i])
	}
	return per
}

// identicalSubscriptions reports whether every member subscribes to the
// same set of existing topics.
func identicalSubscriptions(ms []Member, partitions map[string]int32) bool {
	first := subscribedTopics(ms[:1], partitions)
	for _, m := range ms[1:] {
		if !slices.Equal(first, subscribedTopics([]Member{m}, partitions)) {
			return false
		}
	}
	return true
}

// constrainedAssign fills a for identical subscriptions.
func constrainedAssign(ms []Member, partitions map[string]int32, owned [][]model.TopicPartition, a Assignment) {
	all := allPartitions(subscribedTopics(ms, partitions), partitions)
	c := len(ms)
	minQuota, extra := len(all)/c, len(all)%c

	// Quotas: extra members get minQuota+1. Giving one to a member that
	// owns at least that many keeps one more partition, so those come
	// first, in member order; any left go to the earliest other members.
	quota := make([]int, c)
	for i := range quota {
		quota[i] = minQuota
	}
	left := extra
	for i := range ms {
		if left > 0 && len(owned[i]) > minQuota {
			quota[i]++
			left--
		}
	}
	for i := range ms {
		if left > 0 && quota[i] == minQuota {
			quota[i]++
			left--
		}
	}

	taken := map[model.TopicPartition]bool{}
	for i, m := range ms {
		keep := owned[i][:min(len(owned[i]), quota[i])]
		a[m.ID] = append(a[m.ID], keep...)
		for _, tp := range keep {
			taken[tp] = true
		}
	}
	free := slices.DeleteFunc(all, func(tp model.TopicPartition) bool { return taken[tp] })
	for i, m := range ms {
		n := quota[i] - len(a[m.ID])
		a[m.ID] = append(a[m.ID], free[:n]...)
		free = free[n:]
	}
	if len(free) != 0 {
		panic(fmt.Sprintf("group: %d partitions left after filling quotas", len(free)))
	}
}

// generalAssign fills a for different subscriptions.
func generalAssign(ms []Member, partitions map[string]int32, owned [][]model.TopicPartition, a Assignment) {
	all := allPartitions(subscribedTopics(ms, partitions), partitions)
	kept := map[model.TopicPartition]bool{}
	for i, m := range ms {
		a[m.ID] = append(a[m.ID], owned[i]...)
		for _, tp := range owned[i] {
			kept[tp] = true
		}
	}
	// fewest returns the index of the member with the fewest partitions
	// among those subscribed to topic, earliest in member order on ties,
	// or -1.
	fewest := func(topic string) int {
		best := -1
		for i, m := range ms {
			if subscribes(m, topic) && (best < 0 || len(a[m.ID]) < len(a[ms[best].ID])) {
				best = i
			}
		}
		return best
	}
	for _, tp := range all {
		if !kept[tp] {
			i := fewest(tp.Topic)
			a[ms[i].ID] = append(a[ms[i].ID], tp)
		}
	}
	// Each move lowers the sum of squared counts by at least 2, so the
	// loop ends; the bound turns a bug into a panic, not a hang.
	for moves := 0; ; moves++ {
		if moves > len(all)*len(all)+1 {
			panic("group: sticky balance loop did not settle")
		}
		if !moveOne(ms, a, kept, fewest) {
			return
		}
	}
}

// moveOne makes one balancing move, if there is one: from the fullest
// member that has a partition some eligible member with at least two fewer
// could take. Partitions the member did not own before go first, to keep
// what it owned.
func moveOne(ms []Member, a Assignment, kept map[model.TopicPartition]bool, fewest func(string) int) bool {
	order := slices.Clone(ms)
	slices.SortStableFunc(order, func(x, y Member) int { return len(a[y.ID]) - len(a[x.ID]) })
	for _, from := range order {
		tps := sortTPs(slices.Clone(a[from.ID]))
		slices.SortStableFunc(tps, func(x, y model.TopicPartition) int { return boolInt(kept[x]) - boolInt(kept[y]) })
		for _, tp := range tps {
			to := fewest(tp.Topic)
			if len(a[ms[to].ID]) < len(a[from.ID])-1 {
				a[from.ID] = slices.DeleteFunc(a[from.ID], func(x model.TopicPartition) bool { return x == tp })
				a[ms[to].ID] = append(a[ms[to].ID], tp)
				return true
			}
		}
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
