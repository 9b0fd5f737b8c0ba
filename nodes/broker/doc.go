// Package broker is the simulated Kafka broker: it hosts partition
// replicas, leads some and follows others, and speaks Kafka's replication
// protocol as the README's "The simulated cluster" lays it out.
//
// As a leader it appends produce requests (acks 0, 1 and all, with
// min.insync.replicas), holds acks=all requests until the high watermark
// passes them, serves follower and consumer fetches (long-polled),
// computes the high watermark over the ISR, and asks the controller to
// shrink or expand the ISR with AlterPartition. As a follower it runs one
// fetcher per leader and finds where its log diverges from the leader's by
// one of three historical methods: the diverging epoch in fetch responses
// (KIP-101 with the KIP-279 fix, the default), OffsetsForLeaderEpoch
// answers without an epoch (KIP-101 alone), or truncation to the high
// watermark (before KIP-101).
//
// A broker that leads a partition of __consumer_offsets is the group
// coordinator of the groups that hash to it (coordinator.go): it loads the
// partition's records into a nodes/group.Coordinator shard (answering
// COORDINATOR_LOAD_IN_PROGRESS meanwhile), appends the shard's writes as
// leader with acks=all, and drops the shard when it stops leading (then
// NOT_COORDINATOR). Any broker answers FindCoordinator, and asks the
// controller to create __consumer_offsets on first use.
//
// A broker that leads a partition of __transaction_state hosts the
// transaction coordinator (nodes/txn) of the transactional ids that hash
// to it in the same way (txn_coordinator.go, txn_requests.go): load by
// replay, acks=all writes, FindCoordinator with key type TRANSACTION
// (which creates the topic on first use), and the marker channel that
// sends WriteTxnMarkers to partition leaders until they are written. As a
// partition leader it appends those markers as control batches
// (txn_markers.go), and a read_committed consumer fetch reads to the last
// stable offset with the aborted transactions listed (fetch.go).
//
// A client's CreateTopics is forwarded to the active controller and its
// answer relayed (forwarding.go), with the retries of Kafka's forwarding
// channel across controller changes.
//
// Everything a broker knows about leadership comes from the metadata log:
// it is an observer of the controllers' quorum (nodes/raft) and replays
// the committed records into a metadata image (quorum.go); the quorum
// leader it knows is the active controller it registers and heartbeats
// with. (Without quorum voters it takes a controller's MetadataUpdate
// pushes instead, which only the broker's unit tests use.) Everything that
// survives a crash is on its simulated disk (partition logs, leader-epoch
// checkpoints, the high-watermark checkpoint, the clean-shutdown marker,
// the metadata log and snapshot).
//
// Like every node, a broker is a synchronous state machine driven by the
// kernel. It must never start a goroutine, read the real clock, touch the
// real file system or network, or let map iteration order reach what it
// does: it walks partitions in sorted order.
package broker
