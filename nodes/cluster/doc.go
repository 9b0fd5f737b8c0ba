// Package cluster assembles a simulated Kafka cluster on the kernel: a
// metadata quorum of controllers, N brokers and any client nodes, wired
// with Kafka's conventions (brokers 1..N, controllers 100, 101, ...,
// clients from 1000), its topics created once the brokers have registered,
// and the client history recorder shared by every client.
//
//	    controllers (voters of the metadata quorum, nodes/raft)
//	b100 <-- Vote / BeginQuorumEpoch / QuorumFetch --> b101, b102
//	  ^ active (quorum leader)
//	  |  registration, heartbeats, AlterPartition     QuorumFetch (observers:
//	  |                                               replay the metadata log)
//	b1 .. bN  brokers  <-- Produce / Fetch -->  clients (1000, ...)
//
// Options.Controllers = 1 is the single-controller configuration, a quorum
// of one, kept for comparison.
//
// It builds the system under test, records what the nodes report as
// model's observations (observe.go, observe_groups.go, quorum.go) and reads
// its state for the judges at the end; it never decides anything a node
// would decide. Like the nodes,
// it must never start a goroutine, read the real clock or touch the real
// file system: a cluster is part of one deterministic run.
package cluster
