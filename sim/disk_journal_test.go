package sim

import (
	"testing"
	"time"
)

// A cut into synced bytes survives a power loss once the journal has
// committed it (JournalCommit), and not before; the appends made after it
// still wait for the writeback; a rewrite after the cut keeps the durable
// state cut but does not mistake it for the page cache's; without a
// writeback (no background journal) only a sync makes a cut durable.
func TestJournalCommitsATruncation(t *testing.T) {
	const writeback = 30 * time.Second
	for _, tc := range []struct {
		name       string
		writeback  time.Duration
		rewrite    bool // overwrite a byte below the cut after it
		powerAfter time.Duration
		want       string
	}{
		{"within the commit interval", writeback, false, JournalCommit - time.Millisecond, "0123456789"},
		{"after the commit", writeback, false, JournalCommit, "0123"},
		{"after the commit and the appends' writeback", writeback, false, writeback + time.Second, "0123ab"},
		{"rewritten after the cut, after the commit", writeback, true, JournalCommit + time.Second, "0123"},
		{"no journal", 0, false, time.Hour, "0123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			d := syncedFile(&now, tc.writeback)
			d.SyncDir()
			d.Truncate("f", 4)
			now += time.Millisecond
			d.Append("f", []byte("ab"))
			if tc.rewrite {
				d.WriteAt("f", []byte("X"), 1)
			}
			now = tc.powerAfter
			d.powerLoss()
			if got := string(d.Read("f")); got != tc.want {
				t.Fatalf("power loss %v after the cut: %q, want %q", tc.powerAfter, got, tc.want)
			}
		})
	}
}

// A cut committed by the journal puts the file back in the append-only
// form, so later appends are written back and a sync after them makes
// exactly the page cache durable.
func TestCommittedCutThenAppendsAndSync(t *testing.T) {
	var now time.Duration
	d := syncedFile(&now, 30*time.Second)
	d.SyncDir()
	d.Truncate("f", 2)
	now = 6 * time.Second
	d.Append("f", []byte("cd"))
	if got, _ := d.Durable("f"); string(got) != "01" {
		t.Fatalf("durable %q after the commit, want the cut 01", got)
	}
	d.Sync("f")
	now = 7 * time.Second
	d.powerLoss()
	if got := string(d.Read("f")); got != "01cd" {
		t.Fatalf("after sync and power loss %q, want 01cd", got)
	}
}

// An fsync of any file commits the journal, and with it every cut made
// before on the disk, however young: a follower's log cut on a diverging
// epoch is durable once its leader-epoch checkpoint is synced (controller-
// quorum-chaos seed 70180161: b3 cut its log 457->0, synced the checkpoint
// for epoch 4, lost power 1.85 s after the cut and came back with the old
// 457 records under epoch 4). A sync made before the cut commits nothing
// of it, and the cut file's own later appends still wait for writeback.
func TestSyncOfAnotherFileCommitsTheJournal(t *testing.T) {
	for _, tc := range []struct {
		name string
		sync func(d *Disk)
		want string
	}{
		{"another file synced after the cut", func(d *Disk) { d.Append("c", []byte("x")); d.Sync("c") }, "0123"},
		{"the directory synced after the cut", func(d *Disk) { d.SyncDir() }, "0123"},
		{"nothing synced after the cut", func(d *Disk) {}, "0123456789"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			d := syncedFile(&now, 30*time.Second)
			d.Create("c")
			d.SyncDir()
			d.Append("c", []byte("before")) // a sync before the cut
			d.Sync("c")
			now += time.Second
			d.Truncate("f", 4)
			now += time.Millisecond
			d.Append("f", []byte("ab"))
			now += time.Second
			tc.sync(d)
			now += time.Second // still within JournalCommit of the cut
			d.powerLoss()
			if got := string(d.Read("f")); got != tc.want {
				t.Fatalf("power loss 2 s after the cut: %q, want %q", got, tc.want)
			}
		})
	}
}

// syncedFile is a disk without torn writes, with the given writeback
// delay, holding file f = "0123456789" synced: where every journal test
// starts.
func syncedFile(now *time.Duration, writeback time.Duration) *Disk {
	d := newDisk("d", NewStreams(1).Stream("disk"), now)
	d.SetTornWrites(false)
	d.SetWriteback(writeback)
	d.Append("f", []byte("0123456789"))
	d.Sync("f")
	return d
}
