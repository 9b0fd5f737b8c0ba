package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
)

// A heartbeat answer waits behind the shard's uncommitted writes, as
// Kafka's CoordinatorRuntime makes it wait: the classic heartbeat is a
// write operation that produces no records (GroupCoordinatorService.heartbeat
// schedules "classic-group-heartbeat" with offsets.commit.timeout.ms), and
// CoordinatorWriteEvent with empty records completes at once only if the
// last committed offset has reached the last written offset; otherwise it
// is deferred to that offset, and a timeout fails it with REQUEST_TIMED_OUT,
// which CoordinatorOperationExceptionHelper answers as
// COORDINATOR_NOT_AVAILABLE. So a coordinator whose writes no longer
// commit (cut from its followers, the ISR below min.insync.replicas) stops
// answering heartbeats NONE within offsets.commit.timeout.ms, and a member
// that only reaches that coordinator stops counting itself alive.
//
// JoinGroup and SyncGroup answers are not deferred this way, because Kafka
// does not defer them. GroupCoordinatorService.joinGroup and syncGroup are
// write operations too ("classic-group-join", "classic-group-sync"), but
// they hand GroupMetadataManager a responseFuture of their own, which the
// state machine completes inside the operation (completeClassicGroupJoin's
// completeJoinFuture; classicGroupSyncToClassicGroup answers a Stable
// group's SyncGroup at once), not when the operation's write commits. The
// one answer that waits for a commit is the assignment: the leader's
// SyncGroup in CompletingRebalance writes the group metadata record, and
// only its appendFuture, which CoordinatorRuntime completes once that
// record is committed, propagates the assignment to the parked SyncGroups
// (setAndPropagateAssignment). nodes/group does the same (sync.go: the
// assignment is propagated from the write's WriteDone).

// deferredReply is a heartbeat answer waiting for the high watermark.
type deferredReply struct {
	to       model.BrokerID
	msg      model.HeartbeatResponse
	required model.Offset // the high watermark that releases it
	deadline time.Duration
}

// sendHeartbeatEffects applies a heartbeat's effects with its answers to
// the member deferred while the shard has writes the high watermark has
// not reached.
func (b *Broker) sendHeartbeatEffects(s *coordShard, e group.Effects) {
	if s.p.hw >= s.lastWritten {
		b.applyEffects(s, e)
		return
	}
	k := 0
	for _, r := range e.Replies {
		if hb, ok := r.Msg.(model.HeartbeatResponse); ok {
			s.deferred = append(s.deferred, deferredReply{
				to: r.To, msg: hb, required: s.lastWritten,
				deadline: b.now() + b.cfg.Kafka.Group.OffsetCommitTimeout,
			})
			continue
		}
		e.Replies[k] = r
		k++
	}
	e.Replies = e.Replies[:k]
	b.applyEffects(s, e)
}

// releaseDeferred sends the answers the high watermark now covers, and
// fails those past their deadline with COORDINATOR_NOT_AVAILABLE.
func (b *Broker) releaseDeferred(s *coordShard) {
	now := b.now()
	k := 0
	for _, d := range s.deferred {
		switch {
		case d.required <= s.p.hw:
			b.send(d.to, d.msg)
		case d.deadline <= now:
			d.msg.Error = model.CoordinatorNotAvailable
			b.send(d.to, d.msg)
		default:
			s.deferred[k] = d
			k++
		}
	}
	clear(s.deferred[k:])
	s.deferred = s.deferred[:k]
}

// failDeferred answers every waiting heartbeat with code: the shard is
// unloaded (NOT_COORDINATOR, as CoordinatorRuntime fails the pending
// events of a coordinator it unloads).
func (b *Broker) failDeferred(s *coordShard, code model.ErrorCode) {
	for _, d := range s.deferred {
		d.msg.Error = code
		b.send(d.to, d.msg)
	}
	s.deferred = nil
}

// forgetDeferred drops the answers waiting for a client whose connection
// broke.
func (s *coordShard) forgetDeferred(peer model.BrokerID) {
	k := 0
	for _, d := range s.deferred {
		if d.to != peer {
			s.deferred[k] = d
			k++
		}
	}
	clear(s.deferred[k:])
	s.deferred = s.deferred[:k]
}
