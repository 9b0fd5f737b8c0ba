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

// retryFetch runs when the fetch retry timer fires: either the retry
// backoff after a failure is over, or the fetch went unanswered well past
// its wait (a cut link drops the answer silently): ask again. Its timer
// outlives a change of role, as a request in flight does.
func (r *Raft) retryFetch() {
	if r.fetchOut {
		// Given up on, the fetch closes its connection, as a request past
		// controller.quorum.request.timeout.ms does in Kafka
		// (KafkaNetworkChannel sends through a NetworkClient;
		// NetworkClient.handleTimedOutRequests closes the socket).
		// Without the close the next fetch waits behind the kernel's
		// retransmissions of the old ones: after a long cut, tens of
		// seconds past the heal.
		r.env.Close(node(r.fetchTarget))
	}
	r.fetchOut = false
	r.sendFetch()
}

// fetchAnswered reports whether an answer from a peer is to the fetch in
// flight (and no longer in flight); an answer to a fetch this node gave
// up on is dropped. An answer can come in any role: a change of role does
// not take back the fetch it had sent.
func (r *Raft) fetchAnswered(from model.BrokerID) bool {
	if !r.fetchOut || from != r.fetchTarget {
		return false
	}
	r.fetchOut = false
	return true
}

// handleFollowerFetchResponse takes a fetch answer as a follower
// (KafkaRaftClient.handleFetchResponse): an error is news of another epoch
// or leader, or the leader saying it no longer leads; an answer from the
// leader in this epoch is used; any other names a new leader or epoch.
func (r *Raft) handleFollowerFetchResponse(from model.BrokerID, m model.QuorumFetchResponse) {
	if !r.fetchAnswered(from) {
		return
	}
	if m.Error != model.NoError {
		if r.learn(m.LeaderEpoch, m.LeaderID) {
			return
		}
		if r.isVoter() && from == r.leader && m.LeaderEpoch == r.epoch && m.LeaderID == model.NoBroker {
			// The leader itself says it no longer leads this epoch (it
			// resigned, or restarted): stand now rather than after the
			// fetch timeout, as Kafka's EndQuorumEpoch lets a follower.
			r.contact = false
			r.startPreVote()
			return
		}
		r.scheduleRetry()
		return
	}
	if m.LeaderEpoch == r.epoch && m.LeaderID == r.leader || r.followsAfter(from, m) {
		r.useFetchAnswer(from, m)
	}
}

// handleFetchResponse takes a fetch answer in a role that follows no
// leader (an observer looking for the leader, or a voter whose role
// changed since it fetched): it is news, and is used only if it makes
// this node follow its sender.
func (r *Raft) handleFetchResponse(from model.BrokerID, m model.QuorumFetchResponse) {
	if !r.fetchAnswered(from) {
		return
	}
	if m.Error != model.NoError {
		if r.learn(m.LeaderEpoch, m.LeaderID) {
			return
		}
		if r.cfg.Observer {
			// An observer that follows no leader is unattached: it asks
			// the next voter.
			r.observerIndex++
		}
		r.scheduleRetry()
		return
	}
	if r.followsAfter(from, m) {
		r.useFetchAnswer(from, m)
	}
}

// followsAfter acts on a fetch answer that names a leader or epoch this
// node did not follow (an observer discovering the leader, or news of a
// newer epoch), and reports whether it now follows the answer's sender,
// whose answer it then uses. News that changes nothing means ask again.
func (r *Raft) followsAfter(from model.BrokerID, m model.QuorumFetchResponse) bool {
	if !r.learn(m.LeaderEpoch, m.LeaderID) {
		r.scheduleRetry()
		return false
	}
	return r.role == roleFollower && r.leader == from
}

// useFetchAnswer appends what the leader sent, truncates where it says
// the logs diverge, or fetches its snapshot; then fetches again.
func (r *Raft) useFetchAnswer(from model.BrokerID, m model.QuorumFetchResponse) {
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
	if !r.fetchAnswered(from) {
		return
	}
	if m.Error != model.NoError {
		if !r.learn(m.LeaderEpoch, m.LeaderID) {
			r.scheduleRetry()
		}
		return
	}
	r.lastContact, r.contact = r.env.Now(), true
	if m.SnapshotOffset > r.appliedOrPending() {
		r.installSnapshot(m.SnapshotOffset, m.SnapshotEpoch, m.Data)
	}
	r.sendFetch()
}
