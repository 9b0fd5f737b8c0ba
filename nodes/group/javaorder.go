package group

import (
	"slices"

	"kafkasim/model"
)

// Kafka's sticky assignors walk several java.util.HashMap and HashSet
// collections, and where two choices are otherwise equal the walk order
// decides: which member keeps its maxQuota of owned partitions in
// ConstrainedAssignmentBuilder.assignOwnedPartitions, which old claim wins
// a generation tie, which earlier move PartitionMovements undoes. That
// order is not random: it is a fixed function of the keys' hashCode, the
// table's capacity and the insertion order. Following it here makes the
// simulated group leader choose exactly what a Java leader given the same
// members in the same order would choose, so Kafka's own test expectations
// hold as they are written.
//
// What is followed: String.hashCode and TopicPartition.hashCode, HashMap's
// hash spreading (h ^ h>>>16), the default capacity (16, doubled whenever
// the size passes three quarters of it) and insertion order within a
// bucket, which a resize keeps. What is not: a bucket that holds more than
// eight keys in a table of 64 or more buckets becomes a red-black tree in
// Java, whose walk puts the tree's root first; such a pile-up needs keys
// chosen to collide, and here such a bucket keeps insertion order. Nor is
// Java's String.compareTo, which Kafka's sorted collections use: Go's
// string order is the same except for characters beyond U+FFFF.

// javaStringHash is java.lang.String.hashCode over the UTF-16 form of s.
func javaStringHash(s string) int32 { return model.JavaStringHashCode(s) }

// javaTopicPartitionHash is org.apache.kafka.common.TopicPartition.hashCode.
func javaTopicPartitionHash(topic string, partition int32) int32 {
	return 31*(31+partition) + javaStringHash(topic)
}

// javaBucket is the bucket of a key with hash h in a HashMap table of
// capacity table (HashMap.hash then the index mask).
func javaBucket(h int32, table int) int {
	u := uint32(h)
	return int((u ^ u>>16) & uint32(table-1))
}

// javaTableSize is the capacity of a default-constructed HashMap (or
// HashSet) after its size has reached peak: 16, doubled while the size
// exceeds three quarters of it. A HashMap never shrinks, so the peak, not
// the current size, sets it.
func javaTableSize(peak int) int {
	table := 16
	for peak > table/4*3 {
		table *= 2
	}
	return table
}

// javaHashMapOrder returns the indices of keys (distinct strings, in
// insertion order) in the order a default HashMap<String, V> filled in that
// order iterates them.
func javaHashMapOrder(keys []string) []int {
	table := javaTableSize(len(keys))
	bucket := make([]int, len(keys))
	order := make([]int, len(keys))
	for i, k := range keys {
		bucket[i] = javaBucket(javaStringHash(k), table)
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return bucket[a] - bucket[b] })
	return order
}

// javaPartitionSet is a java.util.HashSet<TopicPartition> reduced to what
// PartitionMovements asks of it: add, remove, size, and the first element
// its iterator returns.
type javaPartitionSet struct {
	seq   map[int32]int // partition id -> insertion number
	next  int
	peak  int
	names func(pid int32) (string, int32)
}

func newJavaPartitionSet(names func(int32) (string, int32)) *javaPartitionSet {
	return &javaPartitionSet{seq: map[int32]int{}, names: names}
}

func (s *javaPartitionSet) add(pid int32) {
	if _, ok := s.seq[pid]; ok {
		return
	}
	s.seq[pid] = s.next
	s.next++
	s.peak = max(s.peak, len(s.seq))
}

func (s *javaPartitionSet) remove(pid int32) { delete(s.seq, pid) }

func (s *javaPartitionSet) size() int { return len(s.seq) }

// first is iterator().next(): the element in the lowest bucket, the
// earliest inserted among equals. The map is only searched for a minimum,
// so its own order never shows.
func (s *javaPartitionSet) first() int32 {
	table := javaTableSize(s.peak)
	best, bestBucket, bestSeq := int32(-1), 0, 0
	for pid, seq := range s.seq {
		t, p := s.names(pid)
		b := javaBucket(javaTopicPartitionHash(t, p), table)
		if best < 0 || b < bestBucket || (b == bestBucket && seq < bestSeq) {
			best, bestBucket, bestSeq = pid, b, seq
		}
	}
	return best
}
