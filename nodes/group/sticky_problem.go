package group

import (
	"slices"
	"sort"

	"kafkasim/model"
)

// problem is one sticky rebalance in the compact form the builders work
// on: topics by index (sorted by name), partitions by id (topic by topic in
// name order, then partition number, so id order is TopicPartition order),
// members by their index in the input.
type problem struct {
	members []Member
	topics  []string
	count   []int32 // partitions per topic
	base    []int32 // first partition id of each topic
	total   int
	topicOf []int32 // partition id -> topic index
	// subscribed[m][t]: member m subscribes to topic t. potential[m] is
	// consumer2AllPotentialTopics: its existing topics in subscription
	// order.
	subscribed [][]bool
	potential  [][]int
	// order is the order in which Kafka's HashMap of subscriptions walks
	// the members (see javaorder.go); rank is each member's place in
	// member-id order, which Kafka's sorted collections use.
	order []int
	rank  []int
}

// newProblem keeps, as AbstractPartitionAssignor.assign does, only the
// topics that some member subscribes to and that have partitions.
func newProblem(members []Member, partitions map[string]int32) *problem {
	p := &problem{members: members}
	seen := map[string]bool{}
	known := map[string]bool{}
	ids := make([]string, len(members))
	for i, m := range members {
		if seen[m.ID] {
			panic("group: member id " + m.ID + " appears twice")
		}
		seen[m.ID] = true
		ids[i] = m.ID
		for _, t := range m.Subscription {
			if n := partitions[t]; n > 0 && !known[t] {
				known[t] = true
				p.topics = append(p.topics, t)
			}
		}
	}
	sort.Strings(p.topics)
	index := make(map[string]int, len(p.topics))
	for i, t := range p.topics {
		index[t] = i
		p.count = append(p.count, partitions[t])
		p.base = append(p.base, int32(p.total))
		p.total += int(partitions[t])
	}
	p.topicOf = make([]int32, p.total)
	for t := range p.topics {
		for i := p.base[t]; i < p.base[t]+p.count[t]; i++ {
			p.topicOf[i] = int32(t)
		}
	}
	p.subscribed = make([][]bool, len(members))
	p.potential = make([][]int, len(members))
	for i, m := range members {
		p.subscribed[i] = make([]bool, len(p.topics))
		for _, t := range m.Subscription {
			if ti, ok := index[t]; ok {
				p.subscribed[i][ti] = true
				p.potential[i] = append(p.potential[i], ti)
			}
		}
	}
	p.order = javaHashMapOrder(ids)
	p.rank = make([]int, len(members))
	byID := make([]int, len(members))
	for i := range byID {
		byID[i] = i
	}
	sort.Slice(byID, func(a, b int) bool { return ids[byID[a]] < ids[byID[b]] })
	for r, i := range byID {
		p.rank[i] = r
	}
	return p
}

// pid returns the id of tp, or false for a partition of a topic outside
// the problem or beyond the topic's count.
func (p *problem) pid(tp model.TopicPartition) (int32, bool) {
	t, ok := slices.BinarySearch(p.topics, tp.Topic)
	if !ok || tp.Partition < 0 || tp.Partition >= p.count[t] {
		return 0, false
	}
	return p.base[t] + tp.Partition, true
}

// name returns the topic and partition number of a partition id.
func (p *problem) name(pid int32) (string, int32) {
	t := p.topicOf[pid]
	return p.topics[t], pid - p.base[t]
}

func (p *problem) tp(pid int32) model.TopicPartition {
	t, n := p.name(pid)
	return model.TP(t, n)
}

// partitionNumber is the partition's number within its topic.
func (p *problem) partitionNumber(pid int32) int32 { return pid - p.base[p.topicOf[pid]] }

// assignment converts per-member partition ids into an Assignment with
// sorted lists.
func (p *problem) assignment(per [][]int32) Assignment {
	a := make(Assignment, len(p.members))
	for i, m := range p.members {
		ids := slices.Clone(per[i])
		slices.Sort(ids) // id order is TopicPartition order
		tps := make([]model.TopicPartition, len(ids))
		for j, pid := range ids {
			tps[j] = p.tp(pid)
		}
		a[m.ID] = tps
	}
	return a
}
