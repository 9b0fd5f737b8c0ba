package storage

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

// AppendAsLeader stores what Rebase then Append stored: the same batch,
// at the log end under the leader's epoch, with the same bytes on disk.
// The producer's batch is left as it was, and the stored batches' records
// are their own, however the log packs them: growing one batch's records
// never writes over the next batch's.
func TestAppendAsLeaderStoresWhatRebaseAndAppendStore(t *testing.T) {
	w := newWorld(t, 1)
	leader, _ := w.open(smallSegments(600)) // rolls every few batches
	ref, _ := Open(w.disk, "ref-0/", smallSegments(600), 0)

	for i := 0; i < 40; i++ {
		recs := make([]model.Record, 1+i%3)
		for j := range recs {
			recs[j] = model.Record{Timestamp: 5, Key: "k", Value: want(model.Offset(i), model.Offset(i+1))[0]}
		}
		pb := model.NewBatch(7, 0, int32(i*3), recs...)
		before := pb
		before.Records = append([]model.Record(nil), pb.Records...)
		epoch := model.Epoch(1 + i/20)

		got := leader.AppendAsLeader(&pb, epoch, 0)
		ref.Append(pb.Rebase(ref.LEO(), epoch), 0)

		if !reflect.DeepEqual(pb, before) {
			t.Fatalf("batch %d: the producer's batch changed: %v", i, pb)
		}
		if !got.Valid() || got.LeaderEpoch != epoch || got.NextOffset() != leader.LEO() {
			t.Fatalf("batch %d: stored %v, valid %v, LEO %d", i, got, got.Valid(), leader.LEO())
		}
	}
	// Growing a stored batch's records must copy, not spill into the
	// next batch's slots.
	first := leader.Read(0, 1)[0]
	_ = append(first.Records, model.Record{Value: "overwrite"})

	segs, refSegs := leader.Segments(), ref.Segments()
	if len(segs) < 3 || len(segs) != len(refSegs) {
		t.Fatalf("segments %v, Rebase and Append's %v", segs, refSegs)
	}
	for i, s := range segs {
		if a, b := w.disk.Read(s.Name), w.disk.Read(refSegs[i].Name); !reflect.DeepEqual(a, b) {
			t.Fatalf("segment %d: bytes differ from Rebase and Append's", i)
		}
		// Whole segments: a read stops at a segment's end.
		mine, theirs := derefAll(leader.Read(s.Base, 1<<20)), derefAll(ref.Read(s.Base, 1<<20))
		if !reflect.DeepEqual(mine, theirs) {
			t.Fatalf("segment %d reads\n %v\nwant %v", i, mine, theirs)
		}
	}
	checkInvariants(t, leader)

	w.crash()
	reopened, rec := w.open(smallSegments(600))
	if !rec.Clean() && rec.BytesDropped != 0 {
		t.Fatalf("recovery dropped bytes: %v", rec)
	}
	if reopened.LEO() != leader.LEO() || !reflect.DeepEqual(values(reopened), values(ref)) {
		t.Fatalf("after a crash: LEO %d, values %v", reopened.LEO(), values(reopened))
	}
}
