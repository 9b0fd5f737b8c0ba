package sim

import (
	"slices"
	"time"
)

// JournalCommit is how often the simulated file system's journal commits
// metadata in the background, and so how long a truncation may wait before
// it survives a power loss without an fsync. Kafka truncates a log with
// FileChannel.truncate (ftruncate) and syncs nothing (FileRecords.truncateTo,
// LogSegment.truncateTo, UnifiedLog.truncateTo). On Linux a truncation is a
// change of the inode's size and block map, which ext4 logs in the running
// journal transaction; the journal thread commits that transaction every
// `commit=` seconds, 5 by default (JBD2_DEFAULT_MAX_COMMIT_AGE), fsync or
// not, and XFS's log is pushed in the same way. So a cut older than the
// commit interval is on the platter, while appends still wait for the page
// cache's writeback (dirty_expire_centisecs, 30 s: see SetWriteback). With
// data=ordered (ext4's default) the data blocks a size change exposes are
// written before the commit that exposes them, so a committed cut never
// brings back bytes past the cut either. The model takes the worst case of
// the interval: a cut is durable once it is JournalCommit old.
const JournalCommit = 5 * time.Second

// pendingCut is a truncation below the durable length that the journal has
// not committed yet: a power loss before at+JournalCommit brings back the
// durable bytes past size.
type pendingCut struct {
	size int
	at   time.Duration
	gen  uint64 // the file's generation right after the cut
}

// noteCut records a truncation to size made now, when it cut into the
// durable state. Only a disk with background writeback (SetWriteback) runs a
// journal: with none, nothing the node did not sync survives.
func (d *Disk) noteCut(f *file, size int) {
	if d.writeback <= 0 || f.durableCopy == nil || size >= len(f.durableCopy) {
		return
	}
	f.cuts = append(f.cuts, pendingCut{size: size, at: *d.now, gen: f.gen})
	d.cutsPending = true
}

// commitCuts applies, oldest first, the truncations the journal has
// committed by now: the durable state is cut to each one's size. When the
// last of them was the file's latest change other than appends and the
// durable bytes that remain are the page cache's prefix, the file goes back
// to the append-only form (durable == a prefix of the page cache), so that
// the appends made since the cut are written back and torn as any others.
func (d *Disk) commitCuts(f *file) { d.commitCutsBefore(f, *d.now-JournalCommit) }

// commitCutsBefore applies, oldest first, f's truncations made at or before
// the time before, as a journal commit that covers them does.
func (d *Disk) commitCutsBefore(f *file, before time.Duration) {
	k := 0
	for k < len(f.cuts) && f.cuts[k].at <= before {
		if c := f.cuts[k]; f.durableCopy != nil && len(f.durableCopy) > c.size {
			f.durableCopy = f.durableCopy[:c.size]
		}
		k++
	}
	if k == 0 {
		return
	}
	last := f.cuts[k-1]
	f.cuts = append(f.cuts[:0], f.cuts[k:]...)
	if len(f.cuts) > 0 || last.gen != f.gen || f.durableCopy == nil || len(f.durableCopy) > f.size {
		return
	}
	if string(f.prefix(len(f.durableCopy))) != string(f.durableCopy) {
		return
	}
	// Every append since the cut is in f.appends (the cut emptied it and
	// nothing but appends came after): they are the unsynced spans past
	// the durable prefix, due for writeback from their own times.
	f.durableLen = len(f.durableCopy)
	f.durableCopy = nil
	f.last = nil
	if f.appends.len() > 0 {
		f.wbAt, f.wbPending = *d.now, true
	}
}

// commitJournal is the journal commit an fsync forces: ext4's fsync
// (ext4_sync_file) waits for the running jbd2 transaction to commit, and
// that transaction holds every metadata change the file system took so
// far, the truncations of other files included; XFS forces its log in the
// same way. So once any file of the disk is synced, every cut made before
// is on the platter, whatever its age. Kafka relies on this without
// knowing it: a follower that truncates its log on a diverging epoch
// (UnifiedLog.truncateTo, no fsync) and then appends the new leader's
// records writes the leader-epoch checkpoint with an fsync
// (LeaderEpochFileCache.assign, CheckpointFile.write), and that fsync
// commits the log's cut. Without it a power loss brought the cut records
// back under the new epoch's entry.
//
// Cuts are rare (a truncation into synced bytes on a disk with writeback),
// and every sync commits the journal: cutsPending says whether any file
// may hold one, so that a sync does not walk every file of the disk for
// none.
func (d *Disk) commitJournal() {
	if !d.cutsPending {
		return
	}
	// Every cut was made at or before now, so this commits them all.
	d.cutsPending = false
	var names []string
	for name, f := range d.files {
		if len(f.cuts) > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names) // the commits are independent; sorted all the same
	for _, name := range names {
		f := d.files[name]
		d.catchUp(f)
		d.commitCutsBefore(f, *d.now)
	}
}
