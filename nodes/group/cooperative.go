package group

import "kafkasim/model"

// CooperativeSticky is Kafka's CooperativeStickyAssignor (KIP-429): the
// same target as Sticky, but members keep their partitions while the group
// rebalances, so a partition that moves between two members must never be
// given to the new one while the old one may still be reading it. This
// rebalance therefore withholds it (the old owner, not finding it in its
// assignment, revokes it); the old owner then rejoins, and the follow-up
// rebalance, in which nobody owns it, assigns it.
type CooperativeSticky struct{}

func (CooperativeSticky) Name() string       { return string(model.AssignCooperativeSticky) }
func (CooperativeSticky) Protocol() Protocol { return Cooperative }

// Assign returns this round's assignment: CooperativeRound of the sticky
// target. Whether a follow-up is needed is visible to each member as a
// revoked partition; CooperativeRound also returns it directly.
func (CooperativeSticky) Assign(members []Member, partitions map[string]int32) Assignment {
	a, _ := CooperativeRound(StickyTarget(members, partitions), members)
	return a
}

// CooperativeRound turns a target assignment into the assignment for this
// rebalance (CooperativeStickyAssignor.adjustAssignment): every partition
// the target gives to a member while another member owns it now is left
// out, and followUp reports whether any was, that is whether the group
// needs another rebalance once the owners have revoked.
//
// Ownership here is every member's Owned list as reported, whatever its
// generation: a stale claim may be wrong about who should own a partition,
// but the member may still be reading it, so it is treated as owned. That
// is what guarantees no partition ever has two owners.
func CooperativeRound(target Assignment, members []Member) (round Assignment, followUp bool) {
	owners := map[model.TopicPartition][]string{}
	for _, m := range sortedMembers(members) {
		for _, tp := range m.Owned {
			owners[tp] = append(owners[tp], m.ID)
		}
	}
	round = Assignment{}
	for _, id := range target.Members() {
		round[id] = []model.TopicPartition{}
		for _, tp := range target[id] {
			if ownedByOther(owners[tp], id) {
				followUp = true
				continue
			}
			round[id] = append(round[id], tp)
		}
	}
	return round, followUp
}

func ownedByOther(owners []string, id string) bool {
	for _, o := range owners {
		if o != id {
			return true
		}
	}
	return false
}
