package model

import (
	"testing"
	"unsafe"
)

// The messages of every replication round trip are allocated once per
// request, so their sizes are kept at a size class of Go's allocator: a
// field added or moved carelessly shows here rather than as a slower
// benchmark.
func TestRoundTripMessageSizes(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		// A fetch request with one partition and the room for its answer:
		// the fetch session's fields (KIP-227) and a partition answer's
		// read_committed part (FetchPartitionResponse.Txn) fit in 288 bytes.
		{"fetch request box", unsafe.Sizeof(fetchRequestBox{}), 288},
		// Boxed into a sim.Message for every produce request answered.
		{"ProduceResponse", unsafe.Sizeof(ProduceResponse{}), 48},
	} {
		if c.got > c.want {
			t.Errorf("%s takes %d bytes, more than %d", c.name, c.got, c.want)
		}
	}
}
