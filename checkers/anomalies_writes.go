package checkers

import (
	"cmp"
	"fmt"
	"slices"

	"kafkasim/model"
)

// This file holds the anomalies about which records exist: Jepsen's
// inconsistent-offsets, duplicate, aborted-read (G1a), lost-write and
// unseen, and phantom, which Jepsen leaves to its "no writer" assertion.

// inconsistentOffsets: one offset, two different values, across
// acknowledged sends and polls. Always an error: it is the definition of
// a log.
func (a *analysis) inconsistentOffsets() []Violation {
	var out []Violation
	for _, p := range a.parts {
		offs := make([]model.Offset, 0, len(p.conflicts))
		for o := range p.conflicts {
			offs = append(offs, o)
		}
		slices.Sort(offs)
		for _, o := range offs {
			first := p.at[o]
			vals := []string{first.value}
			ops := []int{int(first.op)}
			for _, c := range p.conflicts[o] {
				vals = append(vals, c.value)
				ops = append(ops, int(c.op))
			}
			out = append(out, Violation{
				Checker: CheckerAnomalies, Anomaly: InconsistentOffsets, Partition: p.tp,
				Offsets: []model.Offset{o}, Values: vals, Ops: ops,
				Error: true, Promise: PromiseLog,
				Detail: fmt.Sprintf("offset %d holds %d different values %q (ops %v): the replicas' logs diverged or a truncated record was overwritten",
					o, len(vals), vals, ops),
			})
		}
	}
	return out
}

// duplicates: one value at more than one offset. Without idempotence a
// retried send is expected to land twice.
func (a *analysis) duplicates(opts *Options) []Violation {
	type dup struct {
		value string
		offs  []model.Offset
		tp    model.TopicPartition
	}
	var dups []dup
	where := map[int32]int{} // value id → index in dups
	add := func(p *partition, o model.Offset, v string) {
		id := a.ids[v]
		if !a.vals[id].multi {
			return
		}
		k, ok := where[id]
		if !ok {
			k = len(dups)
			where[id] = k
			dups = append(dups, dup{value: v, tp: p.tp})
		}
		if !slices.Contains(dups[k].offs, o) {
			dups[k].offs = append(dups[k].offs, o)
		}
	}
	for _, p := range a.parts {
		for _, o := range p.offsets {
			add(p, o, p.at[o].value)
			for _, c := range p.conflicts[o] {
				add(p, o, c.value)
			}
		}
	}
	var out []Violation
	for _, d := range dups {
		slices.Sort(d.offs)
		v := Violation{
			Checker: CheckerAnomalies, Anomaly: Duplicate, Partition: d.tp,
			Offsets: d.offs, Values: []string{d.value},
			Detail: fmt.Sprintf("value %q is at %d offsets (%s)", d.value, len(d.offs), listOffsets(d.offs)),
		}
		if w := a.vals[a.ids[d.value]].writer; w >= 0 {
			v.Ops = []int{int(w)}
		}
		if opts.Idempotent {
			v.Error, v.Promise = true, PromiseIdempotence
			v.Detail += ": the idempotent producer's retry was appended again (check producer-state deduplication across leader changes)"
		} else {
			v.Promise = "enable.idempotence=false: a retried send may be written twice"
		}
		out = append(out, v)
	}
	return out
}

// visibility: aborted reads (a poll returned a value whose send failed
// definitely) and phantoms (a poll returned a value no one sent, or one
// sent to another partition).
func (a *analysis) visibility() []Violation {
	var out []Violation
	for v, id := range a.ids {
		vi := &a.vals[id]
		if vi.reader < 0 {
			continue
		}
		base := Violation{
			Checker: CheckerAnomalies, Partition: vi.readTP.tp,
			Offsets: []model.Offset{vi.first}, Values: []string{v},
			Error: true, Promise: PromiseVisibility,
		}
		switch {
		case vi.writer < 0:
			base.Anomaly = Phantom
			base.Ops = []int{int(vi.reader)}
			base.Detail = fmt.Sprintf("op %d read %q at offset %d, which no client sent: a corrupted or fabricated record",
				vi.reader, v, vi.first)
		case a.h[vi.writer].Type == model.OpFail:
			base.Anomaly = AbortedRead
			base.Ops = []int{int(vi.writer), int(vi.reader)}
			base.Detail = fmt.Sprintf("op %d read %q at offset %d, but its send (op %d) failed definitely (%s): a failed produce must leave no visible record",
				vi.reader, v, vi.first, vi.writer, a.h[vi.writer].Error)
		case a.h[vi.writer].TP.Topic != "" && a.h[vi.writer].TP != vi.readTP.tp:
			base.Anomaly = Phantom
			base.Ops = []int{int(vi.writer), int(vi.reader)}
			base.Detail = fmt.Sprintf("op %d read %q in %s, but it was sent to %s (op %d)",
				vi.reader, v, vi.readTP.tp, a.h[vi.writer].TP, vi.writer)
		default:
			continue
		}
		out = append(out, base)
	}
	// Map order is random; a report must not be.
	slices.SortFunc(out, func(x, y Violation) int {
		if c := cmp.Compare(x.Ops[len(x.Ops)-1], y.Ops[len(y.Ops)-1]); c != 0 {
			return c
		}
		return cmp.Compare(x.Values[0], y.Values[0])
	})
	return out
}

// lostAndUnseen: Jepsen's lost-write and unseen. For each partition, the
// bound is the highest offset at which some consumer first saw a value it
// read; every acknowledged send whose record sat at or below the bound
// should have been read by someone, and one no poll returned is lost.
// Acknowledged sends above the bound that no poll returned are unseen: not
// proven lost, but never read after the final reads. Records that a
// recorded position reset jumped over, or that retention deleted from
// every replica, are excused from both.
func (a *analysis) lostAndUnseen(opts *Options, replicas []ReplicaLog) []Violation {
	type bound struct {
		offset model.Offset
		reader int32
	}
	bounds := map[*partition]bound{}
	for _, vi := range a.vals {
		if vi.reader < 0 {
			continue
		}
		if b, ok := bounds[vi.readTP]; !ok || vi.first > b.offset {
			bounds[vi.readTP] = bound{vi.first, vi.reader}
		}
	}
	logStart := map[model.TopicPartition]model.Offset{}
	for _, r := range replicas {
		if s, ok := logStart[r.TP]; !ok || r.LogStart < s {
			logStart[r.TP] = r.LogStart
		}
	}
	durable, why := opts.readsEverything()
	unseen := map[*partition][]int32{}
	var out []Violation
	for i := range a.h {
		op := &a.h[i]
		if !a.acked(i) {
			continue
		}
		vi := &a.vals[a.ids[op.Value]]
		if vi.reader >= 0 {
			continue
		}
		p := a.byTP[op.TP]
		if p.excused(op.Offset) {
			continue
		}
		if s, ok := logStart[op.TP]; ok && op.Offset < s {
			continue
		}
		b, read := bounds[p]
		if !read || vi.last > b.offset {
			unseen[p] = append(unseen[p], int32(i))
			continue
		}
		v := Violation{
			Checker: CheckerAnomalies, Anomaly: LostWrite, Partition: op.TP,
			Offsets: []model.Offset{op.Offset}, Values: []string{op.Value}, Ops: []int{i, int(b.reader)},
			Detail: fmt.Sprintf("send %q acknowledged at offset %d (op %d) was never read, although op %d read offset %d: an acknowledged record vanished from the log",
				op.Value, op.Offset, i, b.reader, b.offset),
		}
		v.Error, v.Promise = promise(durable, PromiseDurability, why)
		out = append(out, v)
	}
	for _, p := range a.parts {
		ops := unseen[p]
		if len(ops) == 0 {
			continue
		}
		v := Violation{Checker: CheckerAnomalies, Anomaly: Unseen, Partition: p.tp}
		for _, i := range ops {
			v.Ops = append(v.Ops, int(i))
			v.Offsets = append(v.Offsets, a.h[i].Offset)
			v.Values = append(v.Values, a.h[i].Value)
		}
		v.Detail = fmt.Sprintf("%d acknowledged sends were never read by the end of the run (offsets %s): the final reads did not reach them, or they were lost",
			len(ops), listOffsets(v.Offsets))
		v.Error, v.Promise = promise(durable, PromiseDurability, why)
		out = append(out, v)
	}
	return out
}

// promise returns a violation's Error and Promise fields: the promise that
// broke when it is made, or what unmade it.
func promise(made bool, broke, unmadeBy string) (bool, string) {
	if made {
		return true, broke
	}
	return false, unmadeBy
}
