package group

import "kafkasim/model"

// Sticky is Kafka's StickyAssignor (KIP-54), for the eager protocol: the
// assignment is balanced and, within that, keeps as many of the members'
// previous partitions as it can. Members still revoke everything before
// rejoining (eager), but they get most of it straight back. Each member's
// claim is its last assignment and that assignment's generation, carried in
// the subscription's user data (Member.Assigned, Member.AssignedGeneration).
type Sticky struct{}

func (Sticky) Name() string       { return string(model.AssignSticky) }
func (Sticky) Protocol() Protocol { return Eager }

func (Sticky) Assign(members []Member, partitions map[string]int32) Assignment {
	return stickyAssign(members, partitions, stickyOptions{}).assignment
}

// AssignRacks is Assign with the partitions' replica racks, for rack-aware
// assignment (KIP-881) among members that name their client.rack.
func (Sticky) AssignRacks(members []Member, partitions map[string]int32, racks PartitionRacks) Assignment {
	return stickyAssign(members, partitions, stickyOptions{racks: racks}).assignment
}

// stickyOptions are the inputs of AbstractStickyAssignor beyond members and
// partition counts.
type stickyOptions struct {
	cooperative bool // read claims as CooperativeStickyAssignor.memberData does
	racks       PartitionRacks
	// preferRackAware is AbstractPartitionAssignor.preferRackAwareLogic, a
	// switch Kafka's tests use: rack-aware assignment even when every
	// partition has a replica on every rack.
	preferRackAware bool
}

// stickyResult is an assignment and what Kafka's tests inspect besides.
type stickyResult struct {
	assignment Assignment
	// general tells which path ran: generalAssign for different
	// subscriptions, constrainedAssign otherwise.
	general bool
	// transferring is partitionsTransferringOwnership from the constrained
	// path: partitions given to a member while another gives them up. nil
	// on the general path, where Kafka leaves it null and the cooperative
	// assignor works it out from the result.
	transferring map[model.TopicPartition]string
	mv           *movements // the general path's moves, for isSticky
}

// stickyAssign is AbstractStickyAssignor.assignPartitions: read the claims,
// then take the constrained path when every member subscribes to the same
// topics and the general path otherwise.
func stickyAssign(members []Member, partitions map[string]int32, opt stickyOptions) stickyResult {
	p := newProblem(members, partitions)
	if len(members) == 0 {
		return stickyResult{assignment: Assignment{}, transferring: map[model.TopicPartition]string{}}
	}
	data := make([]memberData, len(members))
	for i, m := range members {
		if opt.cooperative {
			data[i] = cooperativeMemberData(m)
		} else {
			data[i] = stickyMemberData(m)
		}
	}
	racks := newRackInfo(p, opt.racks, opt.preferRackAware)
	c := readClaims(p, data)
	if c.equal {
		asg, moving := buildConstrained(p, &racks, c)
		transferring := make(map[model.TopicPartition]string, len(moving))
		for pid, i := range moving {
			transferring[p.tp(pid)] = members[i].ID
		}
		return stickyResult{assignment: p.assignment(asg), transferring: transferring}
	}
	asg, mv := buildGeneral(p, &racks, c)
	return stickyResult{assignment: p.assignment(asg), general: true, mv: mv}
}
