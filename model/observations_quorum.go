package model

import "time"

// QuorumObservations are what the metadata quorum's nodes (controllers, the
// voters, and brokers, which replay the log as observers) reported while a
// run went, each stamped with the true virtual time and with the node's
// incarnation: the kernel's count of the node's starts at the moment of
// the report, so that what a restart legitimately resets (the in-memory
// high watermark, the replay position) is judged per incarnation. Each
// slice is in the order the reports were made.
//
// Offsets are in Kafka's numbering: an entry's offset is as the nodes'
// traces print it, and a high watermark or a snapshot's end names the
// first entry past what it covers (exclusive), as in Kafka's
// ReplicatedLog: updateHighWatermark takes the first uncommitted offset,
// and a snapshot id (createSnapshot, earliestSnapshotId) is the end offset
// a log starting after the snapshot starts at. nodes/raft numbers its log
// from 1 and reports the last entry a high watermark or snapshot covers;
// the one recorder of its reports (cluster.QuorumRecorder) adds the 1.
type QuorumObservations struct {
	// Voters are the controllers (controller.quorum.voters); every other
	// node that reports is an observer (a broker).
	Voters []BrokerID
	// Leaders: a node became leader of an epoch.
	Leaders []QuorumLeaderObservation
	// HighWatermarks: a node's high watermark moved.
	HighWatermarks []QuorumHWObservation
	// Applied: a node applied a committed entry to its state machine.
	Applied []QuorumAppliedObservation
	// Snapshots: a node restored a snapshot (its own at start, or one the
	// leader sent).
	Snapshots []QuorumSnapshotObservation
}

// QuorumLeaderObservation says Node became the quorum leader of Epoch at
// Time.
type QuorumLeaderObservation struct {
	Time        time.Duration
	Node        BrokerID
	Incarnation int
	Epoch       Epoch
}

// QuorumHWObservation is Node's high watermark at Time: the offset of the
// first entry not known committed (exclusive, as Kafka's). Epoch is the
// node's current epoch when the high watermark moved.
type QuorumHWObservation struct {
	Time        time.Duration
	Node        BrokerID
	Incarnation int
	Epoch       Epoch
	HW          int64
}

// QuorumAppliedObservation says Node applied the committed entry at Offset,
// written in Epoch, whose content hashes to Digest, at Time.
type QuorumAppliedObservation struct {
	Time        time.Duration
	Node        BrokerID
	Incarnation int
	Offset      int64
	Epoch       Epoch
	Digest      uint64
}

// QuorumSnapshotObservation says Node replaced its state at Time with a
// snapshot whose end offset is Offset (exclusive, Kafka's snapshot id: the
// first entry it does not cover), so the node's next applied entry is at
// Offset or after. A node that restores its own snapshot when it starts
// reports it too: its replay then starts there, not at 0.
type QuorumSnapshotObservation struct {
	Time        time.Duration
	Node        BrokerID
	Incarnation int
	Offset      int64
}
