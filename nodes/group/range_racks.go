package group

import (
	"slices"
	"strings"

	"kafkasim/model"
)

// AssignRacks is RangeAssignor.assignPartitions with the partitions'
// replica racks (KIP-881). Where some member names a rack and some
// partition has replicas on only some racks, it first assigns what it can
// align on racks without breaking range's per-topic balance: topics with
// the same subscribers and partition count keep their partitions together
// (partition p of each to one member on a rack holding all of them), and
// any other topic that needs it gets a rack-matched range pass. The rest
// is ordinary range assignment. Without racks it is Assign.
func (Range) AssignRacks(members []Member, partitions map[string]int32, racks PartitionRacks) Assignment {
	return rangeAssign(members, partitions, racks, false)
}

// rangeTopic is RangeAssignor.TopicAssignmentState.
type rangeTopic struct {
	topic     string
	consumers []Member // the topic's subscribers in MemberInfo order
	rack      map[string]string
	// partitionRacks, per partition, the racks of its replicas; nil when
	// no subscriber names a rack.
	partitionRacks [][]string
	needsRacks     bool
	unassigned     []bool
	left           int
	assigned       map[string]int
	per            int
	extraLeft      int // remainingConsumersWithExtraPartition
}

// rangeAssign is RangeAssignor.assignPartitions; preferRackAware is
// AbstractPartitionAssignor.preferRackAwareLogic, a test switch.
func rangeAssign(members []Member, partitions map[string]int32, racks PartitionRacks, preferRackAware bool) Assignment {
	ms := sortedMembers(members)
	a := emptyAssignment(ms)
	var states []*rangeTopic
	for _, topic := range subscribedTopics(ms, partitions) {
		n := int(partitions[topic])
		if n == 0 {
			continue
		}
		st := &rangeTopic{topic: topic, rack: map[string]string{}, assigned: map[string]int{}, unassigned: make([]bool, n), left: n}
		for i := range st.unassigned {
			st.unassigned[i] = true
		}
		consumerRacks := map[string]bool{}
		for _, m := range ms {
			if subscribes(m, topic) {
				st.consumers = append(st.consumers, m)
				if m.RackID != "" {
					st.rack[m.ID] = m.RackID
					consumerRacks[m.RackID] = true
				}
			}
		}
		st.per, st.extraLeft = n/len(st.consumers), n%len(st.consumers)
		if len(consumerRacks) > 0 {
			st.partitionRacks = make([][]string, n)
			all := map[string]bool{}
			for p := range n {
				rs := slices.Clone(racks[model.TP(topic, int32(p))])
				slices.Sort(rs)
				st.partitionRacks[p] = slices.Compact(rs)
				for _, r := range st.partitionRacks[p] {
					all[r] = true
				}
			}
			st.needsRacks = useRackAware(consumerRacks, all, st.partitionRacks, preferRackAware)
		}
		states = append(states, st)
	}
	useRacks := slices.ContainsFunc(states, func(st *rangeTopic) bool { return st.needsRacks })
	if useRacks {
		assignWithRackMatching(states, a)
	}
	for _, st := range states {
		st.assignRanges(func(string, int) bool { return true }, a)
	}
	for id := range a {
		slices.SortFunc(a[id], model.TopicPartition.Compare)
	}
	return a
}

// racksMatch: a member without a rack matches every partition.
func (st *rangeTopic) racksMatch(id string, p int) bool {
	r, ok := st.rack[id]
	return !ok || (st.partitionRacks != nil && slices.Contains(st.partitionRacks[p], r))
}

func (st *rangeTopic) maxAssignable(id string) int {
	n := st.per - st.assigned[id]
	if st.extraLeft > 0 {
		n++
	}
	return max(0, n)
}

func (st *rangeTopic) assign(id string, ps []int, a Assignment) {
	for _, p := range ps {
		a[id] = append(a[id], model.TP(st.topic, int32(p)))
		st.unassigned[p] = false
		st.left--
	}
	st.assigned[id] += len(ps)
	if st.assigned[id] > st.per {
		st.extraLeft--
	}
}

// assignRanges gives each subscriber in turn the lowest unassigned
// partitions it may take, up to what it may still hold.
func (st *rangeTopic) assignRanges(may func(id string, p int) bool, a Assignment) {
	for _, m := range st.consumers {
		if st.left == 0 {
			return
		}
		limit := st.maxAssignable(m.ID)
		var ps []int
		for p, free := range st.unassigned {
			if len(ps) == limit {
				break
			}
			if free && may(m.ID, p) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			st.assign(m.ID, ps, a)
		}
	}
}

// assignWithRackMatching groups the topics by subscribers (with their
// racks) and then by partition count; a group of two or more is
// co-partitioned, a lone topic that needs it gets a rack-matched range
// pass. Groups touch disjoint topics, so the order they are taken in does
// not matter.
func assignWithRackMatching(states []*rangeTopic, a Assignment) {
	type key struct {
		consumers string
		count     int
	}
	var order []key
	groups := map[key][]*rangeTopic{}
	for _, st := range states {
		var b strings.Builder
		for _, m := range st.consumers {
			b.WriteString(m.ID + "\x00" + st.rack[m.ID] + "\x00")
		}
		k := key{b.String(), len(st.partitionRacks)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], st)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) > 1 {
			assignCoPartitioned(g, k.count, a)
		} else if g[0].needsRacks {
			g[0].assignRanges(g[0].racksMatch, a)
		}
	}
}

// assignCoPartitioned is assignCoPartitionedWithRackMatching: partition p
// of every topic of the group goes to the first remaining subscriber that
// matches all of their racks and may take one more of each.
func assignCoPartitioned(g []*rangeTopic, count int, a Assignment) {
	remaining := slices.Clone(g[0].consumers)
	for p := 0; p < count && len(remaining) > 0; p++ {
		i := slices.IndexFunc(remaining, func(m Member) bool {
			for _, st := range g {
				if !st.racksMatch(m.ID, p) || st.maxAssignable(m.ID) <= 0 {
					return false
				}
			}
			return true
		})
		if i < 0 {
			continue
		}
		id := remaining[i].ID
		for _, st := range g {
			st.assign(id, []int{p}, a)
		}
		full := true
		for _, st := range g {
			if st.maxAssignable(id) > 0 {
				full = false
			}
		}
		if full {
			remaining = slices.Delete(remaining, i, i+1)
		}
	}
}
