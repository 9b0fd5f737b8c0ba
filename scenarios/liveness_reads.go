package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// ackWatch follows the history while the liveness phase runs: which
// acknowledged sends each reader has not read yet (the readers are every
// consumer together, and each consumer group), and when the latest
// acknowledged send was made. The liveness check looks every 50 virtual
// milliseconds; building the whole history for each look made a chaos run
// spend over half of its CPU there. The watch reads each op once when it
// appears, and again only while it is still running.
type ackWatch struct {
	rec  *model.Recorder
	next int   // the first op not looked at yet
	open []int // sends and polls looked at while still running
	// lastAcked is the invocation time of the latest acknowledged send,
	// -1 before any.
	lastAcked time.Duration
	all       reader
	groups    []*reader       // one per group, in the fixture's order
	groupOf   map[int]*reader // a member's process to its group (lookup only)
	// inLog, when set, says whether an acknowledged send is still in its
	// partition leader's log: on a partition whose durability promise was
	// voided (diskLost) only a send that is gone is excused from being
	// read. What survived must still be read (nil: every send on such a
	// partition is excused).
	inLog func(ackedSend) bool
	// progress, when set, is told of every acknowledged send, for the
	// per-partition condition (liveness_partitions.go).
	progress *partitionProgress
	// deleted are the topics deleted during the run (watchDeleted), whose
	// reads and resets each reader keeps by partition, and lifeStart when
	// the last broker learnt of each one's last deletion
	// (liveness_recreated.go).
	deleted   []string
	lifeStart map[string]time.Duration
}

// reader is one reader's progress: the values it has read, and the
// acknowledged sends it has not, in history order.
type reader struct {
	name   string
	read   map[string]bool
	unread []ackedSend
	// onDeleted are the records read on partitions of deleted topics;
	// resets, the positions the reader reset to on them, and when.
	onDeleted map[model.TopicPartition][]ackedSend
	resets    map[model.TopicPartition][]resetTo
}

// ackedSend is one acknowledged send: its op index, value, partition and
// offset.
type ackedSend struct {
	index  int
	value  string
	tp     model.TopicPartition
	offset model.Offset
}

func newAckWatch(rec *model.Recorder, groups []fixture.GroupSpec, members []fixture.Member) *ackWatch {
	w := &ackWatch{rec: rec, lastAcked: -1, all: reader{read: map[string]bool{}}, groupOf: map[int]*reader{}}
	byName := map[string]*reader{}
	for _, g := range groups {
		r := &reader{name: g.Name, read: map[string]bool{}}
		w.groups = append(w.groups, r)
		byName[g.Name] = r
	}
	for _, m := range members {
		w.groupOf[int(m.Node)] = byName[m.Group]
	}
	return w
}

// advance reads the ops recorded since the last look, and the completions
// of those that were still running.
func (w *ackWatch) advance() {
	kept := w.open[:0]
	for _, i := range w.open {
		if w.rec.Running(i) {
			// Sends a crashed producer left running stay so for good.
			kept = append(kept, i)
			continue
		}
		op := w.rec.Op(i)
		w.settled(&op)
	}
	w.open = kept
	for n := w.rec.Len(); w.next < n; w.next++ {
		op := w.rec.Op(w.next)
		switch {
		case op.F == model.FReset:
			w.resetDeleted(&op)
		case op.F != model.FSend && op.F != model.FPoll:
		case op.Type == model.OpInvoke:
			w.open = append(w.open, w.next)
		default:
			w.settled(&op)
		}
	}
}

// settled takes in a send or poll that has completed.
func (w *ackWatch) settled(op *model.Op) {
	if op.Type != model.OpOK {
		return
	}
	if op.F == model.FPoll {
		g := w.groupOf[op.Process]
		for _, pr := range op.Records {
			for _, r := range pr.Records {
				w.all.read[r.Value] = true
				if g != nil {
					g.read[r.Value] = true
				}
			}
		}
		w.readDeleted(op)
		return
	}
	w.lastAcked = max(w.lastAcked, op.Time)
	s := ackedSend{index: op.Index, value: op.Value, tp: op.TP, offset: op.Offset}
	w.all.acked(s)
	if w.progress != nil {
		w.progress.sendAcked(s, op.Time)
	}
	for _, g := range w.groups {
		g.acked(s)
	}
}

// acked adds an acknowledged send the reader has not read yet, in history
// order.
func (r *reader) acked(s ackedSend) {
	if r.read[s.value] {
		return
	}
	i, _ := slices.BinarySearchFunc(r.unread, s.index, func(a ackedSend, index int) int { return a.index - index })
	r.unread = slices.Insert(r.unread, i, s)
}

// missing drops what the reader has read since the last look and returns
// the values still unread, except on the lost partitions, whose data the
// faults may have destroyed: what is gone cannot be read. When inLog is
// set, a send on a lost partition that is still in the log is not
// excused: a consumer stuck on such a partition must not pass for one
// whose records vanished.
func (r *reader) missing(lost []model.TopicPartition, inLog func(ackedSend) bool, deleted []string, lifeStart map[string]time.Duration, carried map[model.TopicPartition]model.Offset) []string {
	r.unread = slices.DeleteFunc(r.unread, func(s ackedSend) bool { return r.read[s.value] })
	var out []string
	firstRead := map[model.TopicPartition]model.Offset{}
	for _, s := range r.unread {
		if slices.Contains(lost, s.tp) && (inLog == nil || !inLog(s)) {
			continue
		}
		if inLog != nil && slices.Contains(deleted, s.tp.Topic) && r.carriedPast(s, inLog, lifeStart[s.tp.Topic], carried, firstRead) {
			continue
		}
		out = append(out, s.value)
	}
	return out
}

// inFlight names the first send still running whose producer is up, and
// counts them. Once the producers have stopped, such a send is settled
// within delivery.timeout.ms; if it is acknowledged, its record must be
// read like any other, so the liveness phase cannot end while it runs. A
// send left running by a producer that went down stays so for good and is
// not waited for, nor is one to a partition in skip: a deleted topic's,
// which settles only at delivery.timeout.ms and is judged as it stands,
// or a stranded one (stranded.go), which has no leader to answer it.
func (w *ackWatch) inFlight(up func(process int) bool, skip ...model.TopicPartition) string {
	n, first := 0, -1
	for _, i := range w.open {
		op := w.rec.Op(i)
		if op.F != model.FSend || !up(op.Process) || slices.Contains(skip, op.TP) {
			continue
		}
		if n == 0 {
			first = i
		}
		n++
	}
	if n == 0 {
		return ""
	}
	op := w.rec.Op(first)
	return fmt.Sprintf("%d sends still in flight after the producers stopped (the first: op %d, %s on %s)", n, first, op.Value, op.TP)
}

// sendAckedSince reports whether a send made at or after t was
// acknowledged.
func (w *ackWatch) sendAckedSince(t time.Duration) bool { return w.lastAcked >= t }

// unreadAcked names acknowledged values no consumer has read, except on
// the lost partitions.
func (w *ackWatch) unreadAcked(lost []model.TopicPartition) string {
	missing := w.all.missing(lost, w.inLog, w.deleted, w.lifeStart, nil)
	switch {
	case len(missing) == 0:
		return ""
	case len(missing) > 5:
		return fmt.Sprintf("%d acknowledged records not read by the consumer (%s, ...)", len(missing), strings.Join(missing[:5], ", "))
	}
	return "acknowledged records not read by the consumer: " + strings.Join(missing, ", ")
}

// unreadByGroups names, for the first group that has one, acknowledged
// values no member of the group has read, except on the lost partitions.
func (w *ackWatch) unreadByGroups(lost []model.TopicPartition) string {
	var carried map[*reader]map[model.TopicPartition]model.Offset
	for _, g := range w.groups {
		missing := g.missing(lost, w.inLog, w.deleted, w.lifeStart, carried[g])
		if len(missing) > 0 && carried == nil && len(w.deleted) > 0 {
			// Only now, since it walks the whole history: a group's
			// carried commits (liveness_recreated.go) may excuse them.
			carried = w.carriedCommits()
			missing = g.missing(lost, w.inLog, w.deleted, w.lifeStart, carried[g])
		}
		if len(missing) > 5 {
			return fmt.Sprintf("group %s has not read %d acknowledged records (%s, ...)", g.name, len(missing), strings.Join(missing[:5], ", "))
		}
		if len(missing) > 0 {
			return fmt.Sprintf("group %s has not read acknowledged records %s", g.name, strings.Join(missing, ", "))
		}
	}
	return ""
}
