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

// pollOrder checks each consumer's polls. A consumer's operations are
// taken in completion order, because that is when a poll's result and a
// rebalance callback take effect on its position: a rebalance that fires
// inside a poll comes before the records that poll returns.
func (a *analysis) pollOrder(opts *Options, procs [][]int32) []Violation {
	var out []Violation
	end := func(i int32) time.Duration {
		if op := &a.h[i]; op.Completed() {
			return op.End
		}
		return math.MaxInt64
	}
	for _, ops := range procs {
		ops = slices.Clone(ops)
		slices.SortStableFunc(ops, func(x, y int32) int { return cmp.Compare(end(x), end(y)) })
		last := map[*partition]int32{}               // partition → the poll that last read it
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
		for _, i := range ops {
			op := &a.h[i]
			if op.Type == model.OpFail || op.Type == model.OpInvoke {
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
			case model.FPoll:
				for _, pr := range op.Records {
					if len(pr.Records) == 0 {
						continue
					}
					p := a.byTP[pr.TP]
					if prev, ok := last[p]; ok {
						if v, bad := a.pollGap(opts, p, prev, i); bad {
							out = append(out, v)
						}
					}
					if t, ok := rebalanced[p]; !ok || t < op.Time {
						out = append(out, a.intPoll(p, i, pr.Records)...)
					}
					last[p] = i
				}
			}
		}
	}
	return out
}

// lastRead is the last record op read from p.
func (a *analysis) lastRead(p *partition, op int32) model.OffsetValue {
	for _, pr := range a.h[op].Records {
		if pr.TP == p.tp {
			return pr.Records[len(pr.Records)-1]
		}
	}
	panic("checkers: lastRead of a partition the poll did not read")
}

func (a *analysis) firstRead(p *partition, op int32) model.OffsetValue {
	for _, pr := range a.h[op].Records {
		if pr.TP == p.tp {
			return pr.Records[0]
		}
	}
	panic("checkers: firstRead of a partition the poll did not read")
}

// pollGap compares where poll prev left p with where poll next resumed.
func (a *analysis) pollGap(opts *Options, p *partition, prev, next int32) (Violation, bool) {
	from, to := a.lastRead(p, prev), a.firstRead(p, next)
	i, j := p.index(from.Offset), p.index(to.Offset)
	v := Violation{Checker: CheckerAnomalies, Partition: p.tp, Ops: []int{int(prev), int(next)}}
	v.Error, v.Promise = promise(!opts.Subscribe, PromiseAssignOrder, "subscribe: the group may move partitions between polls")
	switch {
	case j-i > 1:
		v.Anomaly = PollSkip
		v.Offsets, v.Values = p.between(i, j, maxListed)
		v.Detail = fmt.Sprintf("process %d read offset %d (op %d) then offset %d (op %d), skipping %d records (offsets %s) with no assign, seek, reset or rebalance between",
			a.h[next].Process, from.Offset, prev, to.Offset, next, j-i-1, listOffsets(v.Offsets))
	case j-i < 1:
		v.Anomaly = NonmonotonicPoll
		v.Offsets = []model.Offset{from.Offset, to.Offset}
		v.Values = []string{from.Value, to.Value}
		v.Detail = fmt.Sprintf("process %d read offset %d (op %d) then went back to offset %d (op %d) with no assign, seek, reset or rebalance between",
			a.h[next].Process, from.Offset, prev, to.Offset, next)
	default:
		return v, false
	}
	return v, true
}

// intPoll checks one poll's records of one partition: each must be the
// next observed offset after the one before.
func (a *analysis) intPoll(p *partition, op int32, recs []model.OffsetValue) []Violation {
	var out []Violation
	for k := 1; k < len(recs); k++ {
		r1, r2 := recs[k-1], recs[k]
		i, j := p.index(r1.Offset), p.index(r2.Offset)
		if j-i == 1 {
			continue
		}
		v := Violation{Checker: CheckerAnomalies, Partition: p.tp, Ops: []int{int(op)}, Error: true, Promise: PromiseLog}
		if j-i > 1 {
			v.Anomaly = IntPollSkip
			v.Offsets, v.Values = p.between(i, j, maxListed)
			v.Detail = fmt.Sprintf("poll op %d returned offset %d then %d, skipping %d records (offsets %s) that others saw",
				op, r1.Offset, r2.Offset, j-i-1, listOffsets(v.Offsets))
		} else {
			v.Anomaly = IntNonmonotonicPoll
			v.Offsets = []model.Offset{r1.Offset, r2.Offset}
			v.Values = []string{r1.Value, r2.Value}
			v.Detail = fmt.Sprintf("poll op %d returned offset %d then %d: records out of log order or repeated", op, r1.Offset, r2.Offset)
		}
		out = append(out, v)
	}
	return out
}

// sendOrder checks that each producer's acknowledged sends to a partition
// got offsets in the order it invoked them.
func (a *analysis) sendOrder(opts *Options, procs [][]int32) []Violation {
	var out []Violation
	for _, ops := range procs {
		last := map[model.TopicPartition]int32{}
		for _, i := range ops {
			op := &a.h[i]
			if !a.acked(int(i)) {
				continue
			}
			if prev, ok := last[op.TP]; ok && op.Offset <= a.h[prev].Offset {
				po := &a.h[prev]
				v := Violation{
					Checker: CheckerAnomalies, Anomaly: NonmonotonicSend, Partition: op.TP,
					Offsets: []model.Offset{po.Offset, op.Offset}, Values: []string{po.Value, op.Value},
					Ops: []int{int(prev), int(i)},
					Detail: fmt.Sprintf("process %d sent %q (op %d) before %q (op %d), but they landed at offsets %d and %d",
						op.Process, po.Value, prev, op.Value, i, po.Offset, op.Offset),
				}
				v.Error, v.Promise = promise(opts.orderedSends(), PromiseSendOrder,
					"enable.idempotence=false with max.in.flight>1: retries may reorder sends")
				out = append(out, v)
			}
			last[op.TP] = i
		}
	}
	return out
}
