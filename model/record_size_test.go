package model

import (
	"testing"
	"unsafe"
)

// A log keeps one Batch header per batch per replica for the whole run, so
// its layout is part of the simulator's memory budget: the 32-bit fields
// pair up and leave no padding.
func TestBatchHeaderHasNoPadding(t *testing.T) {
	if got := unsafe.Sizeof(Batch{}); got != 56 {
		t.Errorf("Batch is %d bytes, want 56 (8+4+4+8+4+4+24): a field order that pads costs every replica of every batch", got)
	}
}
