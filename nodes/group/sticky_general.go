package group

import (
	"cmp"
	"slices"

	"kafkasim/model"
)

// general is AbstractStickyAssignor.GeneralAssignmentBuilder, the path for
// members with different subscriptions. It keeps every valid owned
// partition, hands out the free ones one at a time to the least loaded
// member that can take them, starting with the topics the fewest members
// can take, and then moves partitions to less loaded members until no
// member could take a partition from one with two more, undoing earlier
// moves where it can. If the moves do not improve the balance score, it
// goes back to the assignment before them.
type general struct {
	p     *problem
	racks *rackInfo
	claim claims

	asg      [][]int32 // currentAssignment
	owner    []int32   // currentPartitionConsumer, -1 for none
	inPlay   []bool    // members still in currentAssignment (not fixed)
	sorted   []int     // sortedCurrentSubscriptions: members by (size, id)
	consumer [][]int   // topic2AllPotentialConsumers, in subscription walk order
	// sortedAll is sortedAllPartitions: topics by the number of members
	// that can take them, then name; partitions in number order.
	sortedAll          []int32
	revocationRequired bool
	mv                 *movements
}

type prevClaim struct {
	member     int
	generation model.Epoch
}

func buildGeneral(p *problem, racks *rackInfo, c claims) (asg [][]int32, mv *movements) {
	g := &general{
		p: p, racks: racks, claim: c,
		asg:      make([][]int32, len(p.members)),
		owner:    make([]int32, p.total),
		inPlay:   make([]bool, len(p.members)),
		consumer: make([][]int, len(p.topics)),
		mv:       newMovements(p),
	}
	for i := range g.owner {
		g.owner[i] = -1
	}
	for _, i := range p.order {
		for _, t := range p.potential[i] {
			g.consumer[t] = append(g.consumer[t], i)
		}
	}
	for i := range p.members {
		g.asg[i] = slices.Clone(c.owned[i])
		for _, pid := range g.asg[i] {
			g.owner[pid] = int32(i)
		}
	}
	topics := make([]int, len(p.topics))
	for t := range topics {
		topics[t] = t
	}
	slices.SortStableFunc(topics, func(a, b int) int {
		return cmp.Or(len(g.consumer[a])-len(g.consumer[b]), cmp.Compare(p.topics[a], p.topics[b]))
	})
	for _, t := range topics {
		for pid := p.base[t]; pid < p.base[t]+p.count[t]; pid++ {
			g.sortedAll = append(g.sortedAll, pid)
		}
	}

	prev := g.prepopulate()
	assigned := g.assignOwned()
	var unassigned []int32
	for _, pid := range g.sortedAll {
		if !assigned[pid] {
			unassigned = append(unassigned, pid)
		}
	}
	for i := range p.members {
		g.inPlay[i] = true
		g.insert(i)
	}
	g.balance(prev, unassigned)
	return g.asg, g.mv
}

// prepopulate is prepopulateCurrentAssignments: for each partition claimed
// in a generation older than the newest, the member of the newest such
// claim (the first one walked, among equals).
func (g *general) prepopulate() map[int32]prevClaim {
	prev := map[int32]prevClaim{}
	for _, i := range g.p.order {
		d := g.claim.data[i]
		if d.generation >= g.claim.maxGeneration {
			continue
		}
		for _, tp := range d.partitions {
			pid, ok := g.p.pid(tp)
			if !ok {
				continue
			}
			if old, ok := prev[pid]; !ok || d.generation > old.generation {
				prev[pid] = prevClaim{i, d.generation}
			}
		}
	}
	return prev
}

// assignOwned is assignOwnedPartitions: an owned partition of a topic the
// member no longer subscribes to, or (rack-aware) with no replica on its
// rack, is dropped, and that is a revocation.
func (g *general) assignOwned() []bool {
	assigned := make([]bool, g.p.total)
	for _, i := range g.p.order {
		kept := g.asg[i][:0]
		for _, pid := range g.asg[i] {
			if !g.p.subscribed[i][g.p.topicOf[pid]] || g.racks.mismatch(i, pid) {
				g.owner[pid] = -1
				g.revocationRequired = true
				continue
			}
			kept = append(kept, pid)
			assigned[pid] = true
		}
		g.asg[i] = kept
	}
	return assigned
}

// memberCmp orders members as Kafka's SubscriptionComparator: by the
// number of partitions they hold, then by member id.
func (g *general) memberCmp(a, b int) int {
	return cmp.Or(len(g.asg[a])-len(g.asg[b]), g.p.rank[a]-g.p.rank[b])
}

func (g *general) insert(i int) {
	at, _ := slices.BinarySearchFunc(g.sorted, i, g.memberCmp)
	g.sorted = slices.Insert(g.sorted, at, i)
}

func (g *general) remove(i int) {
	at, found := slices.BinarySearchFunc(g.sorted, i, g.memberCmp)
	if !found {
		panic("group: sticky: member missing from the sorted set")
	}
	g.sorted = slices.Delete(g.sorted, at, at+1)
}

// maxSize is getMaxAssignmentSize: every partition of the member's topics.
func (g *general) maxSize(i int) int {
	if len(g.p.potential[i]) == len(g.p.topics) {
		return g.p.total
	}
	n := 0
	for _, t := range g.p.potential[i] {
		n += int(g.p.count[t])
	}
	return n
}

// maybeAssign is maybeAssign with maybeAssignPartition: each partition to
// the least loaded member that subscribes to its topic (on one of its
// racks, when rackAware). It returns the partitions it did not place when
// removeAssigned, all of them otherwise, as Kafka's list is then the same
// list.
func (g *general) maybeAssign(pids []int32, rackAware, removeAssigned bool) []int32 {
	left := pids[:0:0]
	for _, pid := range pids {
		t := g.p.topicOf[pid]
		if len(g.consumer[t]) == 0 {
			left = append(left, pid)
			continue
		}
		placed := false
		for _, i := range g.sorted {
			if g.p.subscribed[i][t] && (!rackAware || !g.racks.mismatch(i, pid)) {
				g.remove(i)
				g.asg[i] = append(g.asg[i], pid)
				g.owner[pid] = int32(i)
				g.insert(i)
				placed = true
				break
			}
		}
		if !placed || !removeAssigned {
			left = append(left, pid)
		}
	}
	return left
}

func (g *general) topicMovable(t int32) bool { return len(g.consumer[t]) >= 2 }

// memberMovable is canConsumerParticipateInReassignment.
func (g *general) memberMovable(i int) bool {
	if len(g.asg[i]) < g.maxSize(i) {
		return true
	}
	for _, pid := range g.asg[i] {
		if g.topicMovable(g.p.topicOf[pid]) {
			return true
		}
	}
	return false
}

// balance is balance.
func (g *general) balance(prev map[int32]prevClaim, unassigned []int32) {
	initializing := len(g.asg[g.sorted[len(g.sorted)-1]]) == 0
	toAssign := unassigned
	if g.racks.on {
		toAssign = g.maybeAssign(slices.Clone(unassigned), true, true)
	}
	g.maybeAssign(toAssign, false, false)

	// Only partitions of topics two or more members can take, and only
	// members that could gain or give, take part in the moves.
	keep := func(pid int32) bool { return g.topicMovable(g.p.topicOf[pid]) }
	g.sortedAll = slices.DeleteFunc(g.sortedAll, func(pid int32) bool { return !keep(pid) })
	unassigned = slices.DeleteFunc(slices.Clone(unassigned), func(pid int32) bool { return !keep(pid) })
	var fixed []int
	for i := range g.p.members {
		if !g.memberMovable(i) {
			g.remove(i)
			g.inPlay[i] = false
			fixed = append(fixed, i)
		}
	}

	before := make([][]int32, len(g.asg))
	for i := range g.asg {
		if g.inPlay[i] {
			before[i] = slices.Clone(g.asg[i])
		}
	}
	beforeOwner := slices.Clone(g.owner)

	if !g.revocationRequired {
		g.performReassignments(unassigned, prev)
	}
	moved := g.performReassignments(g.sortedAll, prev)
	if !initializing && moved && g.score() >= scoreOf(before, g.inPlay) {
		for i := range g.asg {
			if g.inPlay[i] {
				g.asg[i] = before[i]
			}
		}
		g.owner = beforeOwner
	}
	for _, i := range fixed {
		g.inPlay[i] = true
	}
}

// isBalanced is isBalanced: the sizes differ by at most one, or no member
// could take a partition of its topics from one holding two more.
func (g *general) isBalanced() bool {
	lo, hi := len(g.asg[g.sorted[0]]), len(g.asg[g.sorted[len(g.sorted)-1]])
	if lo >= hi-1 {
		return true
	}
	for _, i := range g.sorted {
		n := len(g.asg[i])
		if n == g.maxSize(i) {
			continue
		}
		for _, t := range g.p.potential[i] {
			for pid := g.p.base[t]; pid < g.p.base[t]+g.p.count[t]; pid++ {
				if o := g.owner[pid]; o >= 0 && int(o) != i && n+1 < len(g.asg[o]) {
					return false
				}
			}
		}
	}
	return true
}

// performReassignments moves partitions, in the order given, from members
// that hold two more than some other member that can take them, until the
// assignment is balanced or a whole pass moves nothing. A partition claimed
// in an older generation goes back to that claimant when its holder has
// two more than the claimant. Otherwise it goes to the least loaded member
// that can take it (Kafka first looks for a candidate on the partition's
// rack, but either way hands the partition to the least loaded member).
func (g *general) performReassignments(pids []int32, prev map[int32]prevClaim) bool {
	performed := false
	for modified := true; modified; {
		modified = false
		for _, pid := range pids {
			if g.isBalanced() {
				break
			}
			holder := int(g.owner[pid])
			if holder < 0 {
				panic("group: sticky: partition " + g.p.tp(pid).String() + " has no holder")
			}
			// Kafka would also hand the partition back to an old claimant
			// that no longer subscribes to its topic (an invalid
			// assignment, or a NullPointerException for a member out of
			// play); only a claimant that can take it is considered.
			if pc, ok := prev[pid]; ok && g.inPlay[pc.member] && g.p.subscribed[pc.member][g.p.topicOf[pid]] &&
				len(g.asg[holder]) > len(g.asg[pc.member])+1 {
				g.reassignTo(pid, pc.member)
				performed, modified = true, true
				continue
			}
			for _, other := range g.consumer[g.p.topicOf[pid]] {
				if len(g.asg[holder]) > len(g.asg[other])+1 {
					g.reassign(pid)
					performed, modified = true, true
					break
				}
			}
		}
	}
	return performed
}

// reassign moves pid to the least loaded member that subscribes to its
// topic.
func (g *general) reassign(pid int32) {
	t := g.p.topicOf[pid]
	for _, i := range g.sorted {
		if g.p.subscribed[i][t] {
			g.reassignTo(pid, i)
			return
		}
	}
	panic("group: sticky: no member can take " + g.p.tp(pid).String())
}

func (g *general) reassignTo(pid int32, to int) {
	actual := g.mv.actual(pid, int(g.owner[pid]), to)
	from := int(g.owner[actual])
	g.remove(from)
	if to != from {
		g.remove(to)
	}
	g.mv.move(actual, from, to)
	g.asg[from] = removeID(g.asg[from], actual)
	g.asg[to] = append(g.asg[to], actual)
	g.owner[actual] = int32(to)
	g.insert(to)
	if to != from {
		g.insert(from)
	}
}

// score is getBalanceScore over the members in play: the sum over pairs
// of the difference of their sizes.
func (g *general) score() int { return scoreOf(g.asg, g.inPlay) }

func scoreOf(asg [][]int32, inPlay []bool) int {
	var sizes []int
	for i, a := range asg {
		if inPlay[i] {
			sizes = append(sizes, len(a))
		}
	}
	slices.Sort(sizes)
	score := 0
	for i, s := range sizes {
		score += s * (2*i - len(sizes) + 1)
	}
	return score
}
