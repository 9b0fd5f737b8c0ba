// Package nodes is the root of the system under test: the broker, the
// controller, the group coordinator and the producer and consumer clients,
// one subpackage per role, plus the pieces they share (the partition log,
// the leader-epoch cache).
//
// Every node is a synchronous state machine driven by package sim. Code
// here must never start a goroutine, use channels or package sync, read the
// real clock, touch the real file system or network, or draw randomness from
// anywhere but its sim.Env; it imports only sim, model and the standard
// library.
package nodes
