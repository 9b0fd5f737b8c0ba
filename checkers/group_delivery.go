package checkers

import (
	"cmp"
	"fmt"
	"iter"
	"slices"
	"time"

	"kafkasim/model"
)

// Delivery promises of consumer groups (README, "Histories and checkers"): a group
// is a queue (its members share the partitions, so each record goes to one
// member at a time) and several groups on one topic are publish-subscribe
// (each group receives every record). With commits after processing the
// delivery is at least once: a record may reach a group twice only when
// the partition changed hands (or its reader restarted or moved its
// position) between the two deliveries.
//
// A process belongs to the group its subscribe op names; processes that
// only assign belong to no group and are judged by the assign checks.

// groupRead is one delivery of a record to a member.
type groupRead struct {
	op      int
	process int
	time    time.Duration
	tp      model.TopicPartition
	offset  model.Offset
}

// groupDelivery checks, per group: every acknowledged send to a subscribed
// topic was delivered to some member (group-unseen), a record delivered twice
// was delivered across a handover (group-duplicate), and no member was handed
// records of a partition it did not own (poll-unowned).
func (a *analysis) groupDelivery(opts *Options, replicas []ReplicaLog) []Violation {
	if !a.hasOther(model.FSubscribe) {
		return nil // no group member subscribed
	}
	h := a.h
	groupOf := map[int]string{}
	topics := map[string][]string{}
	var groups []string
	for i := range h {
		op := &h[i]
		if op.F != model.FSubscribe || op.Group == "" || op.Type == model.OpFail {
			continue
		}
		if _, ok := topics[op.Group]; !ok {
			groups = append(groups, op.Group)
			topics[op.Group] = nil
		}
		groupOf[op.Process] = op.Group
		for _, t := range op.Topics {
			if !slices.Contains(topics[op.Group], t) {
				topics[op.Group] = append(topics[op.Group], t)
			}
		}
		for _, tp := range op.Partitions {
			if !slices.Contains(topics[op.Group], tp.Topic) {
				topics[op.Group] = append(topics[op.Group], tp.Topic)
			}
		}
	}
	if len(groups) == 0 {
		return nil
	}
	slices.Sort(groups)
	reads := map[string]map[valueKey][]groupRead{} // group → record → deliveries
	for _, g := range groups {
		reads[g] = map[valueKey][]groupRead{}
	}
	for i, g := range memberPolls(h, groupOf) {
		op := &h[i]
		for _, pr := range op.Records {
			for _, r := range pr.Records {
				k := valueKey{pr.TP, r.Value}
				reads[g][k] = append(reads[g][k], groupRead{op: i, process: op.Process, time: op.End, tp: pr.TP, offset: r.Offset})
			}
		}
	}
	hist := newOwnershipHistory(h)
	zombies := zombieWindows(h, opts)
	rewritten := resequencedSends(h)
	var out []Violation
	out = append(out, a.groupUnseen(opts, replicas, groups, topics, reads)...)
	for _, g := range groups {
		out = append(out, groupDuplicates(h, g, reads[g], hist, zombies, rewritten)...)
	}
	out = append(out, pollUnowned(h, groupOf, hist)...)
	return out
}

// groupUnseen reports, per group and partition, the acknowledged sends to a
// subscribed topic that no member received. Records a recorded reset jumped
// over, or that retention deleted everywhere, are excused, as for unseen.
func (a *analysis) groupUnseen(opts *Options, replicas []ReplicaLog, groups []string, topics map[string][]string, reads map[string]map[valueKey][]groupRead) []Violation {
	logStart := map[model.TopicPartition]model.Offset{}
	for _, r := range replicas {
		if s, ok := logStart[r.TP]; !ok || r.LogStart < s {
			logStart[r.TP] = r.LogStart
		}
	}
	durable, why := opts.readsEverything()
	consumed := pipelineConsumed(a.h)
	var out []Violation
	for _, g := range groups {
		type miss struct {
			ops     []int
			offsets []model.Offset
			values  []string
		}
		missed := map[model.TopicPartition]*miss{}
		var tps []model.TopicPartition
		// The furthest offset the group read per partition, to tell a
		// record the group skipped from one it never reached.
		furthest := map[model.TopicPartition]model.Offset{}
		for _, rs := range reads[g] {
			for _, r := range rs {
				if f, ok := furthest[r.tp]; !ok || r.offset > f {
					furthest[r.tp] = r.offset
				}
			}
		}
		for i := range a.h {
			op := &a.h[i]
			if !a.acked(i) || !slices.Contains(topics[g], op.TP.Topic) {
				continue
			}
			if len(reads[g][valueKey{op.TP, op.Value}]) > 0 || consumed[op.Value] {
				continue
			}
			if p := a.byTP[op.TP]; p != nil && p.excused(op.Offset) {
				continue
			}
			if s, ok := logStart[op.TP]; ok && op.Offset < s {
				continue
			}
			m := missed[op.TP]
			if m == nil {
				m = &miss{}
				missed[op.TP] = m
				tps = append(tps, op.TP)
			}
			m.ops = append(m.ops, i)
			m.offsets = append(m.offsets, op.Offset)
			m.values = append(m.values, op.Value)
		}
		slices.SortFunc(tps, model.TopicPartition.Compare)
		for _, tp := range tps {
			m := missed[tp]
			v := Violation{Checker: CheckerGroups, Anomaly: GroupUnseen, Partition: tp, Ops: m.ops, Offsets: m.offsets, Values: m.values}
			reach := "no member read the partition"
			if f, ok := furthest[tp]; ok {
				reach = fmt.Sprintf("its members read up to offset %d", f)
				if slices.Min(m.offsets) < f {
					reach += ": the group skipped records (a commit ran ahead of what was delivered, or records vanished)"
				}
			}
			v.Detail = fmt.Sprintf("group %s never received %d acknowledged sends (offsets %s); %s", g, len(m.ops), listOffsets(m.offsets), reach)
			v.Error, v.Promise = promise(durable, PromiseGroupDelivery, why)
			out = append(out, v)
		}
	}
	return out
}

// groupDuplicates reports a record delivered twice to a group with no
// handover between: the second reader neither gained the partition, nor
// subscribed afresh (a restart), nor moved its position, after the first
// delivery. Such a duplicate means two members read the partition at once
// or a member re-read it on its own; it is allowed when one of the two was
// an expelled owner's read that Kafka's protocol allows (zombie.go), or
// when the two deliveries are of two copies in the log that an idempotent
// producer's epoch bump wrote (resequence.go): each member read a
// different record of the log, once.
func groupDuplicates(h model.History, g string, reads map[valueKey][]groupRead, hist *ownershipHistory, zombies map[groupPartition][]zombieWindow, rewritten map[valueKey]int) []Violation {
	records := make([]valueKey, 0, len(reads))
	for k, rs := range reads {
		if len(rs) > 1 {
			records = append(records, k)
		}
	}
	// Map order must not reach the report.
	slices.SortFunc(records, func(x, y valueKey) int {
		if c := x.tp.Compare(y.tp); c != 0 {
			return c
		}
		return cmp.Compare(x.value, y.value)
	})
	var out []Violation
	for _, k := range records {
		v := k.value
		rs := slices.Clone(reads[k])
		slices.SortStableFunc(rs, func(x, y groupRead) int { return cmp.Compare(x.time, y.time) })
		for j := 1; j < len(rs); j++ {
			first, again := rs[j-1], rs[j]
			if first.process == again.process {
				continue // the same reader: the poll-order checks judge re-reads
			}
			if hist.restartedBetween(again.process, again.tp, h[first.op].Time, again.time) {
				continue
			}
			dup := Violation{
				Checker: CheckerGroups, Anomaly: GroupDuplicate, Partition: again.tp,
				Offsets: []model.Offset{first.offset, again.offset}, Values: []string{v}, Ops: []int{first.op, again.op},
				Error: true, Promise: PromiseGroupDelivery,
				Detail: fmt.Sprintf("group %s delivered %q to process %d (op %d) and again to process %d (op %d) with no handover of the partition between: two members consumed it at once",
					g, v, first.process, first.op, again.process, again.op),
			}
			if w := zombieRead(h, zombies[groupPartition{g, again.tp}], first, again); w != nil {
				dup.Error, dup.Promise = false, PromiseZombie
				dup.Detail = fmt.Sprintf("group %s delivered %q to process %d (op %d) and again to process %d (op %d): process %d, expelled without hearing from its coordinator since process %d gained the partition at %v, was still reading it, as Kafka's protocol allows",
					g, v, first.process, first.op, again.process, again.op, w.old, w.new, w.from)
			}
			if send, ok := rewritten[k]; ok && first.offset != again.offset {
				if allowed, _ := resequencedCopies(&h[send], k.tp, readOffsets(rs)); allowed {
					dup.Error, dup.Promise = false, PromiseResequence
					dup.Detail = fmt.Sprintf("group %s delivered %q at offset %d to process %d (op %d) and its copy at offset %d to process %d (op %d)%s",
						g, v, first.offset, first.process, first.op, again.offset, again.process, again.op, describeResequence(&h[send]))
				}
			}
			out = append(out, dup)
		}
	}
	return out
}

// readOffsets are the distinct offsets of rs, sorted.
func readOffsets(rs []groupRead) []model.Offset {
	var offs []model.Offset
	for _, r := range rs {
		if !slices.Contains(offs, r.offset) {
			offs = append(offs, r.offset)
		}
	}
	slices.Sort(offs)
	return offs
}

// zombieRead returns the window that allows one of two deliveries of a
// record to two members: one was the expelled old owner's read within the
// window, the other the new owner's.
func zombieRead(h model.History, ws []zombieWindow, x, y groupRead) *zombieWindow {
	for i := range ws {
		w := &ws[i]
		for _, pair := range [2][2]groupRead{{x, y}, {y, x}} {
			old, other := pair[0], pair[1]
			if other.process == w.new && w.allows(old.process, h[old.op].Time) {
				return w
			}
		}
	}
	return nil
}

// pollUnowned reports a group member's poll that returned records of a
// partition it owned neither when the poll began nor when it ended.
func pollUnowned(h model.History, groupOf map[int]string, hist *ownershipHistory) []Violation {
	var out []Violation
	for i, g := range memberPolls(h, groupOf) {
		op := &h[i]
		for _, pr := range op.Records {
			if len(pr.Records) == 0 {
				continue
			}
			if hist.owned(op.Process, pr.TP, op.Time) || hist.owned(op.Process, pr.TP, op.End) {
				continue
			}
			out = append(out, Violation{
				Checker: CheckerGroups, Anomaly: PollUnowned, Partition: pr.TP, Ops: []int{i},
				Offsets: []model.Offset{pr.Records[0].Offset}, Error: true, Promise: PromiseGroups,
				Detail: fmt.Sprintf("process %d of group %s polled %d records of a partition it did not own (op %d): records fetched before a revocation must be dropped",
					op.Process, g, len(pr.Records), i),
			})
		}
	}
	return out
}

// memberPolls yields the index of every ok poll by a group member, with
// the member's group.
func memberPolls(h model.History, groupOf map[int]string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := range h {
			op := &h[i]
			if op.F != model.FPoll || op.Type != model.OpOK {
				continue
			}
			if g, ok := groupOf[op.Process]; ok && !yield(i, g) {
				return
			}
		}
	}
}

// ownershipHistory is each process's rebalance, subscribe, seek and reset
// events per partition, in time order, for the delivery checks.
type ownershipHistory struct {
	events map[int][]ownershipEvent
}

type ownershipEvent struct {
	time time.Duration
	tp   model.TopicPartition
	kind byte // 'g' gained, 'l' lost, 's' subscribed (all lost), 'm' position moved
}

func newOwnershipHistory(h model.History) *ownershipHistory {
	oh := &ownershipHistory{events: map[int][]ownershipEvent{}}
	add := func(p int, e ownershipEvent) { oh.events[p] = append(oh.events[p], e) }
	for i := range h {
		op := &h[i]
		switch {
		case op.F == model.FRebalance && op.Type != model.OpFail:
			// An indeterminate rebalance records partitions lost by a
			// crash; only its losses count.
			for _, tp := range op.Lost {
				add(op.Process, ownershipEvent{time: op.Time, tp: tp, kind: 'l'})
			}
			if op.Type == model.OpOK {
				for _, tp := range op.Gained {
					add(op.Process, ownershipEvent{time: op.Time, tp: tp, kind: 'g'})
				}
			}
		case op.F == model.FSubscribe && op.Type == model.OpOK:
			add(op.Process, ownershipEvent{time: op.Time, kind: 's'})
		case (op.F == model.FSeek || op.F == model.FReset) && op.Type == model.OpOK:
			for _, po := range op.Offsets {
				add(op.Process, ownershipEvent{time: op.Time, tp: po.TP, kind: 'm'})
			}
		}
	}
	for p := range oh.events {
		slices.SortStableFunc(oh.events[p], func(x, y ownershipEvent) int { return cmp.Compare(x.time, y.time) })
	}
	return oh
}

// owned reports whether process p held tp at instant t (events at t count).
func (oh *ownershipHistory) owned(p int, tp model.TopicPartition, t time.Duration) bool {
	held := false
	for _, e := range oh.events[p] {
		if e.time > t {
			break
		}
		switch {
		case e.kind == 's':
			held = false
		case e.tp != tp:
		case e.kind == 'g':
			held = true
		case e.kind == 'l':
			held = false
		}
	}
	return held
}

// restartedBetween reports whether process p gained tp, subscribed afresh
// or moved its position in tp within (from, to].
func (oh *ownershipHistory) restartedBetween(p int, tp model.TopicPartition, from, to time.Duration) bool {
	for _, e := range oh.events[p] {
		if e.time <= from {
			continue
		}
		if e.time > to {
			break
		}
		if e.kind == 's' || (e.tp == tp && (e.kind == 'g' || e.kind == 'm')) {
			return true
		}
	}
	return false
}
