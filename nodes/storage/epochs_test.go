package storage

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

func newCache(t *testing.T, entries ...EpochEntry) (*EpochCache, *world) {
	t.Helper()
	w := newWorld(t, 1)
	c, err := loadEpochCache(w.disk, dir+epochCheckpointName)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		c.Assign(e.Epoch, e.StartOffset)
	}
	return c, w
}

func TestEndOffsetForEveryCase(t *testing.T) {
	// Epochs 1, 3 and 6 start at 10, 20 and 35; the log ends at 50.
	c, _ := newCache(t, EpochEntry{1, 10}, EpochEntry{3, 20}, EpochEntry{6, 35})
	const leo = 50
	cases := []struct {
		name      string
		epoch     model.Epoch
		wantEpoch model.Epoch
		wantEnd   model.Offset
	}{
		{"latest epoch ends at the log end", 6, 6, leo},
		{"middle epoch ends where the next starts", 3, 3, 35},
		{"first epoch ends where the next starts", 1, 1, 20},
		{"epoch with no entry: the largest below and the next start", 4, 3, 35},
		{"another gap", 2, 1, 20},
		{"below the first entry: itself and the first start", 0, 0, 10},
		{"above the latest", 7, model.NoEpoch, model.NoOffset},
		{"undefined epoch", model.NoEpoch, model.NoEpoch, model.NoOffset},
	}
	for _, tc := range cases {
		e, off := c.EndOffsetFor(tc.epoch, leo)
		if e != tc.wantEpoch || off != tc.wantEnd {
			t.Errorf("%s: EndOffsetFor(%d) = (%d, %d), want (%d, %d)", tc.name, tc.epoch, e, off, tc.wantEpoch, tc.wantEnd)
		}
	}
	empty, _ := newCache(t)
	if e, off := empty.EndOffsetFor(0, leo); e != model.NoEpoch || off != model.NoOffset {
		t.Errorf("empty cache: (%d, %d), want undefined", e, off)
	}
}

func TestAssignFollowsKafka(t *testing.T) {
	c, _ := newCache(t, EpochEntry{1, 10}, EpochEntry{3, 20})
	c.Assign(3, 25) // same epoch, later offset: the first batch already counted
	c.Assign(3, 20)
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{1, 10}, {3, 20}}) {
		t.Fatalf("same-epoch assigns changed the cache: %v", got)
	}
	c.Assign(4, 30)
	c.Assign(3, 15) // an earlier start for epoch 3 conflicts with 3@20 and 4@30
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{1, 10}, {3, 15}}) {
		t.Fatalf("conflicting assign: %v, want 1@10 3@15", got)
	}
	c.Assign(2, 40) // a lower epoch replaces the newer ones it conflicts with
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{1, 10}, {2, 40}}) {
		t.Fatalf("lower epoch assign: %v, want 1@10 2@40", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatalf("negative epoch accepted")
		}
	}()
	c.Assign(model.NoEpoch, 50)
}

func TestEpochTruncation(t *testing.T) {
	c, w := newCache(t, EpochEntry{1, 10}, EpochEntry{3, 20}, EpochEntry{6, 35})
	c.TruncateFromEnd(40) // nothing starts at or after 40
	if len(c.Entries()) != 3 {
		t.Fatalf("TruncateFromEnd(40) removed entries: %v", c)
	}
	c.TruncateFromEnd(20)
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{1, 10}}) {
		t.Fatalf("TruncateFromEnd(20): %v", got)
	}
	c.Assign(3, 20)
	c.Assign(6, 35)
	c.TruncateFromStart(25) // epoch 3 covers 25: it now starts there
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{3, 25}, {6, 35}}) {
		t.Fatalf("TruncateFromStart(25): %v", got)
	}
	c.TruncateFromStart(35) // an entry exactly at the start is kept
	if got := c.Entries(); !reflect.DeepEqual(got, []EpochEntry{{6, 35}}) {
		t.Fatalf("TruncateFromStart(35): %v", got)
	}
	// Every change reached the checkpoint.
	c2, err := loadEpochCache(w.disk, dir+epochCheckpointName)
	if err != nil || !reflect.DeepEqual(c2.Entries(), c.Entries()) {
		t.Fatalf("checkpoint holds %v (%v), cache %v", c2, err, c)
	}
}

func TestEpochCheckpointSurvivesPowerLoss(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20)
	cfg.FlushIntervalMessages = 1
	l, _ := w.open(cfg)
	appendPlain(l, 0, 2, 1, 0)
	appendPlain(l, 4, 2, 1, 0)
	l.Epochs().Assign(9, l.LEO()) // a new leader records its epoch first
	w.powerLoss()
	l2, _ := w.open(cfg)
	// The leader's epoch 9 at the end had no batch: Kafka's load truncates
	// the cache to the log end and drops it.
	if got := l2.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{0, 0}, {4, 2}}) {
		t.Fatalf("epochs after power loss %v", got)
	}
	if e, off := l2.EndOffsetFor(0); e != 0 || off != 2 {
		t.Fatalf("EndOffsetFor(0) after restart = (%d, %d), want (0, 2)", e, off)
	}
}

func TestEpochCacheTruncatedToLEOAfterTornTail(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorld(t, seed)
		cfg := smallSegments(1 << 20)
		l, _ := w.open(cfg)
		appendPlain(l, 0, 3, 2, 0)
		l.Flush()
		l.Append(plain(6, 3, 2), 0) // its epoch entry is synced, the data is not
		l.Append(plain(8, 4, 2), 0)
		if got := l.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{0, 0}, {3, 6}, {4, 8}}) {
			t.Fatalf("seed %d: epochs before power loss %v", seed, got)
		}
		w.powerLoss()
		l2, _ := w.open(cfg)
		wantEntries := []EpochEntry{{0, 0}, {3, 6}, {4, 8}}
		switch l2.LEO() {
		case 6:
			wantEntries = wantEntries[:1]
		case 8:
			wantEntries = wantEntries[:2]
		}
		if got := l2.Epochs().Entries(); !reflect.DeepEqual(got, wantEntries) {
			t.Fatalf("seed %d: LEO %d, epochs %v, want %v", seed, l2.LEO(), got, wantEntries)
		}
		// And the truncated cache was saved, not just fixed in memory.
		c, _ := loadEpochCache(w.disk, dir+epochCheckpointName)
		if !reflect.DeepEqual(c.Entries(), wantEntries) {
			t.Fatalf("seed %d: checkpoint %v, want %v", seed, c, wantEntries)
		}
	}
}

func TestMalformedEpochCheckpointIsRebuiltFromBatches(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20)
	l, _ := w.open(cfg)
	appendPlain(l, 1, 2, 1, 0)
	appendPlain(l, 3, 2, 1, 0)
	WriteCheckpoint(w.disk, dir+epochCheckpointName, []string{"1 0", "garbage"})
	w.crash()
	l2, rec := w.open(cfg)
	if len(rec.CheckpointErrs) != 1 {
		t.Fatalf("malformed checkpoint not reported: %v", rec.CheckpointErrs)
	}
	if got := l2.Epochs().Entries(); !reflect.DeepEqual(got, []EpochEntry{{1, 0}, {3, 2}}) {
		t.Fatalf("epochs rebuilt from batches %v", got)
	}
}
