package storage

import (
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
)

// This file holds the duplicate, epoch and producer-snapshot cases of
// Kafka's UnifiedLogTest, written from each case's inputs and expected
// outputs. Kafka's appendAsLeader is the produce helper (check, then stamp
// and append), its appendAsFollower is Log.Append of a stamped batch, its
// updateHighWatermark plus deleteOldSegments is ApplyRetention with the
// high watermark (the log keeps none), its takeProducerSnapshot is
// takeProducerSnapshot below and its roll is forceRoll.

// takeProducerSnapshot is UnifiedLog.takeProducerSnapshot: a synced
// snapshot at the log end.
func takeProducerSnapshot(l *Log) {
	l.foldProducers()
	l.producers.takeSnapshot(true)
}

// forceRoll is UnifiedLog.roll(): a new active segment at the log end.
func forceRoll(l *Log) { l.roll(l.clock) }

// snapshotFiles lists the snapshot files in the log folder.
func snapshotFiles(w *world) []model.Offset {
	var out []model.Offset
	for _, n := range w.disk.List(dir) {
		if off, ok := parseSnapshotName(dir, n); ok {
			out = append(out, off)
		}
	}
	return out
}

// pidBatch is an unstamped batch of one record from producer p.
func pidBatch(p model.ProducerID, pepoch model.Epoch, seq int32, value string) model.Batch {
	return model.NewBatch(p, pepoch, seq, model.Record{Value: value})
}

func mustProduce(t *testing.T, l *Log, b model.Batch) model.Offset {
	t.Helper()
	off, code := produce(t, l, b)
	if code != model.NoError {
		t.Fatalf("produce %v: %v", b, code)
	}
	return off
}

func wantLatestSnapshot(t *testing.T, l *Log, want model.Offset, wantOK bool) {
	t.Helper()
	if got, ok := l.Producers().LatestSnapshotOffset(); ok != wantOK || (ok && got != want) {
		t.Fatalf("latest snapshot (%d, %v), want (%d, %v)", got, ok, want, wantOK)
	}
}

var unifiedLogCases = []struct {
	name string
	run  func(t *testing.T, w *world)
}{
	{"testDuplicateAppends", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		for seq := int32(0); seq < 6; seq++ {
			mustProduce(t, l, seqBatch(0, seq, 1))
		}
		if off := mustProduce(t, l, seqBatch(0, 6, 3)); off != 6 || l.LEO() != 9 {
			t.Fatalf("three records at %d, log end %d", off, l.LEO())
		}
		// A retry of the batch at the tail, of three records.
		if off := mustProduce(t, l, seqBatch(0, 6, 3)); off != 6 || l.LEO() != 9 {
			t.Fatalf("retry of the tail answered %d, log end %d: appended again", off, l.LEO())
		}
		// Part of the tail again (sequences 7-8): out of order.
		if _, code := produce(t, l, seqBatch(0, 7, 2)); code != model.OutOfOrderSequenceNumber {
			t.Fatalf("partial duplicate: %v", code)
		}
		// The fifth batch from the tail (sequence 2) is still retained.
		if off := mustProduce(t, l, seqBatch(0, 2, 1)); off != 2 || l.LEO() != 9 {
			t.Fatalf("retry of sequence 2 answered %d, log end %d", off, l.LEO())
		}
		// Sequence 1 is older than the five: out of order.
		if _, code := produce(t, l, seqBatch(0, 1, 1)); code != model.OutOfOrderSequenceNumber {
			t.Fatalf("retry of sequence 1: %v", code)
		}
		first := mustProduce(t, l, seqBatch(0, 9, 1))
		if again := mustProduce(t, l, seqBatch(0, 9, 1)); again != first || l.LEO() != 10 {
			t.Fatalf("single-record retry at %d, original %d, log end %d", again, first, l.LEO())
		}
	}},
	{"testMultipleProducerIdsPerMemoryRecord", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		for i := model.ProducerID(1); i <= 4; i++ {
			l.Append(batch(l.LEO(), 0, i, 0, 0, 1, 0), 0)
		}
		l.Flush()
		for i, b := range l.Read(0, 1<<20) {
			if b.ProducerID != model.ProducerID(i+1) || b.BaseOffset != model.Offset(i) || b.BaseSequence != 0 {
				t.Fatalf("batch %d read back as producer %d at %d sequence %d", i, b.ProducerID, b.BaseOffset, b.BaseSequence)
			}
		}
	}},
	{"testDuplicateAppendToFollower", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(5 << 20))
		// A follower does not validate: the same sequences twice go in.
		l.Append(batch(0, 0, pid, 0, 0, 2, 0), 0)
		l.Append(batch(2, 0, pid, 0, 0, 2, 0), 0)
		if l.LEO() != 4 {
			t.Fatalf("log end %d, want 4", l.LEO())
		}
	}},
	{"testMultipleProducersWithDuplicatesInSingleAppend", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(5 << 20))
		for _, b := range []struct {
			p   model.ProducerID
			seq int32
		}{{1, 0}, {2, 0}, {1, 1}, {2, 1}, {1, 1}} {
			l.Append(batch(l.LEO(), 0, b.p, 0, b.seq, 1, 0), 0)
		}
		if l.LEO() != 5 {
			t.Fatalf("log end %d, want 5", l.LEO())
		}
	}},
	{"testOldProducerEpoch", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		mustProduce(t, l, seqBatch(1, 0, 1))
		if _, code := produce(t, l, seqBatch(0, 0, 1)); code != model.InvalidProducerEpoch {
			t.Fatalf("the older producer epoch: %v, want INVALID_PRODUCER_EPOCH", code)
		}
	}},
	{"testNonSequentialAppend", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		mustProduce(t, l, seqBatch(0, 0, 1))
		if _, code := produce(t, l, seqBatch(0, 2, 1)); code != model.OutOfOrderSequenceNumber {
			t.Fatalf("sequence 2 after 0: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", code)
		}
	}},
	{"shouldApplyEpochToMessageOnAppendIfLeader", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		l.Epochs().Assign(72, 50)
		for i := 0; i < 50; i++ {
			b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "x"})
			if !l.Valid(&b) {
				t.Fatal("invalid batch")
			}
			l.AppendAsLeader(&b, 72, 0)
		}
		for off := model.Offset(0); off < 50; off++ {
			if b, ok := l.BatchAt(off); !ok || b.LeaderEpoch != 72 {
				t.Fatalf("batch at %d: epoch %d (%v), want 72", off, b.LeaderEpoch, ok)
			}
		}
	}},
	{"followerShouldSaveEpochInformationFromReplicatedMessagesToTheEpochCache", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		for i := 0; i < 50; i++ {
			l.Append(plain(l.LEO(), 42, 1), 0)
		}
		if e, _ := l.Epochs().Latest(); e != 42 {
			t.Fatalf("latest epoch %d, want 42", e)
		}
	}},
	{"shouldTruncateLeaderEpochsWhenDeletingSegments", func(t *testing.T, w *world) {
		l := threeSegmentsOfFive(t, w)
		l.Epochs().Assign(1, 5)
		l.Epochs().Assign(2, 10)
		l.ApplyRetention(0, l.LEO())
		wantEntries(t, l.Epochs(), EpochEntry{1, 5}, EpochEntry{2, 10})
	}},
	{"shouldUpdateOffsetForLeaderEpochsWhenDeletingSegments", func(t *testing.T, w *world) {
		l := threeSegmentsOfFive(t, w)
		l.Epochs().Assign(1, 7)
		l.Epochs().Assign(2, 10)
		l.ApplyRetention(0, l.LEO())
		wantEntries(t, l.Epochs(), EpochEntry{0, 5}, EpochEntry{1, 7}, EpochEntry{2, 10})
	}},
	{"shouldTruncateLeaderEpochCheckpointFileWhenTruncatingLog", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		l, _ := w.open(smallSegments(10 * size))
		for i := 0; i < 20; i++ {
			epoch := model.Epoch(0)
			if i >= 16 {
				epoch = 2
			} else if i >= 10 {
				epoch = 1
			}
			l.Append(plain(l.LEO(), epoch, 1), 0)
		}
		if len(l.Segments()) != 2 || l.LEO() != 20 {
			t.Fatalf("%d segments, log end %d", len(l.Segments()), l.LEO())
		}
		for _, step := range []struct {
			to      model.Offset
			entries int
		}{{20, 3}, {11, 2}, {10, 1}, {0, 0}} {
			l.TruncateTo(step.to)
			if n := len(l.Epochs().Entries()); n != step.entries {
				t.Fatalf("after truncating to %d: %d epoch entries, want %d", step.to, n, step.entries)
			}
			again, err := loadEpochCache(w.disk, dir+epochCheckpointName)
			if err != nil || len(again.Entries()) != step.entries {
				t.Fatalf("after truncating to %d the checkpoint holds %v (%v)", step.to, again, err)
			}
		}
	}},
	{"testTruncateToEndOffsetClearsEpochCache", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1 << 20))
		// Kafka's follower appends at 27 into an empty log; a follower
		// here starts its log there first, as for a fetch below the
		// leader's start.
		l.TruncateFullyAndStartAt(27)
		l.Append(plain(27, 19, 2), 0)
		for _, to := range []model.Offset{29, 30} {
			l.Epochs().Assign(model.Epoch(20+to-29), l.LEO()) // becoming leader
			if e, ok := l.Epochs().LatestEntry(); !ok || e.StartOffset != 29 {
				t.Fatalf("latest entry %v after becoming leader", e)
			}
			l.TruncateTo(to) // becoming follower: at or past the end
			if e, _ := l.Epochs().LatestEntry(); e != (EpochEntry{19, 27}) || l.LEO() != 29 {
				t.Fatalf("after truncating to %d: latest entry %v, log end %d", to, e, l.LEO())
			}
		}
	}},
	{"testProducerIdMapTruncateTo", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(10 << 10))
		l.Append(plain(0, 0, 1), 0)
		l.Append(plain(1, 0, 1), 0)
		takeProducerSnapshot(l)
		l.Append(plain(2, 0, 1), 0)
		takeProducerSnapshot(l)
		for _, to := range []model.Offset{2, 1} {
			l.TruncateTo(to)
			wantLatestSnapshot(t, l, to, true)
			if got := l.Producers().MapEndOffset(); got != to {
				t.Fatalf("map end %d after truncating to %d", got, to)
			}
		}
		l.TruncateTo(0)
		wantLatestSnapshot(t, l, 0, false)
		if got := l.Producers().MapEndOffset(); got != 0 {
			t.Fatalf("map end %d after truncating to 0", got)
		}
	}},
	{"testProducerIdMapTruncateToWithNoSnapshots", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(10 << 10))
		mustProduce(t, l, seqBatch(0, 0, 1))
		mustProduce(t, l, seqBatch(0, 1, 1))
		if files := snapshotFiles(w); len(files) != 0 {
			t.Fatalf("snapshot files %v before any roll", files)
		}
		l.TruncateTo(1)
		if _, _, last := mustLookup(t, l.Producers(), pid); last.LastSeq != 0 || l.Producers().Len() != 1 {
			t.Fatalf("after truncating to 1: last batch %+v", last)
		}
	}},
	{"testRetentionDeletesProducerStateSnapshots", func(t *testing.T, w *world) {
		for _, emptyActive := range []bool{false, true} {
			w := newWorld(t, 1)
			cfg := smallSegments(10 << 10)
			cfg.RetentionBytes, cfg.RetentionTime = 0, time.Minute
			l, _ := w.open(cfg)
			for seq := int32(0); seq < 3; seq++ {
				if seq > 0 {
					forceRoll(l)
				}
				mustProduce(t, l, seqBatch(0, seq, 1))
			}
			want := 2
			if emptyActive {
				forceRoll(l)
				want = 3
			}
			if n := len(snapshotFiles(w)); n != want {
				t.Fatalf("empty active segment %v: %d snapshots, want %d", emptyActive, n, want)
			}
			l.ApplyRetention(time.Minute+time.Millisecond, l.LEO())
			if files := snapshotFiles(w); len(files) != 1 || l.LogStartOffset() != 3 {
				t.Fatalf("empty active segment %v: snapshots %v, log start %d after retention", emptyActive, files, l.LogStartOffset())
			}
		}
	}},
	{"testLoadingLogDeletesProducerStateSnapshotsPastLogEndOffset", func(t *testing.T, w *world) {
		w.disk.Create(snapshotName(dir, 42))
		w.open(smallSegments(10 << 10))
		if files := snapshotFiles(w); len(files) != 0 {
			t.Fatalf("snapshots %v past the log end kept", files)
		}
	}},
	{"testProducerIdMapTruncateFullyAndStartAt", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		cfg := smallSegments(size)
		cfg.RetentionBytes = 2 * size
		l, _ := w.open(cfg)
		l.Append(plain(0, 0, 1), 0)
		takeProducerSnapshot(l)
		l.Append(plain(1, 0, 1), 0)
		l.Append(plain(2, 0, 1), 0)
		takeProducerSnapshot(l)
		if len(l.Segments()) != 3 || l.Producers().MapEndOffset() != 3 {
			t.Fatalf("%d segments, map end %d", len(l.Segments()), l.Producers().MapEndOffset())
		}
		wantLatestSnapshot(t, l, 3, true)
		l.TruncateFullyAndStartAt(29)
		if len(l.Segments()) != 1 || l.Producers().MapEndOffset() != 29 {
			t.Fatalf("after starting at 29: %d segments, map end %d", len(l.Segments()), l.Producers().MapEndOffset())
		}
		wantLatestSnapshot(t, l, 0, false)
	}},
	{"testProducerIdExpirationOnSegmentDeletion", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, pidBatch(1, 0, 0, "x").Rebase(0, 0))))
		cfg := smallSegments(size)
		cfg.RetentionBytes = 2 * size
		l, _ := w.open(cfg)
		mustProduce(t, l, pidBatch(1, 0, 0, "x"))
		takeProducerSnapshot(l)
		mustProduce(t, l, pidBatch(2, 0, 0, "x"))
		mustProduce(t, l, pidBatch(2, 0, 1, "x"))
		takeProducerSnapshot(l)
		if len(l.Segments()) != 3 || !reflect.DeepEqual(l.Producers().IDs(), []model.ProducerID{1, 2}) {
			t.Fatalf("%d segments, producers %v", len(l.Segments()), l.Producers().IDs())
		}
		l.ApplyRetention(0, l.LEO())
		// Deleting a segment does not forget its producers.
		if len(l.Segments()) != 2 || !reflect.DeepEqual(l.Producers().IDs(), []model.ProducerID{1, 2}) {
			t.Fatalf("after retention: %d segments, producers %v", len(l.Segments()), l.Producers().IDs())
		}
	}},
	{"testProducerSnapshotAfterSegmentRollOnAppend", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(1024))
		big := string(make([]byte, 512))
		mustProduce(t, l, model.NewBatch(pid, 0, 0, model.Record{Value: big}))
		mustProduce(t, l, model.NewBatch(pid, 0, 1, model.Record{Value: big})) // overflows: roll at 1
		if segs := l.Segments(); len(segs) != 2 || segs[1].Base != 1 {
			t.Fatalf("segments %v", segs)
		}
		wantLatestSnapshot(t, l, 1, true)
		l.TruncateTo(1) // a reload from the snapshot at 1
		if segs := l.Segments(); len(segs) != 2 || segs[1].Base != 1 || segs[1].Batches != 0 {
			t.Fatalf("segments after truncating to 1: %v", segs)
		}
		wantLatestSnapshot(t, l, 1, true)
		if _, first, last := mustLookup(t, l.Producers(), pid); first.FirstOffset != 0 || last.LastOffset != 0 {
			t.Fatalf("entry after the reload: first %+v last %+v", first, last)
		}
	}},
	{"testTakeSnapshotOnRollAndDeleteSnapshotOnRecoveryPointCheckpoint", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(10 << 10))
		for i := model.Offset(1); i <= 3; i++ {
			l.Append(plain(l.LEO(), 0, 1), 0)
			forceRoll(l)
			wantLatestSnapshot(t, l, i, true)
			if off, _ := l.Producers().OldestSnapshotOffset(); off != 1 {
				t.Fatalf("oldest snapshot %d, want 1: the roll's flush kept them all", off)
			}
		}
		l.Append(plain(l.LEO(), 0, 1), 0)
		l.flush(4, false)
		wantLatestSnapshot(t, l, 3, true)
	}},
	{"testPeriodicProducerIdExpiration", func(t *testing.T, w *world) {
		cfg := smallSegments(10 << 10)
		cfg.ProducerIDExpiration = 200 * time.Millisecond
		l, _ := w.open(cfg)
		now := time.Hour
		b := model.NewBatch(23, 0, 0, model.Record{Timestamp: now, Value: "foo"})
		mustProduce(t, l, b)
		// The broker checks every producer.id.expiration.check.interval.ms
		// (100 ms in Kafka's case).
		l.RemoveExpiredProducers(now + 100*time.Millisecond)
		if ids := l.Producers().IDs(); !reflect.DeepEqual(ids, []model.ProducerID{23}) {
			t.Fatalf("after 100 ms: producers %v", ids)
		}
		l.RemoveExpiredProducers(now + 200*time.Millisecond)
		if ids := l.Producers().IDs(); len(ids) != 0 {
			t.Fatalf("after 200 ms: producers %v, want none", ids)
		}
	}},
	{"testProducerIdMapOffsetUpdatedForNonIdempotentData", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(10 << 10))
		l.Append(plain(0, 0, 1), 0)
		takeProducerSnapshot(l)
		wantLatestSnapshot(t, l, 1, true)
	}},
	{"testOffsetFromProducerSnapshotFile", func(t *testing.T, _ *world) {
		const off = 23423423
		if got, ok := parseSnapshotName(dir, snapshotName(dir, off)); !ok || got != off {
			t.Fatalf("offset from %s: %d (%v)", snapshotName(dir, off), got, ok)
		}
	}},
	{"testSizeBasedLogRoll", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		l, _ := w.open(smallSegments(10 * (size - 1)))
		if len(l.Segments()) != 1 {
			t.Fatalf("%d segments in a new log", len(l.Segments()))
		}
		appendPlain(l, 0, 11, 1, 0)
		if len(l.Segments()) != 2 {
			t.Fatalf("%d segments after 11 batches, want 2", len(l.Segments()))
		}
	}},
	{"testLoadEmptyLog", func(t *testing.T, w *world) {
		w.disk.Create(segmentName(dir, 0))
		l, _ := w.open(smallSegments(1 << 20))
		l.Append(plain(0, 0, 1), 0)
		if l.LEO() != 1 {
			t.Fatalf("log end %d", l.LEO())
		}
	}},
	{"testLogRolls", func(t *testing.T, w *world) {
		l, _ := w.open(smallSegments(100))
		appendPlain(l, 0, 100, 1, 0)
		l.flush(l.LEO(), false)
		for off := model.Offset(0); off < 100; off++ {
			bs := l.Read(off, 1<<20)
			if len(bs) == 0 || bs[0].LastOffset() != off || bs[0].Records[0].Value != want(off, off+1)[0] {
				t.Fatalf("read at %d: %v", off, bs)
			}
		}
		if bs := l.Read(100, 1<<20); len(bs) != 0 {
			t.Fatalf("read at the end: %v", bs)
		}
		if segs := l.Segments(); len(segs) < 2 || l.RecoveryPoint() < segs[len(segs)-1].Base {
			t.Fatalf("recovery point %d before the active segment: the rolls did not flush", l.RecoveryPoint())
		}
	}},
	{"testTruncateTo", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		l, _ := w.open(smallSegments(10 * size))
		appendPlain(l, 0, 10, 1, 0)
		if len(l.Segments()) != 1 || l.LEO() != 10 {
			t.Fatalf("%d segments, log end %d", len(l.Segments()), l.LEO())
		}
		full := l.Size()
		for _, to := range []model.Offset{10, 11} { // at and past the end: nothing changes
			l.TruncateTo(to)
			if l.LEO() != 10 || l.Size() != full {
				t.Fatalf("truncating to %d changed the log: end %d size %d", to, l.LEO(), l.Size())
			}
		}
		l.TruncateTo(5)
		if l.LEO() != 5 || l.Size() >= full {
			t.Fatalf("truncating to 5: end %d size %d", l.LEO(), l.Size())
		}
		l.TruncateTo(0)
		if l.LEO() != 0 || l.Size() != 0 {
			t.Fatalf("truncating to 0: end %d size %d", l.LEO(), l.Size())
		}
		appendPlain(l, 0, 10, 1, 0)
		if l.LEO() != 10 || l.Size() != full {
			t.Fatalf("refilled: end %d size %d", l.LEO(), l.Size())
		}
		l.TruncateFullyAndStartAt(1)
		if l.LEO() != 1 || l.Size() != 0 {
			t.Fatalf("started at 1: end %d size %d", l.LEO(), l.Size())
		}
		appendPlain(l, 0, 10, 1, 0)
		if l.LEO() <= 10 || l.Size() != full {
			t.Fatalf("refilled from 1: end %d size %d", l.LEO(), l.Size())
		}
		l.TruncateTo(0) // below the first offset of the log
		if l.LEO() != 0 || l.Size() != 0 {
			t.Fatalf("truncating below the log start: end %d size %d", l.LEO(), l.Size())
		}
	}},
	{"testDeleteOldSegments", func(t *testing.T, w *world) {
		// Kafka's case ends by deleting the whole log (UnifiedLog.delete),
		// which kafkasim does not model; the rest is here.
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		cfg := smallSegments(5 * size)
		cfg.RetentionTime = 999 * time.Millisecond
		l, _ := w.open(cfg)
		appendPlain(l, 0, 100, 1, 0)
		now := time.Second // every record is a second old
		l.Epochs().Assign(0, 40)
		l.Epochs().Assign(1, 90)
		n := len(l.Segments())
		if l.ApplyRetention(now, 0); len(l.Segments()) != n || l.LogStartOffset() != 0 {
			t.Fatalf("retention below a zero high watermark deleted segments")
		}
		for hw := model.Offset(25); hw <= 30; hw++ {
			l.ApplyRetention(now, hw)
			if l.LogStartOffset() > hw {
				t.Fatalf("log start %d past the high watermark %d", l.LogStartOffset(), hw)
			}
			for _, sg := range l.Segments() {
				if sg.Batches > 0 && sg.Next-1 < hw {
					t.Fatalf("segment %v below the high watermark %d kept", sg, hw)
				}
			}
		}
		l.ApplyRetention(now, l.LEO())
		if len(l.Segments()) != 1 {
			t.Fatalf("%d segments left, want the new active one", len(l.Segments()))
		}
		wantEntries(t, l.Epochs(), EpochEntry{1, 100})
	}},
	{"shouldDeleteSizeBasedSegments", func(t *testing.T, w *world) {
		l := threeSegmentsOfFive(t, w)
		l.ApplyRetention(0, l.LEO())
		if len(l.Segments()) != 2 {
			t.Fatalf("%d segments, want 2", len(l.Segments()))
		}
	}},
	{"shouldNotDeleteSizeBasedSegmentsWhenUnderRetentionSize", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		cfg := smallSegments(5 * size)
		cfg.RetentionBytes = 15 * size
		l, _ := w.open(cfg)
		appendPlain(l, 0, 15, 1, 0)
		l.ApplyRetention(0, l.LEO())
		if len(l.Segments()) != 3 {
			t.Fatalf("%d segments, want 3", len(l.Segments()))
		}
	}},
	{"shouldDeleteTimeBasedSegmentsReadyToBeDeleted", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		cfg := smallSegments(5 * size)
		cfg.RetentionTime = 10 * time.Second
		l, _ := w.open(cfg)
		appendPlain(l, 0, 15, 1, 10*time.Millisecond)
		l.ApplyRetention(time.Hour, l.LEO())
		if len(l.Segments()) != 1 {
			t.Fatalf("%d segments, want 1", len(l.Segments()))
		}
	}},
	{"shouldNotDeleteTimeBasedSegmentsWhenNoneReadyToBeDeleted", func(t *testing.T, w *world) {
		size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
		cfg := smallSegments(5 * size)
		cfg.RetentionTime = 10000 * time.Second
		l, _ := w.open(cfg)
		appendPlain(l, 0, 15, 1, time.Hour)
		l.ApplyRetention(time.Hour, l.LEO())
		if len(l.Segments()) != 3 {
			t.Fatalf("%d segments, want 3", len(l.Segments()))
		}
	}},
}

// threeSegmentsOfFive is Kafka's setup for the retention epoch cases:
// fifteen single-record batches in epoch 0, five to a segment, and
// retention.bytes of ten batches, so that retention deletes the first
// segment.
func threeSegmentsOfFive(t *testing.T, w *world) *Log {
	t.Helper()
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
	cfg := smallSegments(5 * size)
	cfg.RetentionBytes = 10 * size
	l, _ := w.open(cfg)
	appendPlain(l, 0, 15, 1, 0)
	if len(l.Segments()) != 3 {
		t.Fatalf("%d segments, want 3", len(l.Segments()))
	}
	return l
}

// TestUnifiedLog runs the duplicate, epoch and producer-snapshot cases of
// Kafka's UnifiedLogTest, and its roll, truncation and retention cases,
// one subtest per method, each on its own disk.
//
// Kafka: UnifiedLogTest.testDuplicateAppends
// Kafka: UnifiedLogTest.testMultipleProducerIdsPerMemoryRecord
// Kafka: UnifiedLogTest.testDuplicateAppendToFollower
// Kafka: UnifiedLogTest.testMultipleProducersWithDuplicatesInSingleAppend
// Kafka: UnifiedLogTest.testOldProducerEpoch
// Kafka: UnifiedLogTest.testNonSequentialAppend
// Kafka: UnifiedLogTest.shouldApplyEpochToMessageOnAppendIfLeader
// Kafka: UnifiedLogTest.followerShouldSaveEpochInformationFromReplicatedMessagesToTheEpochCache
// Kafka: UnifiedLogTest.shouldTruncateLeaderEpochsWhenDeletingSegments
// Kafka: UnifiedLogTest.shouldUpdateOffsetForLeaderEpochsWhenDeletingSegments
// Kafka: UnifiedLogTest.shouldTruncateLeaderEpochCheckpointFileWhenTruncatingLog
// Kafka: UnifiedLogTest.testTruncateToEndOffsetClearsEpochCache
// Kafka: UnifiedLogTest.testProducerIdMapTruncateTo
// Kafka: UnifiedLogTest.testProducerIdMapTruncateToWithNoSnapshots
// Kafka: UnifiedLogTest.testRetentionDeletesProducerStateSnapshots
// Kafka: UnifiedLogTest.testLoadingLogDeletesProducerStateSnapshotsPastLogEndOffset
// Kafka: UnifiedLogTest.testProducerIdMapTruncateFullyAndStartAt
// Kafka: UnifiedLogTest.testProducerIdExpirationOnSegmentDeletion
// Kafka: UnifiedLogTest.testProducerSnapshotAfterSegmentRollOnAppend
// Kafka: UnifiedLogTest.testTakeSnapshotOnRollAndDeleteSnapshotOnRecoveryPointCheckpoint
// Kafka: UnifiedLogTest.testPeriodicProducerIdExpiration
// Kafka: UnifiedLogTest.testProducerIdMapOffsetUpdatedForNonIdempotentData
// Kafka: UnifiedLogTest.testOffsetFromProducerSnapshotFile
// Kafka: UnifiedLogTest.testSizeBasedLogRoll
// Kafka: UnifiedLogTest.testLoadEmptyLog
// Kafka: UnifiedLogTest.testLogRolls
// Kafka: UnifiedLogTest.testTruncateTo
// Kafka: UnifiedLogTest.testDeleteOldSegments
// Kafka: UnifiedLogTest.shouldDeleteSizeBasedSegments
// Kafka: UnifiedLogTest.shouldNotDeleteSizeBasedSegmentsWhenUnderRetentionSize
// Kafka: UnifiedLogTest.shouldDeleteTimeBasedSegmentsReadyToBeDeleted
// Kafka: UnifiedLogTest.shouldNotDeleteTimeBasedSegmentsWhenNoneReadyToBeDeleted
func TestUnifiedLog(t *testing.T) {
	for _, tc := range unifiedLogCases {
		t.Run(tc.name, func(t *testing.T) {
			tc.run(t, newWorld(t, 1))
		})
	}
}
