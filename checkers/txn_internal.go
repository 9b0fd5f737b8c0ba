package checkers

import (
	"fmt"

	"kafkasim/model"
)

// This file holds the analyses inside one multi-op operation:
// int-send-skip and int-nonmonotonic-send (jepsen.tests.kafka
// int-send-skip+nonmonotonic-cases) and precommitted-read
// (precommitted-read-cases).

// internalSends compares each pair of consecutive sends that one
// operation made to one partition: the second should be the next record
// after the first in the version order. Records of other producers
// between them are int-send-skip, normal in Kafka (transactions do not
// isolate writes); the second landing at or before the first is
// int-nonmonotonic-send. A send whose value no one observed has no
// position and is taken to be in order, as Jepsen does.
//
// It reads the entries only (a send's partition and value are its
// record's), and a model.Op only for what it reports.
func (x *txnIndex) internalSends(opts *Options) []Violation {
	var out []Violation
	type last struct {
		part   int32 // the partition, by its order in a.parts
		id     int32 // the record sent
		offset model.Offset
		mop    int
	}
	var prev []last // this operation's last send per partition, few
	for k := range x.ops {
		if x.ops[k].end-x.ops[k].first < 2 || !x.a.entries[x.ops[k].first].completed() {
			continue
		}
		prev = prev[:0]
		first, end := int(x.ops[k].first), int(x.ops[k].end)
		for m := range end - first {
			e := &x.a.entries[first+m]
			if e.sent < 0 {
				continue // not a send, or one whose partition is unknown
			}
			part := x.a.vals[e.sent].part
			seen := false
			for j := range prev {
				if prev[j].part != part {
					continue
				}
				if v, bad := x.sendPair(opts, int32(k), x.parts[part], prev[j].id, e.sent, prev[j].offset, e.offset, prev[j].mop, m); bad {
					out = append(out, v)
				}
				prev[j].id, prev[j].offset, prev[j].mop, seen = e.sent, e.offset, m, true
			}
			if !seen {
				prev = append(prev, last{part, e.sent, e.offset, m})
			}
		}
	}
	return out
}

// sendPair judges operation k's sends of records id1 then id2 to xp's
// partition (micro-ops m1, m2), which reported offsets o1 and o2
// (NoOffset when unknown).
func (x *txnIndex) sendPair(opts *Options, k int32, xp *txnPart, id1, id2 int32, o1, o2 model.Offset, m1, m2 int) (Violation, bool) {
	i1, ok1 := xp.positionOf(id1, o1)
	i2, ok2 := xp.positionOf(id2, o2)
	if !ok1 || !ok2 || i2-i1 == 1 {
		return Violation{}, false
	}
	p, head := xp.p, x.head(k)
	tp, v1, v2 := p.tp, xp.names[id1], xp.names[id2]
	o1, o2 = p.offsets[i1], p.offsets[i2]
	delta := int(i2 - i1)
	v := Violation{
		Checker: CheckerAnomalies, Partition: tp,
		Offsets: []model.Offset{o1, o2}, Values: []string{v1, v2}, Ops: []int{head.Index},
		Txn: &TxnDetail{Delta: delta},
	}
	if delta > 1 {
		v.Anomaly = IntSendSkip
		_, v.Txn.Skipped = p.between(int(i1), int(i2), maxListed)
		v.Error, v.Promise = false, allowIntSendSkip
		v.Detail = fmt.Sprintf("op %d (process %d) sent %q (micro-op %d) then %q (micro-op %d) to %s, which landed at offsets %d and %d with %d other records between (%s)",
			head.Index, head.Process, v1, m1, v2, m2, tp, o1, o2, delta-1, quoteList(v.Txn.Skipped, delta-1))
		return v, true
	}
	v.Anomaly = IntNonmonotonicSend
	v.Error, v.Promise = promise(opts.orderedSends(), PromiseSendOrder,
		"enable.idempotence=false with max.in.flight>1: retries may reorder sends")
	v.Detail = fmt.Sprintf("op %d (process %d) sent %q (micro-op %d) before %q (micro-op %d) to %s, but they landed at offsets %d and %d, %d positions apart in the log: out of send order",
		head.Index, head.Process, v1, m1, v2, m2, tp, o1, o2, delta)
	return v, true
}

// precommittedReads finds operations that polled a value they sent
// themselves. Most databases let a transaction read its own writes;
// Kafka's read_committed consumers must not see a transaction's records
// before it commits, whoever polls. One finding per operation, for the
// first of its sent values that it read.
func (x *txnIndex) precommittedReads() []Violation {
	var out []Violation
	for k := range x.ops {
		if x.ops[k].end-x.ops[k].first < 2 || !x.a.entries[x.ops[k].first].completed() {
			continue
		}
		head := x.head(int32(k))
		mops := x.micro(int32(k))
		first := int(x.ops[k].first)
		found := false
		for sm := 0; sm < len(mops) && !found; sm++ {
			if x.a.entries[first+sm].kind != kindSend {
				continue
			}
			s := &mops[sm]
			for pm := range mops {
				if o, ok := x.a.pollReturned(first+pm, first+sm); ok {
					out = append(out, Violation{
						Checker: CheckerAnomalies, Anomaly: PrecommittedRead, Partition: s.TP,
						Offsets: []model.Offset{o}, Values: []string{s.Value}, Ops: []int{head.Index},
						Error: true, Promise: PromiseReadCommitted,
						Detail: fmt.Sprintf("op %d (process %d) polled %q from %s at offset %d (micro-op %d), a value it sent itself (micro-op %d) before it committed",
							head.Index, head.Process, s.Value, s.TP, o, pm, sm),
					})
					found = true
					break
				}
			}
		}
	}
	return out
}

// pollReturned reports whether entry poll is a poll that returned the
// record entry send wrote, and at which offset. A send with its partition
// known has its record's id, and the poll's records theirs; a send whose
// partition is unknown is looked for by its value, in its (empty)
// partition.
func (a *analysis) pollReturned(poll, send int) (model.Offset, bool) {
	e := &a.entries[poll]
	if e.kind != kindPoll {
		return 0, false
	}
	if id := a.entries[send].sent; id >= 0 {
		for _, r := range a.polledRecs[e.recs : e.recs+e.nrecs] {
			if r.id == id {
				return r.offset, true
			}
		}
		return 0, false
	}
	tp, value := a.h[send].TP, a.h[send].Value
	for _, pr := range a.h[poll].Records {
		if pr.TP != tp {
			continue
		}
		for _, r := range pr.Records {
			if r.Value == value {
				return r.Offset, true
			}
		}
	}
	return 0, false
}

// quoteList writes at most a few values of n in all.
func quoteList(vs []string, n int) string {
	const max = 8
	s := ""
	for i, v := range vs {
		if i == max {
			return s + fmt.Sprintf(" … (%d in all)", n)
		}
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%q", v)
	}
	if n > len(vs) {
		s += fmt.Sprintf(" … (%d in all)", n)
	}
	return s
}
