package storage

import (
	"errors"
	"reflect"
	"testing"

	"kafkasim/model"
)

func TestRecoveryCutsACorruptBatchAndDeletesLaterSegments(t *testing.T) {
	w := newWorld(t, 1)
	l, cfg := threeEpochs(t, w) // segments at 0, 6, 12; batches of 2 records
	segs := l.Segments()
	one := segs[1].Bytes / 3
	// Flip a byte inside the second batch of segment 6 (offsets 8..9).
	name := segs[1].Name
	b := w.disk.Read(name)[one+20]
	w.disk.WriteAt(name, []byte{b ^ 0xff}, one+20)
	w.crash()
	l2, rec := w.open(cfg)
	if !rec.Corrupt || rec.TornTail || !errors.Is(rec.Cause, model.ErrCorrupt) {
		t.Fatalf("corruption misreported: %v", rec)
	}
	if l2.LEO() != 8 || !reflect.DeepEqual(values(l2), want(0, 8)) {
		t.Fatalf("LEO %d values %v, want the log cut at 8", l2.LEO(), values(l2))
	}
	if rec.BytesDropped != 2*one+segs[2].Bytes || rec.SegmentsDropped != 1 || w.disk.Exists(segs[2].Name) {
		t.Fatalf("dropped %d bytes and %d segments, want %d and 1; %v", rec.BytesDropped, rec.SegmentsDropped, 2*one+segs[2].Bytes, rec)
	}
	if got := l2.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{0, 0}, {2, 6}}) {
		t.Fatalf("epochs %v, want epoch 5 gone with its data", got)
	}
	// The deletion is durable: a power loss does not bring segment 12 back.
	w.powerLoss()
	if _, rec := w.open(cfg); rec.Segments != 2 {
		t.Fatalf("after power loss %d segment files, want 2: %v", rec.Segments, rec)
	}
}

func TestRecoveryStopsAtAGapBetweenSegments(t *testing.T) {
	w := newWorld(t, 1)
	_, cfg := threeEpochs(t, w)
	// A stray segment file past the end, as a power loss can leave when it
	// loses a segment in between.
	stray := segmentName(dir, 30)
	w.disk.Append(stray, model.AppendBatch(nil, plain(30, 5, 1)))
	w.crash()
	l2, rec := w.open(cfg)
	if !rec.Corrupt || l2.LEO() != 18 || w.disk.Exists(stray) || rec.SegmentsDropped != 1 {
		t.Fatalf("stray segment: LEO %d exists %v, %v", l2.LEO(), w.disk.Exists(stray), rec)
	}
}

func TestLogEndingBeforeItsStartStartsOver(t *testing.T) {
	w := newWorld(t, 1)
	_, cfg := threeEpochs(t, w)
	WriteCheckpoint(w.disk, dir+"log-start-offset-checkpoint", []string{"100"})
	w.crash()
	l2, rec := w.open(cfg)
	if l2.LEO() != 100 || l2.LogStartOffset() != 100 || len(l2.Segments()) != 1 || rec.SegmentsDropped != 3 {
		t.Fatalf("LEO %d start %d segments %v, %v", l2.LEO(), l2.LogStartOffset(), l2.Segments(), rec)
	}
	if n := len(l2.Epochs().Entries()); n != 0 {
		t.Fatalf("epochs %v kept for deleted data", l2.Epochs())
	}
}
