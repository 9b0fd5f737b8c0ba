// Package controller is the cluster's metadata controller: one member of
// the KRaft metadata quorum (nodes/raft, KIP-595). The active controller,
// the quorum leader, registers brokers and fences the silent ones, creates
// topics and places their replicas, elects partition leaders (clean, from
// the ELR, the last known leader, unclean) and commits the ISR changes
// leaders ask for; with auto.leader.rebalance.enable it moves leadership
// back to each partition's preferred replica (rebalance.go). Brokers learn
// every change by replaying the quorum's log as observers.
//
// # State
//
// Every change is a Record (records.go), proposed to the quorum as one
// atomic batch per operation (quorum.go) and applied to the in-memory
// state by one function, metadataState.apply (apply.go), on every
// controller and broker alike, once committed. The controller answers a
// request only after the records it produced are applied. A controller
// that starts restores the quorum's snapshot (image.go) and replays the
// log after it; it becomes active when the quorum makes it leader and its
// LeaderChange entry is applied, so it holds everything committed before.
// The code that decides changes (brokers.go, election.go,
// alterpartition.go, topics.go) only ever produces records, from the
// applied state, one operation at a time.
//
// Broker sessions (last heartbeat) are soft state, as in Kafka's
// BrokerHeartbeatManager: never written, kept only by the active
// controller, and rebuilt with a fresh session for every broker each time
// a controller becomes active.
//
// # Message flow
//
//	broker -> active controller  BrokerRegistrationRequest  on every broker start and controller change
//	active controller -> broker  BrokerRegistrationResponse broker epoch, once committed
//	broker -> active controller  BrokerHeartbeatRequest     every broker.heartbeat.interval.ms,
//	                                                        with the metadata offset it replayed
//	active controller -> broker  BrokerHeartbeatResponse    fenced / caught up / shut down
//	leader -> active controller  AlterPartitionRequest      to shrink or expand an ISR
//	active controller -> leader  AlterPartitionResponse     the partition's state after it
//	anyone -> active controller  CreateTopicsRequest        answered with CreateTopicsResponse
//	anyone -> any controller     MetadataRequest            answered from its applied state
//	quorum (voters, observers)   Vote, BeginQuorumEpoch, QuorumFetch, FetchSnapshot (nodes/raft)
//
// A controller that is not active answers the controller APIs with
// NOT_CONTROLLER; brokers find the active one through their observer.
//
// # What it must never do
//
// It must never act on a change before the change is committed: no
// answer or decision reflects a record that the quorum could still lose.
// It must never change metadata anywhere but apply, never let map order
// reach a record, a message or a decision (every walk is over sorted ids
// and names), never change a slice it has stored or sent (messages share
// memory), and, as every node, never start a goroutine, read the real clock
// or touch anything outside its sim.Env.
package controller
