// Package raft is a KRaft-style Raft (KIP-595 with KIP-630 snapshots and
// KIP-996 pre-vote) embedded in a simulated node, as etcd's RawNode is
// embedded in a server: the host (a controller, a voter; or a broker, an
// observer) hands it the messages and timers that are its own, and it
// drives a StateMachine with the committed entries of the replicated log.
//
// # Protocol, as Kafka's raft module does it
//
//   - Quorum state (epoch, voted-for, leader) is a file, rewritten and
//     synced before any vote is sent or any epoch change acted on
//     (QuorumState.java, FileQuorumStateStore.java).
//   - A voter that hears from no leader stands after a randomized election
//     timeout, first with a pre-vote (no epoch change; KIP-996), then with
//     a vote in the next epoch. A voter grants a pre-vote only to a log at
//     least as up to date as its own and only if it has not heard from a
//     leader within the fetch timeout, so a node that was cut off cannot
//     depose a healthy leader when it returns. Lost elections back off a
//     random time up to controller.quorum.election.backoff.max.ms.
//   - The winner appends a LeaderChange control batch in its epoch and
//     tells the voters with BeginQuorumEpoch, again every half fetch
//     timeout as a heartbeat. It is usable (Propose,
//     LeaderChanged with isMe) once that batch is committed and applied:
//     everything an earlier leader committed is then applied too.
//   - Followers and observers pull with QuorumFetch (fetch offset, last
//     fetched epoch); the leader parks a fetch it has nothing for up to
//     fetchMaxWait and answers a fetcher whose log disagrees with a
//     diverging epoch and end offset, where the fetcher truncates and asks
//     again (log matching by epoch, KIP-279's iteration).
//   - The leader's high watermark is the largest offset that a majority of
//     voters (the leader counts itself) have durably appended, provided it
//     is in the leader's own epoch. Every append is synced before it is
//     counted, by a leader before it counts itself and by a follower
//     before it fetches past it, so a power loss cannot take back a
//     committed entry. Followers learn the high watermark from fetch
//     responses. A leader that has not been fetched from by a majority
//     (itself counted) within 1.5 fetch timeouts of the last time a
//     majority had fetched resigns (LeaderState's check-quorum timer).
//   - Every SnapshotEvery committed entries a node snapshots its state
//     machine at the last applied offset (synced, then renamed into place)
//     and deletes the log before it. A fetch below the leader's log start
//     is answered with the snapshot's id; the fetcher fetches the snapshot
//     (FetchSnapshot, in one piece) and restores from it.
//   - Replaying takes no virtual time unless Config.LoadRate charges it
//     (load.go): then an entry reaches the state machine, and a snapshot
//     is restored, only once its bytes are replayed at that rate.
//
// # Offsets
//
// Offsets start at 1, so that 0 means "nothing" (no entry, nothing
// committed, nothing applied). The high watermark is the offset of the last
// committed entry; with Kafka's zero-based offsets and exclusive high
// watermark the numbers are the same.
//
// # What it must never do
//
// Like every node's code it must never start a goroutine, read the real
// clock, draw randomness from anywhere but the host's sim.Env, or let map
// iteration order reach what it does. It must never count an unsynced
// entry as replicated, never act on an epoch or vote it has not synced,
// and never call the state machine with an uncommitted entry. Observer
// callbacks only report; they must not change the run.
package raft
