package group

import (
	"slices"

	"kafkasim/model"
)

// PartitionRacks gives, for each partition, the racks of its replicas'
// brokers (broker.rack), as the group leader reads them from its metadata.
// A partition that is missing, or whose brokers name no rack, has none.
// Rack-aware assignment (KIP-881) uses it together with each member's
// client.rack; nil turns it off.
type PartitionRacks map[model.TopicPartition][]string

// rackInfo is AbstractStickyAssignor.RackInfo over partition ids and
// member indices: who sits on which rack, and, only when rack-aware
// assignment is in use, the racks of each partition.
type rackInfo struct {
	// consumerRack is each member's rack id, -1 for none; all -1 unless
	// rack-aware assignment is in use (Kafka's consumerRacks is then empty).
	consumerRack []int
	// partitionRacks lists, per partition id, the racks of its replicas,
	// sorted; nil unless rack-aware assignment is in use.
	partitionRacks [][]int
	// consumersByPartition counts, per partition id, the members on the
	// racks of its replicas. Kafka computes it whenever some member names
	// a rack, even when rack-aware assignment ends up off, and sorts the
	// constrained path's free partitions by it, so it is kept that way.
	consumersByPartition []int
	on                   bool
}

// newRackInfo follows RackInfo's constructor and
// AbstractPartitionAssignor.useRackAwareAssignment: rack-aware assignment
// is used when some member names a rack that some replica is on and,
// unless preferRackAware (a Kafka test switch), when not every partition
// has replicas on every rack.
func newRackInfo(p *problem, racks PartitionRacks, preferRackAware bool) rackInfo {
	ri := rackInfo{consumerRack: make([]int, len(p.members))}
	for i := range ri.consumerRack {
		ri.consumerRack[i] = -1
	}
	rackID := map[string]int{}
	var rackNames []string
	id := func(name string) int {
		if n, ok := rackID[name]; ok {
			return n
		}
		rackID[name] = len(rackNames)
		rackNames = append(rackNames, name)
		return len(rackNames) - 1
	}
	memberRack := make([]int, len(p.members))
	consumersOnRack := map[int]int{}
	for i, m := range p.members {
		memberRack[i] = -1
		if m.RackID != "" {
			memberRack[i] = id(m.RackID)
			consumersOnRack[memberRack[i]]++
		}
	}
	if len(consumersOnRack) == 0 {
		return ri
	}
	perPartition := make([][]int, p.total)
	replicaRacks := map[int]bool{}
	for pid := range perPartition {
		t, part := p.name(int32(pid))
		var rs []int
		for _, r := range racks[model.TP(t, part)] {
			rs = append(rs, id(r))
			replicaRacks[id(r)] = true
		}
		slices.Sort(rs)
		perPartition[pid] = slices.Compact(rs)
	}
	ri.consumersByPartition = make([]int, p.total)
	for pid, rs := range perPartition {
		for _, r := range rs {
			ri.consumersByPartition[pid] += consumersOnRack[r]
		}
	}
	if !useRackAware(consumersOnRack, replicaRacks, perPartition, preferRackAware) {
		return ri
	}
	ri.on = true
	copy(ri.consumerRack, memberRack)
	ri.partitionRacks = perPartition
	return ri
}

// useRackAware is AbstractPartitionAssignor.useRackAwareAssignment: rack
// awareness applies when some consumer shares a rack with some replica and
// either it is preferred or some partition lacks a replica on one of the
// racks replicas are on. The sticky assignors ask it with rack indices, the
// range assignor with rack names.
func useRackAware[R comparable, V any](consumerRacks map[R]V, replicaRacks map[R]bool, perPartition [][]R, prefer bool) bool {
	disjoint := true
	for r := range consumerRacks {
		if replicaRacks[r] {
			disjoint = false
		}
	}
	if disjoint {
		return false
	}
	if prefer {
		return true
	}
	for _, rs := range perPartition {
		if len(rs) != len(replicaRacks) {
			return true // this partition misses a rack some replica is on
		}
	}
	return false
}

// mismatch is racksMismatch: the member has a rack and the partition has
// no replica on it.
func (ri *rackInfo) mismatch(member int, pid int32) bool {
	r := ri.consumerRack[member]
	if r < 0 {
		return false
	}
	return ri.partitionRacks == nil || !slices.Contains(ri.partitionRacks[pid], r)
}

// onRack reports whether member sits on a rack holding a replica of pid.
func (ri *rackInfo) onRack(member int, pid int32) bool {
	r := ri.consumerRack[member]
	return r >= 0 && ri.partitionRacks != nil && slices.Contains(ri.partitionRacks[pid], r)
}

// sortByRackConsumers is sortPartitionsByRackConsumers: a stable sort of
// pids by the number of members on their replicas' racks, fewest first.
func (ri *rackInfo) sortByRackConsumers(pids []int32) {
	if ri.consumersByPartition == nil {
		return
	}
	slices.SortStableFunc(pids, func(a, b int32) int { return ri.consumersByPartition[a] - ri.consumersByPartition[b] })
}

// nextRackConsumer is nextRackConsumer: the index in list, searching
// round from first, of the first member on a rack of pid's replicas, or -1.
func (ri *rackInfo) nextRackConsumer(pid int32, list []int, first int) int {
	if ri.partitionRacks == nil || len(ri.partitionRacks[pid]) == 0 {
		return -1
	}
	for i := range list {
		idx := (first + i) % len(list)
		if ri.onRack(list[idx], pid) {
			return idx
		}
	}
	return -1
}
