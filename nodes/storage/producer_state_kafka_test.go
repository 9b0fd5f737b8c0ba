package storage

import (
	"math"
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
)

// This file holds the idempotent cases of Kafka's ProducerStateManagerTest,
// written from each case's inputs and expected outputs, on a ProducerState
// over a log folder of a simulated disk. Kafka's appendClientEntry (an
// append that ProducerAppendInfo validates) is clientAppend, its
// appendReplicationEntry (unvalidated) is replicaAppend; both record one
// batch at the offset given and move the map end offset past it, as
// Kafka's helpers do. A fresh ProducerStateManager over the same folder is
// reopenState. Kafka's producer id is 1 and its epoch 0 unless a case
// says otherwise; its clock starts at psmNow.

const (
	psmPID    model.ProducerID = 1
	psmNow                     = 1000 * time.Hour
	psmExpiry                  = 24 * time.Hour // PRODUCER_ID_EXPIRATION_MS_DEFAULT
)

func newTestState(t *testing.T) (*ProducerState, *world) {
	t.Helper()
	w := newWorld(t, 1)
	return reopenState(w), w
}

// reopenState is a new ProducerStateManager over the same folder: it
// lists the snapshot files and holds no producer yet.
func reopenState(w *world) *ProducerState {
	p := newProducerState(w.disk, dir, psmExpiry)
	p.loadSnapshotList()
	return p
}

// stateBatch is a batch of pid with sequences first..last at offset off
// (one record per sequence, so the last offset is off+last-first modulo
// the wrap), every record stamped ts.
func stateBatch(pid model.ProducerID, pepoch model.Epoch, first int32, n int, off model.Offset, ts time.Duration) *model.Batch {
	recs := make([]model.Record, n)
	for i := range recs {
		recs[i] = model.Record{Timestamp: ts, Value: "v"}
	}
	b := model.NewBatch(pid, pepoch, first, recs...).Rebase(off, 0)
	return &b
}

func clientAppend(p *ProducerState, pid model.ProducerID, pepoch model.Epoch, seq int32, off model.Offset, ts time.Duration) model.ErrorCode {
	return clientAppendBatch(p, stateBatch(pid, pepoch, seq, 1, off, ts))
}

func clientAppendBatch(p *ProducerState, b *model.Batch) model.ErrorCode {
	if code := p.checkClientAppend(b); code != model.NoError {
		return code
	}
	p.update(b)
	p.mapEnd = b.LastOffset() + 1
	return model.NoError
}

func replicaAppend(p *ProducerState, pepoch model.Epoch, seq int32, off model.Offset, ts time.Duration) {
	b := stateBatch(psmPID, pepoch, seq, 1, off, ts)
	p.update(b)
	p.mapEnd = b.LastOffset() + 1
}

func mustAppend(t *testing.T, p *ProducerState, pid model.ProducerID, pepoch model.Epoch, seq int32, off model.Offset, ts time.Duration) {
	t.Helper()
	if code := clientAppend(p, pid, pepoch, seq, off, ts); code != model.NoError {
		t.Fatalf("append of producer %d epoch %d seq %d at %d: %v", pid, pepoch, seq, off, code)
	}
}

func wantCode(t *testing.T, what string, got, want model.ErrorCode) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
}

func mustLookup(t *testing.T, p *ProducerState, pid model.ProducerID) (ProducerEntry, BatchMeta, BatchMeta) {
	t.Helper()
	e, ok := p.Lookup(pid)
	if !ok || len(e.Batches) == 0 {
		t.Fatalf("producer %d unknown", pid)
	}
	return e, e.Batches[0], e.Batches[len(e.Batches)-1]
}

func wantSnapshots(t *testing.T, p *ProducerState, w *world, want ...model.Offset) {
	t.Helper()
	if got := p.SnapshotOffsets(); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
		t.Fatalf("snapshots %v, want %v", got, want)
	}
	var files []string
	for _, n := range w.disk.List(dir) {
		if _, ok := parseSnapshotName(dir, n); ok {
			files = append(files, n)
		}
	}
	if len(files) != len(want) {
		t.Fatalf("snapshot files %v, want %d", files, len(want))
	}
}

var producerStateManagerCases = []struct {
	name string
	run  func(t *testing.T, p *ProducerState, w *world)
}{
	{"testBasicIdMapping", func(t *testing.T, p *ProducerState, _ *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		mustAppend(t, p, psmPID, 0, 1, 1, 0)
		// A duplicate is found before these checks (findDuplicate), which
		// on their own reject it as out of order.
		wantCode(t, "sequence 1 again", clientAppend(p, psmPID, 0, 1, 1, 0), model.OutOfOrderSequenceNumber)
		wantCode(t, "sequence 5 after 1", clientAppend(p, psmPID, 0, 5, 2, 0), model.OutOfOrderSequenceNumber)
		mustAppend(t, p, psmPID, 1, 0, 3, 0)
		wantCode(t, "the old epoch", clientAppend(p, psmPID, 0, 0, 4, 0), model.InvalidProducerEpoch)
	}},
	{"testProducerSequenceWrapAround", func(t *testing.T, p *ProducerState, _ *world) {
		replicaAppend(p, 15, math.MaxInt32, 735, psmNow)
		mustAppend(t, p, psmPID, 15, 0, 1235, psmNow)
		e, first, last := mustLookup(t, p, psmPID)
		if e.ProducerEpoch != 15 || first.FirstSeq != math.MaxInt32 || last.LastSeq != 0 {
			t.Fatalf("entry %+v", e)
		}
	}},
	{"testProducerSequenceWithWrapAroundBatchRecord", func(t *testing.T, p *ProducerState, _ *world) {
		// 21 records from 2147483637 wrap to end at sequence 9.
		b := stateBatch(psmPID, 15, math.MaxInt32-10, 21, 2000, psmNow)
		if b.LastSequence() != 9 {
			t.Fatalf("last sequence %d, want 9", b.LastSequence())
		}
		if _, ok := p.Lookup(psmPID); ok {
			t.Fatalf("producer known before the append")
		}
		p.update(b)
		_, first, last := mustLookup(t, p, psmPID)
		if first.FirstSeq != math.MaxInt32-10 || last.LastSeq != 9 || first.FirstOffset != 2000 || last.LastOffset != 2020 {
			t.Fatalf("batch %+v", last)
		}
	}},
	{"testProducerSequenceInvalidWrapAround", func(t *testing.T, p *ProducerState, _ *world) {
		replicaAppend(p, 15, math.MaxInt32, 735, psmNow)
		wantCode(t, "sequence 1 after 2147483647", clientAppend(p, psmPID, 15, 1, 1235, psmNow), model.OutOfOrderSequenceNumber)
	}},
	{"testNoValidationOnFirstEntryWhenLoadingLog", func(t *testing.T, p *ProducerState, _ *world) {
		replicaAppend(p, 5, 16, 735, psmNow)
		e, first, last := mustLookup(t, p, psmPID)
		if e.ProducerEpoch != 5 || first.FirstSeq != 16 || last.LastSeq != 16 || last.LastOffset != 735 || first.FirstOffset != 735 {
			t.Fatalf("entry %+v", e)
		}
	}},
	{"testPrepareUpdateDoesNotMutate", func(t *testing.T, p *ProducerState, _ *world) {
		b := stateBatch(psmPID, 0, 0, 6, 15, psmNow) // sequences 0-5 at 15-20
		if code := p.checkClientAppend(b); code != model.NoError {
			t.Fatal(code)
		}
		if _, ok := p.Lookup(psmPID); ok {
			t.Fatalf("the check recorded the batch")
		}
		p.update(b)
		next := stateBatch(psmPID, 0, 6, 5, 26, psmNow) // sequences 6-10 at 26-30
		if dup, code := p.CheckAppend(*next); dup != nil || code != model.NoError {
			t.Fatal(dup, code)
		}
		_, first, last := mustLookup(t, p, psmPID)
		if first.FirstSeq != 0 || last.LastSeq != 5 || last.LastOffset != 20 {
			t.Fatalf("after the check of the next batch: %+v", last)
		}
		p.update(next)
		_, first, last = mustLookup(t, p, psmPID)
		if first.FirstSeq != 0 || last.LastSeq != 10 || last.LastOffset != 30 {
			t.Fatalf("after the update: first %+v last %+v", first, last)
		}
	}},
	{"testTruncateAndReloadRemovesOutOfRangeSnapshots", func(t *testing.T, p *ProducerState, _ *world) {
		for seq := int32(0); seq < 5; seq++ {
			mustAppend(t, p, psmPID, 0, seq, model.Offset(seq), psmNow)
			p.takeSnapshot(true)
		}
		p.truncateAndReload(1, 3, psmNow)
		if off, _ := p.OldestSnapshotOffset(); off != 2 {
			t.Fatalf("oldest snapshot %d, want 2", off)
		}
		if off, _ := p.LatestSnapshotOffset(); off != 3 {
			t.Fatalf("latest snapshot %d, want 3", off)
		}
	}},
	{"testTakeSnapshot", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		mustAppend(t, p, psmPID, 0, 1, 1, 1)
		p.takeSnapshot(true)
		files := w.disk.List(dir)
		if len(files) != 1 || w.disk.Size(files[0]) == 0 {
			t.Fatalf("folder holds %v, want one snapshot that is not empty", files)
		}
	}},
	{"testFetchSnapshotEmptySnapShot", func(t *testing.T, p *ProducerState, w *world) {
		if len(p.SnapshotOffsets()) != 0 || w.disk.Exists(snapshotName(dir, 1)) {
			t.Fatalf("a snapshot at 1 in a fresh state")
		}
	}},
	{"testRemoveExpiredPidsOnReload", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		mustAppend(t, p, psmPID, 0, 1, 1, time.Millisecond)
		p.takeSnapshot(true)
		again := reopenState(w)
		again.truncateAndReload(0, 1, 70*time.Second) // the snapshot at 2 is past the end
		mustAppend(t, again, psmPID, 0, 2, 2, 70*time.Second+time.Millisecond)
		if again.Len() != 1 {
			t.Fatalf("%d producers, want 1", again.Len())
		}
		if _, _, last := mustLookup(t, again, psmPID); last.LastSeq != 2 || again.MapEndOffset() != 3 {
			t.Fatalf("last %+v, map end %d", last, again.MapEndOffset())
		}
	}},
	{"testAcceptAppendWithoutProducerStateOnReplica", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		mustAppend(t, p, psmPID, 0, 1, 1, time.Millisecond)
		p.takeSnapshot(true)
		again := reopenState(w)
		again.truncateAndReload(0, 1, 70*time.Second)
		if _, ok := again.Lookup(psmPID); ok {
			t.Fatalf("producer known after reloading without its snapshot")
		}
		replicaAppend(again, 0, 2, 2, 70*time.Second+time.Millisecond)
		e, first, last := mustLookup(t, again, psmPID)
		if e.ProducerEpoch != 0 || first.FirstSeq != 2 || last.LastSeq != 2 {
			t.Fatalf("entry %+v", e)
		}
	}},
	{"testAcceptAppendWithSequenceGapsOnReplica", func(t *testing.T, p *ProducerState, _ *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		wantCode(t, "a client's sequence 3 after 0", clientAppend(p, psmPID, 0, 3, 1, time.Millisecond), model.OutOfOrderSequenceNumber)
		if _, _, last := mustLookup(t, p, psmPID); last.LastSeq != 0 {
			t.Fatalf("the rejected batch changed the state: %+v", last)
		}
		replicaAppend(p, 0, 3, 1, time.Millisecond)
		if _, _, last := mustLookup(t, p, psmPID); last.LastSeq != 3 {
			t.Fatalf("a replica's gap was not recorded: %+v", last)
		}
	}},
	{"testDeleteSnapshotsBefore", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, psmNow)
		mustAppend(t, p, psmPID, 0, 1, 1, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 2)
		mustAppend(t, p, psmPID, 0, 2, 2, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 2, 3)
		p.DeleteSnapshotsBefore(3)
		wantSnapshots(t, p, w, 3)
		p.DeleteSnapshotsBefore(4)
		wantSnapshots(t, p, w)
	}},
	{"testTruncateFullyAndStartAt", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, psmNow)
		mustAppend(t, p, psmPID, 0, 1, 1, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 2)
		mustAppend(t, p, psmPID, 0, 2, 2, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 2, 3)
		p.truncateFullyAndStartAt(0)
		wantSnapshots(t, p, w)
		mustAppend(t, p, psmPID, 0, 0, 0, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 1)
	}},
	{"testReloadSnapshots", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 1, 1, psmNow)
		mustAppend(t, p, psmPID, 0, 2, 2, psmNow)
		p.takeSnapshot(true)
		saved := map[string][]byte{}
		for _, n := range w.disk.List(dir) {
			saved[n] = w.disk.Read(n)
		}
		mustAppend(t, p, psmPID, 0, 3, 3, psmNow)
		mustAppend(t, p, psmPID, 0, 4, 4, psmNow)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 3, 5)
		p.truncateAndReload(3, 5, psmNow) // deletes the snapshot at 3
		wantSnapshots(t, p, w, 5)
		// Put the snapshot at 3 back behind the state's back; starting
		// over deletes the one at 5 it knows and finds the one at 3.
		for n, data := range saved {
			w.disk.Create(n)
			w.disk.Append(n, data)
		}
		p.truncateFullyAndReloadSnapshots()
		if off, ok := p.LatestSnapshotOffset(); !ok || off != 3 {
			t.Fatalf("latest snapshot %d (%v), want 3", off, ok)
		}
		wantSnapshots(t, p, w, 3)
	}},
	{"testLoadFromSnapshotRetainsNonExpiredProducers", func(t *testing.T, p *ProducerState, _ *world) {
		mustAppend(t, p, 1, 0, 0, 0, psmNow)
		mustAppend(t, p, 2, 0, 0, 1, psmNow)
		p.takeSnapshot(true)
		if p.Len() != 2 {
			t.Fatalf("%d producers", p.Len())
		}
		p.truncateAndReload(1, 2, psmNow)
		if p.Len() != 2 {
			t.Fatalf("%d producers after the reload, want 2", p.Len())
		}
		for _, want := range []struct {
			pid model.ProducerID
			off model.Offset
		}{{1, 0}, {2, 1}} {
			if _, _, last := mustLookup(t, p, want.pid); last.LastSeq != 0 || last.LastOffset != want.off {
				t.Fatalf("producer %d: %+v", want.pid, last)
			}
		}
	}},
	{"testSkipSnapshotIfOffsetUnchanged", func(t *testing.T, p *ProducerState, w *world) {
		mustAppend(t, p, psmPID, 0, 0, 0, 0)
		p.takeSnapshot(true)
		wantSnapshots(t, p, w, 1)
		if p.takeSnapshot(true) {
			t.Fatalf("a second snapshot at the same offset")
		}
		wantSnapshots(t, p, w, 1)
	}},
	{"testPidExpirationTimeout", func(t *testing.T, p *ProducerState, _ *world) {
		mustAppend(t, p, psmPID, 5, 0, 1, psmNow)
		p.RemoveExpiredProducers(psmNow + psmExpiry + time.Millisecond)
		// Forgotten: the next sequence is accepted as a new producer's.
		mustAppend(t, p, psmPID, 5, 1, 2, psmNow+psmExpiry+time.Millisecond)
		if p.Len() != 1 || p.MapEndOffset() != 3 {
			t.Fatalf("%d producers, map end %d", p.Len(), p.MapEndOffset())
		}
		if e, first, last := mustLookup(t, p, psmPID); len(e.Batches) != 1 || first.FirstSeq != 1 || last.LastSeq != 1 {
			t.Fatalf("entry %+v: the expired batch is still there", e)
		}
	}},
	{"testLoadFromEmptySnapshotFile", func(t *testing.T, p *ProducerState, w *world) {
		loadFromDamagedSnapshot(t, p, w, func(data []byte) []byte { return nil })
	}},
	{"testLoadFromTruncatedSnapshotFile", func(t *testing.T, p *ProducerState, w *world) {
		loadFromDamagedSnapshot(t, p, w, func(data []byte) []byte { return data[:len(data)/2] })
	}},
	{"testLoadFromCorruptSnapshotFile", func(t *testing.T, p *ProducerState, w *world) {
		loadFromDamagedSnapshot(t, p, w, func(data []byte) []byte {
			// 37 zero bytes written over the start, as Kafka's case does.
			out := append([]byte(nil), data...)
			for i := 0; i < 37 && i < len(out); i++ {
				out[i] = 0
			}
			return out
		})
	}},
	{"testRemoveStraySnapshotsKeepCleanShutdownSnapshot", func(t *testing.T, p *ProducerState, w *world) {
		for _, off := range []model.Offset{5, 2, 42} {
			w.disk.Create(snapshotName(dir, off))
		}
		p.removeStraySnapshots([]model.Offset{5})
		if off, _ := p.LatestSnapshotOffset(); off != 42 {
			t.Fatalf("latest %d, want 42", off)
		}
		if off, _ := p.OldestSnapshotOffset(); off != 5 {
			t.Fatalf("oldest %d, want 5", off)
		}
		wantSnapshots(t, p, w, 5, 42)
	}},
	{"testRemoveAllStraySnapshots", func(t *testing.T, p *ProducerState, w *world) {
		for _, off := range []model.Offset{5, 2, 42} {
			w.disk.Create(snapshotName(dir, off))
		}
		p.removeStraySnapshots([]model.Offset{42})
		wantSnapshots(t, p, w, 42)
	}},
	{"testReadWriteSnapshot", func(t *testing.T, _ *ProducerState, _ *world) {
		// Kafka's second entry, a producer with no batch, and its
		// coordinator epochs and open transaction have no counterpart
		// here: a snapshot keeps producers with a batch, without
		// transactional fields.
		want := []SnapshotEntry{
			{ProducerID: 1, ProducerEpoch: 2, LastSeq: 1, LastOffset: 2, OffsetDelta: 3, Timestamp: -1},
			{ProducerID: 11, ProducerEpoch: 12, LastSeq: math.MaxInt32, LastOffset: 1 << 40, OffsetDelta: 0, Timestamp: 123456 * time.Millisecond},
		}
		got, err := decodeSnapshot(encodeSnapshot(want))
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("read back %+v (%v), want %+v", got, err, want)
		}
	}},
}

// loadFromDamagedSnapshot is Kafka's testLoadFromCorruptSnapshot: of two
// snapshots, the newer is damaged; a reload deletes it and loads the older.
func loadFromDamagedSnapshot(t *testing.T, p *ProducerState, w *world, damage func([]byte) []byte) {
	t.Helper()
	mustAppend(t, p, psmPID, 0, 0, 0, psmNow)
	p.takeSnapshot(true)
	mustAppend(t, p, psmPID, 0, 1, 1, psmNow)
	p.takeSnapshot(true)
	latest, _ := p.LatestSnapshotOffset()
	if latest != 2 {
		t.Fatalf("latest snapshot %d, want 2", latest)
	}
	name := snapshotName(dir, latest)
	data := damage(w.disk.Read(name))
	w.disk.Create(name)
	w.disk.Append(name, data)
	again := reopenState(w)
	errs := again.truncateAndReload(0, 20, psmNow)
	if w.disk.Exists(name) || len(errs) != 1 {
		t.Fatalf("damaged snapshot kept (exists %v), errors %v", w.disk.Exists(name), errs)
	}
	if _, _, last := mustLookup(t, again, psmPID); last.LastOffset != 0 {
		t.Fatalf("loaded %+v, want the older snapshot's batch at 0", last)
	}
}

// TestProducerStateManager runs the idempotent cases of Kafka's
// ProducerStateManagerTest, one subtest per method, each on a fresh
// state over its own disk.
//
// Kafka: ProducerStateManagerTest.testBasicIdMapping
// Kafka: ProducerStateManagerTest.testProducerSequenceWrapAround
// Kafka: ProducerStateManagerTest.testProducerSequenceWithWrapAroundBatchRecord
// Kafka: ProducerStateManagerTest.testProducerSequenceInvalidWrapAround
// Kafka: ProducerStateManagerTest.testNoValidationOnFirstEntryWhenLoadingLog
// Kafka: ProducerStateManagerTest.testPrepareUpdateDoesNotMutate
// Kafka: ProducerStateManagerTest.testTruncateAndReloadRemovesOutOfRangeSnapshots
// Kafka: ProducerStateManagerTest.testTakeSnapshot
// Kafka: ProducerStateManagerTest.testFetchSnapshotEmptySnapShot
// Kafka: ProducerStateManagerTest.testRemoveExpiredPidsOnReload
// Kafka: ProducerStateManagerTest.testAcceptAppendWithoutProducerStateOnReplica
// Kafka: ProducerStateManagerTest.testAcceptAppendWithSequenceGapsOnReplica
// Kafka: ProducerStateManagerTest.testDeleteSnapshotsBefore
// Kafka: ProducerStateManagerTest.testTruncateFullyAndStartAt
// Kafka: ProducerStateManagerTest.testReloadSnapshots
// Kafka: ProducerStateManagerTest.testLoadFromSnapshotRetainsNonExpiredProducers
// Kafka: ProducerStateManagerTest.testSkipSnapshotIfOffsetUnchanged
// Kafka: ProducerStateManagerTest.testPidExpirationTimeout
// Kafka: ProducerStateManagerTest.testLoadFromEmptySnapshotFile
// Kafka: ProducerStateManagerTest.testLoadFromTruncatedSnapshotFile
// Kafka: ProducerStateManagerTest.testLoadFromCorruptSnapshotFile
// Kafka: ProducerStateManagerTest.testRemoveStraySnapshotsKeepCleanShutdownSnapshot
// Kafka: ProducerStateManagerTest.testRemoveAllStraySnapshots
// Kafka: ProducerStateManagerTest.testReadWriteSnapshot
func TestProducerStateManager(t *testing.T) {
	for _, tc := range producerStateManagerCases {
		t.Run(tc.name, func(t *testing.T) {
			p, w := newTestState(t)
			tc.run(t, p, w)
		})
	}
}
