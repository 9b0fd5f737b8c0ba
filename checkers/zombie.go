package checkers

import (
	"slices"
	"time"

	"kafkasim/model"
)

// The zombie consumer: which overlaps of ownership Kafka's group protocol
// itself allows.
//
// Neither of Kafka's consumers gives up its partitions on its own when its
// coordinator goes silent. The classic one's heartbeat thread
// (AbstractCoordinator.HeartbeatThread) on session expiry only marks the
// coordinator unknown and looks for it again; the KIP-848 one
// (AbstractHeartbeatRequestManager.poll) skips heartbeats while the
// coordinator is unknown and fences itself
// (AbstractMembershipManager.transitionToFenced) only on an answer with
// FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID. Meanwhile the coordinator
// expires the member after session.timeout.ms and gives its partitions to
// another member in a new generation. Until the old owner hears from the
// coordinator it keeps fetching from the partition leaders, which do not
// check group membership: two members read the partition at once, and the
// old owner's commits are refused (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID),
// so the group processes those records twice, at least once as promised.
//
// What the history can show of "hearing from the coordinator" is the old
// owner's group operations: a commit answered by the coordinator (ok, or
// refused with an error that says the generation is over) or a rebalance.
// Reading after such an answer is not the protocol's doing: the member
// knew, or could have known, that it no longer owned the partition. (A
// heartbeat answer is not in the history; a member that ignored one and
// kept reading until its next group operation would pass for a zombie.)

// zombieWindow is an allowed overlap: process old, in group, held tp from
// an older generation than process new, which gained it at from; until old
// heard from the coordinator (heardOp, -1 if it never did while holding
// the partition) its reads of tp are the protocol's.
type zombieWindow struct {
	key      groupPartition
	old, new int
	from     time.Duration
	until    time.Duration
	heardOp  int
}

// allows reports whether process p's poll invoked at t is an old owner's
// read that w allows.
func (w *zombieWindow) allows(p int, t time.Duration) bool {
	return p == w.old && t >= w.from && t < w.until
}

// PromiseZombie is what allows an overlap in which the old owner read.
const PromiseZombie = "Kafka's consumers keep fetching until their coordinator answers (AbstractCoordinator.HeartbeatThread only marks a silent coordinator unknown; KIP-848's consumer fences itself only on FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID): an expelled member that has not heard from its coordinator since another member gained its partition still reads it, and the group gets those records twice (at least once)"

// PromiseSelfFencing is the promise of kafkasim's consumer.self.fencing
// extension, which forbids the zombie's reads.
const PromiseSelfFencing = "consumer.self.fencing: a member cut off from its coordinator stops fetching no later than the coordinator expires it, so no partition is read by two members at once"

// generationOver are the errors with which a coordinator tells a member
// that its generation or membership has ended (ConsumerCoordinator's
// OffsetCommitResponseHandler resets the generation on them).
var generationOver = []string{"ILLEGAL_GENERATION", "UNKNOWN_MEMBER_ID", "REBALANCE_IN_PROGRESS", "FENCED_INSTANCE_ID", "FENCED_MEMBER_EPOCH", "STALE_MEMBER_EPOCH"}

// heardFrom returns the first group operation of process p in group after
// from that shows the coordinator answered it (see above), and when the
// answer came; -1 when there is none before before.
func heardFrom(h model.History, p int, group string, from, before time.Duration) (int, time.Duration) {
	for i := range h {
		op := &h[i]
		if op.Process != p || op.Group != group || !op.Completed() || op.End <= from || op.Time >= before {
			continue
		}
		switch {
		case op.F == model.FRebalance && op.Type == model.OpOK && op.Time >= from:
			return i, op.Time
		case op.F == model.FCommit && op.Type == model.OpOK && op.Time >= from:
			return i, op.End
		case op.F == model.FCommit && op.Type == model.OpFail && slices.Contains(generationOver, op.Error):
			return i, op.End
		}
	}
	return -1, before
}

// zombieWindowFor returns the window in which old's hold may overlap new's,
// if Kafka's protocol allows the overlap at all: the old owner's
// generation is older (two owners in one generation are the coordinator's
// fault), and the consumers do not fence themselves.
func zombieWindowFor(h model.History, k groupPartition, old, new ownership, opts *Options) (zombieWindow, bool) {
	if opts.SelfFencing || old.generation >= new.generation {
		return zombieWindow{}, false
	}
	heard, until := heardFrom(h, old.process, k.group, new.from, old.to)
	return zombieWindow{key: k, old: old.process, new: new.process, from: new.from, until: min(until, old.to), heardOp: heard}, true
}
