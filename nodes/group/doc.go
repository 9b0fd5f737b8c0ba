// Package group holds the consumer-group pieces that the group coordinator
// (hosted by nodes/broker) and the group-mode consumer (nodes/client)
// share: the partition assignors and the coordinator's state machine.
//
// The assignors are range, roundrobin, sticky and cooperative-sticky, as
// Kafka's clients name them in partition.assignment.strategy. In the
// classic protocol the group leader, a consumer, runs the assignor and the
// coordinator only relays the result, so the code lives here rather than
// in either role.
//
// Coordinator is one shard of the group coordinator: every group whose id
// hashes to one __consumer_offsets partition, with Kafka's classic
// protocol (the states Empty, PreparingRebalance, CompletingRebalance,
// Stable and Dead; JoinGroup with KIP-394 member ids and KIP-345 static
// members; SyncGroup; Heartbeat; LeaveGroup; OffsetCommit; OffsetFetch;
// session, rebalance, initial-delay and sync timeouts). It is a pure state
// machine over virtual time: the host hands it requests (Handle*), time
// (Expire at NextDeadline), write outcomes (WriteDone) and the records of
// its partition when loading (Replay, then Loaded), and carries out the
// Effects it returns: replies to send, records to append with acks=all,
// and trace events. Group metadata and committed offsets reach the served
// state only once their records are committed, and Replay of the
// committed records rebuilds the same groups and offsets, which is what
// makes a coordinator failover safe.
//
// Everything here is a pure function of its inputs: the same inputs give
// the same outputs on every run and machine, which the deterministic
// simulation depends on. The package must never start a goroutine, use
// channels or package sync, read the real clock, touch the real file
// system or network, draw randomness, or let map iteration order reach a
// result (it walks groups, members and partitions in sorted or join
// order, and the sticky assignors in the order a Java HashMap would walk
// them, computed from the keys: see javaorder.go). It imports only the
// standard library and kafkasim/model.
package group
