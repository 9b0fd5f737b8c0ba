package storage

import (
	"reflect"
	"testing"
)

// A follower's log keeps the very batches its leader's read returned
// (AppendShared), not copies of them; they stay as they were when the
// leader truncates and appends over the same offsets, and the follower's
// file holds their bytes after a crash.
func TestAppendSharedKeepsTheLeadersBatches(t *testing.T) {
	w := newWorld(t, 1)
	leader, _ := w.open(smallSegments(1 << 20))
	follower, _ := Open(w.disk, "f-0/", smallSegments(1<<20), 0)
	appendPlain(leader, 1, 4, 2, 0) // offsets 0..7
	read := leader.Read(0, 1<<20)
	for _, b := range read {
		follower.AppendShared(b, 0)
	}
	got := follower.Read(0, 1<<20)
	if len(got) != len(read) {
		t.Fatalf("follower read %d batches, want %d", len(got), len(read))
	}
	for i := range read {
		if got[i] != read[i] {
			t.Fatalf("follower batch %d is a copy of the leader's, not the leader's own", i)
		}
	}
	want := derefAll(got)

	leader.TruncateTo(2)
	appendPlain(leader, 2, 3, 2, 0) // offsets 2..7 again, under epoch 2
	if now := derefAll(follower.Read(0, 1<<20)); !reflect.DeepEqual(now, want) {
		t.Fatalf("the leader's truncation changed the follower's batches:\n got %v\nwant %v", now, want)
	}
	if lb := leader.Read(2, 1<<20); len(lb) == 0 || lb[0].LeaderEpoch != 2 {
		t.Fatalf("leader after reappend: %v", derefAll(lb))
	}

	w.crash()
	reopened, rec := Open(w.disk, "f-0/", smallSegments(1<<20), 0)
	if !rec.Clean() && rec.BytesDropped != 0 {
		t.Fatalf("follower recovery dropped bytes: %v", rec)
	}
	if now := derefAll(reopened.Read(0, 1<<20)); !reflect.DeepEqual(normalize(now), normalize(want)) {
		t.Fatalf("the follower's file after a crash:\n got %v\nwant %v", now, want)
	}
	checkInvariants(t, reopened)
}
