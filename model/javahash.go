package model

import "unicode/utf16"

// JavaStringHashCode is java.lang.String.hashCode: s[0]*31^(n-1) + ... +
// s[n-1] over the UTF-16 code units of s, in 32-bit arithmetic. Kafka
// places coordinator keys (group ids, transactional ids) and sticky
// assignor walks by it, so the simulation must compute it the same way.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + int32(hi)
			h = 31*h + int32(lo)
			continue
		}
		h = 31*h + int32(r)
	}
	return h
}

// CoordinatorPartition is the partition of a coordinator topic that owns
// key: Kafka's Utils.abs(key.hashCode()) % partitions, as in
// GroupMetadataManager.partitionFor (__consumer_offsets) and
// TransactionStateManager.partitionFor (__transaction_state). Utils.abs
// maps Integer.MIN_VALUE to 0 rather than to itself.
func CoordinatorPartition(key string, partitions int32) int32 {
	h := JavaStringHashCode(key)
	if h == -1<<31 {
		h = 0
	} else if h < 0 {
		h = -h
	}
	return h % partitions
}
