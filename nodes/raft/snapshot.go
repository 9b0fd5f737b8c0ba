package raft

import (
	"kafkasim/model"
)

// maybeSnapshot writes a snapshot once SnapshotEvery entries were applied
// since the last one, and deletes the log before it (KIP-630). It waits
// for the applied offset to end a batch, so that the log keeps only whole
// batches.
func (r *Raft) maybeSnapshot() {
	if r.sinceSnap < r.cfg.SnapshotEvery || r.lastApplied <= r.log.snapOffset || !r.log.isBatchEnd(r.lastApplied) {
		return
	}
	off := r.lastApplied
	epoch := r.log.epochAt(off)
	data := r.sm.Snapshot()
	writeSnapshot(r.env.Disk(), r.fileName("snapshot"), off, epoch, data)
	r.snapData = data
	r.log.dropBefore(off, epoch)
	r.sinceSnap = 0
	r.env.Trace("raft-snapshot", "offset="+itoa(off)+" epoch="+itoa(int64(epoch)))
}

// installSnapshot replaces the log and the state with the leader's
// snapshot: written and synced first, then the log emptied, then the state
// machine restored.
func (r *Raft) installSnapshot(off int64, epoch model.Epoch, data []byte) {
	writeSnapshot(r.env.Disk(), r.fileName("snapshot"), off, epoch, data)
	r.snapData = data
	if off <= r.log.lastOffset() && r.log.epochAt(off) == epoch && r.log.isBatchEnd(off) {
		// The log agrees with the snapshot at its end: keep what follows.
		r.log.dropBefore(off, epoch)
	} else {
		r.log.resetTo(off, epoch)
	}
	if r.cfg.LoadRate > 0 {
		// The state machine restores it once replayed (load.go).
		r.sinceSnap = 0
		r.setHW(off)
		r.env.Trace("raft-snapshot-fetched", "offset="+itoa(off)+" epoch="+itoa(int64(epoch)))
		r.restoreLater(off, epoch, data)
		return
	}
	r.sm.Restore(off, epoch, data)
	r.lastApplied = off
	r.sinceSnap = 0
	r.setHW(off)
	r.env.Trace("raft-snapshot-loaded", "offset="+itoa(off)+" epoch="+itoa(int64(epoch)))
	if w := r.cfg.Watch; w != nil {
		w.QuorumSnapshotLoaded(r.cfg.ID, off)
	}
}
