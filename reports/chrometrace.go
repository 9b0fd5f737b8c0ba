package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/scenarios"
)

// TraceEvent is one event of the Chrome trace-event format (the JSON that
// chrome://tracing and Perfetto's UI open): ph is the phase ("X" a slice
// with a duration, "i" an instant, "b"/"e" an async slice's ends, "C" a
// counter, "M" metadata), ts and dur are microseconds.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	ID   string         `json:"id,omitempty"`
	S    string         `json:"s,omitempty"`
	Args map[string]any `json:"args,omitempty"`
}

// Trace is a whole trace file.
type Trace struct {
	TraceEvents     []TraceEvent `json:"traceEvents"`
	DisplayTimeUnit string       `json:"displayTimeUnit"`
}

// The trace's one process, and the tracks of the failovers.
const (
	tracePid                = 1
	failoverTrack           = 0
	controllerFailoverTrack = -1
)

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// ChromeTrace builds the run's trace: one track per node (brokers, the
// controller, each client by its process id, and a "failovers" track);
// faults as slices (an instantaneous fault as an instant) on the tracks
// of the nodes they hit; each leadership a broker reported as an instant
// on its track; high watermarks as counters; sends as async slices (a
// producer has several in flight) and polls as slices on their client's
// track; each measured failover as a slice from the fault to the first
// acknowledged write after it; and, with a metadata quorum, each quorum
// leadership as an instant on its controller's track, the metadata high
// watermark as a counter, and each controller failover as a slice from the
// fault to the first commit under the new leader on a "controller
// failovers" track. Events are in a fixed order, so the file is the same
// for the same run.
func ChromeTrace(res scenarios.Result) Trace {
	t := traceBuilder{names: map[int]string{failoverTrack: "failovers"}}
	t.faults(res.Faults)
	t.leaderships(res)
	t.history(res.History)
	t.failovers(res.Failovers)
	t.controllerFailovers(res.ControllerFailovers)
	slices.SortStableFunc(t.evs, func(a, b TraceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
	// Track names first: metadata events, by track id.
	meta := []TraceEvent{{Name: "process_name", Ph: "M", Pid: tracePid, Args: map[string]any{"name": fmt.Sprintf("kafkasim %s seed %d", res.Scenario, res.Seed)}}}
	for _, tid := range sortedInts(t.names) {
		meta = append(meta,
			TraceEvent{Name: "thread_name", Ph: "M", Pid: tracePid, Tid: tid, Args: map[string]any{"name": t.names[tid]}},
			TraceEvent{Name: "thread_sort_index", Ph: "M", Pid: tracePid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	return Trace{TraceEvents: append(meta, t.evs...), DisplayTimeUnit: "ms"}
}

// traceBuilder gathers a trace's events and names its tracks as they are
// used.
type traceBuilder struct {
	evs   []TraceEvent
	names map[int]string // track id -> name
}

// node is a broker's or controller's track.
func (t *traceBuilder) node(id model.BrokerID) int {
	n := int(id)
	if _, ok := t.names[n]; !ok {
		t.names[n] = id.String()
	}
	return n
}

// spanOrInstant adds ev as a slice of length d, or as an instant when d
// is not positive.
func (t *traceBuilder) spanOrInstant(ev TraceEvent, d time.Duration) {
	if d > 0 {
		us := micros(d)
		ev.Ph, ev.Dur = "X", &us
	} else {
		ev.Ph, ev.S = "i", "t"
	}
	t.evs = append(t.evs, ev)
}

// faults: each fault on the track of every node it hit.
func (t *traceBuilder) faults(ws []scenarios.FaultWindow) {
	for _, w := range ws {
		for _, id := range w.Nodes {
			t.spanOrInstant(TraceEvent{Name: string(w.Kind), Cat: "fault", Ts: micros(w.Start), Pid: tracePid, Tid: t.node(id), Args: map[string]any{"fault": w.Fault}}, w.End-w.Start)
		}
	}
}

// leaderships: partition and quorum leaderships as instants on their
// nodes' tracks, and the high watermarks as counters.
func (t *traceBuilder) leaderships(res scenarios.Result) {
	for _, o := range res.Observed.Leaders {
		t.evs = append(t.evs, TraceEvent{Name: fmt.Sprintf("leader %s epoch %d", o.TP, o.Epoch), Cat: "election", Ph: "i", S: "t",
			Ts: micros(o.Time), Pid: tracePid, Tid: t.node(o.Leader), Args: map[string]any{"tp": o.TP.String(), "epoch": o.Epoch}})
	}
	for _, o := range res.Observed.Quorum.Leaders {
		t.evs = append(t.evs, TraceEvent{Name: fmt.Sprintf("quorum leader epoch %d", o.Epoch), Cat: "quorum", Ph: "i", S: "t",
			Ts: micros(o.Time), Pid: tracePid, Tid: t.node(o.Node), Args: map[string]any{"epoch": o.Epoch}})
	}
	// The quorum's high watermark: the highest any node reported, drawn
	// when it grows (each node's own value lags the leader's).
	metaHW := int64(-1)
	for _, o := range res.Observed.Quorum.HighWatermarks {
		if o.HW > metaHW {
			metaHW = o.HW
			t.evs = append(t.evs, TraceEvent{Name: "metadata hw", Cat: "quorum", Ph: "C", Ts: micros(o.Time), Pid: tracePid, Args: map[string]any{"hw": o.HW}})
		}
	}
	for _, o := range res.Observed.HighWatermarks {
		t.evs = append(t.evs, TraceEvent{Name: "hw " + o.TP.String(), Cat: "hw", Ph: "C", Ts: micros(o.Time), Pid: tracePid, Args: map[string]any{"hw": o.HW}})
	}
}

// history: sends as async slices (a producer has several in flight),
// other operations as slices or instants, on their client's track.
func (t *traceBuilder) history(h model.History) {
	for _, op := range h {
		tid := op.Process
		if _, ok := t.names[tid]; !ok {
			t.names[tid] = fmt.Sprintf("client %d", tid)
		}
		if op.F != model.FSend || !op.Completed() {
			d := time.Duration(0)
			if op.Completed() {
				d = op.End - op.Time
			}
			t.spanOrInstant(TraceEvent{Name: string(op.F), Cat: string(op.F), Ts: micros(op.Time), Pid: tracePid, Tid: tid, Args: map[string]any{"op": op.String()}}, d)
			continue
		}
		id := fmt.Sprint(op.Index)
		args := map[string]any{"value": op.Value, "type": string(op.Type)}
		if op.Type == model.OpOK {
			args["offset"] = op.Offset
		}
		if op.Error != "" {
			args["error"] = op.Error
		}
		name := "send " + op.TP.String()
		t.evs = append(t.evs,
			TraceEvent{Name: name, Cat: "send", Ph: "b", ID: id, Ts: micros(op.Time), Pid: tracePid, Tid: tid, Args: args},
			TraceEvent{Name: name, Cat: "send", Ph: "e", ID: id, Ts: micros(op.End), Pid: tracePid, Tid: tid})
	}
}

// failovers: each measured failover from its fault to the first
// acknowledged write after it (or to the election, without one).
func (t *traceBuilder) failovers(fs []scenarios.Failover) {
	for _, f := range fs {
		span := f.FirstAck
		if span < 0 {
			span = f.Election
		}
		args := map[string]any{"fault": f.Fault, "old_leader": f.OldLeader.String(), "new_leader": f.NewLeader.String(),
			"election_s": secondsOrNil(f.Election), "first_ack_s": secondsOrNil(f.FirstAck), "unavailable_s": secondsOrNil(f.Unavailable), "truncated": f.Truncated}
		t.spanOrInstant(TraceEvent{Name: "failover " + f.TP.String(), Cat: "failover", Ts: micros(f.At), Pid: tracePid, Tid: failoverTrack, Args: args}, span)
	}
}

// controllerFailovers: each from its fault to the first commit under the
// new quorum leader (or to its election), on a track of their own.
func (t *traceBuilder) controllerFailovers(fs []scenarios.ControllerFailover) {
	for _, f := range fs {
		t.names[controllerFailoverTrack] = "controller failovers"
		span := f.FirstCommit
		if span < 0 {
			span = f.Election
		}
		args := map[string]any{"fault": f.Fault, "old_leader": f.OldLeader.String(), "old_epoch": f.OldEpoch, "new_leader": f.NewLeader.String(),
			"new_epoch": f.NewEpoch, "election_s": secondsOrNil(f.Election), "first_commit_s": secondsOrNil(f.FirstCommit)}
		t.spanOrInstant(TraceEvent{Name: "controller failover", Cat: "controller-failover", Ts: micros(f.At), Pid: tracePid, Tid: controllerFailoverTrack, Args: args}, span)
	}
}

func secondsOrNil(d time.Duration) any {
	if d < 0 {
		return nil
	}
	return d.Seconds()
}

func sortedInts[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// WriteChromeTrace writes the run's trace as JSON to w.
func WriteChromeTrace(w io.Writer, res scenarios.Result) error {
	return json.NewEncoder(w).Encode(ChromeTrace(res))
}
