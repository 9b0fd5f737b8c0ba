package group

import (
	"slices"

	"kafkasim/model"
)

// CooperativeSticky is Kafka's CooperativeStickyAssignor (KIP-429): the
// sticky algorithm, but members keep their partitions while the group
// rebalances, so a partition that moves between two members must never be
// given to the new one while the old one may still be reading it. This
// rebalance therefore withholds it (the old owner, not finding it in its
// assignment, revokes it); the old owner then rejoins, and the follow-up
// rebalance, in which nobody owns it, assigns it. Each member's claim is
// what it owns now, with its generation (Member.Owned, Member.Generation).
type CooperativeSticky struct{}

func (CooperativeSticky) Name() string       { return string(model.AssignCooperativeSticky) }
func (CooperativeSticky) Protocol() Protocol { return Cooperative }

// Assign returns this round's assignment.
func (CooperativeSticky) Assign(members []Member, partitions map[string]int32) Assignment {
	return cooperativeAssign(members, partitions, stickyOptions{cooperative: true})
}

// AssignRacks is Assign with the partitions' replica racks (KIP-881).
func (CooperativeSticky) AssignRacks(members []Member, partitions map[string]int32, racks PartitionRacks) Assignment {
	return cooperativeAssign(members, partitions, stickyOptions{cooperative: true, racks: racks})
}

// cooperativeAssign is CooperativeStickyAssignor.assignPartitions: the
// sticky assignment less the partitions transferring ownership.
func cooperativeAssign(members []Member, partitions map[string]int32, opt stickyOptions) Assignment {
	r := stickyAssign(members, partitions, opt)
	transferring := r.transferring
	if r.general {
		transferring = transferringOwnership(r.assignment, members)
	}
	return withhold(r.assignment, transferring)
}

// transferringOwnership is computePartitionsTransferringOwnership, for the
// general path: a partition assigned to a member that did not own it while
// some member that owned it (by its own report, whatever its generation)
// is not assigned it. Each member's lists are compared sorted, so only the
// partitions that change hands are ever put in a map.
func transferringOwnership(a Assignment, members []Member) map[model.TopicPartition]string {
	revoked := map[model.TopicPartition]bool{}
	added := map[model.TopicPartition]string{}
	for _, m := range members {
		owned := slices.Clone(m.Owned)
		slices.SortFunc(owned, model.TopicPartition.Compare)
		got := a[m.ID] // sorted
		i, j := 0, 0
		for i < len(owned) || j < len(got) {
			switch {
			case j == len(got) || (i < len(owned) && owned[i].Compare(got[j]) < 0):
				revoked[owned[i]] = true
				i++
			case i == len(owned) || got[j].Compare(owned[i]) < 0:
				added[got[j]] = m.ID
				j++
			default:
				i++
				j++
			}
		}
	}
	out := map[model.TopicPartition]string{}
	for tp := range revoked {
		if id, ok := added[tp]; ok {
			out[tp] = id
		}
	}
	return out
}

// withhold is adjustAssignment: the assignment without the transferring
// partitions, each list still sorted.
func withhold(a Assignment, transferring map[model.TopicPartition]string) Assignment {
	if len(transferring) == 0 {
		return a
	}
	out := make(Assignment, len(a))
	for _, id := range a.Members() {
		kept := []model.TopicPartition{}
		for _, tp := range a[id] {
			if _, moving := transferring[tp]; !moving {
				kept = append(kept, tp)
			}
		}
		out[id] = kept
	}
	return out
}

// FollowUpNeeded reports whether a cooperative round revoked anything: a
// member owned a partition it was not given back. Kafka's member then
// rejoins at once (ConsumerCoordinator.onJoinComplete), and the follow-up
// rebalance assigns what was withheld.
func FollowUpNeeded(round Assignment, members []Member) bool {
	for _, m := range members {
		for _, tp := range m.Owned {
			kept := false
			for _, got := range round[m.ID] {
				if got == tp {
					kept = true
					break
				}
			}
			if !kept {
				return true
			}
		}
	}
	return false
}
