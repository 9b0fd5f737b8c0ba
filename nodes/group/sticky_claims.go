package group

import (
	"slices"

	"kafkasim/model"
)

// memberData is AbstractStickyAssignor.MemberData: the partitions a member
// says it had and the generation it had them in (-1 for none).
type memberData struct {
	partitions []model.TopicPartition
	generation model.Epoch
}

// stickyMemberData is StickyAssignor.memberData: an eager member has
// revoked everything by the time it joins, so its claim comes from the
// user data, its last assignment and that assignment's generation.
func stickyMemberData(m Member) memberData {
	return memberData{m.Assigned, m.AssignedGeneration}
}

// cooperativeMemberData is CooperativeStickyAssignor.memberData: the
// partitions the member still owns, with the subscription's generation
// (ConsumerProtocolSubscription v2+) or, from an older client, the
// generation kept in the user data.
func cooperativeMemberData(m Member) memberData {
	if m.Generation >= 0 {
		return memberData{m.Owned, m.Generation}
	}
	return memberData{m.Owned, m.AssignedGeneration}
}

// claims is what AbstractStickyAssignor.allSubscriptionsEqual learns while
// it walks the subscriptions.
type claims struct {
	equal bool // every member subscribes to the same topics
	// owned is consumerToOwnedPartitions: per member, the claims that
	// survive, in claim order.
	owned [][]int32
	// multi is partitionsWithMultiplePreviousOwners: partitions two members
	// of one generation both claimed.
	multi         map[int32]bool
	maxGeneration model.Epoch
	data          []memberData
}

// readClaims is allSubscriptionsEqual. A claim on a partition nobody can
// be assigned (its topic is not subscribed or has no metadata) is dropped.
// A partition claimed twice goes to the claim of the higher generation;
// claimed twice in one generation, it belongs to neither and is noted in
// multi. A claim that no one disputes stays whatever its generation.
// Members are walked in the order Kafka's HashMap of subscriptions walks
// them, which decides the rare three-way conflicts.
//
// Two things Kafka does are kept as it does them: the rival's generation
// is read from the subscription's own GenerationId field even where the
// member data took it from the user data (StickyAssignor), and the
// subscriptions are compared as topic lists, so a member whose list is
// empty while no list has been seen yet is not compared at all. One is
// not: a claim on a partition number beyond the topic's count, which
// Kafka would carry into its sorted-list arithmetic, is dropped.
func readClaims(p *problem, data []memberData) claims {
	c := claims{
		equal:         true,
		owned:         make([][]int32, len(p.members)),
		multi:         map[int32]bool{},
		maxGeneration: model.NoEpoch,
		data:          data,
	}
	owner := make([]int32, p.total)
	for i := range owner {
		owner[i] = -1
	}
	var first map[string]bool
	for _, i := range p.order {
		m := p.members[i]
		if len(first) == 0 {
			first = map[string]bool{}
			for _, t := range m.Subscription {
				first[t] = true
			}
		} else if c.equal && !sameTopics(m.Subscription, first) {
			c.equal = false
		}
		gen := data[i].generation
		c.maxGeneration = max(c.maxGeneration, gen)
		for _, tp := range data[i].partitions {
			pid, ok := p.pid(tp)
			if !ok {
				continue
			}
			other := owner[pid]
			if other < 0 {
				c.owned[i] = append(c.owned[i], pid)
				owner[pid] = int32(i)
				continue
			}
			otherGen := p.members[other].Generation
			switch {
			case gen == otherGen:
				c.multi[pid] = true
				c.owned[other] = removeID(c.owned[other], pid)
				owner[pid] = int32(i)
			case gen > otherGen:
				c.owned[i] = append(c.owned[i], pid)
				c.owned[other] = removeID(c.owned[other], pid)
				owner[pid] = int32(i)
			}
		}
	}
	return c
}

// sameTopics is Kafka's "same size and containsAll" comparison of a topic
// list with a set.
func sameTopics(topics []string, set map[string]bool) bool {
	if len(topics) != len(set) {
		return false
	}
	for _, t := range topics {
		if !set[t] {
			return false
		}
	}
	return true
}

// removeID removes the first occurrence of pid, as List.remove(Object).
func removeID(ids []int32, pid int32) []int32 {
	if i := slices.Index(ids, pid); i >= 0 {
		return slices.Delete(ids, i, i+1)
	}
	return ids
}
