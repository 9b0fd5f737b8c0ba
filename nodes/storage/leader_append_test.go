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

// A leader checks a batch (Valid) and then appends it, and AppendAsLeader
// restamps the frame Valid left rather than encode the batch again. That
// is right only while the frame is b's as b is now: each case below puts
// something between the check and the append that must make the log
// encode afresh, and the stored batch must still be exactly what Rebase
// makes (valid, with Rebase's CRC).
func TestAppendAsLeaderRestampsOnlyTheCheckedFrame(t *testing.T) {
	mk := func(seq int32, values ...string) model.Batch {
		recs := make([]model.Record, len(values))
		for i, v := range values {
			recs[i] = model.Record{Timestamp: 5, Value: v}
		}
		return model.NewBatch(7, 0, seq, recs...)
	}
	for _, tc := range []struct {
		name    string
		between func(l *Log, b *model.Batch)
	}{
		{"nothing", func(*Log, *model.Batch) {}},
		{"another batch checked", func(l *Log, _ *model.Batch) {
			other := mk(50, "other", "values", "here")
			l.Valid(&other)
		}},
		{"an invalid batch checked", func(l *Log, _ *model.Batch) {
			other := mk(50, "other")
			other.Records[0].Value = "changed after sealing"
			if l.Valid(&other) {
				t.Fatal("setup: corrupted batch is valid")
			}
		}},
		{"a follower's append", func(l *Log, _ *model.Batch) {
			l.Append(mk(50, "appended", "as", "follower").Rebase(l.LEO(), 1), 0)
		}},
		{"resealed with another sequence", func(_ *Log, b *model.Batch) {
			b.BaseSequence += 3
			b.Seal()
		}},
		{"records replaced and resealed", func(_ *Log, b *model.Batch) {
			b.Records = append([]model.Record(nil), b.Records...)
			b.Records[1].Value = "a longer value than before"
			b.Seal()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			l, _ := w.open(smallSegments(1 << 20))
			appendPlain(l, 1, 2, 2, 0) // the log does not start at 0
			b := mk(10, "a", "bb", "ccc")
			if !l.Valid(&b) {
				t.Fatal("setup: batch not valid")
			}
			tc.between(l, &b)
			base := l.LEO()
			got := l.AppendAsLeader(&b, 4, 0)
			if want := b.Rebase(base, 4); !reflect.DeepEqual(*got, want) || !got.Valid() {
				t.Fatalf("stored %v crc %08x (valid %v), want %v crc %08x", got, got.CRC, got.Valid(), want, want.CRC)
			}
			checkInvariants(t, l)
		})
	}
}
