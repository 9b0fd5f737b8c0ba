package scenarios

import (
	"slices"

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
// offset the new log has for the old epoch. Either way the reader starts
// the new topic above its first offsets, and never reads those. So a
// reader is not asked for the records of a deleted topic's partition
// below the lowest offset it read of that partition's current log (the
// leader's now). A gap above that first read is still a finding, and so
// is a partition of the current log the reader read nothing of.

// watchDeleted makes the watch keep, from now on and for what it has
// already read, each reader's reads of the topics deleted during the
// run.
func (w *ackWatch) watchDeleted(topics []string) {
	for _, t := range topics {
		if slices.Contains(w.deleted, t) {
			continue
		}
		w.deleted = append(w.deleted, t)
		for i := 0; i < w.next; i++ {
			op := w.rec.Op(i)
			if op.F == model.FPoll && op.Type == model.OpOK {
				w.readDeletedTopic(&op, op.Process, t)
			}
		}
	}
}

// readDeleted keeps a poll's records of deleted topics.
func (w *ackWatch) readDeleted(op *model.Op, process int) {
	for _, t := range w.deleted {
		w.readDeletedTopic(op, process, t)
	}
}

func (w *ackWatch) readDeletedTopic(op *model.Op, process int, topic string) {
	g := w.groupOf[process]
	for _, pr := range op.Records {
		if pr.TP.Topic != topic {
			continue
		}
		for _, r := range pr.Records {
			a := ackedSend{value: r.Value, tp: pr.TP, offset: r.Offset}
			w.all.keepDeleted(a)
			if g != nil {
				g.keepDeleted(a)
			}
		}
	}
}

func (r *reader) keepDeleted(a ackedSend) {
	if r.onDeleted == nil {
		r.onDeleted = map[model.TopicPartition][]ackedSend{}
	}
	r.onDeleted[a.tp] = append(r.onDeleted[a.tp], a)
}

// carriedPast says whether s, an unread record of a deleted topic's
// partition still in the leader's log, lies below the lowest offset the
// reader read of that log: a position carried over from an earlier life
// of the topic passed it. first caches the lowest offset per partition
// (NoOffset: nothing read of the current log).
func (r *reader) carriedPast(s ackedSend, inLog func(ackedSend) bool, first map[model.TopicPartition]model.Offset) bool {
	low, ok := first[s.tp]
	if !ok {
		low = model.NoOffset
		for _, a := range r.onDeleted[s.tp] {
			if (low == model.NoOffset || a.offset < low) && inLog(a) {
				low = a.offset
			}
		}
		first[s.tp] = low
	}
	return low != model.NoOffset && s.offset < low
}
