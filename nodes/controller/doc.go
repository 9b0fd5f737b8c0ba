// Package controller is the cluster's metadata controller: a single KRaft
// style controller node that registers brokers and fences the silent ones,
// creates topics and places their replicas, elects partition leaders (clean,
// from the ELR, the last known leader, unclean) and commits the ISR changes
// leaders ask for, and tells every broker what changed.
//
// # State
//
// Every change is a Record (records.go), appended to the metadata log on
// the controller's own disk and synced before it takes effect
// (metadata.go), then applied to the in-memory state by one function,
// metadataState.apply (apply.go). At start the controller replays the log,
// drops a torn tail, and begins a new controller epoch. A replicated
// controller (KRaft's Raft quorum, KIP-595) can carry the same records in a
// replicated log; the code that decides changes (brokers.go, election.go,
// alterpartition.go, topics.go) only ever produces records.
//
// Broker sessions (last heartbeat, last confirmed metadata offset) are soft
// state, as in Kafka's BrokerHeartbeatManager: never written, rebuilt with
// a fresh session for every broker at each start.
//
// # Message flow
//
//	broker -> controller  BrokerRegistrationRequest  on every broker start
//	controller -> broker  MetadataUpdate snapshot     when it registers, just before:
//	controller -> broker  BrokerRegistrationResponse broker epoch (or an error)
//	broker -> controller  BrokerHeartbeatRequest     every broker.heartbeat.interval.ms
//	controller -> broker  BrokerHeartbeatResponse    fenced / caught up / shut down
//	controller -> broker  MetadataUpdate snapshot     when a heartbeat shows the broker behind
//	leader -> controller  AlterPartitionRequest      to shrink or expand an ISR
//	controller -> leader  AlterPartitionResponse     the partition's state after it
//	controller -> brokers MetadataUpdate             after every committed change, to every
//	                                                 registered broker, fenced or not
//	anyone -> controller  CreateTopicsRequest        answered with CreateTopicsResponse
//	anyone -> controller  MetadataRequest            answered from the controller's state
//
// # What it must never do
//
// It must never act on a change before the change is durable: no answer,
// push or election reflects a record that a power loss could take back.
// It must never change metadata anywhere but apply, never let map order
// reach a record, a message or a decision (every walk is over sorted ids
// and names), never change a slice it has stored or sent (messages share
// memory), and, as every node, never start a goroutine, read the real clock
// or touch anything outside its sim.Env.
package controller
