package checkers

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"kafkasim/model"
)

// groupPartition is one group's view of one partition, which the group
// invariants judge separately.
type groupPartition struct {
	group string
	tp    model.TopicPartition
}

// compare orders keys by group, then partition.
func (k groupPartition) compare(o groupPartition) int {
	if c := cmp.Compare(k.group, o.group); c != 0 {
		return c
	}
	return k.tp.Compare(o.tp)
}

// Group invariants (README, "Histories and checkers"): no partition is owned by
// two members of a group at once, per generation and across a cooperative
// handover; a group's committed offset for a partition never goes back
// unless a client reset or sought it.

// ownership is one member's hold on one partition: from the rebalance that
// gained it until the one that lost it.
type ownership struct {
	process    int
	generation model.Epoch
	from, to   time.Duration
	gainOp     int
}

// groupHolds is every member's holds on every partition, by group and
// partition (keys in order), and the ops that gained each partition per
// generation.
type groupHolds struct {
	keys     []groupPartition
	holds    map[groupPartition][]ownership // sorted by start
	gensSeen map[groupPartition]map[model.Epoch][]int
}

// holdsOf reads the holds from the rebalance ops of the history. A member
// that is never told it lost a partition keeps it to the end of the
// history, unless its last operation was indeterminate: a client that
// crashed owns nothing after it stopped (the coordinator will expel it),
// and holding that against the member that took over would blame the
// group for the crash. For the same reason an indeterminate rebalance
// (partitions lost in a crash, as the harness records it) and a fresh
// subscribe (a restart) end the process's holds.
func holdsOf(h model.History) groupHolds {
	// When each process was last heard of, if it ended indeterminate.
	crashed := map[int]time.Duration{}
	for p, i := range lastEntries(h) {
		if h[i].Type.Indeterminate() {
			crashed[p] = h[i].Time
		}
	}
	holds := map[groupPartition][]ownership{}
	open := map[groupPartition]map[int]int{} // process → index of its open hold in holds[key]
	var keys []groupPartition
	gensSeen := map[groupPartition]map[model.Epoch][]int{} // generation → gaining ops
	for i := range h {
		op := &h[i]
		if op.F == model.FSubscribe && op.Type == model.OpOK {
			// A fresh subscription (a restarted client) holds nothing yet.
			for k, procs := range open {
				if j, ok := procs[op.Process]; ok {
					holds[k][j].to = min(holds[k][j].to, op.Time)
					delete(procs, op.Process)
				}
			}
			continue
		}
		if op.F != model.FRebalance || op.Type == model.OpFail || op.Group == "" {
			continue // a rebalance of no named group (a Jepsen :rebalance-log) says nothing about owners
		}
		if op.Type != model.OpOK {
			// Partitions lost without a callback: the harness records them
			// when it crashes a member, so that its holds end at the
			// crash rather than at its restart.
			for _, tp := range op.Lost {
				k := groupPartition{op.Group, tp}
				if j, ok := open[k][op.Process]; ok {
					holds[k][j].to = min(holds[k][j].to, op.Time)
					delete(open[k], op.Process)
				}
			}
			continue
		}
		for _, tp := range op.Lost {
			k := groupPartition{op.Group, tp}
			if j, ok := open[k][op.Process]; ok {
				holds[k][j].to = op.Time
				delete(open[k], op.Process)
			}
		}
		for _, tp := range op.Gained {
			k := groupPartition{op.Group, tp}
			if open[k] == nil {
				open[k] = map[int]int{}
				gensSeen[k] = map[model.Epoch][]int{}
				keys = append(keys, k)
			}
			gensSeen[k][op.Generation] = append(gensSeen[k][op.Generation], i)
			if _, ok := open[k][op.Process]; ok {
				continue // already owned: a re-assignment of the same partition
			}
			to := time.Duration(math.MaxInt64)
			if t, ok := crashed[op.Process]; ok {
				to = t
			}
			open[k][op.Process] = len(holds[k])
			holds[k] = append(holds[k], ownership{process: op.Process, generation: op.Generation, from: op.Time, to: to, gainOp: i})
		}
	}
	slices.SortFunc(keys, groupPartition.compare)
	for _, k := range keys {
		slices.SortStableFunc(holds[k], func(x, y ownership) int { return cmp.Compare(x.from, y.from) })
	}
	return groupHolds{keys: keys, holds: holds, gensSeen: gensSeen}
}

// lastEntries is each process's last entry in h, by process number.
// Process numbers are usually small (as in byProcess): then a slice finds
// them, not a map write for each of millions of entries.
func lastEntries(h model.History) map[int]int {
	top := -1
	for i := range h {
		top = max(top, h[i].Process)
	}
	last := map[int]int{}
	if top >= 4*len(h)+64 {
		for i := range h {
			last[h[i].Process] = i
		}
		return last
	}
	at := make([]int, top+1)
	for i := range h {
		at[h[i].Process] = i + 1
	}
	for p, i1 := range at {
		if i1 > 0 {
			last[p] = i1 - 1
		}
	}
	return last
}

// overlaps calls f for each hold of hs (sorted by start) that begins while
// another process's hold is still open, with the open hold that reaches
// furthest.
func overlaps(hs []ownership, f func(prev, o ownership)) {
	reach := -1
	for j, o := range hs {
		if reach >= 0 && hs[reach].to > o.from && hs[reach].process != o.process {
			f(hs[reach], o)
		}
		if reach < 0 || o.to > hs[reach].to {
			reach = j
		}
	}
}

// zombieWindows lists the overlaps of ownership Kafka's protocol allows
// (zombie.go), by group and partition. Unlike the double-owner report,
// which names each overlap once, it pairs every hold with every earlier
// one still open: several expelled members may read one partition while
// it passes from member to member.
func zombieWindows(h model.History, opts *Options) map[groupPartition][]zombieWindow {
	gh := holdsOf(h)
	out := map[groupPartition][]zombieWindow{}
	for _, k := range gh.keys {
		hs := gh.holds[k]
		for j, o := range hs {
			for _, prev := range hs[:j] {
				if prev.to <= o.from || prev.process == o.process {
					continue
				}
				if w, ok := zombieWindowFor(h, k, prev, o, opts); ok {
					out[k] = append(out[k], w)
				}
			}
		}
	}
	return out
}

// owners checks that no partition has two owners in one group at once:
// never two in one generation, and across generations only where Kafka's
// protocol allows it (zombie.go), which is reported as allowed.
func owners(h model.History, opts *Options) []Violation {
	gh := holdsOf(h)
	var out []Violation
	for _, k := range gh.keys {
		// Two members gaining the partition in one generation.
		gens := make([]model.Epoch, 0, len(gh.gensSeen[k]))
		for g := range gh.gensSeen[k] {
			gens = append(gens, g)
		}
		slices.Sort(gens)
		for _, g := range gens {
			ops := gh.gensSeen[k][g]
			procs := map[int]bool{}
			for _, i := range ops {
				procs[h[i].Process] = true
			}
			if len(procs) > 1 {
				out = append(out, Violation{
					Checker: CheckerGroups, Anomaly: DoubleOwner, Partition: k.tp, Ops: ops,
					Error: true, Promise: PromiseGroups,
					Detail: fmt.Sprintf("group %s assigned the partition to %d members in generation %d (ops %v)", k.group, len(procs), g, ops),
				})
			}
		}
		// Two holds overlapping in time.
		overlaps(gh.holds[k], func(prev, o ownership) {
			out = append(out, overlapFinding(h, k, prev, o, opts))
		})
	}
	return out
}

// overlapFinding judges one overlap of holds: prev was still open when o
// began. It is an error when the old owner read the partition during the
// overlap and the protocol does not excuse the read: it was of the same
// generation, the consumers fence themselves, or it read after hearing
// from the coordinator.
func overlapFinding(h model.History, k groupPartition, prev, o ownership, opts *Options) Violation {
	v := Violation{
		Checker: CheckerGroups, Anomaly: DoubleOwner, Partition: k.tp, Ops: []int{prev.gainOp, o.gainOp},
		Detail: fmt.Sprintf("in group %s, process %d gained the partition at %v (generation %d, op %d) while process %d still owned it since %v (generation %d, op %d)",
			k.group, o.process, o.from, o.generation, o.gainOp, prev.process, prev.from, prev.generation, prev.gainOp),
	}
	polls := pollsDuring(h, prev.process, k.tp, o.from, prev.to)
	if len(polls) == 0 {
		v.Promise = "the old owner polled no records of the partition after the handover: an overlap of ownership Kafka's protocol allows (a member cut off from its coordinator holds its partitions until it learns it was expelled), with no record consumed twice"
		v.Detail += "; the old owner polled no records of it after the handover, so nothing was consumed twice"
		return v
	}
	w, allowedAtAll := zombieWindowFor(h, k, prev, o, opts)
	var excused, forbidden []int
	for _, i := range polls {
		if allowedAtAll && w.allows(prev.process, h[i].Time) {
			excused = append(excused, i)
		} else {
			forbidden = append(forbidden, i)
		}
	}
	if len(forbidden) > 0 {
		v.Ops = append(v.Ops, forbidden[:min(len(forbidden), maxListed)]...)
		v.Error, v.Promise = true, PromiseGroups
		switch {
		case opts.SelfFencing:
			v.Promise = PromiseSelfFencing
			v.Detail += fmt.Sprintf(", and the old owner polled records of it after the handover (ops %s) although consumer.self.fencing should have stopped it", listOps(forbidden))
		case !allowedAtAll:
			v.Detail += fmt.Sprintf(", and the old owner, of generation %d, not older, polled records of it after the handover (ops %s): two members consumed it at once; revocation must come before reassignment", prev.generation, listOps(forbidden))
		default:
			v.Detail += fmt.Sprintf(", and the old owner polled records of it after it had heard from the coordinator (op %d) (ops %s): two members consumed it at once; a member that learns its generation is over must give up its partitions before fetching again", w.heardOp, listOps(forbidden))
		}
		return v
	}
	v.Ops = append(v.Ops, excused[:min(len(excused), maxListed)]...)
	v.Promise = PromiseZombie
	v.Detail += fmt.Sprintf("; the old owner, expelled without hearing from its coordinator since, polled records of it during the overlap (ops %s): allowed by Kafka's protocol, and the group consumed those records twice", listOps(excused))
	return v
}

// pollsDuring lists process p's polls that returned records of tp and
// overlap [from, to): completed after from, invoked before to. Overlaps
// are rare, so each looks through the history itself.
func pollsDuring(h model.History, p int, tp model.TopicPartition, from, to time.Duration) []int {
	var out []int
	for i := range h {
		op := &h[i]
		if op.Process != p || op.F != model.FPoll || !op.Completed() || op.End <= from || op.Time >= to {
			continue
		}
		for _, pr := range op.Records {
			if pr.TP == tp && len(pr.Records) > 0 {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// commits checks that each group's committed offset for a partition never
// goes back: a commit invoked after another completed must not be lower,
// unless a seek or reset of that partition completed in between.
// Concurrent commits are not ordered and not compared.
func commits(h model.History) []Violation {
	type commit struct {
		op       int
		call     time.Duration
		end      time.Duration
		offset   model.Offset
		explicit bool // a seek or reset, which licenses going back
	}
	by := map[groupPartition][]commit{}
	var keys []groupPartition
	resets := map[model.TopicPartition][]commit{}
	for i := range h {
		op := &h[i]
		if op.Type != model.OpOK {
			continue
		}
		switch op.F {
		case model.FCommit:
			for _, po := range op.Offsets {
				k := groupPartition{op.Group, po.TP}
				if by[k] == nil {
					keys = append(keys, k)
				}
				by[k] = append(by[k], commit{op: i, call: op.Time, end: op.End, offset: po.Offset})
			}
		case model.FSeek, model.FReset:
			for _, po := range op.Offsets {
				resets[po.TP] = append(resets[po.TP], commit{op: i, call: op.Time, end: op.End, explicit: true})
			}
		}
	}
	slices.SortFunc(keys, groupPartition.compare)
	var out []Violation
	for _, k := range keys {
		cs := by[k]
		// A seek or reset of the partition by any client counts: the group
		// is where the position went back.
		events := append(slices.Clone(cs), resets[k.tp]...)
		// Completed commits become the floor in completion order; a commit
		// is judged against the floor as of its invocation.
		byEnd := slices.Clone(events)
		slices.SortStableFunc(byEnd, func(x, y commit) int { return cmp.Compare(x.end, y.end) })
		byCall := slices.Clone(cs)
		slices.SortStableFunc(byCall, func(x, y commit) int { return cmp.Compare(x.call, y.call) })
		floor, floorOp, next := model.NoOffset, -1, 0
		for _, c := range byCall {
			for next < len(byEnd) && byEnd[next].end < c.call {
				e := byEnd[next]
				if e.explicit {
					floor, floorOp = model.NoOffset, -1
				} else if e.offset > floor {
					floor, floorOp = e.offset, e.op
				}
				next++
			}
			if c.offset < floor {
				out = append(out, Violation{
					Checker: CheckerGroups, Anomaly: CommitRegression, Partition: k.tp,
					Offsets: []model.Offset{floor, c.offset}, Ops: []int{floorOp, c.op},
					Error: true, Promise: PromiseGroups,
					Detail: fmt.Sprintf("group %s committed %d (op %d) after %d had been committed (op %d), with no seek or reset between: a commit was lost or a zombie member committed",
						k.group, c.offset, c.op, floor, floorOp),
				})
			}
		}
	}
	return out
}

// generations checks the coordinator's observed generations: they only
// grow per group, and within one no partition has two owners. As for
// committed offsets (coordinatorCommits), only the newest coordinator's
// view is judged for regression: a coordinator paused past its leadership
// keeps its in-memory group until GroupCoordinator.onResignation, and on
// waking can complete a join of the generation it had
// (GroupCoordinator.onCompleteJoin happens in memory; only SyncGroup's
// storeGroup would fail with NOT_COORDINATOR). That is a deposed
// coordinator's view, not the group's generation going back (slow-follower
// seed 91002801).
func generations(obs []model.GenerationObservation) []Violation {
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(x, y model.GenerationObservation) int {
		if c := cmp.Compare(x.Group, y.Group); c != 0 {
			return c
		}
		return cmp.Compare(x.Time, y.Time)
	})
	var out []Violation
	latest := map[string]model.GenerationObservation{}
	for _, g := range obs {
		l, ok := latest[g.Group]
		deposed := ok && g.Epoch < l.Epoch
		if ok && g.Generation < l.Generation && !deposed {
			out = append(out, Violation{
				Checker: CheckerGroups, Anomaly: GenerationRegression, Error: true, Promise: PromiseGroups,
				Detail: fmt.Sprintf("group %s completed generation %d at %v after generation %d at %v", g.Group, g.Generation, g.Time, l.Generation, l.Time),
			})
		} else if !deposed {
			latest[g.Group] = g
		}
		owner := map[model.TopicPartition]string{}
		for _, m := range g.Members {
			for _, tp := range m.Partitions {
				if o, ok := owner[tp]; ok && o != m.MemberID {
					out = append(out, Violation{
						Checker: CheckerGroups, Anomaly: DoubleOwner, Partition: tp, Error: true, Promise: PromiseGroups,
						Detail: fmt.Sprintf("group %s generation %d assigned the partition to both %s and %s", g.Group, g.Generation, o, m.MemberID),
					})
				}
				owner[tp] = m.MemberID
			}
		}
	}
	return out
}

// coordinatorCommits checks the committed offsets the coordinators held:
// per group and partition they never go back, across coordinator
// failovers included, unless a client sought or reset the partition in
// between. A commit the coordinator acknowledged and a later coordinator
// no longer has is the "offset commit lost on coordinator move"
// historical bug; no client sees it unless it fetches the offsets again, so the
// operator's view is judged.
//
// Only the current coordinator's view counts: a report made under an older
// leader epoch of the group's offsets partition than one already seen for
// the group comes from a deposed coordinator. Kafka's coordinator serves
// from its cache until the broker learns it lost the partition's
// leadership (GroupCoordinator.onResignation, called from
// ReplicaManager's leadership change), so a leader paused across its
// replacement wakes up holding the offsets of its own time, and may still
// complete a commit whose write its followers had fetched before they
// moved on. That view is stale, not a lost commit; what the deposed
// coordinator acknowledged to clients is judged from the history by
// committedOffsets.
func coordinatorCommits(obs []model.CommittedObservation, h model.History) []Violation {
	explicitTP := map[model.TopicPartition][]time.Duration{}
	for i := range h {
		op := &h[i]
		if (op.F == model.FSeek || op.F == model.FReset) && op.Type == model.OpOK {
			for _, po := range op.Offsets {
				explicitTP[po.TP] = append(explicitTP[po.TP], op.Time)
			}
		}
	}
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(x, y model.CommittedObservation) int { return cmp.Compare(x.Time, y.Time) })
	best := map[groupPartition]model.CommittedObservation{}
	reported := map[groupPartition]bool{}
	newest := map[string]model.Epoch{} // per group, the newest coordinator epoch seen
	var out []Violation
	for _, o := range obs {
		if e, ok := newest[o.Group]; ok && o.Epoch < e {
			continue // a deposed coordinator's view
		}
		newest[o.Group] = o.Epoch
		k := groupPartition{o.Group, o.TP}
		b, ok := best[k]
		// The best stays the first observation of the highest offset: a
		// reset or seek after the coordinator first held it licenses
		// going back, however often the same offset is seen again before
		// (topics-under-chaos seed 91960003: 89 was held from 69.41 s, a
		// member reset at 69.68 s, and 89 was seen again at 69.97 s).
		if !ok || o.Offset > b.Offset {
			best[k] = o
			continue
		}
		if o.Offset == b.Offset {
			continue
		}
		reset := false
		for _, t := range explicitTP[o.TP] {
			if t >= b.Time && t <= o.Time {
				reset = true
			}
		}
		if reset {
			best[k] = o
			continue
		}
		if reported[k] {
			continue
		}
		reported[k] = true
		out = append(out, Violation{
			Checker: CheckerGroups, Anomaly: CommitRegression, Partition: o.TP,
			Offsets: []model.Offset{b.Offset, o.Offset}, Error: true, Promise: PromiseGroups,
			Detail: fmt.Sprintf("group %s: coordinator %v held committed offset %d at %v, and coordinator %v held %d at %v, with no seek or reset between: an acknowledged commit was lost",
				o.Group, b.Broker, b.Offset, b.Time, o.Broker, o.Offset, o.Time),
		})
	}
	return out
}
