package cluster

import (
	"kafkasim/model"
	"kafkasim/nodes/raft"
	"kafkasim/sim"
)

// QuorumRecorder records what metadata quorum nodes report (raft.Observer)
// as model.QuorumObservations: each report stamped with the true virtual
// time and the node's incarnation (its count of starts), and its offsets
// in Kafka's numbering. Every cluster's controllers and brokers report to
// one; a test that runs nodes/raft alone can record through one too.
type QuorumRecorder struct {
	Sim *sim.Sim
	To  *model.QuorumObservations
}

var _ raft.Observer = QuorumRecorder{}

func (w QuorumRecorder) inc(n model.BrokerID) int { return int(w.Sim.Incarnation(sim.NodeID(n))) }

// exclusiveEnd converts a nodes/raft "last covered" offset (a high
// watermark, a snapshot's last entry) to the exclusive end
// model.QuorumObservations holds, the first offset past it, as Kafka gives
// both (see model.QuorumObservations). Entry offsets need no conversion:
// they stay as the nodes' traces print them.
func exclusiveEnd(last int64) int64 { return last + 1 }

func (w QuorumRecorder) QuorumLeader(n model.BrokerID, epoch model.Epoch) {
	w.To.Leaders = append(w.To.Leaders, model.QuorumLeaderObservation{Time: w.Sim.Now(), Node: n, Incarnation: w.inc(n), Epoch: epoch})
}

func (w QuorumRecorder) QuorumHighWatermark(n model.BrokerID, epoch model.Epoch, hw int64) {
	w.To.HighWatermarks = append(w.To.HighWatermarks, model.QuorumHWObservation{Time: w.Sim.Now(), Node: n, Incarnation: w.inc(n), Epoch: epoch, HW: exclusiveEnd(hw)})
}

func (w QuorumRecorder) QuorumApplied(n model.BrokerID, off int64, epoch model.Epoch, digest uint64) {
	w.To.Applied = append(w.To.Applied, model.QuorumAppliedObservation{Time: w.Sim.Now(), Node: n, Incarnation: w.inc(n), Offset: off, Epoch: epoch, Digest: digest})
}

func (w QuorumRecorder) QuorumSnapshotLoaded(n model.BrokerID, off int64) {
	w.To.Snapshots = append(w.To.Snapshots, model.QuorumSnapshotObservation{Time: w.Sim.Now(), Node: n, Incarnation: w.inc(n), Offset: exclusiveEnd(off)})
}
