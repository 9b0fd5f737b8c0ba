package scenarios

import (
	"encoding/json"
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
)

// ControllerFailover is the active controller (the metadata quorum's
// leader) losing its leadership to a fault, and how long the quorum took
// to commit again, measured only from the quorum observations (who became
// leader of which epoch, which entries each node applied, the high
// watermarks) and the fault log, as Failover is for a partition.
//
// Durations are virtual time from the fault (At), Unmeasured when the run
// did not show them (no leader of a higher epoch before the next
// controller failover).
type ControllerFailover struct {
	// Cause is the fault's kind and Fault its schedule line.
	Cause faults.Kind
	Fault string
	// At is when the fault hit the active controller.
	At        time.Duration
	OldLeader model.BrokerID
	OldEpoch  model.Epoch
	// OldHW is the metadata high watermark (exclusive) the quorum had
	// reached by the fault: what was committed under the old leader.
	OldHW int64
	// NewLeader and NewEpoch: the first leader of an epoch above OldEpoch
	// elected after the fault (it may be the old leader again, back from
	// a pause or a restart), NoBroker when none was.
	NewLeader model.BrokerID
	NewEpoch  model.Epoch
	// Election: the fault to NewLeader's election.
	Election time.Duration
	// FirstCommit: the fault to NewLeader applying its first entry at or
	// past OldHW, that is, to the first metadata entry committed under the
	// new leader. That entry is the new leader's LeaderChange control
	// record (KIP-595): once it commits the new controller is active and
	// its metadata changes can commit. This is the issue's "controller
	// failover time".
	FirstCommit time.Duration
}

// controllerFailoverJSON is ControllerFailover as results.jsonl writes it:
// seconds, unmeasured durations left out.
type controllerFailoverJSON struct {
	Cause       faults.Kind    `json:"cause"`
	Fault       string         `json:"fault"`
	At          float64        `json:"at_s"`
	OldLeader   model.BrokerID `json:"old_leader"`
	OldEpoch    model.Epoch    `json:"old_epoch"`
	OldHW       int64          `json:"old_hw"`
	NewLeader   model.BrokerID `json:"new_leader"`
	NewEpoch    model.Epoch    `json:"new_epoch"`
	Election    *float64       `json:"election_s,omitempty"`
	FirstCommit *float64       `json:"first_commit_s,omitempty"`
}

// MarshalJSON writes durations as seconds (field names end in _s).
func (f ControllerFailover) MarshalJSON() ([]byte, error) {
	return json.Marshal(controllerFailoverJSON{
		Cause: f.Cause, Fault: f.Fault, At: f.At.Seconds(),
		OldLeader: f.OldLeader, OldEpoch: f.OldEpoch, OldHW: f.OldHW,
		NewLeader: f.NewLeader, NewEpoch: f.NewEpoch,
		Election: seconds(f.Election), FirstCommit: seconds(f.FirstCommit),
	})
}

// UnmarshalJSON reads what MarshalJSON wrote; a missing duration is
// Unmeasured.
func (f *ControllerFailover) UnmarshalJSON(b []byte) error {
	var j controllerFailoverJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*f = ControllerFailover{
		Cause: j.Cause, Fault: j.Fault, At: fromSeconds(&j.At),
		OldLeader: j.OldLeader, OldEpoch: j.OldEpoch, OldHW: j.OldHW,
		NewLeader: j.NewLeader, NewEpoch: j.NewEpoch,
		Election: fromSeconds(j.Election), FirstCommit: fromSeconds(j.FirstCommit),
	}
	return nil
}

// MeasureControllerFailovers finds every fault in the log that hit the
// quorum leader of the time (the leader of the highest epoch elected so
// far) with a kind that can take a leadership away, and measures what
// followed. The result is in fault order.
//
// A crash, power loss or shutdown takes the leadership at once: later
// faults on the same leadership (a second crash of a node that is down)
// are not new failovers, and when no leader of a higher epoch follows, the
// failover is reported unmeasured. A pause or an isolation may leave the
// leadership standing (a pause shorter than the fetch timeout, a cut the
// leader's quorum outlives): it is a failover only if a leader of a higher
// epoch was elected before the next fault on that leadership, and an
// isolation from the brokers alone, which leaves the leader its quorum,
// never is.
func MeasureControllerFailovers(q model.QuorumObservations, log []faults.Event) []ControllerFailover {
	qt := newQuorumTimeline(q)
	var out []ControllerFailover
	taken := map[model.Epoch]bool{} // leaderships a crash, power loss or shutdown took
	for _, ev := range log {
		if ev.Edge == faults.EdgeEnd || ev.NoOp() || !slices.Contains(leaderTaking, ev.Fault.Kind) ||
			ev.Fault.Kind == faults.KindIsolate && ev.Fault.Scope == faults.ScopeBrokers {
			continue
		}
		l, ok := qt.current(ev.Time)
		if !ok || !slices.Contains(ev.Nodes, l.Node) || taken[l.Epoch] {
			continue
		}
		if !mayLeaveLeadership(ev.Fault.Kind) {
			taken[l.Epoch] = true
		}
		f := ControllerFailover{
			Cause: ev.Fault.Kind, Fault: ev.Fault.String(), At: ev.Time,
			OldLeader: l.Node, OldEpoch: l.Epoch, OldHW: qt.hwAt(ev.Time),
			NewLeader: model.NoBroker, Election: Unmeasured, FirstCommit: Unmeasured,
		}
		qt.measureSuccessor(&f, l.Epoch)
		out = append(out, f)
	}
	return endAtNextFailover(out)
}

// quorumTimeline is a run's quorum observations, each kind in time order.
type quorumTimeline struct {
	leaders []model.QuorumLeaderObservation
	hws     []model.QuorumHWObservation
	applied []model.QuorumAppliedObservation
}

func newQuorumTimeline(q model.QuorumObservations) quorumTimeline {
	leaders := slices.Clone(q.Leaders)
	slices.SortStableFunc(leaders, func(a, b model.QuorumLeaderObservation) int { return compareDur(a.Time, b.Time) })
	hws := slices.Clone(q.HighWatermarks)
	slices.SortStableFunc(hws, func(a, b model.QuorumHWObservation) int { return compareDur(a.Time, b.Time) })
	applied := slices.Clone(q.Applied)
	slices.SortStableFunc(applied, func(a, b model.QuorumAppliedObservation) int { return compareDur(a.Time, b.Time) })
	return quorumTimeline{leaders: leaders, hws: hws, applied: applied}
}

// current is the leader of the highest epoch elected by t.
func (qt quorumTimeline) current(t time.Duration) (model.QuorumLeaderObservation, bool) {
	var best model.QuorumLeaderObservation
	found := false
	for _, o := range qt.leaders {
		if o.Time > t {
			break
		}
		if !found || o.Epoch > best.Epoch {
			best, found = o, true
		}
	}
	return best, found
}

// hwAt is the highest metadata high watermark reported by t.
func (qt quorumTimeline) hwAt(t time.Duration) int64 {
	hw := int64(0)
	for _, o := range qt.hws {
		if o.Time > t {
			break
		}
		hw = max(hw, o.HW)
	}
	return hw
}

// measureSuccessor fills in f's new leader, the first elected after the
// fault to an epoch above old, and when it first applied an entry at or
// past f.OldHW.
func (qt quorumTimeline) measureSuccessor(f *ControllerFailover, old model.Epoch) {
	for _, o := range qt.leaders {
		if o.Time < f.At || o.Epoch <= old {
			continue
		}
		f.NewLeader, f.NewEpoch, f.Election = o.Node, o.Epoch, o.Time-f.At
		for _, a := range qt.applied {
			if a.Time >= o.Time && a.Node == o.Node && a.Incarnation == o.Incarnation && a.Offset >= f.OldHW {
				f.FirstCommit = a.Time - f.At
				break
			}
		}
		return
	}
}

// endAtNextFailover: a failover ends where the next begins, so a new
// leader elected after the next failover's fault belongs to that one. The
// next one hits the same leadership then (a failover of a later epoch
// means a new leader was elected before it), so a pause or an isolation
// that is followed by another fault before any election did not take the
// leadership, and neither did one after which no one was elected: those
// are dropped.
func endAtNextFailover(out []ControllerFailover) []ControllerFailover {
	kept := out[:0]
	for i, f := range out {
		if i+1 < len(out) {
			next := out[i+1].At
			if f.Election != Unmeasured && f.At+f.Election > next {
				f.NewLeader, f.NewEpoch, f.Election, f.FirstCommit = model.NoBroker, 0, Unmeasured, Unmeasured
			} else if f.FirstCommit != Unmeasured && f.At+f.FirstCommit > next {
				f.FirstCommit = Unmeasured
			}
		}
		if f.Election == Unmeasured && mayLeaveLeadership(f.Cause) {
			continue
		}
		kept = append(kept, f)
	}
	return kept
}

// mayLeaveLeadership reports whether a fault of kind k can leave the
// leader it hits in office (a short pause, a cut its quorum outlives).
func mayLeaveLeadership(k faults.Kind) bool { return k == faults.KindPause || k == faults.KindIsolate }
