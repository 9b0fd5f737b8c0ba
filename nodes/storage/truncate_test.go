package storage

import (
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// threeEpochs builds a log of batches of 2 records: epoch 0 at 0..5,
// epoch 2 at 6..11, epoch 5 at 12..17, in segments of three batches.
func threeEpochs(t *testing.T, w *world) (*Log, Config) {
	t.Helper()
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
	cfg := smallSegments(3 * size)
	l, _ := w.open(cfg)
	appendPlain(l, 0, 3, 2, 0)
	appendPlain(l, 2, 3, 2, 0)
	appendPlain(l, 5, 3, 2, 0)
	if l.LEO() != 18 || len(l.Segments()) != 3 {
		t.Fatalf("setup: LEO %d, segments %v", l.LEO(), l.Segments())
	}
	return l, cfg
}

func TestTruncateToBatchBoundary(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := threeEpochs(t, w)
	if leo := l.TruncateTo(10); leo != 10 {
		t.Fatalf("truncate to batch boundary 10 gave LEO %d", leo)
	}
	if !reflect.DeepEqual(values(l), want(0, 10)) {
		t.Fatalf("values %v", values(l))
	}
	if n := len(l.Segments()); n != 2 {
		t.Fatalf("%d segments, want the third deleted", n)
	}
	if w.disk.Exists(segmentName(dir, 12)) {
		t.Fatalf("segment 12 file still exists")
	}
	if !reflect.DeepEqual(l.Epochs().Entries(), []EpochEntry{{0, 0}, {2, 6}}) {
		t.Fatalf("epochs %v, want epoch 5 gone", l.Epochs())
	}
	checkInvariants(t, l)
}

func TestTruncateMidBatchDropsTheWholeBatch(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := threeEpochs(t, w)
	// 13 is inside the batch [12..13], the first of segment 12: the batch
	// goes, the segment stays as the empty active one.
	if leo := l.TruncateTo(13); leo != 12 {
		t.Fatalf("truncate to 13 gave LEO %d, want 12 (the whole batch goes)", leo)
	}
	if segs := l.Segments(); len(segs) != 3 || segs[2].Bytes != 0 {
		t.Fatalf("segments %v, want segment 12 kept empty", segs)
	}
	if !reflect.DeepEqual(l.Epochs().Entries(), []EpochEntry{{0, 0}, {2, 6}}) {
		t.Fatalf("epochs %v", l.Epochs())
	}
	// 7 is inside [6..7], the first batch of segment 6 (epoch 2).
	if leo := l.TruncateTo(7); leo != 6 {
		t.Fatalf("truncate to 7 gave LEO %d, want 6", leo)
	}
	if !reflect.DeepEqual(l.Epochs().Entries(), []EpochEntry{{0, 0}}) {
		t.Fatalf("epochs %v, want only epoch 0", l.Epochs())
	}
	if !reflect.DeepEqual(values(l), want(0, 6)) {
		t.Fatalf("values %v", values(l))
	}
	// Appends continue at the new end with a new epoch.
	l.Append(plain(6, 7, 2), 0)
	if !reflect.DeepEqual(l.Epochs().Entries(), []EpochEntry{{0, 0}, {7, 6}}) {
		t.Fatalf("epochs after append %v", l.Epochs())
	}
	checkInvariants(t, l)
}

func TestTruncateAtOrPastEndOnlyTrimsTheEpochCache(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := threeEpochs(t, w)
	// A replica that became leader at epoch 6 and wrote nothing.
	l.Epochs().Assign(6, 18)
	if leo := l.TruncateTo(30); leo != 18 {
		t.Fatalf("truncate past the end changed LEO to %d", leo)
	}
	if !reflect.DeepEqual(values(l), want(0, 18)) {
		t.Fatalf("truncate past the end changed data")
	}
	if e, start := l.Epochs().Latest(); e != 5 || start != 12 {
		t.Fatalf("latest epoch %d@%d, want the empty epoch 6 removed", e, start)
	}
}

func TestTruncateBelowFirstSegmentStartsOver(t *testing.T) {
	w := newWorld(t, 1)
	l, cfg := threeEpochs(t, w)
	l.ApplyRetention(0, 18) // nothing expires: retention is off
	l.TruncateFullyAndStartAt(40)
	if l.LEO() != 40 || l.LogStartOffset() != 40 || len(l.Epochs().Entries()) != 0 || l.Producers().Len() != 0 {
		t.Fatalf("after start at 40: LEO %d start %d epochs %v", l.LEO(), l.LogStartOffset(), l.Epochs())
	}
	l.Append(plain(40, 9, 2), 0)
	if leo := l.TruncateTo(20); leo != 20 || l.LogStartOffset() != 20 {
		t.Fatalf("truncate below the first segment: LEO %d start %d, want both 20", leo, l.LogStartOffset())
	}
	checkInvariants(t, l)
	w.crash()
	l2, _ := w.open(cfg)
	if l2.LEO() != 20 || l2.LogStartOffset() != 20 {
		t.Fatalf("after restart LEO %d start %d, want 20", l2.LEO(), l2.LogStartOffset())
	}
}

func TestTruncateRebuildsProducerState(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	const pid = 7
	for i := 0; i < 4; i++ {
		l.Append(batch(l.LEO(), 0, pid, 0, int32(2*i), 2, 0), 0)
	}
	l.TruncateTo(4) // keeps the batches with sequences 0..1 and 2..3
	e, ok := l.Producers().Lookup(pid)
	if !ok || len(e.Batches) != 2 || e.Batches[1].LastSeq != 3 {
		t.Fatalf("producer after truncation: %+v", e)
	}
	// The truncated sequence 4 is expected again, not a duplicate.
	if dup, err := l.Producers().CheckAppend(batch(0, 0, pid, 0, 4, 2, 0)); dup != nil || err != model.NoError {
		t.Fatalf("retry of a truncated batch: dup %v err %v, want it accepted", dup, err)
	}
	if _, err := l.Producers().CheckAppend(batch(0, 0, pid, 0, 6, 2, 0)); err != model.OutOfOrderSequenceNumber {
		t.Fatalf("sequence 6 after truncation to 4: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", err)
	}
}

func TestTruncationIsNotDurableUntilFlushed(t *testing.T) {
	// Kafka neither syncs a truncated segment nor its directory: a power
	// loss right after a truncation can bring the cut batches back if they
	// had been synced. The next flush makes the truncation durable.
	w := newWorld(t, 1)
	w.disk.SetTornWrites(false)
	cfg := smallSegments(1 << 20)
	l, _ := w.open(cfg)
	appendPlain(l, 0, 4, 2, 0)
	l.Flush()
	l.TruncateTo(4)
	w.powerLoss()
	l2, _ := w.open(cfg)
	if l2.LEO() != 8 {
		t.Fatalf("unflushed truncation: LEO %d after power loss, want the synced 8 back", l2.LEO())
	}
	l2.TruncateTo(4)
	l2.Flush()
	w.powerLoss()
	l3, _ := w.open(cfg)
	if l3.LEO() != 4 {
		t.Fatalf("flushed truncation: LEO %d after power loss, want 4", l3.LEO())
	}
}

func TestDeletedSegmentDoesNotComeBackBehindNewData(t *testing.T) {
	// Segments 0..5, 6..11 and 12..17 of one epoch, all synced. A
	// truncation to 4 deletes the last two (and changes no epoch, so no
	// checkpoint write syncs the directory by the way); new data then ends
	// segment 0 exactly where the deleted segment 6 began. A power loss
	// must not bring segment 6 back behind it: that would splice the old
	// history onto the new one.
	w := newWorld(t, 1)
	w.disk.SetTornWrites(false)
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
	cfg := smallSegments(3 * size)
	cfg.FlushIntervalMessages = 1
	l, _ := w.open(cfg)
	appendPlain(l, 0, 9, 2, 0)
	l.TruncateTo(4)
	l.Append(batch(4, 0, model.NoProducerID, model.NoEpoch, model.NoSequence, 2, 1), 0)
	w.powerLoss()
	l2, rec := w.open(cfg)
	if l2.LEO() != 6 || rec.Segments != 1 {
		t.Fatalf("after power loss LEO %d with %d segment files: deleted segments came back (%v)", l2.LEO(), rec.Segments, rec)
	}
	if b, _ := l2.BatchAt(4); b.Records[0].Timestamp != 1 {
		t.Fatalf("batch at 4 is the old one, want the one appended after the truncation")
	}
}

func TestTruncationBelowANewSegmentIsSyncedByTheNextFlush(t *testing.T) {
	// Found by the property test. Segment 0 holds 0..5, synced. A
	// truncation to 4 shortens it; the next batch does not fit, so it rolls
	// segment 4 at the new end. Kafka's flushes from then on start at the
	// recovery point 4, above segment 0, so its shortened length would never
	// be synced, and a power loss would bring offsets 4..5 back in front of
	// segment 4. The next flush must sync the shortened segment as well.
	w := newWorld(t, 1)
	w.disk.SetTornWrites(false)
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
	cfg := smallSegments(3 * size)
	cfg.FlushIntervalMessages = 1
	l, _ := w.open(cfg)
	appendPlain(l, 0, 3, 2, 0)
	l.TruncateTo(4)
	l.Append(batch(4, 0, model.NoProducerID, model.NoEpoch, model.NoSequence, 6, 1), 0)
	if segs := l.Segments(); len(segs) != 2 || segs[1].Base != 4 {
		t.Fatalf("setup: segments %v, want a roll at 4", segs)
	}
	w.powerLoss()
	l2, rec := w.open(cfg)
	if !rec.Clean() || l2.LEO() != 10 {
		t.Fatalf("after power loss LEO %d, %v: want the flushed log 0..9 whole", l2.LEO(), rec)
	}
}

// A read shares the log's storage rather than copying it; a truncation
// and the appends after it must not change what an earlier read returned
// (a fetch answer in flight holds it).
func TestReadSurvivesTruncateAndReappend(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	appendPlain(l, 0, 4, 2, 0) // offsets 0..7
	got := l.Read(2, 1<<20)
	before := derefAll(got)
	if len(got) != 3 || got[0].BaseOffset != 2 {
		t.Fatalf("read at 2: %v", before)
	}
	extra := plain(100, 9, 1)
	if grown := append(got, &extra); len(grown) != 4 || len(l.Read(2, 1<<20)) != 3 || l.LEO() != 8 {
		t.Fatalf("appending to a read's slice changed the log")
	}
	l.TruncateTo(4)
	appendPlain(l, 3, 3, 1, 0) // offsets 4..6 under epoch 3, over the old slots
	if now := derefAll(got); !reflect.DeepEqual(now, before) {
		t.Fatalf("an earlier read changed under a truncation:\n got %v\nwant %v", now, before)
	}
	if bs := l.Read(4, 1<<20); len(bs) != 3 || bs[0].LeaderEpoch != 3 {
		t.Fatalf("read after reappend: %v", bs)
	}
	checkInvariants(t, l)
}

// derefAll copies the batches a read returned.
func derefAll(bs []*model.Batch) []model.Batch {
	out := make([]model.Batch, len(bs))
	for i, b := range bs {
		out[i] = *b
	}
	return out
}

// chaos seed 730152's stuck follower (and chaos seed 15's on the tree of
// the realistic shapes), in the log alone: a follower cuts its whole log on
// a diverging epoch and copies the new leader's epoch-3 records; the epoch
// checkpoint is synced at once (Kafka's LeaderEpochFileCache.assign flushes
// it), the truncated segment and the new records are not
// (UnifiedLog.truncateTo syncs nothing). Then the power goes.
//
// Kafka's log recovery would not repair an undone cut: LogSegment.recover
// assigns a batch's epoch only above the cache's latest, so old epoch-0
// records under the synced entry for epoch 3 stay, the follower's last
// fetched epoch is 3 and no leader can see that its log diverges. What
// decides is the file system: ftruncate's size change is in the journal's
// next commit (ext4: within 5 s, sim.JournalCommit), so 11.6 s later
// (seed 730152's gap) the cut is durable and the log comes back empty.
// Within the commit interval the checkpoint's own fsync commits the
// journal, the cut with it (ext4_sync_file waits for the running
// transaction; controller-quorum-chaos seed 70180161 lost power 1.85 s
// after such a cut): the log comes back empty as well.
func TestTruncationSurvivesAPowerLossOnceTheJournalCommits(t *testing.T) {
	for _, tc := range []struct {
		name       string
		powerAfter time.Duration
		values     []string
		epochs     []EpochEntry
	}{
		// The cut is committed; the epoch-3 records, younger than the
		// 30 s writeback, are gone, and with them the entry for epoch 3.
		{"after the journal's commit", 11600 * time.Millisecond, nil, nil},
		// Within the commit interval the epoch checkpoint's fsync has
		// committed the cut: the old records do not come back under the
		// synced entry for epoch 3.
		{"within the journal's commit, after the checkpoint's fsync", sim.JournalCommit - time.Millisecond, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			w.disk.SetTornWrites(false)
			w.disk.SetWriteback(30 * time.Second)
			cfg := smallSegments(1 << 20)
			l, _ := w.open(cfg)
			appendPlain(l, 0, 4, 2, 0)
			l.Flush()
			l.TruncateTo(0)
			appendPlain(l, 3, 1, 2, 0)
			if got := l.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{3, 0}}) {
				t.Fatalf("after the truncation and the new epoch's append: epochs %v, want [{3 0}]", got)
			}
			w.sim.At(tc.powerAfter, "power", func() { w.sim.PowerLoss(0) })
			w.sim.Run(tc.powerAfter + time.Millisecond)
			w.sim.Start(0)
			l2, _ := w.open(cfg)
			if got := values(l2); !reflect.DeepEqual(got, tc.values) {
				t.Fatalf("power loss %v after the cut: values %v, want %v", tc.powerAfter, got, tc.values)
			}
			if got := l2.Epochs().Entries(); !reflect.DeepEqual(got, tc.epochs) {
				t.Fatalf("power loss %v after the cut: epochs %v, want %v", tc.powerAfter, got, tc.epochs)
			}
			if len(tc.epochs) > 0 {
				if e, end := l2.EndOffsetFor(3); e != 3 || end != l2.LEO() {
					t.Fatalf("EndOffsetFor(3) = %d@%d, want 3@%d: a leader comparing epoch 3 finds no divergence", e, end, l2.LEO())
				}
			}
		})
	}
}
