package storage

import (
	"testing"
	"time"

	"kafkasim/model"
)

// idleProducerLog is a log whose idempotent producer (pid, epoch 0) wrote
// four batches of three records at time 0 (offsets 0-11); two plain
// batches follow at 12 and 13, each in a segment of its own, and
// retention then deleted every segment below 12: only the producer state,
// and the snapshots rolls and closes take of it, still know the producer.
//
// (Had retention emptied the log, the log start would equal its end, and
// Kafka's truncateAndReload deletes every snapshot at or below the log
// start on load: a restart would forget the producer. kafkasim does the
// same.)
func idleProducerLog(t *testing.T, w *world) (*Log, Config) {
	t.Helper()
	cfg := smallSegments(200) // a few batches per segment
	cfg.RetentionBytes = 0    // delete every segment below the high watermark
	l, _ := w.open(cfg)
	for i := int32(0); i < 4; i++ {
		if _, code := produce(t, l, seqBatch(0, 3*i, 3)); code != model.NoError {
			t.Fatal(code)
		}
	}
	big := string(make([]byte, 300)) // larger than a segment: it rolls before and after it
	for i := 0; i < 2; i++ {
		b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: big}).Rebase(l.LEO(), 0)
		l.Append(b, 0)
	}
	if l.ApplyRetention(0, 12); l.LogStartOffset() != 12 || l.LEO() != 14 {
		t.Fatalf("retention left the log at [%d, %d), want [12, 14)", l.LogStartOffset(), l.LEO())
	}
	return l, cfg
}

// A clean restart keeps an idle producer's sequence: the snapshot that
// the close wrote at the log end is loaded, so the producer's retried last
// batch is answered as the duplicate it is, and its next batch follows on.
// Without the snapshot (the nearby case: the files are gone), the load can
// only replay a log that no longer holds the producer, which is then
// unknown, and the retry is appended a second time.
func TestACleanRestartKeepsAnIdleProducersSequence(t *testing.T) {
	w := newWorld(t, 1)
	l, cfg := idleProducerLog(t, w)
	l.Flush()
	l.Close()
	if off, ok := l.Producers().LatestSnapshotOffset(); !ok || off != l.LEO() {
		t.Fatalf("latest snapshot %d (%v) after the close, want one at the log end %d", off, ok, l.LEO())
	}
	w.crash() // the process stops; the clean-shutdown marker is the broker's
	l2, _ := OpenAfterCleanShutdown(w.disk, dir, cfg, time.Second)
	dup, code := l2.Producers().CheckAppend(seqBatch(0, 9, 3))
	if code != model.NoError || dup == nil || dup.FirstOffset != 9 {
		t.Fatalf("retry of the last batch after a clean restart: %v %v, want the duplicate at offset 9", dup, code)
	}
	if _, code := l2.Producers().CheckAppend(seqBatch(0, 13, 1)); code != model.OutOfOrderSequenceNumber {
		t.Fatalf("a gap after a clean restart: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", code)
	}
	if off, code := produce(t, l2, seqBatch(0, 12, 3)); code != model.NoError || off != 14 {
		t.Fatalf("the next batch: %d %v", off, code)
	}

	w2 := newWorld(t, 1)
	l, cfg = idleProducerLog(t, w2)
	l.Flush()
	l.Close()
	for _, off := range l.Producers().SnapshotOffsets() {
		w2.disk.Remove(snapshotName(dir, off))
	}
	w2.crash()
	l3, _ := Open(w2.disk, dir, cfg, time.Second)
	if _, ok := l3.Producers().Lookup(pid); ok {
		t.Fatalf("producer known without a snapshot and without a batch in the log")
	}
	if off, code := produce(t, l3, seqBatch(0, 9, 3)); code != model.NoError || off != 14 {
		t.Fatalf("the retry with no state: %d %v, want appended again at 14", off, code)
	}
}

// producer.id.expiration.ms bounds how long the snapshot remembers an idle
// producer: loaded after it, the producer is left out
// (ProducerStateManager.loadFromSnapshot), and the broker's periodic check
// forgets a live state's idle producer the same way; one millisecond
// earlier both keep it.
func TestIdleProducersExpire(t *testing.T) {
	expiry := DefaultConfig().ProducerIDExpiration
	if expiry != 24*time.Hour {
		t.Fatalf("producer.id.expiration.ms default %v, want Kafka's 86400000 ms", expiry)
	}
	for _, tc := range []struct {
		at   time.Duration
		kept bool
	}{{expiry - time.Millisecond, true}, {expiry, false}} {
		w := newWorld(t, 1)
		l, cfg := idleProducerLog(t, w)
		l.Close()
		w.crash()
		l2, _ := OpenAfterCleanShutdown(w.disk, dir, cfg, tc.at)
		if _, ok := l2.Producers().Lookup(pid); ok != tc.kept {
			t.Fatalf("loaded at %v: producer known %v, want %v", tc.at, ok, tc.kept)
		}

		live, _ := idleProducerLog(t, newWorld(t, 1))
		live.RemoveExpiredProducers(tc.at)
		if _, ok := live.Producers().Lookup(pid); ok != tc.kept {
			t.Fatalf("checked at %v: producer known %v, want %v", tc.at, ok, tc.kept)
		}
	}
}

// A snapshot can be durable past data that is not: the load-time
// snapshot at the log end is synced while the segments are not (Kafka's
// defaults never flush), and its name reaches the platter with the next
// directory sync. After a power loss that takes the unsynced tail, the
// snapshots past the recovered end are not trusted (truncateAndReload
// deletes them) and the state is the older snapshot's.
func TestAPowerLossDropsSnapshotsPastTheRecoveredEnd(t *testing.T) {
	w := newWorld(t, 1)
	size := int64(len(model.AppendBatch(nil, batch(0, 0, 1, 0, 0, 2, 0))))
	cfg := smallSegments(4 * size) // four batches of two per segment
	l, _ := w.open(cfg)
	for i := int32(0); i < 6; i++ {
		l.Append(batch(l.LEO(), 0, pid, 0, 2*i, 2, 0), 0)
	}
	// The roll at 8 synced [0, 8) and took a snapshot there; offsets
	// 8-11 are in the page cache only.
	w.crash()
	l, _ = w.open(cfg)
	if got := l.Producers().SnapshotOffsets(); len(got) != 2 || got[0] != 8 || got[1] != 12 {
		t.Fatalf("snapshots after a crash and reload: %v, want [8 12]", got)
	}
	w.disk.SyncDir() // any later directory sync makes the snapshot's name durable
	w.powerLoss()
	l2, _ := w.open(cfg)
	if l2.LEO() != 8 {
		t.Fatalf("recovered log end %d, want 8 (the unsynced batches lost)", l2.LEO())
	}
	if got := l2.Producers().SnapshotOffsets(); len(got) != 1 || got[0] != 8 {
		t.Fatalf("snapshots after the power loss: %v, want only the one at 8", got)
	}
	e, ok := l2.Producers().Lookup(pid)
	if !ok || len(e.Batches) != 4 || e.Batches[3].LastOffset != 7 || e.Batches[3].LastSeq != 7 {
		t.Fatalf("state %+v (%v), want the snapshot at 8's four batches, the last at 6-7", e, ok)
	}
}
