package group

import (
	"fmt"
	"slices"
)

// constrained is AbstractStickyAssignor.ConstrainedAssignmentBuilder, the
// path for a group whose members all subscribe to the same topics. Every
// member ends with minQuota or maxQuota partitions (they differ by at most
// one), and exactly total mod members of them with maxQuota.
type constrained struct {
	p     *problem
	racks *rackInfo
	claim claims

	minQuota, maxQuota int
	expectedOver       int // members that end with maxQuota (0 when the quotas are equal)
	currentOver        int

	asg [][]int32
	// underMin and exactlyMin are unfilledMembersWithUnderMinQuotaPartitions
	// and unfilledMembersWithExactlyMinQuotaPartitions.
	underMin, exactlyMin []int
	maybeRevoked         map[int32]int // partition -> the member that owned it and gave it up
	transferring         map[int32]int // partitionsTransferringOwnership
	assigned             []bool
}

// buildConstrained runs the three steps of the constrained path:
//
//  1. each member keeps what it owned, up to its quota. In the order the
//     members are walked, the first expectedOver members that own at least
//     maxQuota keep maxQuota; any other keeps at most minQuota. A member
//     keeps its owned partitions sorted by partition number, then topic,
//     so a member over quota gives up its highest numbers, spread over the
//     topics rather than a topic at a time. With rack-aware assignment an
//     owned partition with no replica on the member's rack is given up.
//  2. with rack-aware assignment, free partitions go round-robin to the
//     unfilled members on one of their racks, within the quotas.
//  3. the rest go round-robin over the members still under minQuota, in
//     member-id order, and then one each to members at minQuota until
//     expectedOver members have maxQuota.
//
// A free partition whose previous owner gave it up (or that two members
// claimed in one generation) is recorded in transferring, which the
// cooperative assignor withholds for a round.
func buildConstrained(p *problem, racks *rackInfo, c claims) (asg [][]int32, transferring map[int32]int) {
	n := len(p.members)
	b := &constrained{
		p: p, racks: racks, claim: c,
		minQuota:     p.total / n,
		maxQuota:     (p.total + n - 1) / n,
		expectedOver: p.total % n,
		asg:          make([][]int32, n),
		maybeRevoked: map[int32]int{},
		transferring: map[int32]int{},
		assigned:     make([]bool, p.total),
	}
	b.assignOwned()
	var free []int32
	for pid := range int32(p.total) {
		if !b.assigned[pid] {
			free = append(free, pid)
		}
	}
	byID := func(x, y int) int { return p.rank[x] - p.rank[y] }
	slices.SortFunc(b.underMin, byID)
	slices.SortFunc(b.exactlyMin, byID)
	racks.sortByRackConsumers(free)
	free = b.assignRackAwareRoundRobin(free)
	b.assignRoundRobin(free)
	b.verifyUnfilled()
	return b.asg, b.transferring
}

// assignOwned is assignOwnedPartitions.
func (b *constrained) assignOwned() {
	p := b.p
	for _, i := range p.order {
		var owned []int32
		for _, pid := range b.claim.owned[i] {
			if b.racks.mismatch(i, pid) {
				b.maybeRevoked[pid] = i
				continue
			}
			owned = append(owned, pid)
		}
		slices.SortStableFunc(owned, func(x, y int32) int {
			if d := p.partitionNumber(x) - p.partitionNumber(y); d != 0 {
				return int(d)
			}
			return int(p.topicOf[x] - p.topicOf[y])
		})
		owned = slices.DeleteFunc(owned, func(pid int32) bool { return b.claim.multi[pid] })
		switch {
		case len(owned) < b.minQuota:
			b.keep(i, owned)
			b.underMin = append(b.underMin, i)
		case len(owned) >= b.maxQuota && b.currentOver < b.expectedOver:
			b.currentOver++
			if b.currentOver == b.expectedOver {
				b.exactlyMin = b.exactlyMin[:0]
			}
			b.keep(i, owned[:b.maxQuota])
			for _, pid := range owned[b.maxQuota:] {
				b.maybeRevoked[pid] = i
			}
		default:
			b.keep(i, owned[:b.minQuota])
			for _, pid := range owned[b.minQuota:] {
				b.maybeRevoked[pid] = i
			}
			if b.currentOver < b.expectedOver {
				b.exactlyMin = append(b.exactlyMin, i)
			}
		}
	}
}

func (b *constrained) keep(i int, pids []int32) {
	b.asg[i] = append(b.asg[i], pids...)
	for _, pid := range pids {
		b.assigned[pid] = true
	}
}

// assignRackAwareRoundRobin is the rack-aware fill: each free partition
// goes to the next member under minQuota on one of its racks, else to the
// first member at minQuota on one of its racks while maxQuota places
// remain. It returns the partitions it could not place.
func (b *constrained) assignRackAwareRoundRobin(free []int32) []int32 {
	if !b.racks.on {
		return free
	}
	left := free[:0:0]
	next := 0
	for _, pid := range free {
		consumer := -1
		if idx := b.racks.nextRackConsumer(pid, b.underMin, next); idx >= 0 {
			consumer = b.underMin[idx]
			count := len(b.asg[consumer]) + 1
			if count >= b.minQuota {
				b.underMin = slices.Delete(b.underMin, idx, idx+1)
				if count < b.maxQuota && b.currentOver < b.expectedOver {
					b.exactlyMin = append(b.exactlyMin, consumer)
				}
			} else {
				idx++
			}
			next = 0
			if len(b.underMin) > 0 {
				next = idx % len(b.underMin)
			}
		} else if len(b.exactlyMin) > 0 {
			if idx := b.racks.nextRackConsumer(pid, b.exactlyMin, 0); idx >= 0 {
				consumer = b.exactlyMin[idx]
				if len(b.asg[consumer])+1 == b.maxQuota {
					b.exactlyMin = slices.Delete(b.exactlyMin, idx, idx+1)
					b.currentOver++
					if b.currentOver == b.expectedOver {
						b.exactlyMin = b.exactlyMin[:0]
					}
				}
			}
		}
		if consumer >= 0 {
			b.assignNew(pid, consumer)
		} else {
			left = append(left, pid)
		}
	}
	return left
}

// assignRoundRobin is assignRoundRobin, with Kafka's iterator over the
// under-minQuota list kept as a cursor: a member reaching minQuota leaves
// that list for the at-minQuota one, and once the list is used up the
// at-minQuota members take one more each, first come first served.
func (b *constrained) assignRoundRobin(free []int32) {
	cursor := 0
	for _, pid := range free {
		var consumer int
		fromUnder := false
		switch {
		case cursor < len(b.underMin):
			consumer, fromUnder = b.underMin[cursor], true
			cursor++
		case len(b.underMin) == 0 && len(b.exactlyMin) == 0:
			panic(fmt.Sprintf("group: sticky: no unfilled member left for %v", b.p.tp(pid)))
		case len(b.underMin) == 0:
			consumer = b.exactlyMin[0]
			b.exactlyMin = b.exactlyMin[1:]
		default:
			consumer, fromUnder = b.underMin[0], true
			cursor = 1
		}
		count := b.assignNew(pid, consumer)
		if count == b.minQuota {
			if !fromUnder {
				panic("group: sticky: a member at minQuota reached minQuota again")
			}
			cursor--
			b.underMin = slices.Delete(b.underMin, cursor, cursor+1)
			b.exactlyMin = append(b.exactlyMin, consumer)
		} else if count == b.maxQuota {
			b.currentOver++
		}
	}
}

// assignNew is assignNewPartition.
func (b *constrained) assignNew(pid int32, consumer int) int {
	b.asg[consumer] = append(b.asg[consumer], pid)
	if prev, ok := b.maybeRevoked[pid]; (ok && prev != consumer) || b.claim.multi[pid] {
		b.transferring[pid] = consumer
	}
	return len(b.asg[consumer])
}

// verifyUnfilled is verifyUnfilledMembers: members left under minQuota
// mean the quotas were miscounted, a bug, not a protocol condition.
func (b *constrained) verifyUnfilled() {
	if len(b.underMin) == 0 {
		return
	}
	if b.currentOver != b.expectedOver {
		panic(fmt.Sprintf("group: sticky: %d members over minQuota, want %d, and nothing left to assign", b.currentOver, b.expectedOver))
	}
	for _, i := range b.underMin {
		if len(b.asg[i]) != b.minQuota {
			panic(fmt.Sprintf("group: sticky: %s has %d partitions, under minQuota %d", b.p.members[i].ID, len(b.asg[i]), b.minQuota))
		}
	}
}
