package raft

import (
	"kafkasim/model"
)

// The fetcher's side (followers and observers): KafkaRaftClient's
// maybeSendFetchOrFetchSnapshot and handleFetchResponse.

// target is whom to fetch from: the leader, or for an observer that knows
// none, the voters in turn.
func (r *Raft) target() model.BrokerID {
	if r.role == roleFollower {
		return r.leader
	}
	if r.cfg.Observer {
		return r.cfg.Voters[r.observerIndex%len(r.cfg.Voters)]
	}
	return model.NoBroker
}

// sendFetch sends the next fetch unless one is in flight.
func (r *Raft) sendFetch() {
	t := r.target()
	if r.fetchOut || t == model.NoBroker {
		return
	}
	r.env.Cancel(r.retryTimer)
	r.fetchOut, r.fetchTarget = true, t
	r.fetchSeq++
	r.env.Send(node(t), model.QuorumFetchRequest{ReplicaID: r.cfg.ID, CurrentLeaderEpoch: r.epoch,
		FetchOffset: r.log.lastOffset() + 1, LastFetchedEpoch: r.log.lastEpoch(), HighWatermark: r.hw, MaxWait: fetchMaxWait})
	// If the answer never comes (a cut link drops it silently), ask again
	// once the leader's wait is well over.
	r.retryTimer = r.env.After(fetchMaxWait+r.cfg.FetchTimeout/4, timerFetchRetry, r.fetchSeq)
}

// scheduleRetry asks again after the retry backoff.
func (r *Raft) scheduleRetry() {
	r.env.Cancel(r.retryTimer)
	r.retryTimer = r.env.After(retryBackoff, timerFetchRetry, r.fetchSeq)
}

// handleFetchResponse appends what the leader sent, truncates where it
// says the logs diverge, or fetches its snapshot.
func (r *Raft) handleFetchResponse(from model.BrokerID, m model.QuorumFetchResponse) {
	if !r.fetchOut || from != r.fetchTarget {
		return // an answer to a fetch this node gave up on
	}
	r.fetchOut = false
	if m.Error != model.NoError {
		if r.learn(m.LeaderEpoch, m.LeaderID) {
			return
		}
		if r.isVoter() && r.role == roleFollower && from == r.leader && m.LeaderEpoch == r.epoch && m.LeaderID == model.NoBroker {
			// The leader itself says it no longer leads this epoch (it
			// resigned, or restarted): stand now rather than after the
			// fetch timeout, as Kafka's EndQuorumEpoch lets a follower.
			r.contact = false
			r.startPreVote()
			return
		}
		if r.cfg.Observer && r.role == roleUnattached {
			r.observerIndex++
		}
		r.scheduleRetry()
		return
	}
	if m.LeaderEpoch != r.epoch || m.LeaderID != r.leader || r.role != roleFollower {
		// An observer discovering the leader, or news of a newer epoch.
		if !r.learn(m.LeaderEpoch, m.LeaderID) {
			r.scheduleRetry()
			return
		}
		if r.role != roleFollower || r.leader != from {
			return
		}
		// Now following the sender: use its answer.
	}
	r.lastContact, r.contact = r.env.Now(), true
	switch {
	case m.HasDiverging:
		r.truncateDiverging(model.Epoch(m.Diverging.Epoch), int64(m.Diverging.EndOffset))
	case m.HasSnapshot:
		r.env.Cancel(r.retryTimer)
		r.fetchOut, r.fetchTarget = true, from
		r.fetchSeq++
		r.env.Send(node(from), model.FetchSnapshotRequest{ReplicaID: r.cfg.ID, CurrentLeaderEpoch: r.epoch,
			SnapshotOffset: m.SnapshotOffset, SnapshotEpoch: m.SnapshotEpoch})
		r.retryTimer = r.env.After(r.cfg.FetchTimeout/2, timerFetchRetry, r.fetchSeq)
		return
	default:
		for i := range m.Batches {
			b := m.Batches[i]
			if b.BaseOffset != r.log.lastOffset()+1 {
				break // not contiguous (a stale answer): ask again
			}
			r.log.append(b)
		}
		if m.HighWatermark >= 0 {
			hw := m.HighWatermark
			if last := r.log.lastOffset(); hw > last {
				hw = last
			}
			r.setHW(hw)
		}
	}
	r.sendFetch()
}

// truncateDiverging cuts the log where the leader says it diverges: at
// the leader's end of the epoch, or this log's own end of the largest
// epoch at or below it, whichever is lower; the next fetch asks again from
// there (KIP-279's iteration).
func (r *Raft) truncateDiverging(epoch model.Epoch, end int64) {
	_, own, ok := r.log.endOffsetFor(epoch)
	if !ok {
		own = r.log.snapOffset
	}
	if own < end {
		end = own
	}
	if end < r.lastApplied {
		panic("raft: the leader asks to truncate below what this node applied as committed")
	}
	r.env.Trace("raft-truncate", "to="+itoa(end)+" from="+itoa(r.log.lastOffset()))
	r.log.truncateAfter(end)
}

// handleFetchSnapshotResponse restores from the leader's snapshot.
func (r *Raft) handleFetchSnapshotResponse(from model.BrokerID, m model.FetchSnapshotResponse) {
	if !r.fetchOut || from != r.fetchTarget {
		return
	}
	r.fetchOut = false
	if m.Error != model.NoError {
		if !r.learn(m.LeaderEpoch, m.LeaderID) {
			r.scheduleRetry()
		}
		return
	}
	r.lastContact, r.contact = r.env.Now(), true
	if m.SnapshotOffset > r.lastApplied {
		r.installSnapshot(m.SnapshotOffset, m.SnapshotEpoch, m.Data)
	}
	r.sendFetch()
}
