package cluster

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// QuorumObservations are what the metadata quorum's nodes reported: the
// controllers (voters) and the brokers (observers), each report stamped
// with the true virtual time and the node's incarnation (its count of
// starts), the shape checkers.QuorumObservations wants. Offsets are the
// raft package's (the first entry is 1); high watermarks and snapshot ends
// are given exclusive, as Kafka gives them: the first offset not
// committed, the first offset a snapshot does not cover.
type QuorumObservations struct {
	Voters         []model.BrokerID
	Leaders        []QuorumLeaderObservation
	HighWatermarks []QuorumHWObservation
	Applied        []QuorumAppliedObservation
	Snapshots      []QuorumSnapshotObservation
}

// QuorumLeaderObservation: at Time, Node became the leader of Epoch.
type QuorumLeaderObservation struct {
	Time        time.Duration
	Node        model.BrokerID
	Incarnation int
	Epoch       model.Epoch
}

// QuorumHWObservation: at Time, Node in Epoch learned high watermark HW
// (exclusive).
type QuorumHWObservation struct {
	Time        time.Duration
	Node        model.BrokerID
	Incarnation int
	Epoch       model.Epoch
	HW          int64
}

// QuorumAppliedObservation: at Time, Node applied the committed entry at
// Offset, of Epoch, with content digest Digest.
type QuorumAppliedObservation struct {
	Time        time.Duration
	Node        model.BrokerID
	Incarnation int
	Offset      int64
	Epoch       model.Epoch
	Digest      uint64
}

// QuorumSnapshotObservation: at Time, Node restored a snapshot ending
// before Offset (exclusive).
type QuorumSnapshotObservation struct {
	Time        time.Duration
	Node        model.BrokerID
	Incarnation int
	Offset      int64
}

// quorumWatch implements raft.Observer for every node of a cluster.
type quorumWatch struct {
	s   *sim.Sim
	obs *Observations
}

func (w quorumWatch) inc(n model.BrokerID) int { return int(w.s.Incarnation(sim.NodeID(n))) }

func (w quorumWatch) QuorumLeader(n model.BrokerID, epoch model.Epoch) {
	q := &w.obs.Quorum
	q.Leaders = append(q.Leaders, QuorumLeaderObservation{Time: w.s.Now(), Node: n, Incarnation: w.inc(n), Epoch: epoch})
}

func (w quorumWatch) QuorumHighWatermark(n model.BrokerID, epoch model.Epoch, hw int64) {
	q := &w.obs.Quorum
	q.HighWatermarks = append(q.HighWatermarks, QuorumHWObservation{Time: w.s.Now(), Node: n, Incarnation: w.inc(n), Epoch: epoch, HW: hw + 1})
}

func (w quorumWatch) QuorumApplied(n model.BrokerID, off int64, epoch model.Epoch, digest uint64) {
	q := &w.obs.Quorum
	q.Applied = append(q.Applied, QuorumAppliedObservation{Time: w.s.Now(), Node: n, Incarnation: w.inc(n), Offset: off, Epoch: epoch, Digest: digest})
}

func (w quorumWatch) QuorumSnapshotLoaded(n model.BrokerID, off int64) {
	q := &w.obs.Quorum
	q.Snapshots = append(q.Snapshots, QuorumSnapshotObservation{Time: w.s.Now(), Node: n, Incarnation: w.inc(n), Offset: off + 1})
}
