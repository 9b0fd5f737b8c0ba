// Package checkers holds the read-only judges of a run: linearizability of
// each partition log (porcupine), Jepsen-style anomaly checks over the
// client-observed history, replica and group invariants, the metadata
// quorum's invariants (quorum.go), and liveness.
//
// A checker sees only what a client or an operator could observe: the
// history and the replicas' logs read at the end. It must never import sim
// or nodes, and it must never change what it judges.
package checkers
