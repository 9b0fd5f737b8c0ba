package scenarios

import (
	"slices"
	"time"

	"kafkasim/model"
)

// A topic deleted and created again under its name is a new log whose
// offsets and leader epochs start over, but Kafka's consumer does not
// know it: SubscriptionState keeps an assigned partition's position
// across the deletion (a fetch answered UNKNOWN_TOPIC_OR_PARTITION,
// UNKNOWN_TOPIC_ID or INCONSISTENT_TOPIC_ID only asks for new metadata,
// FetchCollector.handleInitializeErrors), a group member commits that
// position into the new topic (ConsumerCoordinator.onJoinPrepare commits
// allConsumed, and the broker takes the commit once the name exists
// again), and the KIP-320 validation that follows a leader change
// (SubscriptionState.maybeValidatePositionForCurrentLeader, then
// maybeCompleteValidation) judges the old position against the new log's
// epochs as if it were the same log: it is taken as it is when the new
// leader and epoch equal the old ones, and otherwise moved to the end
// offset the new log has for the old epoch. Either way the reader enters
// the new topic above its first offsets, and never reads those. So a
// reader is not asked for the records of a deleted topic's partition
// below where it entered the partition's current log: the lowest offset
// it read of that log (the leader's now), or the highest a reset put it
// at once every broker had replayed the topic's last deletion, whichever
// is higher (chaos seeds 99300109 and 99400302: a member committed its old
// position into the recreated topic before it learnt of it, validated to
// 0 and read some, lost the partition with its next commit failed, and
// the next owner, validating the old committed position, entered at 103
// and 160). A gap above that is still a finding, and so is a current log
// the reader neither read nor reset into; what the rule gives up is a
// genuine skip below a reset on a recreated topic.
//
// A group enters the current log at a committed offset too: a member
// that commits its old position into the new topic before it learns of it
// (the commit takes, the name exists again) leaves that offset for the
// next owner, which starts there whatever the first member read of the
// new log meanwhile. Kafka's classic OffsetCommit names topics, not topic
// ids, so the broker cannot tell the old position from a new one
// (topics-under-chaos seed 91950258: a member committed scratch/1's old
// position 235 just after the topic was created again, reset to 0 and
// read to 210, lost the partition with its next commit failed, and the
// next owner entered at 235). So a group is not asked for the records
// below such a carried commit either: an acknowledged commit, made after
// the last broker learnt of the deletion, above every offset of the
// current log the group had read or reset to by then.

// resetTo is a position a reader reset to, and when.
type resetTo struct {
	offset model.Offset
	at     time.Duration
}

// watchDeleted makes the watch keep, from now on and for what it has
// already read, each reader's reads and resets on the topics deleted
// during the run, and learn when each one's current life began.
func (w *ackWatch) watchDeleted(deletions []model.TopicDeletionObservation) {
	w.lifeStart = lastDeletions(deletions)
	for _, d := range deletions {
		t := d.Topic
		if slices.Contains(w.deleted, t) {
			continue
		}
		w.deleted = append(w.deleted, t)
		for i := 0; i < w.next; i++ {
			op := w.rec.Op(i)
			switch {
			case op.Type != model.OpOK:
			case op.F == model.FPoll:
				w.readDeletedTopic(&op, t)
			case op.F == model.FReset:
				w.resetDeletedTopic(&op, t)
			}
		}
	}
}

// lastDeletions is, per topic, the time the last broker learnt of the
// topic's last deletion (the highest metadata offset deleting it): a
// broker that has not replayed it still serves the old topic, and a
// reset against it (chaos seed 99300233: a partitioned broker's old
// scratch/0 at 52.7 s, the deletion it missed at 41 s) is no entry into
// the new one.
func lastDeletions(obs []model.TopicDeletionObservation) map[string]time.Duration {
	last := map[string]model.TopicDeletionObservation{}
	for _, d := range obs {
		l, ok := last[d.Topic]
		if !ok || d.Offset > l.Offset || (d.Offset == l.Offset && d.Time > l.Time) {
			last[d.Topic] = d
		}
	}
	out := make(map[string]time.Duration, len(last))
	for t, d := range last {
		out[t] = d.Time
	}
	return out
}

// readDeleted keeps a poll's records of deleted topics.
func (w *ackWatch) readDeleted(op *model.Op) {
	for _, t := range w.deleted {
		w.readDeletedTopic(op, t)
	}
}

func (w *ackWatch) readDeletedTopic(op *model.Op, topic string) {
	g := w.groupOf[op.Process]
	for _, pr := range op.Records {
		if pr.TP.Topic != topic {
			continue
		}
		for _, r := range pr.Records {
			a := ackedSend{value: r.Value, tp: pr.TP, offset: r.Offset}
			w.all.keepRead(a)
			if g != nil {
				g.keepRead(a)
			}
		}
	}
}

// resetDeleted keeps a reset's positions on deleted topics.
func (w *ackWatch) resetDeleted(op *model.Op) {
	for _, t := range w.deleted {
		w.resetDeletedTopic(op, t)
	}
}

func (w *ackWatch) resetDeletedTopic(op *model.Op, topic string) {
	g := w.groupOf[op.Process]
	for _, po := range op.Offsets {
		if po.TP.Topic != topic {
			continue
		}
		to := resetTo{offset: po.Offset, at: op.Time}
		w.all.keepReset(po.TP, to)
		if g != nil {
			g.keepReset(po.TP, to)
		}
	}
}

func (r *reader) keepRead(a ackedSend) {
	if r.onDeleted == nil {
		r.onDeleted = map[model.TopicPartition][]ackedSend{}
	}
	r.onDeleted[a.tp] = append(r.onDeleted[a.tp], a)
}

func (r *reader) keepReset(tp model.TopicPartition, to resetTo) {
	if r.resets == nil {
		r.resets = map[model.TopicPartition][]resetTo{}
	}
	r.resets[tp] = append(r.resets[tp], to)
}

// carriedCommits are, per group and partition of a deleted topic, the
// highest offset a member committed into the partition's current log
// above all the group had reached there when it committed (see above).
func (w *ackWatch) carriedCommits() map[*reader]map[model.TopicPartition]model.Offset {
	if len(w.deleted) == 0 || w.inLog == nil {
		return nil
	}
	type reached struct {
		reader *reader
		tp     model.TopicPartition
	}
	top := map[reached]model.Offset{} // the next offset the group had reached
	out := map[*reader]map[model.TopicPartition]model.Offset{}
	for i := 0; i < w.rec.Len(); i++ {
		op := w.rec.Op(i)
		g := w.groupOf[op.Process]
		if g == nil || op.Type != model.OpOK {
			continue
		}
		switch op.F {
		case model.FPoll:
			for _, pr := range op.Records {
				life, ok := w.lifeStart[pr.TP.Topic]
				if !ok || op.Time < life {
					continue
				}
				for _, r := range pr.Records {
					k := reached{g, pr.TP}
					if a := (ackedSend{value: r.Value, tp: pr.TP, offset: r.Offset}); w.inLog(a) && r.Offset+1 > top[k] {
						top[k] = r.Offset + 1
					}
				}
			}
		case model.FReset:
			for _, po := range op.Offsets {
				if life, ok := w.lifeStart[po.TP.Topic]; ok && op.Time >= life {
					k := reached{g, po.TP}
					top[k] = max(top[k], po.Offset)
				}
			}
		case model.FCommit:
			for _, po := range op.Offsets {
				life, ok := w.lifeStart[po.TP.Topic]
				if !ok || op.Time < life || po.Offset <= top[reached{g, po.TP}] {
					continue
				}
				if out[g] == nil {
					out[g] = map[model.TopicPartition]model.Offset{}
				}
				out[g][po.TP] = max(out[g][po.TP], po.Offset)
			}
		}
	}
	return out
}

// carriedPast says whether s, an unread record of a deleted topic's
// partition still in the leader's log, lies below where the reader
// entered that log (lifeStart: when the last broker learnt of the topic's
// last deletion). first caches the entry per partition (NoOffset: none).
func (r *reader) carriedPast(s ackedSend, inLog func(ackedSend) bool, lifeStart time.Duration, carried map[model.TopicPartition]model.Offset, first map[model.TopicPartition]model.Offset) bool {
	low, ok := first[s.tp]
	if !ok {
		low = model.NoOffset
		for _, a := range r.onDeleted[s.tp] {
			if (low == model.NoOffset || a.offset < low) && inLog(a) {
				low = a.offset
			}
		}
		// A reset after the last deletion moved the reader within the
		// current log, wherever the position it moved from came from: a
		// position carried over, or a committed one a member carried into
		// the new topic, lands where the new log's epochs put it, and the
		// records below are not asked of it.
		for _, to := range r.resets[s.tp] {
			if to.at >= lifeStart && to.offset > low {
				low = to.offset
			}
		}
		// A group's committed offset carried from the old log is an entry
		// point too: the next owner of the partition starts there.
		if c, ok := carried[s.tp]; ok && c > low {
			low = c
		}
		first[s.tp] = low
	}
	return low != model.NoOffset && s.offset < low
}
