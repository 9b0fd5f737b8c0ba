package scenarios

import (
	"encoding/json"
	"slices"
	"sort"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
)

// Unmeasured marks a failover duration that the run never showed: no other
// broker was elected, no write was acknowledged after the fault, no record
// was consumed before it.
const Unmeasured time.Duration = -1

// Failover is one partition losing its leader to a fault, measured only
// from what an outsider could see: the nemesis log (what each fault hit and
// when), the brokers' reports of becoming leader, and the clients' history.
// Node internals are never read, so the same measurement can be taken of a
// real cluster from its client logs and controller events.
//
// Durations are virtual time from the fault (At), except Unavailable and
// ConsumerGap, which are whole windows: the gap between acknowledged writes
// (or polls that returned records) that holds the election. The gap holds
// the election rather than the fault because a consumer keeps returning
// records it fetched before the fault, and an in-flight write may complete
// just after it. When no one was elected (the old leader came back), it
// is the longest such gap from the fault to the fault's end, for the same
// reason. Each is Unmeasured when the run did not show it.
type Failover struct {
	TP model.TopicPartition
	// Cause is the fault's kind (crash, power-loss, shutdown, pause,
	// isolate) and Fault the fault as its schedule line writes it.
	Cause faults.Kind
	Fault string
	// At is when the fault took the leader away (absolute virtual time).
	At        time.Duration
	OldLeader model.BrokerID
	// NewLeader is the first other broker to report leading TP after the
	// fault (NoBroker when none did before the partition's next failover).
	NewLeader model.BrokerID
	// Election: the fault to NewLeader's report of leadership.
	Election time.Duration
	// FirstAck: the fault to the first acknowledged write to TP that
	// completed after the election (when no one was elected, as when the
	// old leader came back and kept leading: the write that ended the
	// Unavailable gap).
	FirstAck time.Duration
	// Unavailable: the last acknowledged write to TP completed before the
	// election, to the first completed after it.
	Unavailable time.Duration
	// ConsumerGap: the last poll that returned records of TP before the
	// election, to the first after it.
	ConsumerGap time.Duration
	// Truncated: a write acknowledged after the fault (before the
	// partition's next failover) landed at an offset that a write
	// acknowledged before the fault already had, with another value: the
	// new leader's log did not hold what the old one acknowledged.
	// Truncation that no later acknowledged write exposes is not seen here
	// (the checkers' acked-write-lost and lost-write judge that).
	Truncated bool
}

// failoverJSON is Failover as results.jsonl writes it: seconds, and
// unmeasured durations left out.
type failoverJSON struct {
	TP          model.TopicPartition `json:"tp"`
	Cause       faults.Kind          `json:"cause"`
	Fault       string               `json:"fault"`
	At          float64              `json:"at_s"`
	OldLeader   model.BrokerID       `json:"old_leader"`
	NewLeader   model.BrokerID       `json:"new_leader"`
	Election    *float64             `json:"election_s,omitempty"`
	FirstAck    *float64             `json:"first_ack_s,omitempty"`
	Unavailable *float64             `json:"unavailable_s,omitempty"`
	ConsumerGap *float64             `json:"consumer_gap_s,omitempty"`
	Truncated   bool                 `json:"truncated"`
}

func seconds(d time.Duration) *float64 {
	if d < 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

func fromSeconds(s *float64) time.Duration {
	if s == nil {
		return Unmeasured
	}
	return time.Duration(*s * float64(time.Second)).Round(time.Microsecond)
}

// MarshalJSON writes durations as seconds (field names end in _s).
func (f Failover) MarshalJSON() ([]byte, error) {
	return json.Marshal(failoverJSON{
		TP: f.TP, Cause: f.Cause, Fault: f.Fault, At: f.At.Seconds(),
		OldLeader: f.OldLeader, NewLeader: f.NewLeader,
		Election: seconds(f.Election), FirstAck: seconds(f.FirstAck),
		Unavailable: seconds(f.Unavailable), ConsumerGap: seconds(f.ConsumerGap),
		Truncated: f.Truncated,
	})
}

// UnmarshalJSON reads what MarshalJSON wrote (a report rebuilt from
// results.jsonl); a missing duration is Unmeasured.
func (f *Failover) UnmarshalJSON(b []byte) error {
	var j failoverJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = Failover{
		TP: j.TP, Cause: j.Cause, Fault: j.Fault, At: fromSeconds(&j.At),
		OldLeader: j.OldLeader, NewLeader: j.NewLeader,
		Election: fromSeconds(j.Election), FirstAck: fromSeconds(j.FirstAck),
		Unavailable: fromSeconds(j.Unavailable), ConsumerGap: fromSeconds(j.ConsumerGap),
		Truncated: j.Truncated,
	}
	return nil
}

// leaderTaking are the fault kinds that take a leader away when they hit
// it. Partitions other than isolate (halves, ring, oneway...) may or may
// not cut a leader off from the controller; they are left out rather than
// guessed at.
var leaderTaking = []faults.Kind{faults.KindCrash, faults.KindPowerLoss, faults.KindShutdown, faults.KindPause, faults.KindIsolate}

// taking is a fault that hit the leader of a partition, before measuring.
type taking struct {
	tp    model.TopicPartition
	ev    faults.Event
	old   model.BrokerID
	until time.Duration // the partition's next failover, or forever
}

// MeasureFailovers finds every fault in the log that hit the then leader of
// a partition (the last broker to report leading it) and measures what
// followed. A fault that hits a leader already taken away by an earlier
// fault (a second crash of a node that is down) is not a new failover. The
// result is ordered by fault time, then partition.
func MeasureFailovers(h model.History, leaders []model.LeaderObservation, log []faults.Event) []Failover {
	byTP, tps := leadersByPartition(leaders)
	takes := leaderTakings(log, byTP, tps)
	if len(takes) == 0 {
		return nil
	}
	acks, polls := clientTimes(h)
	conflicts := offsetConflicts(h)
	out := make([]Failover, 0, len(takes))
	for _, t := range takes {
		out = append(out, measureTaking(t, byTP[t.tp], acks[t.tp], polls[t.tp], conflicts[t.tp]))
	}
	slices.SortStableFunc(out, func(a, b Failover) int {
		if c := compareDur(a.At, b.At); c != 0 {
			return c
		}
		return a.TP.Compare(b.TP)
	})
	return out
}

// leadersByPartition groups the leader observations by partition, each
// partition's in time order, and lists the partitions in order.
func leadersByPartition(leaders []model.LeaderObservation) (map[model.TopicPartition][]model.LeaderObservation, []model.TopicPartition) {
	byTP := map[model.TopicPartition][]model.LeaderObservation{}
	for _, o := range leaders {
		byTP[o.TP] = append(byTP[o.TP], o)
	}
	tps := make([]model.TopicPartition, 0, len(byTP))
	for tp := range byTP {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, model.TopicPartition.Compare)
	for _, tp := range tps {
		slices.SortStableFunc(byTP[tp], func(a, b model.LeaderObservation) int { return compareDur(a.Time, b.Time) })
	}
	return byTP, tps
}

// leaderTakings are the faults that took a leader away, per partition,
// in log order: each ends (until) where the partition's next begins.
func leaderTakings(log []faults.Event, byTP map[model.TopicPartition][]model.LeaderObservation, tps []model.TopicPartition) []*taking {
	var takes []*taking
	lastTP := map[model.TopicPartition]*taking{}
	for _, ev := range log {
		if ev.Edge == faults.EdgeEnd || ev.NoOp() || !slices.Contains(leaderTaking, ev.Fault.Kind) {
			continue
		}
		for _, tp := range tps {
			obs := byTP[tp]
			i := sort.Search(len(obs), func(i int) bool { return obs[i].Time > ev.Time }) - 1
			if i < 0 || !slices.Contains(ev.Nodes, obs[i].Leader) {
				continue
			}
			if prev := lastTP[tp]; prev != nil && prev.old == obs[i].Leader && prev.ev.Time >= obs[i].Time {
				continue // this leadership was already taken away
			}
			t := &taking{tp: tp, ev: ev, old: obs[i].Leader, until: time.Duration(1<<63 - 1)}
			if prev := lastTP[tp]; prev != nil {
				prev.until = ev.Time
			}
			lastTP[tp] = t
			takes = append(takes, t)
		}
	}
	return takes
}

// measureTaking measures one failover from its partition's leader
// observations, acknowledgement and poll times, and offset conflicts.
func measureTaking(t *taking, obs []model.LeaderObservation, acks, polls []time.Duration, conflicts []conflict) Failover {
	f := Failover{
		TP: t.tp, Cause: t.ev.Fault.Kind, Fault: t.ev.Fault.String(), At: t.ev.Time,
		OldLeader: t.old, NewLeader: model.NoBroker,
		Election: Unmeasured, FirstAck: Unmeasured, Unavailable: Unmeasured, ConsumerGap: Unmeasured,
	}
	for _, o := range obs {
		if o.Time >= t.ev.Time && o.Time < t.until && o.Leader != t.old {
			f.NewLeader, f.Election = o.Leader, o.Time-t.ev.Time
			break
		}
	}
	if f.Election != Unmeasured {
		ackFrom := t.ev.Time + f.Election
		if a, ok := after(acks, ackFrom); ok {
			f.FirstAck = a - t.ev.Time
		}
		f.Unavailable = window(acks, ackFrom)
		f.ConsumerGap = window(polls, ackFrom)
	} else {
		// No one was elected: the old leader came back. The gap that
		// holds the fault's instant may be a short one, between writes
		// already answered when the fault hit (their responses were on
		// the wire); the outage is the longest gap up to the fault's end.
		healed := t.ev.Time
		if t.ev.Fault.Windowed() {
			healed = max(healed, min(t.ev.Fault.End, t.until))
		}
		var first time.Duration
		f.Unavailable, first = longestGap(acks, t.ev.Time, healed)
		if f.Unavailable != Unmeasured {
			f.FirstAck = first - t.ev.Time
		}
		f.ConsumerGap, _ = longestGap(polls, t.ev.Time, healed)
	}
	for _, c := range conflicts {
		if c.first <= t.ev.Time && c.second > t.ev.Time && c.second < t.until {
			f.Truncated = true
		}
	}
	return f
}

// clientTimes lists, per partition and sorted, when acknowledged sends
// completed and when polls that returned its records completed.
func clientTimes(h model.History) (acks, polls map[model.TopicPartition][]time.Duration) {
	acks, polls = map[model.TopicPartition][]time.Duration{}, map[model.TopicPartition][]time.Duration{}
	for i := range h {
		op := &h[i]
		if op.Type != model.OpOK {
			continue
		}
		switch op.F {
		case model.FSend:
			acks[op.TP] = append(acks[op.TP], op.End)
		case model.FPoll:
			for _, pr := range op.Records {
				if len(pr.Records) > 0 {
					polls[pr.TP] = append(polls[pr.TP], op.End)
				}
			}
		}
	}
	for _, m := range []map[model.TopicPartition][]time.Duration{acks, polls} {
		for _, ts := range m {
			slices.Sort(ts)
		}
	}
	return acks, polls
}

// after is the first time in the sorted ts strictly after t.
func after(ts []time.Duration, t time.Duration) (time.Duration, bool) {
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > t })
	if i == len(ts) {
		return 0, false
	}
	return ts[i], true
}

// window is the gap in the sorted ts around t: the last at or before t to
// the first after it.
func window(ts []time.Duration, t time.Duration) time.Duration {
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > t })
	if i == 0 || i == len(ts) {
		return Unmeasured
	}
	return ts[i] - ts[i-1]
}

// longestGap is the longest gap in the sorted ts from the last at or
// before from to the first after to, and when that gap ended (Unmeasured
// and 0 when ts has nothing on either side).
func longestGap(ts []time.Duration, from, to time.Duration) (gap, ended time.Duration) {
	i := sort.Search(len(ts), func(i int) bool { return ts[i] > from })
	j := sort.Search(len(ts), func(i int) bool { return ts[i] > to })
	if i == 0 || j == len(ts) {
		return Unmeasured, 0
	}
	gap = Unmeasured
	for k := i; k <= j; k++ {
		if d := ts[k] - ts[k-1]; d > gap {
			gap, ended = d, ts[k]
		}
	}
	return gap, ended
}

// conflict: two acknowledged writes of different values at one offset;
// first and second are when they were acknowledged.
type conflict struct{ first, second time.Duration }

func offsetConflicts(h model.History) map[model.TopicPartition][]conflict {
	type ack struct {
		value string
		end   time.Duration
	}
	type key struct {
		tp  model.TopicPartition
		off model.Offset
	}
	seen := map[key]ack{}
	out := map[model.TopicPartition][]conflict{}
	for i := range h {
		op := &h[i]
		if op.F != model.FSend || op.Type != model.OpOK {
			continue
		}
		k := key{op.TP, op.Offset}
		prev, ok := seen[k]
		switch {
		case !ok:
			seen[k] = ack{op.Value, op.End}
		case prev.value != op.Value:
			a, b := prev.end, op.End
			if b < a {
				a, b = b, a
			}
			out[op.TP] = append(out[op.TP], conflict{a, b})
		}
	}
	return out
}

func compareDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// FaultWindow is one fault as a timeline draws it: from Start to End (End
// equals Start for an instantaneous fault, and is the run's end for a
// window that never closed), the nodes it hit and its schedule line.
type FaultWindow struct {
	Start, End time.Duration
	Kind       faults.Kind
	Fault      string
	Nodes      []model.BrokerID
}

// faultWindows pairs the nemesis log's starts and ends. Faults that hit
// nobody are left out: they changed nothing to draw.
func faultWindows(log []faults.Event, end time.Duration) []FaultWindow {
	var out []FaultWindow
	open := map[string][]int{} // schedule line -> indexes of open windows
	for _, ev := range log {
		text := ev.Fault.String()
		switch ev.Edge {
		case faults.EdgeAt:
			if !ev.NoOp() {
				out = append(out, FaultWindow{Start: ev.Time, End: ev.Time, Kind: ev.Fault.Kind, Fault: text, Nodes: ev.Nodes})
			}
		case faults.EdgeStart:
			if !ev.NoOp() {
				open[text] = append(open[text], len(out))
				out = append(out, FaultWindow{Start: ev.Time, End: end, Kind: ev.Fault.Kind, Fault: text, Nodes: ev.Nodes})
			}
		case faults.EdgeEnd:
			if q := open[text]; len(q) > 0 {
				out[q[0]].End = ev.Time
				open[text] = q[1:]
			}
		}
	}
	return out
}
