package checkers

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"kafkasim/model"
)

// Metadata quorum invariants (KIP-595, KIP-631), judged on what the
// controllers and brokers reported while the run went: the Raft leaders
// they became, the high watermarks they learned, the committed entries they
// applied and the snapshots they loaded. They are the invariants of Kafka's
// own Raft simulation (raft/src/test/.../RaftEventSimulationTest.java:
// SingleLeader, MonotonicEpoch, MonotonicHighWatermark,
// ConsistentCommittedData) and of the KRaft TLA+ specification, restated
// over observations instead of live node state:
//
//   - at most one leader per epoch (quorum-split-brain);
//   - epochs only grow: a node's epoch never goes back (across restarts for
//     a voter, whose epoch is in its synced quorum-state file; within one
//     incarnation for an observer), and along the committed log the entries'
//     epochs never go back (quorum-epoch-regression);
//   - a committed entry never changes: every node that applied offset o
//     applied the same (epoch, digest) there (quorum-committed-changed), and
//     no node applied an entry no high watermark covered yet
//     (quorum-applied-uncommitted);
//   - the high watermark never moves back: per node within one incarnation,
//     and from one leader to the next (quorum-hw-regression);
//   - a node's replayed metadata is a prefix of the committed log: within an
//     incarnation it applies committed offsets in order, without skipping
//     one anyone applied, from its last snapshot (metadata-replay-gap).

// MetadataPartition is KRaft's metadata log, the partition quorum
// violations are reported on.
var MetadataPartition = model.TP("__cluster_metadata", 0)

// quorum runs every quorum check.
func quorum(q *model.QuorumObservations) []Violation {
	var out []Violation
	out = append(out, quorumLeaders(q)...)
	out = append(out, quorumEpochs(q)...)
	out = append(out, quorumHighWatermarks(q)...)
	out = append(out, quorumCommitted(q)...)
	out = append(out, quorumReplay(q)...)
	return out
}

func quorumViolation(anomaly string, offsets []int64, detail string) Violation {
	v := Violation{Checker: CheckerQuorum, Anomaly: anomaly, Partition: MetadataPartition, Error: true, Promise: PromiseQuorum, Detail: detail}
	for _, o := range offsets {
		v.Offsets = append(v.Offsets, model.Offset(o))
	}
	return v
}

// sortedByTime returns a copy of xs sorted by time, keeping the report order
// of equal times (the order the kernel processed them in).
func sortedByTime[T any](xs []T, at func(T) time.Duration) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return cmp.Compare(at(a), at(b)) })
	return out
}

// quorumLeaders checks one leader per epoch (Kafka's SingleLeader). A node
// reporting the same epoch twice is not two leaders.
func quorumLeaders(q *model.QuorumObservations) []Violation {
	first := map[model.Epoch]model.QuorumLeaderObservation{}
	reported := map[model.Epoch]bool{}
	var out []Violation
	for _, o := range sortedByTime(q.Leaders, func(o model.QuorumLeaderObservation) time.Duration { return o.Time }) {
		p, ok := first[o.Epoch]
		switch {
		case !ok:
			first[o.Epoch] = o
		case p.Node != o.Node && !reported[o.Epoch]:
			reported[o.Epoch] = true
			out = append(out, quorumViolation(QuorumSplitBrain, nil,
				fmt.Sprintf("quorum epoch %d had two leaders, %s (at %v) and %s (at %v): two candidates won a majority of votes in one epoch",
					o.Epoch, p.Node, p.Time, o.Node, o.Time)))
		}
	}
	return out
}

// quorumEpochs checks that a node's epoch never goes back (Kafka's
// MonotonicEpoch), as its leaderships and high watermark reports show it. A
// voter keeps its epoch in its quorum-state file, synced before it acts on
// a new epoch, so its epoch never goes back even across restarts; an
// observer need not persist one, so it is judged per incarnation. Along
// the committed log, entries' epochs never go back either: a leader only
// appends after the entries of the epochs before it (Raft's log matching).
func quorumEpochs(q *model.QuorumObservations) []Violation {
	type report struct {
		t     time.Duration
		node  model.BrokerID
		inc   int
		epoch model.Epoch
		what  string
	}
	var rs []report
	for _, o := range q.Leaders {
		rs = append(rs, report{o.Time, o.Node, o.Incarnation, o.Epoch, "became leader of"})
	}
	for _, o := range q.HighWatermarks {
		rs = append(rs, report{o.Time, o.Node, o.Incarnation, o.Epoch, "moved its high watermark in"})
	}
	rs = sortedByTime(rs, func(r report) time.Duration { return r.t })
	type series struct {
		node model.BrokerID
		inc  int
	}
	last := map[series]report{}
	reported := map[series]bool{}
	var out []Violation
	for _, r := range rs {
		k := series{r.node, r.inc}
		if slices.Contains(q.Voters, r.node) {
			k.inc = -1 // one series across restarts
		}
		p, ok := last[k]
		if ok && r.epoch < p.epoch && !reported[k] {
			reported[k] = true
			scope := "in one incarnation"
			if k.inc == -1 {
				scope = "a voter, whose epoch is durable"
			}
			out = append(out, quorumViolation(QuorumEpochRegression, nil,
				fmt.Sprintf("%s (%s) %s epoch %d at %v, after it %s epoch %d at %v",
					r.node, scope, r.what, r.epoch, r.t, p.what, p.epoch, p.t)))
		}
		if !ok || r.epoch >= p.epoch {
			last[k] = r
		}
	}
	// Along the committed log. Divergent entries are quorumCommitted's to
	// report; here each offset is taken as first applied.
	log := committedLog(q)
	for i := 1; i < len(log); i++ {
		if a, b := log[i-1], log[i]; b.Epoch < a.Epoch {
			out = append(out, quorumViolation(QuorumEpochRegression, []int64{a.Offset, b.Offset},
				fmt.Sprintf("the committed log holds epoch %d at offset %d (applied by %s at %v) after epoch %d at offset %d (applied by %s at %v): a leader's entries landed behind a later epoch's",
					b.Epoch, b.Offset, b.Node, b.Time, a.Epoch, a.Offset, a.Node, a.Time)))
		}
	}
	return out
}

// committedLog is the committed log as the nodes applied it: each offset
// with the first entry applied there, in offset order.
func committedLog(q *model.QuorumObservations) []model.QuorumAppliedObservation {
	first := map[int64]model.QuorumAppliedObservation{}
	for _, o := range sortedByTime(q.Applied, func(o model.QuorumAppliedObservation) time.Duration { return o.Time }) {
		if _, ok := first[o.Offset]; !ok {
			first[o.Offset] = o
		}
	}
	out := make([]model.QuorumAppliedObservation, 0, len(first))
	for _, o := range first {
		out = append(out, o)
	}
	slices.SortFunc(out, func(a, b model.QuorumAppliedObservation) int { return cmp.Compare(a.Offset, b.Offset) })
	return out
}

// quorumHighWatermarks checks that the high watermark never moves back.
//
// Per node, within one incarnation (Kafka's FollowerState and LeaderState
// refuse a non-monotonic update). A restart may legitimately report a lower
// one: the high watermark is not persisted, and a follower caps what the
// leader tells it at its own log end offset, which a power loss may have
// cut; Kafka's simulation likewise only compares values a running node
// holds.
//
// Across leaders (Kafka's MonotonicHighWatermark, which follows the
// running leader of the highest epoch): a leader's high watermark in epoch
// e is never below one a leader of an epoch at or below e reported earlier.
// A new leader only exposes a high watermark once an entry of its own epoch
// commits, which is past everything committed before it. A deposed leader
// still reporting its old epoch's value is judged against the epochs up to
// its own, not the newer ones.
func quorumHighWatermarks(q *model.QuorumObservations) []Violation {
	type series struct {
		node model.BrokerID
		inc  int
	}
	led := map[model.QuorumLeaderObservation]bool{}
	for _, o := range q.Leaders {
		led[model.QuorumLeaderObservation{Node: o.Node, Epoch: o.Epoch}] = true
	}
	last := map[series]model.QuorumHWObservation{}
	// The highest high watermark a leader reported so far, per epoch.
	leaderMax := map[model.Epoch]model.QuorumHWObservation{}
	var out []Violation
	for _, o := range sortedByTime(q.HighWatermarks, func(o model.QuorumHWObservation) time.Duration { return o.Time }) {
		k := series{o.Node, o.Incarnation}
		p, seen := last[k]
		if seen && o.HW < p.HW {
			out = append(out, quorumViolation(QuorumHWRegression, []int64{p.HW, o.HW},
				fmt.Sprintf("the metadata high watermark on %s went from %d (epoch %d, at %v) back to %d (epoch %d, at %v) without a restart: committed entries were un-committed",
					o.Node, p.HW, p.Epoch, p.Time, o.HW, o.Epoch, o.Time)))
		}
		last[k] = o
		if !led[model.QuorumLeaderObservation{Node: o.Node, Epoch: o.Epoch}] {
			continue
		}
		// The highest earlier leader high watermark of an epoch at or
		// below o's (the epochs are few: a map walk, in sorted order so
		// that ties name the same leader every run).
		var best model.QuorumHWObservation
		found := false
		for _, e := range slices.Sorted(maps.Keys(leaderMax)) {
			if b := leaderMax[e]; e <= o.Epoch && (!found || b.HW > best.HW) {
				best, found = b, true
			}
		}
		// A regression on the same node in one incarnation was reported
		// above already.
		sameSeries := best.Node == o.Node && best.Incarnation == o.Incarnation
		if found && o.HW < best.HW && !sameSeries {
			out = append(out, quorumViolation(QuorumHWRegression, []int64{best.HW, o.HW},
				fmt.Sprintf("%s, leader of epoch %d, reported high watermark %d at %v, below the %d that %s, leader of epoch %d, had reported at %v: the new leader does not hold what was committed",
					o.Node, o.Epoch, o.HW, o.Time, best.HW, best.Node, best.Epoch, best.Time)))
		}
		if b, ok := leaderMax[o.Epoch]; !ok || o.HW > b.HW {
			leaderMax[o.Epoch] = o
		}
	}
	return out
}

// quorumCommitted checks that a committed entry never changes (Kafka's
// ConsistentCommittedData, over what each node applied rather than its log
// below its high watermark): every node that applied offset o applied the
// same entry, and no node applied an entry before some node's high
// watermark had passed it.
func quorumCommitted(q *model.QuorumObservations) []Violation {
	var out []Violation
	first := map[int64]model.QuorumAppliedObservation{}
	reported := map[int64]bool{}
	// The highest high watermark any node had reported, over time.
	type point struct {
		t  time.Duration
		hw int64
	}
	var maxHW []point
	for _, o := range sortedByTime(q.HighWatermarks, func(o model.QuorumHWObservation) time.Duration { return o.Time }) {
		if n := len(maxHW); n == 0 || o.HW > maxHW[n-1].hw {
			maxHW = append(maxHW, point{o.Time, o.HW})
		}
	}
	uncommitted := map[model.BrokerID]int{}
	for _, o := range sortedByTime(q.Applied, func(o model.QuorumAppliedObservation) time.Duration { return o.Time }) {
		p, ok := first[o.Offset]
		switch {
		case !ok:
			first[o.Offset] = o
		case (p.Epoch != o.Epoch || p.Digest != o.Digest) && !reported[o.Offset]:
			reported[o.Offset] = true
			out = append(out, quorumViolation(QuorumCommittedChanged, []int64{o.Offset},
				fmt.Sprintf("committed metadata offset %d: %s applied epoch %d digest %x at %v, but %s applied epoch %d digest %x at %v",
					o.Offset, p.Node, p.Epoch, p.Digest, p.Time, o.Node, o.Epoch, o.Digest, o.Time)))
		}
		// Every applied entry must be below a high watermark reported by
		// then (at the same instant counts: a node moves its high
		// watermark and applies in one step, in either order).
		k := sort.Search(len(maxHW), func(i int) bool { return maxHW[i].t > o.Time })
		hw := int64(0)
		if k > 0 {
			hw = maxHW[k-1].hw
		}
		if o.Offset >= hw {
			// A few violations per node are enough to act on; a node
			// that applies uncommitted entries does so for every entry.
			if uncommitted[o.Node] < 3 {
				out = append(out, quorumViolation(QuorumAppliedUncommitted, []int64{o.Offset},
					fmt.Sprintf("%s applied metadata offset %d (epoch %d) at %v, but no node's high watermark had passed it by then (highest %d)",
						o.Node, o.Offset, o.Epoch, o.Time, hw)))
			}
			uncommitted[o.Node]++
		}
	}
	return out
}

// quorumReplay checks that each node replays a prefix of the committed log:
// within one incarnation it applies offsets in increasing order, starting
// at 0 or at the end of the last snapshot it loaded, and skips no offset
// that some node applied (the committed log as the run saw it; an entry no
// one applied, such as a control record a state machine is not given, is
// not missed). A snapshot never takes the state back behind what the node
// had already applied.
func quorumReplay(q *model.QuorumObservations) []Violation {
	log := committedLog(q)
	offsets := make([]int64, len(log))
	for i, o := range log {
		offsets[i] = o.Offset
	}
	type series struct {
		node model.BrokerID
		inc  int
	}
	pos := map[series]*replayPosition{}
	var out []Violation
	const perSeriesMax = 3
	for _, s := range replaySteps(q) {
		k := series{s.node, s.inc}
		p := pos[k]
		if p == nil {
			p = &replayPosition{last: -1, from: "its start"}
			pos[k] = p
		}
		report := func(offs []int64, detail string) {
			if p.reported < perSeriesMax {
				out = append(out, quorumViolation(MetadataReplayGap, offs, detail))
			}
			p.reported++
		}
		role := "broker"
		if slices.Contains(q.Voters, s.node) {
			role = "controller"
		}
		p.replay(s, role, offsets, report)
	}
	return out
}

// replayStep is one entry a node applied, or one snapshot it loaded.
type replayStep struct {
	t        time.Duration
	node     model.BrokerID
	inc      int
	offset   int64
	snapshot bool
}

// replaySteps are the applied entries and loaded snapshots of q in the
// order they happened.
func replaySteps(q *model.QuorumObservations) []replayStep {
	var steps []replayStep
	for _, o := range q.Applied {
		steps = append(steps, replayStep{o.Time, o.Node, o.Incarnation, o.Offset, false})
	}
	for _, o := range q.Snapshots {
		steps = append(steps, replayStep{o.Time, o.Node, o.Incarnation, o.Offset, true})
	}
	// At one instant a snapshot ending at s comes after the entries below
	// s and before those at or above it: the order a node that loads a
	// snapshot and then applies what follows reports them in.
	key := func(s replayStep) int64 {
		if s.snapshot {
			return 2 * s.offset
		}
		return 2*s.offset + 1
	}
	slices.SortStableFunc(steps, func(a, b replayStep) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(key(a), key(b))
	})
	return steps
}

// replayPosition is where one incarnation of a node stands in its replay.
type replayPosition struct {
	next     int64 // the next offset to apply
	last     int64 // the last applied, -1 before any
	from     string
	reported int
}

// replay judges step s of the node (a role) against the committed
// log's offsets, reporting what breaks the prefix, and moves p on.
func (p *replayPosition) replay(s replayStep, role string, offsets []int64, report func(offs []int64, detail string)) {
	if s.snapshot {
		if s.offset <= p.last {
			report([]int64{p.last, s.offset}, fmt.Sprintf("%s %s loaded a snapshot ending at %d at %v, after it had applied up to offset %d: its metadata went back",
				role, s.node, s.offset, s.t, p.last))
		}
		p.next, p.from = s.offset, fmt.Sprintf("its snapshot ending at %d", s.offset)
		p.last = max(p.last, s.offset-1)
		return
	}
	if s.offset < p.next {
		report([]int64{s.offset}, fmt.Sprintf("%s %s applied metadata offset %d at %v, after it had applied up to %d (since %s): replayed twice or out of order",
			role, s.node, s.offset, s.t, p.next-1, p.from))
		return
	}
	lo := sort.Search(len(offsets), func(i int) bool { return offsets[i] >= p.next })
	hi := sort.Search(len(offsets), func(i int) bool { return offsets[i] >= s.offset })
	if lo < hi {
		missed := offsets[lo:hi]
		report(missed, fmt.Sprintf("%s %s applied metadata offset %d at %v but skipped committed %s after %s (next due %d): its metadata is not a prefix of the committed log",
			role, s.node, s.offset, s.t, listInts(missed), p.from, p.next))
	}
	p.next, p.last = s.offset+1, s.offset
}

// listInts writes at most a few offsets, like listOffsets.
func listInts(xs []int64) string {
	os := make([]model.Offset, len(xs))
	for i, x := range xs {
		os[i] = model.Offset(x)
	}
	if len(xs) == 1 {
		return "offset " + listOffsets(os)
	}
	return "offsets " + listOffsets(os)
}
