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
			first, _ := p.at.get(o)
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

// duplicates: one record (partition, value) at more than one offset of the
// version order (kafka.clj duplicate-cases). Without idempotence a retried
// send is expected to land twice; with it, only an epoch bump's rewrite
// the history records may (resequence.go). A failed send's offset is not in the
// version order, so its value counts only where a poll saw it.
func (a *analysis) duplicates(opts *Options) []Violation {
	type dup struct {
		id   int32
		offs []model.Offset
	}
	// Nearly every history has none: one pass over the records says so
	// without visiting every offset of every partition.
	if !slices.ContainsFunc(a.vals, func(v valueInfo) bool { return v.multi() }) {
		return nil
	}
	var dups []dup
	where := map[int32]int{} // record id → index in dups
	add := func(o model.Offset, id int32) {
		if !a.vals[id].multi() {
			return
		}
		k, ok := where[id]
		if !ok {
			k = len(dups)
			where[id] = k
			dups = append(dups, dup{id: id})
		}
		if !slices.Contains(dups[k].offs, o) {
			dups[k].offs = append(dups[k].offs, o)
		}
	}
	for _, p := range a.parts {
		for _, o := range p.offsets {
			add(o, p.firstAt(o).id)
			for _, c := range p.conflicts[o] {
				add(o, c.id)
			}
		}
	}
	var out []Violation
	for _, d := range dups {
		slices.Sort(d.offs)
		vi := &a.vals[d.id]
		value := a.valueOf(d.id)
		v := Violation{
			Checker: CheckerAnomalies, Anomaly: Duplicate, Partition: a.partOf(vi).tp,
			Offsets: d.offs, Values: []string{value},
			Detail: fmt.Sprintf("value %q is at %d offsets (%s)", value, len(d.offs), listOffsets(d.offs)),
		}
		if vi.writer >= 0 {
			v.Ops = []int{int(vi.writer)}
			v.Detail += fmt.Sprintf(", sent by op %d", vi.writer)
		}
		if vi.reader >= 0 {
			v.Ops = append(v.Ops, int(vi.reader))
			v.Detail += fmt.Sprintf(", first read by op %d", vi.reader)
		}
		if opts.Idempotent {
			allowed, why := false, ""
			if vi.writer >= 0 {
				allowed, why = resequencedCopies(&a.h[vi.writer], a.partOf(vi).tp, d.offs)
			}
			if allowed {
				v.Promise = PromiseResequence
				v.Detail += describeResequence(&a.h[vi.writer])
			} else {
				v.Error, v.Promise = true, PromiseIdempotence
				v.Detail += why + ": the idempotent producer's retry was appended again (check producer-state deduplication across leader changes)"
			}
		} else {
			v.Promise = "enable.idempotence=false: a retried send may be written twice"
		}
		out = append(out, v)
	}
	return out
}

// valueOf is a record's value, read back from its writer or a sighting.
func (a *analysis) valueOf(id int32) string {
	vi := &a.vals[id]
	if vi.writer >= 0 {
		return a.h[vi.writer].Value
	}
	if vi.first != model.NoOffset {
		for _, c := range append([]sighting{a.partOf(vi).firstAt(vi.first)}, a.partOf(vi).conflicts[vi.first]...) {
			if cid, ok := a.partOf(vi).ids.get(c.value, a.names); ok && cid == id {
				return c.value
			}
		}
	}
	// Only a read of it remains.
	for _, pr := range a.h[vi.reader].Records {
		if pr.TP == a.partOf(vi).tp {
			for _, r := range pr.Records {
				if rid, ok := a.partOf(vi).ids.get(r.Value, a.names); ok && rid == id {
					return r.Value
				}
			}
		}
	}
	return ""
}

// visibility: aborted reads (kafka.clj g1a-cases: a poll of an ok
// operation returned a value whose send failed definitely; Jepsen's G1a)
// and phantoms (a poll returned a value no one sent to that partition;
// Jepsen's lost-write-cases stops with :no-writer-of).
func (a *analysis) visibility() []Violation {
	var out []Violation
	for id := range a.vals {
		vi := &a.vals[id]
		// Most records were read and sent by a send that did not fail:
		// decide that before building anything, since this runs once a
		// record.
		if vi.reader < 0 || vi.writer >= 0 && (a.entries[vi.writer].outcome != outcomeFail || vi.okReader < 0) {
			continue
		}
		v := a.valueOf(int32(id))
		at := vi.first
		base := Violation{
			Checker: CheckerAnomalies, Partition: a.partOf(vi).tp,
			Offsets: []model.Offset{at}, Values: []string{v},
			Error: true, Promise: PromiseVisibility,
		}
		switch {
		case vi.writer < 0:
			base.Anomaly = Phantom
			base.Ops = []int{int(vi.reader)}
			if w, ok := a.sentElsewhere(v); ok {
				base.Ops = []int{int(w), int(vi.reader)}
				to := "to " + a.h[w].TP.String()
				if a.h[w].TP.Topic == "" {
					to = "once, to a partition it never learned, and read elsewhere"
				}
				base.Detail = fmt.Sprintf("op %d read %q in %s, but it was sent %s (op %d)",
					vi.reader, v, a.partOf(vi).tp, to, w)
			} else {
				base.Detail = fmt.Sprintf("op %d read %q at offset %d of %s, which no client sent: a corrupted or fabricated record",
					vi.reader, v, at, a.partOf(vi).tp)
			}
		case a.h[vi.writer].Type == model.OpFail && vi.okReader >= 0:
			base.Anomaly = AbortedRead
			base.Ops = []int{int(vi.writer), int(vi.okReader)}
			base.Detail = fmt.Sprintf("op %d read %q at offset %d, but its send (op %d) failed definitely (%s): a failed produce or aborted transaction must leave no visible record",
				vi.okReader, v, at, vi.writer, a.h[vi.writer].Error)
		default:
			continue
		}
		out = append(out, base)
	}
	// Map order does not reach here, but keep the report in reader order.
	slices.SortFunc(out, func(x, y Violation) int {
		if c := cmp.Compare(x.Ops[len(x.Ops)-1], y.Ops[len(y.Ops)-1]); c != 0 {
			return c
		}
		return cmp.Compare(x.Values[0], y.Values[0])
	})
	return out
}

// sentElsewhere finds a send of value v to any partition, for explaining a
// phantom; the index is built the first time one is needed.
func (a *analysis) sentElsewhere(v string) (int32, bool) {
	if a.sentTo == nil {
		a.sentTo = map[string]int32{}
		for i := range a.h {
			if op := &a.h[i]; op.F == model.FSend {
				if _, ok := a.sentTo[op.Value]; !ok {
					a.sentTo[op.Value] = int32(i)
				}
			}
		}
	}
	w, ok := a.sentTo[v]
	return w, ok
}

// lostAndUnseen: Jepsen's lost-write and unseen (kafka.clj lost-write-cases
// and unseen). For each partition, the bound is the highest offset at which
// a record that an ok operation's poll returned was first seen; every
// record of the version order whose last sighting is at or below the bound
// should have been read by such a poll, and one that was not, whose send
// must have committed (ok, or indeterminate with a read of any value its
// operation sent: a transaction's sends are atomic), is lost. Acknowledged
// sends that no ok poll returned and that are not lost are unseen: not
// proven lost, but never read after the final reads. Records that a
// recorded position reset jumped over, or that retention deleted from
// every replica, are excused from both.
func (a *analysis) lostAndUnseen(opts *Options, replicas []ReplicaLog) []Violation {
	bounds := a.readBounds()
	logStart := logStarts(replicas)
	durable, why := opts.readsEverything()
	unseen := map[*partition][]int32{}
	var out []Violation
	for i := range a.entries {
		e := &a.entries[i]
		if e.kind != kindSend || !e.committed {
			continue
		}
		vi := a.sent(i)
		if vi == nil {
			continue // never observed, partition unknown: nothing to judge
		}
		if vi.writer != int32(i) || vi.okReader >= 0 {
			continue
		}
		offset := e.offset
		if !a.known(i) {
			offset = vi.last
		}
		p := a.partOf(vi)
		if offset != model.NoOffset && p.excused(offset) {
			continue
		}
		if s, ok := logStart[p.tp]; ok && offset != model.NoOffset && offset < s {
			continue
		}
		b := bounds[p.order]
		if b.reader < 0 || vi.last == model.NoOffset || vi.last > b.offset {
			if e.outcome == outcomeOK {
				unseen[p] = append(unseen[p], int32(i))
			}
			continue
		}
		v := lostWrite(&a.h[i], i, p, offset, b)
		v.Error, v.Promise = promise(durable, PromiseDurability, why)
		out = append(out, v)
	}
	for _, p := range a.parts {
		if ops := unseen[p]; len(ops) > 0 {
			v := a.unseenSends(p, ops)
			v.Error, v.Promise = promise(durable, PromiseDurability, why)
			out = append(out, v)
		}
	}
	return out
}

// readBound is a partition's bound for lost-write: the highest offset
// at which a record an ok poll returned was first seen, and that poll;
// reader is -1 when no ok poll read the partition.
type readBound struct {
	offset model.Offset
	reader int32
}

// readBounds is each partition's readBound, by its order in a.parts.
func (a *analysis) readBounds() []readBound {
	bounds := make([]readBound, len(a.parts))
	for k := range bounds {
		bounds[k].reader = -1
	}
	for id := range a.vals {
		vi := &a.vals[id]
		if vi.okReader < 0 || vi.first == model.NoOffset {
			continue
		}
		if b := &bounds[vi.part]; b.reader < 0 || vi.first > b.offset {
			*b = readBound{vi.first, vi.okReader}
		}
	}
	return bounds
}

// logStarts is each partition's lowest log start offset among the
// replicas: below it retention deleted records from every replica.
func logStarts(replicas []ReplicaLog) map[model.TopicPartition]model.Offset {
	logStart := map[model.TopicPartition]model.Offset{}
	for _, r := range replicas {
		if s, ok := logStart[r.TP]; !ok || r.LogStart < s {
			logStart[r.TP] = r.LogStart
		}
	}
	return logStart
}

// lostWrite is the finding for send op (entry i) to p, at offset, never
// read although b's poll read past it; the caller sets Error and Promise.
func lostWrite(op *model.Op, i int, p *partition, offset model.Offset, b readBound) Violation {
	how := "acknowledged"
	if op.Type != model.OpOK {
		how = fmt.Sprintf("of %s outcome, but its operation's other writes were read,", op.Type)
	}
	return Violation{
		Checker: CheckerAnomalies, Anomaly: LostWrite, Partition: p.tp,
		Offsets: []model.Offset{offset}, Values: []string{op.Value}, Ops: []int{i, int(b.reader)},
		Detail: fmt.Sprintf("send %q %s at offset %d (op %d) was never read, although op %d read offset %d: an acknowledged record vanished from the log",
			op.Value, how, offset, i, b.reader, b.offset),
	}
}

// unseenSends is the one unseen finding for p's acknowledged sends ops,
// never read; the caller sets Error and Promise.
func (a *analysis) unseenSends(p *partition, ops []int32) Violation {
	v := Violation{Checker: CheckerAnomalies, Anomaly: Unseen, Partition: p.tp}
	for _, i := range ops {
		v.Ops = append(v.Ops, int(i))
		o := a.h[i].Offset
		if o == model.NoOffset {
			o = a.sent(int(i)).last
		}
		v.Offsets = append(v.Offsets, o)
		v.Values = append(v.Values, a.h[i].Value)
	}
	v.Detail = fmt.Sprintf("%d acknowledged sends were never read by the end of the run (ops %s; offsets %s): the final reads did not reach them, or they were lost",
		len(ops), listOps(v.Ops), listOffsets(v.Offsets))
	return v
}

// listOps writes at most a few op indices.
func listOps(xs []int) string {
	os := make([]model.Offset, len(xs))
	for i, x := range xs {
		os[i] = model.Offset(x)
	}
	return listOffsets(os)
}

// promise returns a violation's Error and Promise fields: the promise that
// broke when it is made, or what unmade it.
func promise(made bool, broke, unmadeBy string) (bool, string) {
	if made {
		return true, broke
	}
	return false, unmadeBy
}
