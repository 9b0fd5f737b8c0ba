package client

import (
	"kafkasim/model"
	"kafkasim/sim"
)

// murmur2 is the 32-bit MurmurHash2 with Kafka's seed 0x9747b28c, the hash
// Kafka's producer applies to a record key (clients Utils.murmur2). Using the
// same function as Kafka means a key lands on the same partition here as on
// a real cluster with the same partition count, so a history recorded
// against Kafka and one recorded here can be compared key by key.
func murmur2(data string) int32 {
	const (
		seed = 0x9747b28c
		m    = 0x5bd1e995
		r    = 24
	)
	n := len(data)
	h := uint32(seed) ^ uint32(n)
	i := 0
	for ; i+4 <= n; i += 4 {
		k := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		k *= m
		k ^= k >> r
		k *= m
		h *= m
		h ^= k
	}
	switch n - i {
	case 3:
		h ^= uint32(data[i+2]) << 16
		fallthrough
	case 2:
		h ^= uint32(data[i+1]) << 8
		fallthrough
	case 1:
		h ^= uint32(data[i])
		h *= m
	}
	h ^= h >> 13
	h *= m
	h ^= h >> 15
	return int32(h)
}

// keyPartition is Kafka's BuiltInPartitioner.partitionForKey:
// toPositive(murmur2(key)) mod the partition count. toPositive clears the
// sign bit rather than taking an absolute value, as Kafka's Utils.toPositive
// does, so that the most negative hash still maps to a valid partition.
func keyPartition(key string, partitions int32) int32 {
	return int32(uint32(murmur2(key))&0x7fffffff) % partitions
}

// sticky is the partitioner for records without a key, after Kafka's
// BuiltInPartitioner (KIP-794, the "uniform sticky" partitioner of Kafka
// 3.3+): stay on one partition, so that records fill batches, until about
// batch.size bytes went to it, then switch to another chosen at random among
// the partitions that have a leader. Kafka also weighs the choice by queue
// sizes (adaptive partitioning); this keeps the uniform choice.
type sticky struct {
	part  int32 // current partition; -1 before the first record
	bytes int   // bytes sent to it since the switch
	// avail is the topic's partitions with a leader, as metadata version
	// availVer gave them for availCount partitions (availSet: computed):
	// Kafka's Cluster lists them once per metadata snapshot
	// (availablePartitionsForTopic), where a walk of every partition at
	// every switch cost as much as the rest of the producer.
	avail      []int32
	availVer   uint64
	availCount int32
	availSet   bool
}

// partition returns the partition for the next keyless record of topic.
func (s *sticky) partition(env *sim.Env, md *metadata, topic string, partitions int32, batchSize int) int32 {
	if s.part >= 0 && s.part < partitions && s.bytes < batchSize {
		return s.part
	}
	// Choose among partitions with a leader when there are some, as
	// BuiltInPartitioner.nextPartition does with availablePartitions.
	avail := s.available(md, topic, partitions)
	if len(avail) > 0 {
		s.part = avail[env.Rand().IntN(len(avail))]
	} else {
		s.part = int32(env.Rand().IntN(int(partitions)))
	}
	s.bytes = 0
	return s.part
}

// available is the topic's partitions with a leader, of the first
// partitions, as the metadata now has them.
func (s *sticky) available(md *metadata, topic string, partitions int32) []int32 {
	if s.availSet && s.availVer == md.ver && s.availCount == partitions {
		return s.avail
	}
	s.avail = s.avail[:0]
	for p := int32(0); p < partitions; p++ {
		if md.hasLeader(model.TP(topic, p)) {
			s.avail = append(s.avail, p)
		}
	}
	s.availSet, s.availVer, s.availCount = true, md.ver, partitions
	return s.avail
}

// KeyPartition is the partition Kafka's default partitioner gives a keyed
// record (keyPartition), for a harness that must know which partitions
// its keys reach.
func KeyPartition(key string, partitions int32) int32 { return keyPartition(key, partitions) }
