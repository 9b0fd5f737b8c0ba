package broker

import (
	"fmt"
	"slices"
)

// partIndex finds a hosted replica from a topic name and a partition
// number. Every message a broker handles names partitions, so it looks one
// up several times per message: a binary search of the sorted
// topic-partitions compared topic names at every probe and again at the
// end, which cost more than the rest of a follower fetch's bookkeeping.
// Here the topic is found once, among the few a broker hosts (by equality,
// which is a length check and usually a pointer check), and the partition
// is an index into that topic's replicas.
//
// It only answers lookups: the broker still walks b.tps for anything done
// in partition order.
type partIndex struct {
	topics []string       // sorted
	byNum  [][]*partition // byNum[i][n] is partition n of topics[i], nil if not hosted
	// hit is the topic the last lookup that missed found, and hitParts
	// its replicas, so that the usual lookup, in the topic the last one
	// was in, is a comparison and an index inlined into the caller. add
	// keeps hitParts equal to byNum's slice for the hit's topic: a slice
	// remembered from before the topic's slice grew into a new array
	// would not see a hole filled after that, and would answer "not
	// hosted" for a hosted replica.
	// The zero hit is "", no topic's name (add refuses it).
	hit      string
	hitParts []*partition
}

// partIndexLinear is how many topics are scanned one by one before a lookup
// switches to a binary search: an equality test is cheaper than an ordered
// comparison, and brokers nearly always host one or two topics.
const partIndexLinear = 8

// partNumMax bounds the partition numbers the index accepts: Kafka numbers
// a topic's partitions from 0 without gaps, and a number beyond this would
// size a slice by a programmer error.
const partNumMax = 1 << 20

// topic is the position of name in topics, or -1.
func (x *partIndex) topic(name string) int {
	if len(x.topics) <= partIndexLinear {
		for i, t := range x.topics {
			if t == name {
				return i
			}
		}
		return -1
	}
	if i, ok := slices.BinarySearch(x.topics, name); ok {
		return i
	}
	return -1
}

// get is the replica of partition n of topic, or nil.
func (x *partIndex) get(topic string, n int32) *partition {
	if topic == x.hit && uint32(n) < uint32(len(x.hitParts)) { // also rejects a negative n
		return x.hitParts[n]
	}
	return x.miss(topic, n)
}

// miss is get when the hit does not answer: it finds the topic, which
// becomes the hit.
func (x *partIndex) miss(topic string, n int32) *partition {
	i := x.topic(topic)
	if i < 0 {
		return nil
	}
	x.hit, x.hitParts = x.topics[i], x.byNum[i]
	if uint32(n) < uint32(len(x.hitParts)) {
		return x.hitParts[n]
	}
	return nil
}

// add makes p findable under its topic-partition, which must be new.
func (x *partIndex) add(p *partition) {
	n := p.tp.Partition
	if p.tp.Topic == "" {
		panic(fmt.Sprintf("broker: partition %v has no topic name", p.tp))
	}
	if n < 0 || n >= partNumMax {
		panic(fmt.Sprintf("broker: partition %v: number out of range", p.tp))
	}
	i, ok := slices.BinarySearch(x.topics, p.tp.Topic)
	if !ok {
		x.topics = slices.Insert(x.topics, i, p.tp.Topic)
		x.byNum = slices.Insert(x.byNum, i, nil)
	}
	ps := x.byNum[i]
	if int(n) >= len(ps) {
		ps = append(ps, make([]*partition, int(n)+1-len(ps))...)
	}
	if ps[n] != nil {
		panic(fmt.Sprintf("broker: partition %v opened twice", p.tp))
	}
	ps[n] = p
	x.byNum[i] = ps
	if x.hit == p.tp.Topic {
		x.hitParts = ps
	}
}

// remove makes tp unfindable (a deleted topic's replica). The slot is
// cleared in place, which the hit sees too.
func (x *partIndex) remove(topic string, n int32) {
	i := x.topic(topic)
	if i < 0 || n < 0 || int(n) >= len(x.byNum[i]) {
		return
	}
	x.byNum[i][n] = nil
}
