package raft

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// The leader's side of fetching (KafkaRaftClient.handleFetchRequest and
// LeaderState).

// parkedFetch is a fetch the leader holds until it has something to send
// or the fetch's wait is over (a long poll).
type parkedFetch struct {
	req   model.QuorumFetchRequest
	timer sim.TimerID
}

func node(id model.BrokerID) sim.NodeID { return sim.NodeID(id) }

// fetchInvalid: no log ends before its start or in a negative epoch or
// one after the fetcher's own (KafkaRaftClient.handleFetchRequest).
func fetchInvalid(m model.QuorumFetchRequest) bool {
	return m.MaxWait < 0 || m.FetchOffset < 1 || m.LastFetchedEpoch < 0 || m.LastFetchedEpoch > m.CurrentLeaderEpoch
}

// refuseFetch answers a fetch sent to a node that does not lead, naming
// the leader it follows, if any.
func (r *Raft) refuseFetch(from model.BrokerID, m model.QuorumFetchRequest, leader model.BrokerID) {
	code := model.NotLeaderOrFollower
	if fetchInvalid(m) {
		code = model.InvalidRequest
	}
	r.env.Send(node(from), model.QuorumFetchResponse{Error: code, LeaderEpoch: r.epoch, LeaderID: leader, HighWatermark: -1})
}

// handleFetch answers a fetch to the leader, or parks it.
func (r *Raft) handleFetch(from model.BrokerID, m model.QuorumFetchRequest) {
	base := model.QuorumFetchResponse{LeaderEpoch: r.epoch, LeaderID: r.leader, HighWatermark: -1}
	switch {
	case fetchInvalid(m):
		base.Error = model.InvalidRequest
		r.env.Send(node(from), base)
		return
	case m.CurrentLeaderEpoch < r.epoch:
		base.Error = model.FencedLeaderEpoch
		r.env.Send(node(from), base)
		return
	case m.CurrentLeaderEpoch > r.epoch:
		base.Error = model.UnknownLeaderEpoch
		r.env.Send(node(from), base)
		return
	}
	if pf, ok := r.parked[from]; ok {
		// A new fetch replaces the parked one (its fetcher gave up on it).
		r.env.Cancel(pf.timer)
		delete(r.parked, from)
	}
	resp, matched := r.fetchAnswer(m)
	if matched && r.lead.isVoter(from) {
		// The fetcher holds everything before its fetch offset.
		if r.lead.updateReplica(from, r.env.Now(), m.FetchOffset-1) {
			r.onLeaderHW()
		}
		resp.HighWatermark = r.knownHW()
	}
	if matched && len(resp.Batches) == 0 && m.MaxWait > 0 && !(r.hwKnown && r.hw > m.HighWatermark) {
		r.parked[from] = parkedFetch{req: m, timer: r.env.After(m.MaxWait, timerParked, int64(from))}
		return
	}
	r.env.Send(node(from), resp)
}

// fetchAnswer computes the answer to a fetch in this leader's epoch: a
// snapshot id, a diverging epoch, or the batches from the fetch offset.
// matched says the fetcher's log agrees with this one up to its fetch
// offset (so the offset counts for the high watermark).
func (r *Raft) fetchAnswer(m model.QuorumFetchRequest) (model.QuorumFetchResponse, bool) {
	resp := model.QuorumFetchResponse{LeaderEpoch: r.epoch, LeaderID: r.cfg.ID, HighWatermark: r.knownHW(),
		LogStartOffset: r.log.startOffset()}
	last := m.FetchOffset - 1
	snapshot := func() (model.QuorumFetchResponse, bool) {
		resp.HasSnapshot, resp.SnapshotOffset, resp.SnapshotEpoch = true, r.log.snapOffset, r.log.snapEpoch
		return resp, false
	}
	if last < r.log.snapOffset {
		return snapshot()
	}
	if last > 0 {
		epoch, end, ok := r.log.endOffsetFor(m.LastFetchedEpoch)
		if !ok {
			return snapshot()
		}
		if epoch != m.LastFetchedEpoch || end < last {
			resp.HasDiverging = true
			resp.Diverging = model.EpochEndOffset{Epoch: epoch, EndOffset: model.Offset(end)}
			return resp, false
		}
	}
	resp.Batches = r.log.batchesFrom(m.FetchOffset, fetchMaxEntries)
	return resp, true
}

// knownHW is the high watermark a leader may tell: -1 until it has
// committed in its epoch (only a leader's is ever unknown).
func (r *Raft) knownHW() int64 {
	if !r.hwKnown {
		return -1
	}
	return r.hw
}

// updateLeaderHW counts the leader's own synced log end; if that moves
// the high watermark (a lone voter's does), act on it.
func (r *Raft) updateLeaderHW() {
	if r.lead.updateLocal(r.log.lastOffset()) {
		r.onLeaderHW()
	}
}

// onLeaderHW takes up the leader state's new high watermark; then parked
// fetches hear of it (followers apply only what they know is committed).
func (r *Raft) onLeaderHW() {
	hw, _ := r.lead.highWatermark()
	r.hwKnown = true
	r.setHW(hw)
	r.answerParked()
}

// answerParked answers every parked fetch with what it can have now.
func (r *Raft) answerParked() {
	for _, id := range r.parkedIDs() {
		pf := r.parked[id]
		resp, _ := r.fetchAnswer(pf.req)
		r.env.Cancel(pf.timer)
		delete(r.parked, id)
		r.env.Send(node(id), resp)
	}
}

func (r *Raft) parkedIDs() []model.BrokerID {
	ids := make([]model.BrokerID, 0, len(r.parked))
	for id := range r.parked {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// onParkedExpired answers a parked fetch whose wait is over.
func (r *Raft) onParkedExpired(id model.BrokerID, t sim.TimerID) {
	pf, ok := r.parked[id]
	if !ok || pf.timer != t {
		return
	}
	delete(r.parked, id)
	resp, _ := r.fetchAnswer(pf.req)
	r.env.Send(node(id), resp)
}

// refuseFetchSnapshot answers a snapshot fetch sent to a node that does
// not lead.
func (r *Raft) refuseFetchSnapshot(from model.BrokerID, m model.FetchSnapshotRequest) {
	r.env.Send(node(from), model.FetchSnapshotResponse{Error: model.NotLeaderOrFollower, LeaderEpoch: r.epoch, LeaderID: r.leader,
		SnapshotOffset: m.SnapshotOffset, SnapshotEpoch: m.SnapshotEpoch})
}

// handleFetchSnapshot sends the leader's snapshot if it is the one asked
// for.
func (r *Raft) handleFetchSnapshot(from model.BrokerID, m model.FetchSnapshotRequest) {
	resp := model.FetchSnapshotResponse{LeaderEpoch: r.epoch, LeaderID: r.leader,
		SnapshotOffset: m.SnapshotOffset, SnapshotEpoch: m.SnapshotEpoch}
	switch {
	case m.CurrentLeaderEpoch != r.epoch:
		resp.Error = model.FencedLeaderEpoch
	case m.SnapshotOffset != r.log.snapOffset || m.SnapshotEpoch != r.log.snapEpoch || r.log.snapOffset == 0:
		resp.Error = model.SnapshotNotFound
	default:
		resp.Data = r.snapData
		// A voter fetching the snapshot is alive for the check quorum
		// (KafkaRaftClient.handleFetchSnapshotRequest).
		r.lead.updateCheckQuorum(from, r.env.Now())
	}
	r.env.Send(node(from), resp)
}
