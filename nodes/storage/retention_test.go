package storage

import (
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
)

// timedLog builds segments of three 2-record batches; batch i has record
// timestamps i+1 seconds. Ten batches: segments at 0, 6, 12 and 18 (active).
func timedLog(t *testing.T, w *world, cfg Config) *Log {
	t.Helper()
	l, _ := w.open(cfg)
	for i := 0; i < 10; i++ {
		l.Append(batch(l.LEO(), model.Epoch(i/4), model.NoProducerID, model.NoEpoch, model.NoSequence, 2, time.Duration(i+1)*time.Second), time.Duration(i+1)*time.Second)
	}
	if got := len(l.Segments()); got != 4 {
		t.Fatalf("setup: %d segments", got)
	}
	return l
}

func retentionConfig() Config {
	size := int64(len(model.AppendBatch(nil, batch(0, 0, model.NoProducerID, model.NoEpoch, model.NoSequence, 2, time.Second))))
	return smallSegments(3 * size)
}

func TestRetentionByTime(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig()
	cfg.RetentionTime = 10 * time.Second
	l := timedLog(t, w, cfg)
	// Segment 0's newest record is at 3s, segment 6's at 6s: at 15.5s only
	// segment 0 is more than 10s old.
	if n := l.ApplyRetention(15500*time.Millisecond, l.LEO()); n != 1 {
		t.Fatalf("deleted %d segments, want 1", n)
	}
	if l.LogStartOffset() != 6 || l.Segments()[0].Base != 6 || w.disk.Exists(segmentName(dir, 0)) {
		t.Fatalf("log start %d, segments %v", l.LogStartOffset(), l.Segments())
	}
	if l.InRange(5) || !l.InRange(6) || !l.InRange(l.LEO()) || l.InRange(l.LEO()+1) {
		t.Fatalf("InRange wrong around log start 6 and LEO %d", l.LEO())
	}
	if bs := l.Read(5, 1<<20); bs != nil {
		t.Fatalf("read below the log start returned %v", bs)
	}
	if !reflect.DeepEqual(values(l), want(6, 20)) {
		t.Fatalf("retained values %v", values(l))
	}
	// Epoch 0 covered 0..7: it now starts at the log start.
	if got := l.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{0, 6}, {1, 8}, {2, 16}}) {
		t.Fatalf("epochs after retention %v", got)
	}
	// Exactly at the limit is not past it (Kafka deletes when older by more).
	if n := l.ApplyRetention(16*time.Second, l.LEO()); n != 0 {
		t.Fatalf("segment at exactly the retention age deleted")
	}
	checkInvariants(t, l)
}

func TestRetentionNeverPassesTheHighWatermark(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig()
	cfg.RetentionTime = time.Second
	l := timedLog(t, w, cfg)
	// Everything is expired, but the high watermark is 13: only segments
	// that end at or below it may go, and segment 12 ends at 18.
	if n := l.ApplyRetention(time.Hour, 13); n != 2 {
		t.Fatalf("deleted %d, want 2 (segments 0 and 6)", n)
	}
	if l.LogStartOffset() != 12 {
		t.Fatalf("log start %d, want 12", l.LogStartOffset())
	}
	if n := l.ApplyRetention(time.Hour, 11); n != 0 || l.LogStartOffset() != 12 {
		t.Fatalf("a lower high watermark deleted %d", n)
	}
	// A high watermark at a segment boundary frees the segment below it.
	if n := l.ApplyRetention(time.Hour, 18); n != 1 || l.LogStartOffset() != 18 {
		t.Fatalf("hw 18: deleted %d, start %d", n, l.LogStartOffset())
	}
	checkInvariants(t, l)
}

func TestRetentionKeepsAnActiveSegment(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig()
	cfg.RetentionTime = time.Second
	l := timedLog(t, w, cfg)
	leo := l.LEO()
	// All committed and expired: Kafka rolls a fresh active segment at the
	// end and deletes all the others, the old active one included.
	if n := l.ApplyRetention(time.Hour, leo); n != 4 {
		t.Fatalf("deleted %d segments, want all 4", n)
	}
	segs := l.Segments()
	if len(segs) != 1 || segs[0].Base != leo || segs[0].Bytes != 0 || l.LEO() != leo || l.LogStartOffset() != leo {
		t.Fatalf("after deleting everything: segments %v LEO %d start %d", segs, l.LEO(), l.LogStartOffset())
	}
	// The empty active segment itself is never deleted.
	if n := l.ApplyRetention(2*time.Hour, leo); n != 0 || len(l.Segments()) != 1 {
		t.Fatalf("empty active segment deleted")
	}
	// The latest epoch still answers with the log end.
	if e, off := l.EndOffsetFor(2); e != 2 || off != leo {
		t.Fatalf("EndOffsetFor(latest) = (%d, %d) after deleting all data", e, off)
	}
	l.Append(plain(leo, 2, 1), 3*time.Hour)
	checkInvariants(t, l)
}

func TestRetentionBySize(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig()
	segBytes := cfg.SegmentBytes
	cfg.RetentionBytes = 2*segBytes + segBytes/3 // room for 2 full segments and the active one
	l := timedLog(t, w, cfg)
	// 3 full segments and a one-batch active one: the oldest must go for
	// the rest to fit, the second-oldest need not.
	if n := l.ApplyRetention(0, l.LEO()); n != 1 {
		t.Fatalf("deleted %d, want 1", n)
	}
	if l.Size() > cfg.RetentionBytes || l.LogStartOffset() != 6 {
		t.Fatalf("size %d above %d, or start %d", l.Size(), cfg.RetentionBytes, l.LogStartOffset())
	}
	// Reading from every retained offset still works.
	for off := l.LogStartOffset(); off < l.LEO(); off++ {
		bs := l.Read(off, 0)
		if len(bs) != 1 || bs[0].BaseOffset > off || bs[0].LastOffset() < off {
			t.Fatalf("read at retained offset %d: %v", off, bs)
		}
	}
	// Without a high watermark nothing goes, however large the log.
	cfg.RetentionBytes = 0
	l.cfg = cfg
	if n := l.ApplyRetention(0, 0); n != 0 {
		t.Fatalf("deleted %d segments above no high watermark", n)
	}
	checkInvariants(t, l)
}

func TestLogStartOffsetSurvivesRestart(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig()
	cfg.RetentionTime = 10 * time.Second
	l := timedLog(t, w, cfg)
	l.Flush()
	old := w.disk.Read(segmentName(dir, 0))
	if n := l.ApplyRetention(time.Minute, 12); n != 2 {
		t.Fatalf("deleted %d", n)
	}
	w.powerLoss()
	l2, _ := w.open(cfg)
	if l2.LogStartOffset() != 12 || l2.Segments()[0].Base != 12 {
		t.Fatalf("after power loss: start %d, segments %v", l2.LogStartOffset(), l2.Segments())
	}
	if got := l2.Epochs().Entries(); got[0].StartOffset != 12 {
		t.Fatalf("epochs %v start before the log", got)
	}
	if !reflect.DeepEqual(values(l2), want(12, 20)) {
		t.Fatalf("values %v", values(l2))
	}
	// A deleted segment file that comes back (an unsynced removal undone
	// by a power loss) is below the checkpointed start: recovery deletes
	// it rather than taking the gap after it for the end of the log.
	w.disk.Append(segmentName(dir, 0), old)
	w.crash()
	l3, rec := w.open(cfg)
	if l3.LogStartOffset() != 12 || l3.LEO() != 20 || rec.SegmentsDropped != 1 || !rec.Clean() {
		t.Fatalf("with segment 0 back: start %d LEO %d, %v", l3.LogStartOffset(), l3.LEO(), rec)
	}
	if w.disk.Exists(segmentName(dir, 0)) {
		t.Fatalf("segment 0 not deleted by recovery")
	}
}

// TestRetentionTimeFollowsAppendsAndTruncation checks the segment's
// largest timestamp, which retention folds in only when it asks: a batch
// appended after a check counts at the next one, and a truncation that
// cuts the batch holding the largest timestamp takes it away, even though
// an earlier check had folded it in.
func TestRetentionTimeFollowsAppendsAndTruncation(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20) // one segment throughout
	cfg.RetentionTime = 50 * time.Second
	l, _ := w.open(cfg)
	add := func(ts time.Duration) {
		l.Append(batch(l.LEO(), 0, model.NoProducerID, model.NoEpoch, model.NoSequence, 1, ts), ts)
	}
	add(1 * time.Second)
	if n := l.ApplyRetention(30*time.Second, l.LEO()); n != 0 {
		t.Fatalf("deleted %d segments at 30s, newest record at 1s", n)
	}
	// Appended after the check: it keeps the segment at 60s.
	add(100 * time.Second)
	add(2 * time.Second)
	if n := l.ApplyRetention(120*time.Second, l.LEO()); n != 0 {
		t.Fatalf("deleted %d segments at 120s, newest record at 100s", n)
	}
	// The 100s record goes: the segment's newest record is now at 1s,
	// 119s old.
	l.TruncateTo(1)
	if n := l.ApplyRetention(120*time.Second, l.LEO()); n != 1 {
		t.Fatalf("deleted %d segments at 120s after truncating the 100s record, want 1", n)
	}
	checkInvariants(t, l)
}

// A follower's log start follows the leader's
// (UnifiedLog.maybeIncrementLogStartOffset): it moves up, never back, never
// past the high watermark or the log end, survives a restart through the
// checkpoint, and the next retention check deletes the segments wholly
// below it even with retention that would keep them
// (deleteLogStartOffsetBreachedSegments).
func TestTheLogStartOffsetFollowsTheLeaders(t *testing.T) {
	w := newWorld(t, 1)
	cfg := retentionConfig() // 7 days: retention alone deletes nothing
	l := timedLog(t, w, cfg)
	if l.MaybeIncrementLogStartOffset(9, 8) {
		t.Fatalf("the log start went past the high watermark")
	}
	if !l.MaybeIncrementLogStartOffset(8, 20) || l.LogStartOffset() != 8 {
		t.Fatalf("log start %d, want 8", l.LogStartOffset())
	}
	if l.MaybeIncrementLogStartOffset(7, 20) || l.LogStartOffset() != 8 {
		t.Fatalf("log start %d moved back", l.LogStartOffset())
	}
	if l.MaybeIncrementLogStartOffset(21, 25) {
		t.Fatalf("the log start went past the log end %d", l.LEO())
	}
	if n := l.ApplyRetention(20*time.Second, 20); n != 1 || l.Segments()[0].Base != 6 || l.LogStartOffset() != 8 {
		t.Fatalf("retention deleted %d segments, first base %d, start %d: want segment 0 gone, start 8", n, l.Segments()[0].Base, l.LogStartOffset())
	}
	w.crash()
	l, _ = w.open(cfg)
	if l.LogStartOffset() != 8 {
		t.Fatalf("after a restart the log start is %d, want 8", l.LogStartOffset())
	}
}
