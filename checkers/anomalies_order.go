package checkers

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
)

// This file holds the anomalies about order: poll-skip and
// nonmonotonic-poll across one consumer's polls, their int- forms inside
// one poll, and nonmonotonic-send across one producer's sends. Positions
// are compared in the version order (observed offsets), so an offset no
// one observed (a transaction marker) is not a skip.

// maxListed bounds the offsets one violation lists.
const maxListed = 64

// polled is where one operation's polls of one partition began and ended:
// the records it returned first and last, and the micro-ops that
// returned them.
type polled struct {
	p           *partition
	first, last polledRecord
	firstOp     int32
	lastOp      int32
}

// pollOrder checks each consumer's polls (kafka.clj
// poll-skip+nonmonotonic-cases-per-process and
// int-poll-skip+nonmonotonic-cases). A consumer's operations are taken in
// completion order, because that is when a poll's result and a rebalance
// callback take effect on its position: a rebalance that fires inside a
// poll comes before the records that poll returns. An operation is all
// the micro-ops of one Txn: its polls of a partition are compared with
// each other (int-poll-skip), and where they began with where the
// consumer's last ok operation left off (poll-skip). An operation that
// failed or whose outcome is unknown is judged like any other, but does
// not move the position: its transaction aborted, so the consumer rewinds
// to where the last committed one left it.
func (a *analysis) pollOrder(opts *Options, procs *processes) []Violation {
	walks := make([]pollWalk, len(procs.ops))
	var cur []polled // the current operation's partitions; few, so a slice
	dense := len(a.parts)*len(walks) <= densePartMaps
	for p, ops := range procs.ops {
		w := &walks[p]
		w.ops, w.last, w.rebalanced = ops, newPartMap[polled](len(a.parts), dense), map[*partition]time.Duration{}
		// A process's ops usually complete in history order already, and
		// its walk is then a part of the one walk of the history below.
		// Otherwise it walks its ops on its own, in completion order.
		if !procs.endOrdered[p] {
			w.ops = slices.Clone(ops)
			slices.SortStableFunc(w.ops, a.byCompletion)
			for w.k < len(w.ops) {
				cur = a.pollStep(opts, w, cur)
			}
		}
	}
	procs.inHistoryOrder(func(p int) int32 { return walks[p].waiting() },
		func(p int, _ int32) { cur = a.pollStep(opts, &walks[p], cur) })
	var out []Violation
	for p := range walks {
		out = append(out, walks[p].out...)
	}
	return out
}

// processWalk is what the walks of one process share: its entries in
// the order the walk judges them, the next one to judge, and what it
// found.
type processWalk struct {
	ops []int32
	k   int
	out []Violation
}

// waiting is the entry the walk judges next; -1 once it has judged all.
func (w *processWalk) waiting() int32 {
	if w.k < len(w.ops) {
		return w.ops[w.k]
	}
	return -1
}

// pollWalk is pollOrder's walk of one consumer's operations, in
// completion order.
type pollWalk struct {
	processWalk
	last       partMap[polled]              // partition → where the last ok operation left it
	rebalanced map[*partition]time.Duration // partition → latest rebalance touching it
}

// keep forgets where the consumer was in every partition not ok.
func (w *pollWalk) keep(a *analysis, ok func(tp model.TopicPartition) bool) {
	w.last.keep(func(k int32) bool { return ok(a.parts[k].tp) })
}

// forget forgets where the consumer was in tps.
func (w *pollWalk) forget(a *analysis, tps ...model.TopicPartition) {
	for _, tp := range tps {
		if p := a.byTP[tp]; p != nil {
			w.last.del(int32(p.order))
		}
	}
}

// pollStep judges the consumer's next entry, with the other micro-ops of
// its operation when it is a poll or a send, and moves the walk past
// them. cur is scratch space for the operation's partitions.
func (a *analysis) pollStep(opts *Options, w *pollWalk, cur []polled) []polled {
	k := w.k
	w.k++
	i := w.ops[k]
	e := &a.entries[i]
	if !e.completed() {
		return cur
	}
	if e.kind == kindOther {
		if e.outcome == outcomeFail {
			return cur
		}
		op := &a.h[i]
		switch op.F {
		case model.FAssign:
			w.keep(a, func(tp model.TopicPartition) bool { return slices.Contains(op.Partitions, tp) })
		case model.FSubscribe:
			w.keep(a, func(tp model.TopicPartition) bool {
				return slices.Contains(op.Topics, tp.Topic) || slices.Contains(op.Partitions, tp)
			})
		case model.FRebalance:
			w.forget(a, op.Gained...)
			w.forget(a, op.Lost...)
			for _, tp := range append(slices.Clone(op.Gained), op.Lost...) {
				if p := a.byTP[tp]; p != nil {
					w.rebalanced[p] = op.Time
				}
			}
		case model.FSeek, model.FReset:
			for _, po := range op.Offsets {
				w.forget(a, po.TP)
			}
		}
		return cur
	}
	// One operation: this op and the micro-ops of its Txn that follow it.
	cur = cur[:0]
	for ; ; k++ {
		i = w.ops[k]
		cur = a.intPolls(cur, i, w.rebalanced, &w.out)
		if k+1 == len(w.ops) || a.entries[w.ops[k+1]].op != e.op {
			break
		}
	}
	w.k = k + 1
	for _, c := range cur {
		// As in intPolls: adjacent offsets need no call.
		if prev, ok := w.last.get(int32(c.p.order)); ok && c.first.offset != prev.last.offset+1 {
			if v, bad := a.pollGap(opts, prev, c); bad {
				w.out = append(w.out, v)
			}
		}
	}
	if e.outcome == outcomeOK {
		for _, c := range cur {
			w.last.put(int32(c.p.order), c)
		}
	}
	return cur
}

// intPolls adds poll op i's records to the operation's partitions in cur,
// checking each record against the one the operation returned before it.
func (a *analysis) intPolls(cur []polled, i int32, rebalanced map[*partition]time.Duration, out *[]Violation) []polled {
	e := &a.entries[i]
	if e.kind != kindPoll {
		return cur
	}
	// The records come grouped by partition, as the poll listed them.
	part, k := int32(-1), 0
	var p *partition
	judge := false
	for _, r := range a.polledRecs[e.recs : e.recs+e.nrecs] {
		if r.part != part {
			part, p = r.part, a.parts[r.part]
			t, moved := rebalanced[p]
			judge = !moved || t < a.h[i].Time
			if k = slices.IndexFunc(cur, func(c polled) bool { return c.p == p }); k < 0 {
				cur = append(cur, polled{p: p, first: r, firstOp: i, last: r, lastOp: i})
				k = len(cur) - 1
				continue
			}
		}
		c := &cur[k]
		// Adjacent offsets (the common case) are in order; intPoll
		// says so too, but returning its Violation costs more than
		// this test.
		if judge && r.offset != c.last.offset+1 {
			if v, bad := a.intPoll(p, c.lastOp, i, c.last, r); bad {
				*out = append(*out, v)
			}
		}
		c.last, c.lastOp = r, i
	}
	return cur
}

// pollGap compares where the last ok operation left p with where the next
// operation resumed.
func (a *analysis) pollGap(opts *Options, prev, next polled) (Violation, bool) {
	p := prev.p
	from, to := prev.last, next.first
	if to.offset == from.offset+1 {
		return Violation{}, false // adjacent offsets are adjacent in the version order: the common case
	}
	i, j := p.index(from.offset), p.index(to.offset)
	if j-i == 1 {
		return Violation{}, false
	}
	v := Violation{Checker: CheckerAnomalies, Partition: p.tp, Ops: []int{int(prev.lastOp), int(next.firstOp)}}
	v.Error, v.Promise = promise(!opts.Subscribe, PromiseAssignOrder, "subscribe: the group may move partitions between polls")
	proc := a.h[next.firstOp].Process
	outcome := ""
	if t := a.h[next.firstOp].Type; t != model.OpOK {
		outcome = fmt.Sprintf(" (a %s operation: it must still start where the last committed one left off)", t)
	}
	switch {
	case j-i > 1:
		v.Anomaly = PollSkip
		v.Offsets, v.Values = p.between(i, j, maxListed)
		v.Detail = fmt.Sprintf("process %d read offset %d (op %d) then offset %d (op %d%s), skipping %d records (offsets %s) with no assign, seek, reset or rebalance between",
			proc, from.offset, prev.lastOp, to.offset, next.firstOp, outcome, j-i-1, listOffsets(v.Offsets))
	case j-i < 1:
		v.Anomaly = NonmonotonicPoll
		v.Offsets = []model.Offset{from.offset, to.offset}
		v.Values = []string{a.names[from.id], a.names[to.id]}
		v.Detail = fmt.Sprintf("process %d read offset %d (op %d) then went back to offset %d (op %d%s) with no assign, seek, reset or rebalance between",
			proc, from.offset, prev.lastOp, to.offset, next.firstOp, outcome)
	default:
		return v, false
	}
	return v, true
}

// intPoll checks two successive records one operation returned from p
// (op1's r1, then op2's r2; the same op unless a Txn polled twice): r2
// must be at the next observed offset after r1.
func (a *analysis) intPoll(p *partition, op1, op2 int32, r1, r2 polledRecord) (Violation, bool) {
	if r2.offset == r1.offset+1 {
		return Violation{}, false // both observed, so nothing observed between: no search needed
	}
	i, j := p.index(r1.offset), p.index(r2.offset)
	if j-i == 1 {
		return Violation{}, false
	}
	ops := []int{int(op2)}
	where := fmt.Sprintf("poll op %d", op2)
	if op1 != op2 {
		ops = []int{int(op1), int(op2)}
		where = fmt.Sprintf("polls op %d and op %d of one operation", op1, op2)
	}
	v := Violation{Checker: CheckerAnomalies, Partition: p.tp, Ops: ops, Error: true, Promise: PromiseLog}
	if j-i > 1 {
		v.Anomaly = IntPollSkip
		v.Offsets, v.Values = p.between(i, j, maxListed)
		v.Detail = fmt.Sprintf("%s returned offset %d then %d, skipping %d records (offsets %s) that others saw",
			where, r1.offset, r2.offset, j-i-1, listOffsets(v.Offsets))
	} else {
		v.Anomaly = IntNonmonotonicPoll
		v.Offsets = []model.Offset{r1.offset, r2.offset}
		v.Values = []string{a.names[r1.id], a.names[r2.id]}
		v.Detail = fmt.Sprintf("%s returned offset %d then %d: records out of log order or repeated", where, r1.offset, r2.offset)
	}
	return v, true
}

// sent is where one operation's sends to one partition began and ended in
// the version order.
type sentSpan struct {
	tp          model.TopicPartition
	part        int32 // tp's order in analysis.parts
	first, last int32 // the sends
	firstAt     model.Offset
	lastAt      model.Offset
}

// sendOrder checks that each producer's operations that may have taken
// effect (ok or indeterminate) sent to each partition in order: an
// operation's first record lands after the previous operation's last one
// (kafka.clj nonmonotonic-send-cases; the order inside one operation is
// int-nonmonotonic-send's). A send's place is its committed offset or
// where a poll saw its record; a send with no known place is passed over,
// and the next is compared with the last one placed (Jepsen compares only
// neighbours and so misses an inversion around an unplaced send). An ok or
// indeterminate assign or subscribe forgets the partitions it leaves, as
// Jepsen's does.
func (a *analysis) sendOrder(opts *Options, procs *processes) []Violation {
	walks := make([]sendWalk, len(procs.ops))
	dense := len(a.parts)*len(walks) <= densePartMaps
	for p, ops := range procs.ops {
		walks[p] = sendWalk{processWalk: processWalk{ops: ops}, last: newPartMap[sentSpan](len(a.parts), dense)}
	}
	var cur []sentSpan // the current operation's partitions; few, so a slice
	procs.inHistoryOrder(func(p int) int32 { return walks[p].waiting() },
		func(p int, _ int32) { cur = a.sendStep(opts, &walks[p], cur) })
	var out []Violation
	for p := range walks {
		out = append(out, walks[p].out...)
	}
	return out
}

// sendWalk is sendOrder's walk of one producer's operations, in history
// order.
type sendWalk struct {
	processWalk
	last partMap[sentSpan] // partition → the last operation placed there
}

// sendStep judges the producer's next entry, with the other micro-ops of
// its operation when it is a send or a poll, and moves the walk past
// them. cur is scratch space for the operation's partitions.
func (a *analysis) sendStep(opts *Options, w *sendWalk, cur []sentSpan) []sentSpan {
	k := w.k
	w.k++
	i := w.ops[k]
	e := &a.entries[i]
	if e.outcome == outcomeFail {
		return cur
	}
	switch op := &a.h[i]; {
	case e.kind != kindOther:
	case op.F == model.FAssign || op.F == model.FSubscribe:
		if !e.completed() {
			return cur
		}
		w.last.keep(func(k int32) bool {
			tp := a.parts[k].tp
			return slices.Contains(op.Partitions, tp) || slices.Contains(op.Topics, tp.Topic)
		})
		return cur
	default:
		return cur
	}
	cur = cur[:0]
	for ; ; k++ {
		i = w.ops[k]
		if a.entries[i].kind == kindSend {
			if at, ok := a.position(int(i)); ok {
				// Offsets compare only within a partition: an
				// indeterminate keyed send names none, and is placed in
				// the one its record was read from (a placed send has a
				// record).
				part := a.sent(int(i)).part
				if c := slices.IndexFunc(cur, func(s sentSpan) bool { return s.part == part }); c >= 0 {
					cur[c].last, cur[c].lastAt = i, at
				} else {
					cur = append(cur, sentSpan{tp: a.parts[part].tp, part: part, first: i, last: i, firstAt: at, lastAt: at})
				}
			}
		}
		if k+1 == len(w.ops) || a.entries[w.ops[k+1]].op != e.op || w.ops[k+1] != i+1 {
			break
		}
	}
	w.k = k + 1
	for _, c := range cur {
		if prev, ok := w.last.get(c.part); ok && c.firstAt <= prev.lastAt {
			w.out = append(w.out, a.sendInversion(opts, prev, c))
		}
		w.last.put(c.part, c)
	}
	return cur
}

// sendInversion is the nonmonotonic-send of operation c, which landed at
// or before where prev, an earlier operation of the same producer, did.
func (a *analysis) sendInversion(opts *Options, prev, c sentSpan) Violation {
	po, no := &a.h[prev.last], &a.h[c.first]
	v := Violation{
		Checker: CheckerAnomalies, Anomaly: NonmonotonicSend, Partition: c.tp,
		Offsets: []model.Offset{prev.lastAt, c.firstAt}, Values: []string{po.Value, no.Value},
		Ops: []int{int(prev.last), int(c.first)},
		Detail: fmt.Sprintf("process %d sent %q (op %d) before %q (op %d), but they landed at offsets %d and %d",
			no.Process, po.Value, prev.last, no.Value, c.first, prev.lastAt, c.firstAt),
	}
	v.Error, v.Promise = promise(opts.orderedSends(), PromiseSendOrder,
		"enable.idempotence=false with max.in.flight>1: retries may reorder sends")
	switch {
	case !v.Error || !opts.Idempotent:
	case resequencedInversion(po, no):
		v.Error, v.Promise = false, PromiseResequence
		v.Detail += describeResequence(po) + ", after the later send had completed"
	case staleAckInversion(po, no):
		v.Error, v.Promise = false, PromiseResequenceOrder
		v.Detail += describeStaleAck(po, no)
	}
	return v
}
