package storage

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"kafkasim/model"
)

func TestAppendReadAndLEO(t *testing.T) {
	w := newWorld(t, 1)
	l, rec := w.open(smallSegments(1 << 20))
	if !rec.Clean() || l.LEO() != 0 || l.LogStartOffset() != 0 {
		t.Fatalf("fresh log: %v, LEO %d, start %d", rec, l.LEO(), l.LogStartOffset())
	}
	appendPlain(l, 0, 4, 3, 0)
	if l.LEO() != 12 {
		t.Fatalf("LEO after 4 batches of 3: %d, want 12", l.LEO())
	}
	if got := values(l); !reflect.DeepEqual(got, want(0, 12)) {
		t.Fatalf("values %v", got)
	}
	// A read from inside a batch returns the whole batch.
	bs := l.Read(4, 1<<20)
	if len(bs) != 3 || bs[0].BaseOffset != 3 {
		t.Fatalf("read at 4: %v, want batches from 3", bs)
	}
	if bs := l.Read(l.LEO(), 1<<20); bs != nil {
		t.Fatalf("read at LEO returned %v, want nil", bs)
	}
	if b, ok := l.BatchAt(7); !ok || b.BaseOffset != 6 {
		t.Fatalf("BatchAt(7) = %v %v, want the batch at 6", b, ok)
	}
	if _, ok := l.BatchAt(12); ok {
		t.Fatalf("BatchAt(LEO) found a batch")
	}
	checkInvariants(t, l)
}

func TestReadReturnsAtLeastOneBatchAndStaysInBudget(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	appendPlain(l, 0, 5, 2, 0)
	one := int(l.Segments()[0].Bytes / 5) // every batch encodes to the same size
	if bs := l.Read(0, 0); len(bs) != 1 {
		t.Fatalf("maxBytes 0 gave %d batches, want exactly one (minOneMessage)", len(bs))
	}
	if bs := l.Read(0, 2*one+one/2); len(bs) != 2 {
		t.Fatalf("2.5 batches of budget gave %d batches, want 2", len(bs))
	}
	if bs := l.ReadUpTo(0, 1<<20, 6); len(bs) != 3 || bs[2].NextOffset() != 6 {
		t.Fatalf("ReadUpTo(end 6) gave %v, want the 3 batches below 6", bs)
	}
	if bs := l.ReadUpTo(5, 1<<20, 5); bs != nil {
		t.Fatalf("ReadUpTo at its end returned %v", bs)
	}
}

func TestSegmentRollsAndReadsStopAtSegmentEnd(t *testing.T) {
	w := newWorld(t, 1)
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
	l, _ := w.open(smallSegments(3 * size)) // three batches per segment
	appendPlain(l, 0, 7, 2, 0)
	segs := l.Segments()
	if len(segs) != 3 || segs[0].Batches != 3 || segs[1].Base != 6 || segs[2].Base != 12 || segs[2].Batches != 1 {
		t.Fatalf("segments %+v, want 3+3+1 batches based at 0, 6, 12", segs)
	}
	for _, s := range segs {
		if s.Bytes > 3*size {
			t.Fatalf("segment %s has %d bytes, above SegmentBytes %d", s.Name, s.Bytes, 3*size)
		}
	}
	if bs := l.Read(2, 1<<20); len(bs) != 2 || bs[1].NextOffset() != 6 {
		t.Fatalf("read from 2 returned %v: want it to stop at the segment end 6", bs)
	}
	if got := values(l); !reflect.DeepEqual(got, want(0, 14)) {
		t.Fatalf("values across segments %v", got)
	}
	// segIndex answers the active segment without a search when it can:
	// every offset still maps to the last segment based at or before it.
	for off := model.Offset(-1); off <= l.LEO()+1; off++ {
		want := 0
		for i, s := range segs {
			if s.Base <= off {
				want = i
			}
		}
		if got := l.segIndex(off); got != want {
			t.Fatalf("segIndex(%d) = %d, want %d", off, got, want)
		}
	}
	// Kafka flushes the rolled segment: the first two are durable, and the
	// directory with them.
	if l.RecoveryPoint() != 12 {
		t.Fatalf("recovery point %d after two rolls, want 12", l.RecoveryPoint())
	}
	for _, s := range segs[:2] {
		if d, ok := w.disk.Durable(s.Name); !ok || int64(len(d)) != s.Bytes {
			t.Fatalf("rolled segment %s not durable", s.Name)
		}
	}
	checkInvariants(t, l)
}

func TestOversizedBatchGoesToItsOwnSegment(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(10)) // smaller than any batch
	appendPlain(l, 0, 3, 1, 0)
	if n := len(l.Segments()); n != 3 {
		t.Fatalf("%d segments, want one per batch", n)
	}
	checkInvariants(t, l)
}

func TestReopenAfterProcessCrashSeesEverything(t *testing.T) {
	w := newWorld(t, 1)
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
	l, _ := w.open(smallSegments(3 * size))
	appendPlain(l, 0, 4, 2, 0)
	appendPlain(l, 2, 3, 2, 0)
	w.crash()
	l2, rec := w.open(smallSegments(3 * size))
	if !rec.Clean() || rec.Batches != 7 || rec.Segments != 3 {
		t.Fatalf("recovery after crash: %v", rec)
	}
	if l2.LEO() != 14 || !reflect.DeepEqual(values(l2), want(0, 14)) {
		t.Fatalf("after crash LEO %d values %v", l2.LEO(), values(l2))
	}
	if !reflect.DeepEqual(l2.Epochs().Entries(), []EpochEntry{{0, 0}, {2, 8}}) {
		t.Fatalf("epochs after crash %v", l2.Epochs())
	}
	// Appending continues where the log ended.
	l2.Append(plain(14, 2, 1), 0)
	if l2.LEO() != 15 {
		t.Fatalf("LEO %d after appending to the reopened log", l2.LEO())
	}
}

func TestPowerLossWithoutFlushKeepsOnlySyncedBytes(t *testing.T) {
	w := newWorld(t, 1)
	w.disk.SetTornWrites(false)
	l, _ := w.open(smallSegments(1 << 20))
	appendPlain(l, 0, 3, 2, 0)
	l.Flush()
	appendPlain(l, 0, 3, 2, 0) // never synced
	w.powerLoss()
	l2, rec := w.open(smallSegments(1 << 20))
	if l2.LEO() != 6 || !reflect.DeepEqual(values(l2), want(0, 6)) {
		t.Fatalf("after power loss LEO %d values %v, want the 6 flushed records", l2.LEO(), values(l2))
	}
	if !rec.Clean() {
		t.Fatalf("untorn loss reported a cut: %v", rec)
	}
}

func TestNewSegmentVanishesAtPowerLossUntilFlushed(t *testing.T) {
	w := newWorld(t, 1)
	w.disk.SetTornWrites(false)
	size := int64(len(model.AppendBatch(nil, plain(0, 0, 1))))
	cfg := smallSegments(2 * size)
	l, _ := w.open(cfg)
	appendPlain(l, 0, 2, 1, 0)
	l.Flush()
	appendPlain(l, 0, 1, 1, 0) // rolls segment 2; the roll flushes segment 0 only
	name := l.Segments()[1].Name
	if _, ok := w.disk.Durable(name); ok {
		t.Fatalf("new segment %s durable without a directory sync", name)
	}
	w.powerLoss()
	l2, _ := w.open(cfg)
	if l2.LEO() != 2 || w.disk.Exists(name) {
		t.Fatalf("after power loss LEO %d, %s exists %v: want the new segment gone", l2.LEO(), name, w.disk.Exists(name))
	}
}

func TestPowerLossTearsTheTailAndRecoveryCutsIt(t *testing.T) {
	torn, whole := 0, 0
	for seed := uint64(1); seed <= 60; seed++ {
		w := newWorld(t, seed)
		l, _ := w.open(smallSegments(1 << 20))
		appendPlain(l, 0, 4, 3, 0)
		l.Flush()
		synced := w.disk.Size(l.Segments()[0].Name)
		appendPlain(l, 1, 2, 3, 0)
		w.powerLoss()
		l2, rec := w.open(smallSegments(1 << 20))
		if l2.LEO() < 12 || l2.LEO() > 18 || (l2.LEO()-12)%3 != 0 {
			t.Fatalf("seed %d: LEO %d after power loss, want 12 plus whole batches", seed, l2.LEO())
		}
		if !reflect.DeepEqual(values(l2), want(0, l2.LEO())) {
			t.Fatalf("seed %d: values %v", seed, values(l2))
		}
		if rec.TornTail {
			torn++
			if rec.Corrupt || rec.BytesDropped <= 0 || rec.Cause == nil {
				t.Fatalf("seed %d: torn tail misreported: %v", seed, rec)
			}
			if size := w.disk.Size(l2.Segments()[0].Name); size < synced {
				t.Fatalf("seed %d: recovery cut into synced bytes: %d < %d", seed, size, synced)
			}
		} else {
			whole++
		}
		// The epoch cache never names an epoch whose data is gone.
		if l2.LEO() == 12 {
			if e, _ := l2.Epochs().Latest(); e != 0 {
				t.Fatalf("seed %d: epoch %d survives without its data: %v", seed, e, l2.Epochs())
			}
		}
		checkInvariants(t, l2)
		// The cut is durable in the page cache: a second open finds nothing to cut.
		w.crash()
		if _, rec := w.open(smallSegments(1 << 20)); !rec.Clean() {
			t.Fatalf("seed %d: second recovery cut again: %v", seed, rec)
		}
	}
	if torn == 0 || whole == 0 {
		t.Fatalf("over 60 seeds: %d torn tails, %d untorn: want both", torn, whole)
	}
}

func TestFlushEveryMessageLosesNothingAcknowledged(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		w := newWorld(t, seed)
		cfg := smallSegments(200) // several segments, so new files are covered too
		cfg.FlushIntervalMessages = 1
		l, _ := w.open(cfg)
		for i := 0; i < 12; i++ {
			l.Append(plain(l.LEO(), model.Epoch(i/4), 2), 0)
		}
		w.powerLoss()
		l2, rec := w.open(cfg)
		if l2.LEO() != 24 || !reflect.DeepEqual(values(l2), want(0, 24)) || !rec.Clean() {
			t.Fatalf("seed %d: with flush every message lost data: LEO %d, %v", seed, l2.LEO(), rec)
		}
		if !reflect.DeepEqual(l2.Epochs().Entries(), []EpochEntry{{0, 0}, {1, 8}, {2, 16}}) {
			t.Fatalf("seed %d: epochs %v", seed, l2.Epochs())
		}
	}
}

func TestFlushPolicies(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20)
	cfg.FlushIntervalMessages = 5
	cfg.FlushInterval = 100
	l, _ := w.open(cfg)
	l.Append(plain(0, 0, 4), 10)
	if l.RecoveryPoint() != 0 {
		t.Fatalf("flushed after 4 of 5 messages")
	}
	if l.MaybeFlush(50) {
		t.Fatalf("time flush before the interval")
	}
	l.Append(plain(4, 0, 1), 20)
	if l.RecoveryPoint() != 5 {
		t.Fatalf("recovery point %d after 5 messages, want 5", l.RecoveryPoint())
	}
	l.Append(plain(5, 0, 1), 30)
	if l.MaybeFlush(119) || l.RecoveryPoint() != 5 {
		t.Fatalf("time flush 99 after the last flush at 20")
	}
	if !l.MaybeFlush(120) || l.RecoveryPoint() != 6 {
		t.Fatalf("no time flush 100 after the last flush")
	}
	if l.MaybeFlush(1000) {
		t.Fatalf("time flush with nothing unflushed reported a sync")
	}
	// The defaults never flush.
	d, _ := Open(w.disk, "u-0/", smallSegments(1<<20), 0)
	appendPlain(d, 0, 100, 1, 0)
	if d.MaybeFlush(1<<62) || d.RecoveryPoint() != 0 {
		t.Fatalf("Kafka's default configuration flushed")
	}
}

func TestAppendPanicsOnProgrammerErrors(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	l.Append(plain(0, 0, 2), 0)
	corrupt := plain(2, 0, 1)
	corrupt.Records = []model.Record{{Offset: 2, Value: "changed"}}
	cases := map[string]model.Batch{
		"gap":       plain(3, 0, 1),
		"overlap":   plain(1, 0, 1),
		"no epoch":  batch(2, 0, model.NoProducerID, model.NoEpoch, model.NoSequence, 1, 0).Rebase(2, model.NoEpoch),
		"empty":     model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence).Rebase(2, 0),
		"corrupted": corrupt,
	}
	for name, b := range cases {
		func() {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(r.(string), "storage:") {
					t.Fatalf("%s: append of %v did not panic with a message (%v)", name, b, r)
				}
			}()
			l.Append(b, 0)
		}()
	}
	if l.LEO() != 2 {
		t.Fatalf("rejected appends changed LEO to %d", l.LEO())
	}
	checkInvariants(t, l)
}

// find, with its look at the last batches first, agrees with a plain
// search for every offset around every batch of segments of every length.
func TestSegmentFindMatchesSearch(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 31, 33, 100, 255, 256, 257, 600} {
		s := &segment{}
		for i := 0; i < n; i++ {
			b := plain(model.Offset(3*i), 0, 3)
			s.add(&b, 10, 0)
		}
		for off := model.Offset(-1); off <= model.Offset(3*n+1); off++ {
			want := sort.Search(s.n, func(i int) bool { return s.at(i).LastOffset() >= off })
			if got := s.find(off); got != want {
				t.Fatalf("%d batches, find(%d) = %d, want %d", n, off, got, want)
			}
		}
	}
}
