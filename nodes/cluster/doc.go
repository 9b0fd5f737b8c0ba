// Package cluster assembles a simulated Kafka cluster on the kernel: one
// controller, N brokers and any client nodes, wired with Kafka's
// conventions (brokers 1..N, the controller 100, clients from 1000), its
// topics created once the brokers have registered, and the client history
// recorder shared by every client.
//
// It builds the system under test and reads its state for the judges at
// the end; it never decides anything a node would decide. Like the nodes,
// it must never start a goroutine, read the real clock or touch the real
// file system: a cluster is part of one deterministic run.
package cluster
