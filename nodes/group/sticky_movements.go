package group

import "slices"

// movePair is AbstractStickyAssignor.ConsumerPair: a move from one member
// to another.
type movePair struct{ src, dst int }

// movements is AbstractStickyAssignor.PartitionMovements: every partition
// the general path moved, from its first owner to its latest, grouped by
// topic and pair. It serves two purposes: when a partition is to move
// back along a pair that already carried one of the topic's partitions the
// other way, that earlier move is undone instead (which keeps the number
// of movements down), and a test can ask whether any topic moved both
// ways between two members (isSticky).
type movements struct {
	p       *problem
	byTopic map[int32]map[movePair]*javaPartitionSet
	moved   map[int32]movePair
}

func newMovements(p *problem) *movements {
	return &movements{p: p, byTopic: map[int32]map[movePair]*javaPartitionSet{}, moved: map[int32]movePair{}}
}

func (mv *movements) removeRecord(pid int32) movePair {
	pair := mv.moved[pid]
	delete(mv.moved, pid)
	t := mv.p.topicOf[pid]
	sets := mv.byTopic[t]
	sets[pair].remove(pid)
	if sets[pair].size() == 0 {
		delete(sets, pair)
	}
	if len(sets) == 0 {
		delete(mv.byTopic, t)
	}
	return pair
}

func (mv *movements) addRecord(pid int32, pair movePair) {
	mv.moved[pid] = pair
	t := mv.p.topicOf[pid]
	sets := mv.byTopic[t]
	if sets == nil {
		sets = map[movePair]*javaPartitionSet{}
		mv.byTopic[t] = sets
	}
	if sets[pair] == nil {
		sets[pair] = newJavaPartitionSet(mv.p.name)
	}
	sets[pair].add(pid)
}

// move is movePartition: a partition that moves back to where it started
// is no longer a movement at all.
func (mv *movements) move(pid int32, from, to int) {
	if _, ok := mv.moved[pid]; !ok {
		mv.addRecord(pid, movePair{from, to})
		return
	}
	earlier := mv.removeRecord(pid)
	if earlier.src != to {
		mv.addRecord(pid, movePair{earlier.src, to})
	}
}

// actual is getTheActualPartitionToBeMoved: moving pid from `from` to
// `to` is replaced by moving back a partition of the same topic that
// earlier went from `to` to pid's first owner, the first such partition
// in Kafka's HashSet order.
func (mv *movements) actual(pid int32, from, to int) int32 {
	t := mv.p.topicOf[pid]
	sets, ok := mv.byTopic[t]
	if !ok {
		return pid
	}
	if earlier, ok := mv.moved[pid]; ok {
		from = earlier.src
	}
	set, ok := sets[movePair{to, from}]
	if !ok {
		return pid
	}
	return set.first()
}

// sticky is isSticky. Kafka's check looks for cycles but only reports
// those of length two, which it finds whatever the order it walks the
// pairs in: a topic whose partitions moved both from a to b and from b to
// a. That is what this checks, topic by topic.
func (mv *movements) sticky() bool {
	topics := make([]int32, 0, len(mv.byTopic))
	for t := range mv.byTopic {
		topics = append(topics, t)
	}
	slices.Sort(topics)
	for _, t := range topics {
		for pair := range mv.byTopic[t] {
			if _, back := mv.byTopic[t][movePair{pair.dst, pair.src}]; back {
				return false
			}
		}
	}
	return true
}
