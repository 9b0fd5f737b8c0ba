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
	var evs []TraceEvent
	names := map[int]string{failoverTrack: "failovers"}
	node := func(id model.BrokerID) int {
		n := int(id)
		if _, ok := names[n]; !ok {
			names[n] = id.String()
		}
		return n
	}
	for _, w := range res.Faults {
		for _, id := range w.Nodes {
			ev := TraceEvent{Name: string(w.Kind), Cat: "fault", Ts: micros(w.Start), Pid: tracePid, Tid: node(id), Args: map[string]any{"fault": w.Fault}}
			if w.End > w.Start {
				d := micros(w.End - w.Start)
				ev.Ph, ev.Dur = "X", &d
			} else {
				ev.Ph, ev.S = "i", "t"
			}
			evs = append(evs, ev)
		}
	}
	for _, o := range res.Observed.Leaders {
		evs = append(evs, TraceEvent{Name: fmt.Sprintf("leader %s epoch %d", o.TP, o.Epoch), Cat: "election", Ph: "i", S: "t",
			Ts: micros(o.Time), Pid: tracePid, Tid: node(o.Leader), Args: map[string]any{"tp": o.TP.String(), "epoch": o.Epoch}})
	}
	for _, o := range res.Observed.Quorum.Leaders {
		evs = append(evs, TraceEvent{Name: fmt.Sprintf("quorum leader epoch %d", o.Epoch), Cat: "quorum", Ph: "i", S: "t",
			Ts: micros(o.Time), Pid: tracePid, Tid: node(o.Node), Args: map[string]any{"epoch": o.Epoch}})
	}
	// The quorum's high watermark: the highest any node reported, drawn
	// when it grows (each node's own value lags the leader's).
	metaHW := int64(-1)
	for _, o := range res.Observed.Quorum.HighWatermarks {
		if o.HW > metaHW {
			metaHW = o.HW
			evs = append(evs, TraceEvent{Name: "metadata hw", Cat: "quorum", Ph: "C", Ts: micros(o.Time), Pid: tracePid, Args: map[string]any{"hw": o.HW}})
		}
	}
	for _, o := range res.Observed.HighWatermarks {
		evs = append(evs, TraceEvent{Name: "hw " + o.TP.String(), Cat: "hw", Ph: "C", Ts: micros(o.Time), Pid: tracePid, Args: map[string]any{"hw": o.HW}})
	}
	for _, op := range res.History {
		tid := op.Process
		if _, ok := names[tid]; !ok {
			names[tid] = fmt.Sprintf("client %d", tid)
		}
		switch {
		case op.F == model.FSend && op.Completed():
			id := fmt.Sprint(op.Index)
			args := map[string]any{"value": op.Value, "type": string(op.Type)}
			if op.Type == model.OpOK {
				args["offset"] = op.Offset
			}
			if op.Error != "" {
				args["error"] = op.Error
			}
			name := "send " + op.TP.String()
			evs = append(evs,
				TraceEvent{Name: name, Cat: "send", Ph: "b", ID: id, Ts: micros(op.Time), Pid: tracePid, Tid: tid, Args: args},
				TraceEvent{Name: name, Cat: "send", Ph: "e", ID: id, Ts: micros(op.End), Pid: tracePid, Tid: tid})
		case op.Completed() && op.End > op.Time:
			d := micros(op.End - op.Time)
			evs = append(evs, TraceEvent{Name: string(op.F), Cat: string(op.F), Ph: "X", Ts: micros(op.Time), Dur: &d, Pid: tracePid, Tid: tid,
				Args: map[string]any{"op": op.String()}})
		default:
			evs = append(evs, TraceEvent{Name: string(op.F), Cat: string(op.F), Ph: "i", S: "t", Ts: micros(op.Time), Pid: tracePid, Tid: tid,
				Args: map[string]any{"op": op.String()}})
		}
	}
	for _, f := range res.Failovers {
		span := f.FirstAck
		if span < 0 {
			span = f.Election
		}
		args := map[string]any{"fault": f.Fault, "old_leader": f.OldLeader.String(), "new_leader": f.NewLeader.String(),
			"election_s": secondsOrNil(f.Election), "first_ack_s": secondsOrNil(f.FirstAck), "unavailable_s": secondsOrNil(f.Unavailable), "truncated": f.Truncated}
		ev := TraceEvent{Name: "failover " + f.TP.String(), Cat: "failover", Ts: micros(f.At), Pid: tracePid, Tid: failoverTrack, Args: args}
		if span > 0 {
			d := micros(span)
			ev.Ph, ev.Dur = "X", &d
		} else {
			ev.Ph, ev.S = "i", "t"
		}
		evs = append(evs, ev)
	}
	for _, f := range res.ControllerFailovers {
		names[controllerFailoverTrack] = "controller failovers"
		span := f.FirstCommit
		if span < 0 {
			span = f.Election
		}
		args := map[string]any{"fault": f.Fault, "old_leader": f.OldLeader.String(), "old_epoch": f.OldEpoch, "new_leader": f.NewLeader.String(),
			"new_epoch": f.NewEpoch, "election_s": secondsOrNil(f.Election), "first_commit_s": secondsOrNil(f.FirstCommit)}
		ev := TraceEvent{Name: "controller failover", Cat: "controller-failover", Ts: micros(f.At), Pid: tracePid, Tid: controllerFailoverTrack, Args: args}
		if span > 0 {
			d := micros(span)
			ev.Ph, ev.Dur = "X", &d
		} else {
			ev.Ph, ev.S = "i", "t"
		}
		evs = append(evs, ev)
	}
	slices.SortStableFunc(evs, func(a, b TraceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
	// Track names first: metadata events, by track id.
	meta := []TraceEvent{{Name: "process_name", Ph: "M", Pid: tracePid, Args: map[string]any{"name": fmt.Sprintf("kafkasim %s seed %d", res.Scenario, res.Seed)}}}
	for _, tid := range sortedInts(names) {
		meta = append(meta,
			TraceEvent{Name: "thread_name", Ph: "M", Pid: tracePid, Tid: tid, Args: map[string]any{"name": names[tid]}},
			TraceEvent{Name: "thread_sort_index", Ph: "M", Pid: tracePid, Tid: tid, Args: map[string]any{"sort_index": tid}})
	}
	return Trace{TraceEvents: append(meta, evs...), DisplayTimeUnit: "ms"}
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
