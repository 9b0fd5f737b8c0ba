// Package sim is kafkasim's deterministic simulation kernel: a virtual clock,
// an event queue ordered by (virtual time, sequence number), random streams
// derived from one seed, a simulated network and disk, node lifecycle (start,
// crash, power loss, restart, pause) and a trace whose running hash identifies
// a run event for event.
//
// Nodes are synchronous state machines (see Node). The kernel calls them one
// event at a time on one goroutine; everything a node may touch reaches it
// through its Env, so a run is a pure function of its seed and its inputs.
//
// This package must never start a goroutine, use channels or package sync,
// read the real clock, touch the real file system or network, draw from a
// global random source, or let map iteration order reach behaviour. It
// imports the standard library only. The determinism lint test in
// internal/lint enforces the first of these rules.
package sim
