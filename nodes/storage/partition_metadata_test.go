package storage

import "testing"

// TestRecordedLifeSurvivesPowerLossAndTellsLivesApart: a folder with no
// files holds no log; a log of a topic's first life carries no file and
// reads as life 0; a recreated topic's log records its life, synced, so
// that a power loss right after keeps it.
func TestRecordedLifeSurvivesPowerLossAndTellsLivesApart(t *testing.T) {
	w := newWorld(t, 1)
	if _, exists := RecordedLife(w.disk, dir); exists {
		t.Fatal("an empty folder reads as holding a log")
	}
	l, _ := Open(w.disk, dir, DefaultConfig(), 0)
	RecordLife(w.disk, dir, 0)
	l.Flush()
	if w.disk.Exists(dir + PartitionMetadataFile) {
		t.Fatal("life 0 wrote partition.metadata")
	}
	if life, exists := RecordedLife(w.disk, dir); !exists || life != 0 {
		t.Fatalf("first life's log reads life %d (exists %v)", life, exists)
	}
	RecordLife(w.disk, dir, 3)
	w.powerLoss()
	if life, exists := RecordedLife(w.disk, dir); !exists || life != 3 {
		t.Fatalf("after a power loss the log reads life %d (exists %v), want 3", life, exists)
	}
}
