package model

import "time"

// Observations are what the nodes reported while a run went, as an operator
// watching the cluster would have seen it, each stamped with the true
// virtual time (not a node's own, possibly drifting, clock): the leaders
// brokers became, the ISRs and high watermarks they applied as leaders, the
// generations and committed offsets of the group coordinators, and the
// metadata quorum's reports (observations_quorum.go). The nodes report
// through their observer interfaces (broker.Observer,
// broker.GroupObserver, raft.Observer); the cluster that runs them records
// these values, and the checkers judge them as they are. Each slice is in
// the order the reports were made.
type Observations struct {
	// Leaders: a broker became leader of a partition in an epoch.
	Leaders []LeaderObservation
	// ISRs are the in-sync replica sets leaders applied, for timelines and
	// the faults that wait for one; no checker judges them.
	ISRs []ISRObservation
	// HighWatermarks: a leader's high watermark for a partition moved.
	HighWatermarks []HWObservation
	// Generations: a group coordinator completed a rebalance.
	Generations []GenerationObservation
	// Committed: a group coordinator's committed offset for a partition,
	// each time it changed (a commit applied, or offsets loaded after a
	// coordinator failover).
	Committed []CommittedObservation
	// Quorum: what the metadata quorum's nodes reported.
	Quorum QuorumObservations
	// Assignments: each committed metadata record that set a partition's
	// replica set (its creation, each step of a reassignment), once per
	// partition epoch, as the first broker to replay it reported it.
	Assignments []AssignmentObservation `json:",omitempty"`
	// Deletions: each committed RemoveTopicRecord, once per broker that
	// replayed it (or restored a snapshot without the topic). The loss
	// checks take a deleted topic's acknowledged writes as no longer
	// promised (checkers.PromiseTopicDeleted), and the leader and high
	// watermark checks tell a recreated topic's lives apart by them.
	Deletions []TopicDeletionObservation `json:",omitempty"`
}

// TopicDeletionObservation says Broker learnt at Time that Topic was
// deleted: it replayed the RemoveTopicRecord at Offset, or restored a
// snapshot at Offset in which the topic it had is gone.
type TopicDeletionObservation struct {
	Time   time.Duration
	Topic  string
	Offset int64
	Broker BrokerID
}

// AssignmentObservation says a committed metadata record gave TP the
// replica set Replicas, with ISR, at PartitionEpoch; a broker replayed it
// at Time. Before and BeforeAdding are the replica set and the replicas a
// reassignment was adding just before the record (both nil for the
// partition's creation); Adding and Removing are the reassignment in
// progress after it (KIP-455), empty when none is.
type AssignmentObservation struct {
	Time             time.Duration
	TP               TopicPartition
	PartitionEpoch   Epoch
	Replicas, ISR    []BrokerID
	Adding, Removing []BrokerID `json:",omitempty"`
	Before           []BrokerID `json:",omitempty"`
	BeforeAdding     []BrokerID `json:",omitempty"`
}

// LeaderObservation says Leader began leading TP under Epoch at Time.
type LeaderObservation struct {
	Time   time.Duration
	TP     TopicPartition
	Epoch  Epoch
	Leader BrokerID
}

// ISRObservation says Leader, leading TP under Epoch, applied ISR (as the
// controller committed it) at Time.
type ISRObservation struct {
	Time   time.Duration
	TP     TopicPartition
	Leader BrokerID
	Epoch  Epoch
	ISR    []BrokerID
}

// HWObservation says Broker, leading TP under leader epoch Epoch, had high
// watermark HW at Time. Only leaders report (a follower's high watermark
// may rightly fall when it follows a new leader), and a leader's high
// watermark only grows within its epoch: so each (Broker, TP, Epoch) is one
// series the checkers judge for monotonicity. The field is named for what
// it holds, the leader epoch; it once reached the checkers as
// "Incarnation", which is the quorum reports' count of a node's starts
// (observations_quorum.go), a different thing. A broker that restarts
// reloads a high watermark checkpoint that may lag, but it leads again
// only under a new epoch, so the epoch separates its series too.
type HWObservation struct {
	Time   time.Duration
	TP     TopicPartition
	Broker BrokerID
	Epoch  Epoch
	HW     Offset
}

// GenerationObservation says coordinator Broker completed Group's
// generation Generation at Time with these assignments (each member's id
// and the partitions it was given, in join order).
type GenerationObservation struct {
	Time   time.Duration
	Broker BrokerID
	// Epoch is the leader epoch of the group's offsets partition the
	// coordinator served under (0 where a source does not know it: then
	// every coordinator counts as current).
	Epoch      Epoch
	Group      string
	Generation Epoch
	Members    []MemberAssignment
}

// CommittedObservation says coordinator Broker held Offset as Group's
// committed offset for TP at Time, serving as coordinator under Epoch, the
// leader epoch of the group's offsets partition (0 where a source does not
// know it: then every coordinator counts as current). The epoch tells a
// deposed coordinator, which goes on reporting until it learns of its
// successor, from the one that replaced it.
type CommittedObservation struct {
	Time   time.Duration
	Broker BrokerID
	Epoch  Epoch
	Group  string
	TP     TopicPartition
	Offset Offset
}
