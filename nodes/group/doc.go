// Package group holds the consumer-group pieces that the group coordinator
// (nodes/broker) and the group-mode consumer (nodes/client) share. Today
// that is the partition assignors: range, roundrobin, sticky and
// cooperative-sticky, as Kafka's clients name them in
// partition.assignment.strategy. In the classic protocol the group leader,
// a consumer, runs the assignor and the coordinator only relays the result,
// so the code lives here rather than in either role.
//
// Everything here is a pure function of its arguments: the same members and
// partition counts give the same assignment on every run and machine, which
// the deterministic simulation depends on. The package must never start a
// goroutine, use channels or package sync, read the real clock, touch the
// real file system or network, draw randomness, or let map iteration order
// reach a result (it walks members and partitions in sorted order). It
// imports only the standard library and kafkasim/model.
package group
