package raft

import (
	"time"

	"kafkasim/model"
)

// The cost of loading metadata, in virtual time (a kafkasim model, off by
// default). The simulator charges no time for work done inside an event,
// so without it a node that restores a snapshot of 100,000 partitions or
// replays a long log is caught up the instant the bytes arrive. Kafka's
// MetadataLoader replays every committed batch (handleCommit) and every
// snapshot (handleLoadSnapshot) into a new image, and publishes nothing
// until it has caught up with the high watermark (stillNeedToCatchUp);
// the controller unfences a broker only once its reported metadata offset
// reaches its registration (BrokerHeartbeatManager). That replay is what
// grows with the metadata. With Config.LoadRate set, a node hands an entry to its state
// machine only once the entry's bytes have been replayed at that rate after
// the previous one, and restores a snapshot (its own at start, or one
// fetched from the leader) only once the snapshot's bytes have been. The
// raft side does not wait: the node keeps fetching and appending while its
// state machine replays, as KafkaRaftClient does while its listeners read
// the committed log (docs/simulation.md).

// pendingRestore is a snapshot received or read whose restore is waiting
// for its load time.
type pendingRestore struct {
	offset int64
	epoch  model.Epoch
	data   []byte
	due    time.Duration
}

// loadTime is how long replaying n bytes takes at the configured rate.
func (r *Raft) loadTime(n int) time.Duration {
	return time.Duration(int64(n) * int64(time.Second) / r.cfg.LoadRate)
}

// loading reports whether the entry at off must wait for the state
// machine to replay it, and if so arms the timer that resumes the replay.
// Each entry's replay starts once the one before it is applied. The
// leader's own entries of its epoch cost nothing: its controller built
// them from the state it holds.
func (r *Raft) loading(off int64, epoch model.Epoch, size int) bool {
	if r.cfg.LoadRate <= 0 || r.role == roleLeader && epoch == r.epoch {
		return false
	}
	now := r.env.Now()
	if r.loadOff != off {
		r.loadOff, r.loadDone = off, now+r.loadTime(size)
	}
	if now < r.loadDone {
		r.armLoad(r.loadDone)
		return true
	}
	return false
}

// restoreLater restores a snapshot once its bytes are replayed; a later
// snapshot replaces one still waiting.
func (r *Raft) restoreLater(off int64, epoch model.Epoch, data []byte) {
	r.pending = &pendingRestore{offset: off, epoch: epoch, data: data, due: r.env.Now() + r.loadTime(len(data))}
	r.armLoad(r.pending.due)
}

// restorePending restores the waiting snapshot if its time has come, and
// reports whether one is still waiting (then nothing after it applies).
func (r *Raft) restorePending() bool {
	p := r.pending
	if p == nil {
		return false
	}
	if r.env.Now() < p.due {
		r.armLoad(p.due)
		return true
	}
	r.pending = nil
	r.sm.Restore(p.offset, p.epoch, p.data)
	r.lastApplied = p.offset
	r.env.Trace("raft-snapshot-restored", "offset="+itoa(p.offset)+" epoch="+itoa(int64(p.epoch)))
	if w := r.cfg.Watch; w != nil {
		w.QuorumSnapshotLoaded(r.cfg.ID, p.offset)
	}
	return false
}

// appliedOrPending is the offset the state machine has, or will have once
// a waiting snapshot is restored.
func (r *Raft) appliedOrPending() int64 {
	if r.pending != nil && r.pending.offset > r.lastApplied {
		return r.pending.offset
	}
	return r.lastApplied
}

// armLoad sets the timer that resumes the replay at due.
func (r *Raft) armLoad(due time.Duration) {
	if r.loadTimer != 0 && r.loadAt == due {
		return
	}
	r.env.Cancel(r.loadTimer)
	r.loadTimer, r.loadAt = r.env.After(due-r.env.Now(), timerLoad, 0), due
}
