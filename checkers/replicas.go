package checkers

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"time"

	"kafkasim/model"
)

// Replica invariants, judged on the logs read from every broker at the end
// of a run and on what the run observed while it went:
// replicas agree below the high watermark and with what clients saw; the
// high watermark never moves back; no consumer gets a record above the
// high watermark of its time; one leader per epoch, epochs only grow; an
// acknowledged acks=all write survives while some ISR or ELR replica keeps
// its disk.

type replicaSet struct {
	tp   model.TopicPartition
	logs []*ReplicaLog // by broker
}

func groupReplicas(rs []ReplicaLog) []replicaSet {
	by := map[model.TopicPartition]*replicaSet{}
	var out []*replicaSet
	for i := range rs {
		r := &rs[i]
		s := by[r.TP]
		if s == nil {
			s = &replicaSet{tp: r.TP}
			by[r.TP] = s
			out = append(out, s)
		}
		s.logs = append(s.logs, r)
	}
	slices.SortFunc(out, func(x, y *replicaSet) int { return x.tp.Compare(y.tp) })
	sets := make([]replicaSet, len(out))
	for i, s := range out {
		slices.SortFunc(s.logs, func(x, y *ReplicaLog) int { return cmp.Compare(x.Broker, y.Broker) })
		sets[i] = *s
	}
	return sets
}

// lookup finds the record at offset o in a replica's log.
func (r *ReplicaLog) lookup(o model.Offset) (string, bool) {
	i, ok := slices.BinarySearchFunc(r.Records, o, func(x model.OffsetValue, t model.Offset) int { return cmp.Compare(x.Offset, t) })
	if !ok {
		return "", false
	}
	return r.Records[i].Value, true
}

// replicaLogs checks agreement below the high watermark and against the
// history, and the survival of acknowledged writes. It follows each
// partition's replica set as the metadata records moved it
// (replicaMembers): a log left on a broker a reassignment removed is not
// a replica any more (Kafka deletes it, kafkasim keeps it idle), so it is
// neither expected to rejoin nor counted as keeping a write; it is still
// held to what it had committed while it was one.
func (a *analysis) replicaLogs(in *Input, opts *Options) []Violation {
	var out []Violation
	durable, why := opts.durable()
	sends := a.ackedSends(in)
	members := replicaMembers(in.Observations.Assignments)
	// The reassignment invariant reads the same replica sets; it runs
	// here, with the checks that follow them.
	out = append(out, replicasRemovedEarly(in.Observations.Assignments)...)
	for _, all := range groupReplicas(in.Replicas) {
		s, removed := all.split(members)
		hw := s.highWatermark()
		out = append(out, belowHighWatermark(s, hw)...)
		out = append(out, notRejoined(s, hw)...)
		out = append(out, a.clientAgreement(all)...)
		if slices.Contains(in.DiskLost, s.tp) {
			// The replicas' committed records may have gone with their
			// disks and been written again: they reconcile among
			// themselves, but a removed log, idle, keeps what was
			// lost, and its difference is the loss, not a divergence.
			continue
		}
		out = append(out, removedDisagreement(s, removed)...)
		for _, v := range a.lostAcked(s, sends[s.tp]) {
			v.Error, v.Promise = promise(durable, PromiseDurability, why)
			out = append(out, v)
		}
	}
	return out
}

// ackedSends are the acknowledged sends of the history by partition, as
// indexes into it; none when there are no logs to look for them in.
func (a *analysis) ackedSends(in *Input) map[model.TopicPartition][]int {
	sends := map[model.TopicPartition][]int{}
	if len(in.Replicas) > 0 {
		for i := range a.h {
			if op := &a.h[i]; a.acked(i) {
				sends[op.TP] = append(sends[op.TP], i)
			}
		}
	}
	return sends
}

// highWatermark is the partition's high watermark: the highest any of its
// replicas knows.
func (s replicaSet) highWatermark() model.Offset {
	hw := model.Offset(0)
	for _, r := range s.logs {
		hw = max(hw, r.HW)
	}
	return hw
}

// belowHighWatermark checks agreement below the partition's high
// watermark hw: every replica holding a committed offset must hold the
// same record there.
func belowHighWatermark(s replicaSet, hw model.Offset) []Violation {
	type seen struct {
		value  string
		broker model.BrokerID
	}
	var out []Violation
	first := map[model.Offset]seen{}
	reported := map[model.Offset]bool{}
	for _, r := range s.logs {
		if r.OutOfSync && !r.NeverRejoined {
			continue // it may not have truncated yet
		}
		for _, rec := range r.Records {
			if rec.Offset >= hw {
				break
			}
			f, ok := first[rec.Offset]
			if !ok {
				first[rec.Offset] = seen{rec.Value, r.Broker}
			} else if f.value != rec.Value && !reported[rec.Offset] {
				reported[rec.Offset] = true
				out = append(out, Violation{
					Checker: CheckerReplicas, Anomaly: ReplicaDivergence, Partition: s.tp,
					Offsets: []model.Offset{rec.Offset}, Values: []string{f.value, rec.Value},
					Error: true, Promise: PromiseReplication,
					Detail: fmt.Sprintf("below the high watermark %d, offset %d holds %q on %s but %q on %s: a replica truncated too little or too much",
						hw, rec.Offset, f.value, f.broker, rec.Value, r.Broker),
				})
			}
		}
	}
	return out
}

// clientAgreement checks that a record a replica counts as committed (below
// its own high watermark) is the one clients saw at that offset.
func (a *analysis) clientAgreement(s replicaSet) []Violation {
	p := a.byTP[s.tp]
	if p == nil {
		return nil
	}
	var out []Violation
	for _, r := range s.logs {
		for _, rec := range r.Records {
			if rec.Offset >= r.HW {
				break
			}
			sg, ok := p.at.get(rec.Offset)
			if !ok || sg.value == rec.Value {
				continue
			}
			out = append(out, Violation{
				Checker: CheckerReplicas, Anomaly: InconsistentOffsets, Partition: s.tp,
				Offsets: []model.Offset{rec.Offset}, Values: []string{sg.value, rec.Value}, Ops: []int{int(sg.op)},
				Error: true, Promise: PromiseLog,
				Detail: fmt.Sprintf("clients saw %q at offset %d (op %d) but %s holds %q there, below its high watermark %d",
					sg.value, rec.Offset, sg.op, r.Broker, rec.Value, r.HW),
			})
		}
	}
	return out
}

// lostAcked lists the acknowledged sends (indexes into the history) to s
// that none of its replicas holds at the end, at or above the lowest log
// start (retention deleted what is below it). The violations' Error and
// Promise are the caller's to set.
func (a *analysis) lostAcked(s replicaSet, sends []int) []Violation {
	start := s.logs[0].LogStart
	for _, r := range s.logs {
		start = min(start, r.LogStart)
	}
	var out []Violation
	for _, i := range sends {
		op := &a.h[i]
		if op.Offset < start || s.holds(op.Offset, op.Value) {
			continue
		}
		out = append(out, Violation{
			Checker: CheckerReplicas, Anomaly: AckedWriteLost, Partition: s.tp,
			Offsets: []model.Offset{op.Offset}, Values: []string{op.Value}, Ops: []int{i},
			Detail: fmt.Sprintf("send %q acknowledged at offset %d (op %d) is in no replica's log at the end, although an ISR or ELR replica kept its disk",
				op.Value, op.Offset, i),
		})
	}
	return out
}

// holds reports whether some replica of s holds value at offset o.
func (s replicaSet) holds(o model.Offset, value string) bool {
	for _, r := range s.logs {
		if v, ok := r.lookup(o); ok && v == value {
			return true
		}
	}
	return false
}

// highWatermarks checks that each leader's high watermark (per broker and
// leader epoch, model.HWObservation) never moves back, and that no poll returned a record at or
// above the highest high watermark any broker had reached by the poll's
// return.
func (a *analysis) highWatermarks(obs []model.HWObservation, lives incarnations) []Violation {
	if len(obs) == 0 {
		return nil
	}
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(x, y model.HWObservation) int {
		if c := x.TP.Compare(y.TP); c != 0 {
			return c
		}
		return cmp.Compare(x.Time, y.Time)
	})
	var out []Violation
	type series struct {
		tp     model.TopicPartition
		life   int
		broker model.BrokerID
		epoch  model.Epoch
	}
	last := map[series]model.HWObservation{}
	// For each partition, the running maximum high watermark over time.
	type point struct {
		t  time.Duration
		hw model.Offset
	}
	maxHW := map[model.TopicPartition][]point{}
	for _, o := range obs {
		k := series{o.TP, lives.of(o.TP, o.Broker, o.Time), o.Broker, o.Epoch}
		if prev, ok := last[k]; ok && o.HW < prev.HW {
			out = append(out, Violation{
				Checker: CheckerReplicas, Anomaly: HWRegression, Partition: o.TP,
				Offsets: []model.Offset{prev.HW, o.HW}, Error: true, Promise: PromiseReplication,
				Detail: fmt.Sprintf("the high watermark on %s went from %d (at %v) back to %d (at %v): committed records were un-committed",
					o.Broker, prev.HW, prev.Time, o.HW, o.Time),
			})
		}
		last[k] = o
		pts := maxHW[o.TP]
		if n := len(pts); n == 0 || o.HW > pts[n-1].hw {
			maxHW[o.TP] = append(pts, point{o.Time, o.HW})
		}
	}
	for i := range a.h {
		op := &a.h[i]
		if op.F != model.FPoll || !op.Completed() {
			continue
		}
		for _, pr := range op.Records {
			pts := maxHW[pr.TP]
			if len(pts) == 0 || len(pr.Records) == 0 {
				continue
			}
			// The highest high watermark reached by the poll's return.
			k := sort.Search(len(pts), func(j int) bool { return pts[j].t > op.End })
			if k == 0 {
				continue // nothing observed yet: no basis to judge
			}
			hw := pts[k-1].hw
			hi := pr.Records[0]
			for _, r := range pr.Records {
				if r.Offset > hi.Offset {
					hi = r
				}
			}
			if hi.Offset >= hw {
				out = append(out, Violation{
					Checker: CheckerReplicas, Anomaly: ReadAboveHW, Partition: pr.TP,
					Offsets: []model.Offset{hi.Offset}, Values: []string{hi.Value}, Ops: []int{i},
					Error: true, Promise: PromiseReplication,
					Detail: fmt.Sprintf("poll op %d returned offset %d, but no broker's high watermark had passed %d by %v: a consumer read an uncommitted record",
						i, hi.Offset, hw, op.End),
				})
			}
		}
	}
	return out
}

// leaders checks one leader per partition per epoch, and epochs that only
// grow over time.
func leaders(obs []model.LeaderObservation, lives incarnations) []Violation {
	if len(obs) == 0 {
		return nil
	}
	obs = slices.Clone(obs)
	slices.SortStableFunc(obs, func(x, y model.LeaderObservation) int {
		if c := x.TP.Compare(y.TP); c != 0 {
			return c
		}
		return cmp.Compare(x.Time, y.Time)
	})
	type key struct {
		tp    model.TopicPartition
		life  int
		epoch model.Epoch
	}
	leaderOf := map[key]model.LeaderObservation{}
	reported := map[key]bool{}
	type brokerTP struct {
		tp   model.TopicPartition
		life int
		b    model.BrokerID
	}
	latest := map[brokerTP]model.LeaderObservation{}
	var out []Violation
	for _, o := range obs {
		life := lives.of(o.TP, o.Leader, o.Time)
		k := key{o.TP, life, o.Epoch}
		if prev, ok := leaderOf[k]; !ok {
			leaderOf[k] = o
		} else if prev.Leader != o.Leader && !reported[k] {
			reported[k] = true
			out = append(out, Violation{
				Checker: CheckerReplicas, Anomaly: SplitBrain, Partition: o.TP,
				Error: true, Promise: PromiseLeadership,
				Detail: fmt.Sprintf("epoch %d had two leaders, %s (at %v) and %s (at %v)", o.Epoch, prev.Leader, prev.Time, o.Leader, o.Time),
			})
		}
		// Epochs only grow as each broker sees them. Across brokers a
		// broker that was paused or cut off may still act on the last
		// epoch it heard of after the controller moved on (a zombie
		// leader); Kafka tolerates that by design, because followers and
		// clients fence the old epoch, so it is not a regression. A
		// broker taking an epoch older than one it already led is.
		bk := brokerTP{o.TP, life, o.Leader}
		if l, ok := latest[bk]; ok && o.Epoch < l.Epoch {
			out = append(out, Violation{
				Checker: CheckerReplicas, Anomaly: EpochRegression, Partition: o.TP,
				Error: true, Promise: PromiseLeadership,
				Detail: fmt.Sprintf("%s became leader in epoch %d at %v, after it had led epoch %d at %v", o.Leader, o.Epoch, o.Time, l.Epoch, l.Time),
			})
		}
		if l, ok := latest[bk]; !ok || o.Epoch >= l.Epoch {
			latest[bk] = o
		}
	}
	return out
}

// notRejoined reports the replicas of s that never rejoined the ISR after
// the liveness phase, each with where its log first disagrees with the
// ISR's below the high watermark hw, if it does.
func notRejoined(s replicaSet, hw model.Offset) []Violation {
	var out []Violation
	for _, r := range s.logs {
		if !r.NeverRejoined {
			continue
		}
		v := Violation{
			Checker: CheckerReplicas, Anomaly: ReplicaNotRejoined, Partition: s.tp, Error: true, Promise: PromiseRejoin,
			Detail: fmt.Sprintf("%s was still outside the ISR when the logs were read, after every fault had healed and the liveness bound had passed", r.Broker),
		}
		if r.Unhosted {
			v.Detail = fmt.Sprintf("%s is assigned a replica but hosts no log of it, and it was still outside the ISR after every fault had healed and the liveness bound had passed", r.Broker)
		} else if o, mine, theirs, ok := firstDisagreement(s, r, hw); ok {
			v.Offsets, v.Values = []model.Offset{o}, []string{theirs, mine}
			v.Detail += fmt.Sprintf("; below the high watermark %d its offset %d holds %q where the ISR holds %q", hw, o, mine, theirs)
		} else {
			v.Detail += "; its log agrees with the ISR's below the high watermark"
		}
		out = append(out, v)
	}
	return out
}

// firstDisagreement finds the lowest offset below hw at which replica r
// holds another record than a replica of s in the ISR.
func firstDisagreement(s replicaSet, r *ReplicaLog, hw model.Offset) (model.Offset, string, string, bool) {
	for _, rec := range r.Records {
		if rec.Offset >= hw {
			break
		}
		for _, o := range s.logs {
			if o.OutOfSync {
				continue
			}
			if v, ok := o.lookup(rec.Offset); ok && v != rec.Value {
				return rec.Offset, rec.Value, v, true
			}
		}
	}
	return 0, "", "", false
}
