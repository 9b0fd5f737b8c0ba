package checkers

import (
	"cmp"
	"fmt"
	"math"
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

// byProcess groups op indices by process (in process order), each in
// invocation order.
func (a *analysis) byProcess() [][]int32 {
	// Process numbers are usually small (Jepsen's grow by the concurrency
	// each time a client crashes): then count each process's ops, and
	// fill slices of the right size, in process order, with no map.
	top := -1
	for i := range a.h {
		top = max(top, a.h[i].Process)
	}
	if top < 4*len(a.h)+64 {
		count := make([]int32, top+1)
		for i := range a.h {
			count[a.h[i].Process]++
		}
		each := make([][]int32, top+1)
		var procs [][]int32
		for p, n := range count {
			if n > 0 {
				each[p] = make([]int32, 0, n)
			}
		}
		for i := range a.h {
			p := a.h[i].Process
			each[p] = append(each[p], int32(i))
		}
		for _, ops := range each {
			if len(ops) > 0 {
				procs = append(procs, ops)
			}
		}
		return procs
	}
	m := map[int][]int32{}
	for i := range a.h {
		p := a.h[i].Process
		m[p] = append(m[p], int32(i))
	}
	ids := make([]int, 0, len(m))
	for p := range m {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	procs := make([][]int32, len(ids))
	for k, p := range ids {
		procs[k] = m[p]
	}
	return procs
}

// polled is where one operation's polls of one partition began and ended:
// the records it returned first and last, and the micro-ops that
// returned them.
type polled struct {
	p           *partition
	first, last model.OffsetValue
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
func (a *analysis) pollOrder(opts *Options, procs [][]int32) []Violation {
	var out []Violation
	end := func(i int32) time.Duration {
		if op := &a.h[i]; op.Completed() {
			return op.End
		}
		return math.MaxInt64
	}
	var cur []polled // the current operation's partitions; few, so a slice
	for _, ops := range procs {
		// A process's ops usually complete in history order already;
		// sorting a sorted slice stably changes nothing, so skip it.
		byEnd := func(x, y int32) int { return cmp.Compare(end(x), end(y)) }
		if !slices.IsSortedFunc(ops, byEnd) {
			ops = slices.Clone(ops)
			slices.SortStableFunc(ops, byEnd)
		}
		last := map[*partition]polled{}              // partition → where the last ok operation left it
		rebalanced := map[*partition]time.Duration{} // partition → latest rebalance touching it
		keep := func(ok func(tp model.TopicPartition) bool) {
			for p := range last {
				if !ok(p.tp) {
					delete(last, p)
				}
			}
		}
		forget := func(tps ...model.TopicPartition) {
			for _, tp := range tps {
				delete(last, a.byTP[tp])
			}
		}
		for k := 0; k < len(ops); k++ {
			i := ops[k]
			op := &a.h[i]
			if op.Type == model.OpInvoke {
				continue
			}
			if op.F != model.FPoll && op.F != model.FSend {
				if op.Type == model.OpFail {
					continue
				}
				switch op.F {
				case model.FAssign:
					keep(func(tp model.TopicPartition) bool { return slices.Contains(op.Partitions, tp) })
				case model.FSubscribe:
					keep(func(tp model.TopicPartition) bool {
						return slices.Contains(op.Topics, tp.Topic) || slices.Contains(op.Partitions, tp)
					})
				case model.FRebalance:
					forget(op.Gained...)
					forget(op.Lost...)
					for _, tp := range append(slices.Clone(op.Gained), op.Lost...) {
						if p := a.byTP[tp]; p != nil {
							rebalanced[p] = op.Time
						}
					}
				case model.FSeek, model.FReset:
					for _, po := range op.Offsets {
						forget(po.TP)
					}
				}
				continue
			}
			// One operation: this op and the micro-ops of its Txn that
			// follow it.
			cur = cur[:0]
			for ; ; k++ {
				i = ops[k]
				cur = a.intPolls(cur, i, rebalanced, &out)
				if k+1 == len(ops) || op.Txn == 0 || a.h[ops[k+1]].Txn != op.Txn {
					break
				}
			}
			for _, c := range cur {
				if prev, ok := last[c.p]; ok {
					if v, bad := a.pollGap(opts, prev, c); bad {
						out = append(out, v)
					}
				}
			}
			if op.Type == model.OpOK {
				for _, c := range cur {
					last[c.p] = c
				}
			}
		}
	}
	return out
}

// intPolls adds poll op i's records to the operation's partitions in cur,
// checking each record against the one the operation returned before it.
func (a *analysis) intPolls(cur []polled, i int32, rebalanced map[*partition]time.Duration, out *[]Violation) []polled {
	op := &a.h[i]
	if op.F != model.FPoll {
		return cur
	}
	for _, pr := range op.Records {
		if len(pr.Records) == 0 {
			continue
		}
		p := a.lookup(pr.TP)
		t, moved := rebalanced[p]
		judge := !moved || t < op.Time
		k := slices.IndexFunc(cur, func(c polled) bool { return c.p == p })
		start := 0
		if k < 0 {
			cur = append(cur, polled{p: p, first: pr.Records[0], firstOp: i, last: pr.Records[0], lastOp: i})
			k = len(cur) - 1
			start = 1
		}
		for _, r := range pr.Records[start:] {
			c := &cur[k]
			if judge {
				if v, bad := a.intPoll(p, c.lastOp, i, c.last, r); bad {
					*out = append(*out, v)
				}
			}
			c.last, c.lastOp = r, i
		}
	}
	return cur
}

// pollGap compares where the last ok operation left p with where the next
// operation resumed.
func (a *analysis) pollGap(opts *Options, prev, next polled) (Violation, bool) {
	p := prev.p
	from, to := prev.last, next.first
	if to.Offset == from.Offset+1 {
		return Violation{}, false // adjacent offsets are adjacent in the version order: the common case
	}
	i, j := p.index(from.Offset), p.index(to.Offset)
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
			proc, from.Offset, prev.lastOp, to.Offset, next.firstOp, outcome, j-i-1, listOffsets(v.Offsets))
	case j-i < 1:
		v.Anomaly = NonmonotonicPoll
		v.Offsets = []model.Offset{from.Offset, to.Offset}
		v.Values = []string{from.Value, to.Value}
		v.Detail = fmt.Sprintf("process %d read offset %d (op %d) then went back to offset %d (op %d%s) with no assign, seek, reset or rebalance between",
			proc, from.Offset, prev.lastOp, to.Offset, next.firstOp, outcome)
	default:
		return v, false
	}
	return v, true
}

// intPoll checks two successive records one operation returned from p
// (op1's r1, then op2's r2; the same op unless a Txn polled twice): r2
// must be at the next observed offset after r1.
func (a *analysis) intPoll(p *partition, op1, op2 int32, r1, r2 model.OffsetValue) (Violation, bool) {
	if r2.Offset == r1.Offset+1 {
		return Violation{}, false // both observed, so nothing observed between: no search needed
	}
	i, j := p.index(r1.Offset), p.index(r2.Offset)
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
			where, r1.Offset, r2.Offset, j-i-1, listOffsets(v.Offsets))
	} else {
		v.Anomaly = IntNonmonotonicPoll
		v.Offsets = []model.Offset{r1.Offset, r2.Offset}
		v.Values = []string{r1.Value, r2.Value}
		v.Detail = fmt.Sprintf("%s returned offset %d then %d: records out of log order or repeated", where, r1.Offset, r2.Offset)
	}
	return v, true
}

// sent is where one operation's sends to one partition began and ended in
// the version order.
type sentSpan struct {
	tp          model.TopicPartition
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
func (a *analysis) sendOrder(opts *Options, procs [][]int32) []Violation {
	var out []Violation
	var cur []sentSpan
	for _, ops := range procs {
		last := map[model.TopicPartition]sentSpan{}
		for k := 0; k < len(ops); k++ {
			i := ops[k]
			op := &a.h[i]
			if op.Type != model.OpOK && !op.Type.Indeterminate() {
				continue
			}
			switch op.F {
			case model.FAssign, model.FSubscribe:
				if op.Type == model.OpInvoke {
					continue
				}
				for tp := range last {
					if !slices.Contains(op.Partitions, tp) && !slices.Contains(op.Topics, tp.Topic) {
						delete(last, tp)
					}
				}
				continue
			case model.FSend, model.FPoll:
			default:
				continue
			}
			cur = cur[:0]
			for ; ; k++ {
				i = ops[k]
				if a.h[i].F == model.FSend {
					if at, ok := a.position(int(i)); ok {
						// Offsets compare only within a partition: an
						// indeterminate keyed send names none, and
						// is placed in the one its record was read
						// from.
						tp, _ := a.sendTP(int(i))
						if c := slices.IndexFunc(cur, func(s sentSpan) bool { return s.tp == tp }); c >= 0 {
							cur[c].last, cur[c].lastAt = i, at
						} else {
							cur = append(cur, sentSpan{tp: tp, first: i, last: i, firstAt: at, lastAt: at})
						}
					}
				}
				if k+1 == len(ops) || op.Txn == 0 || a.h[ops[k+1]].Txn != op.Txn || ops[k+1] != i+1 {
					break
				}
			}
			for _, c := range cur {
				if prev, ok := last[c.tp]; ok && c.firstAt <= prev.lastAt {
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
					out = append(out, v)
				}
				last[c.tp] = c
			}
		}
	}
	return out
}
