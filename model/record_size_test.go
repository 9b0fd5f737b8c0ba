package model

import (
	"testing"
	"unsafe"
)

// A log keeps one Batch header per batch per replica for the whole run, so
// its layout is part of the simulator's memory budget: the 32-bit fields
// pair up and leave no padding.
func TestBatchHeaderHasNoPadding(t *testing.T) {
	// Attributes (KIP-98's transactional and control flags) take the
	// last word; 6 of its bytes are padding.
	if got := unsafe.Sizeof(Batch{}); got != 64 {
		t.Errorf("Batch is %d bytes, want 64 (8+4+4+8+4+4+24+2, padded): a field order that pads more costs every replica of every batch", got)
	}
}
