package scenarios

import (
	"slices"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// Scripted is the fixture a scripted scenario runs (fixture.Fixture) and
// what the scenario adds to it: the fault schedule and its nemesis, the
// phases' times, and the twin that probe runs.
type Scripted struct {
	*fixture.Fixture
	// ready is when the cluster became ready; safety is when the safety
	// phase ends (absolute virtual times). Fault policies schedule within.
	ready, safety time.Duration
	schedule      faults.Schedule
	nemesis       *faults.Nemesis
	// waiting are the triggered faults' callbacks not yet called, in the
	// order they armed (see world.OnEvent).
	waiting []waitingFault
	// twin builds the fixture again as play built this one, for probe;
	// nil outside play.
	twin func() *Scripted
	// cutShort says why the run stopped before its end (a panic, the
	// event limit: panic.go); nil for a run that finished.
	cutShort *cutShort
	// decommissioning are the brokers a decommission script runs for
	// (decommission.go), from its start on.
	decommissioning map[model.BrokerID]bool
	// decommissions are those scripts, in the order they started.
	decommissions []*decommission
	// rollings are the rolling restart scripts (rolling.go), in the
	// order they started.
	rollings []*rollingScript
}

// NewScripted builds, starts and readies the fixture, on the safe
// configuration (safe.go) when o gives none.
func NewScripted(o fixture.Options) (*Scripted, error) {
	if o.Config == (model.Config{}) {
		o.Config = safe()
	}
	f, err := fixture.New(o)
	if err != nil {
		return nil, err
	}
	return &Scripted{Fixture: f}, nil
}

// probe is the step of play between building the fixture and writing its
// faults (see play): it returns a twin of the fixture as it stood when it
// became ready, built by the same build step (same fixture, seed,
// configuration and producer stop), so the same run. A schedule that must
// start at a moment only the run reveals (a commit whose high watermark a
// follower has not heard yet) runs the twin on to find it, and the
// fixture itself gets its faults at the time it became ready, as a replay
// of the written schedule does: so the replay gives the same trace, event
// for event. Only a fixture play built can be probed.
func (s *Scripted) probe() *Scripted {
	if s.twin == nil {
		panic("scenarios: probe of a fixture play did not build")
	}
	return s.twin()
}

// probeUntil runs a twin of the fixture (probe) to from, then on a
// millisecond at a time until ready says it is the moment or limit is
// reached, and returns the twin as it stands then.
func (s *Scripted) probeUntil(from, limit time.Duration, ready func(p *Scripted) bool) *Scripted {
	p := s.probe()
	p.Sim.Run(from)
	for !ready(p) && p.Sim.Now() < limit {
		p.Sim.Run(p.Sim.Now() + time.Millisecond)
	}
	return p
}

// LostAcked lists acknowledged values missing, at the offset they were
// acknowledged with, from their partition leader's final log.
func (s *Scripted) LostAcked() []string {
	logs := map[model.TopicPartition]map[model.Offset]string{}
	for _, tp := range s.TPs {
		leader := s.Leader(tp)
		m := map[model.Offset]string{}
		for _, r := range s.Replicas(tp) {
			if r.Broker == leader {
				for _, ov := range r.Records {
					m[ov.Offset] = ov.Value
				}
			}
		}
		logs[tp] = m
	}
	var lost []string
	for _, op := range s.History.History() {
		if op.F == model.FSend && op.Type == model.OpOK && logs[op.TP][op.Offset] != op.Value {
			lost = append(lost, op.Value)
		}
	}
	return lost
}

// Diverged is the first offset at which two replicas of tp hold different
// values, or -1 when they agree on every offset both hold.
func (s *Scripted) Diverged(tp model.TopicPartition) model.Offset {
	reps := s.Replicas(tp)
	if len(reps) == 0 {
		return -1
	}
	vals := map[model.Offset]string{}
	for _, ov := range reps[0].Records {
		vals[ov.Offset] = ov.Value
	}
	first := model.Offset(-1)
	for _, r := range reps[1:] {
		for _, ov := range r.Records {
			if v, ok := vals[ov.Offset]; ok && v != ov.Value && (first < 0 || ov.Offset < first) {
				first = ov.Offset
			}
		}
	}
	return first
}

// CheckInput is what the checkers get from this run: the history, what the
// nodes reported as the cluster recorded it, and every replica's final log.
func (s *Scripted) CheckInput() checkers.Input {
	in := checkers.Input{History: s.History.History(), Observations: s.Observed.Final(), DiskLost: s.diskLost(), Stranded: s.stranded()}
	// After the liveness phase every replica must have rejoined its ISR
	// (clusterStuck): one still outside it is judged, not left out.
	healed := s.nemesis != nil && s.nemesis.Healed()
	for _, tp := range s.TPs {
		ps, known := s.Partition(tp)
		reps := s.Replicas(tp)
		for _, r := range reps {
			out := known && !slices.Contains(ps.ISR, r.Broker)
			in.Replicas = append(in.Replicas, checkers.ReplicaLog{Broker: r.Broker, TP: r.TP, LogStart: r.LogStart, HW: r.HW, Records: r.Records,
				OutOfSync: out, NeverRejoined: out && healed})
		}
		if healed && known {
			in.Replicas = append(in.Replicas, unhosted(tp, ps, reps)...)
		}
	}
	return in
}

// unhosted are the replicas the metadata assigns to brokers that host no
// log of tp at all, outside the ISR after the liveness phase: an
// operator sees them under-replicated as any other (KAFKA-14616's broker,
// which failed the replica, hosts nothing of it). Their logs are empty.
func unhosted(tp model.TopicPartition, ps model.PartitionState, hosted []fixture.Replica) []checkers.ReplicaLog {
	var out []checkers.ReplicaLog
	for _, b := range ps.Replicas {
		if slices.Contains(ps.ISR, b) || slices.ContainsFunc(hosted, func(r fixture.Replica) bool { return r.Broker == b }) {
			continue
		}
		out = append(out, checkers.ReplicaLog{Broker: b, TP: tp, HW: model.NoOffset, OutOfSync: true, NeverRejoined: true, Unhosted: true})
	}
	return out
}

// CheckOptions states what the configuration promises, for the checkers.
func CheckOptions(kc model.Config) checkers.Options {
	return checkers.Options{
		Idempotent:            kc.Producer.Idempotence,
		MaxInFlight:           int(kc.Producer.MaxInFlight),
		AutoOffsetReset:       string(kc.Consumer.AutoOffsetReset),
		Acks:                  kc.Producer.Acks.String(),
		MinInsyncReplicas:     int(kc.Topic.MinInsyncReplicas),
		UncleanLeaderElection: kc.Topic.UncleanLeaderElection,
		SelfFencing:           kc.Consumer.SelfFencing,
		LinearizabilityBudget: checkers.DefaultLinearizabilityCap,
	}
}

// CheckSettings are the configuration names CheckOptions reads, sorted:
// what a saved run must record for its re-check, and what kafkasim check
// -history says it assumed when a history alone does not tell
// (TestCheckSettingsAreWhatCheckOptionsReads keeps the two in step).
func CheckSettings() []string {
	return []string{"acks", "auto.offset.reset", "consumer.self.fencing", "enable.idempotence", "max.in.flight.requests.per.connection", "min.insync.replicas", "unclean.leader.election.enable"}
}
