package scenarios

import (
	"fmt"
	"strings"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/sim"
)

// ScheduleFile is a schedule read from a file to replace a scenario's
// faults (kafkasim run -schedule): the faults, the file's name and the
// line each fault was written on (faults.ParseLines).
type ScheduleFile struct {
	Name     string
	Schedule faults.Schedule
	Lines    []int
}

// CheckSchedule judges a schedule file against the run it is given to,
// before that run: what the parser alone cannot know, because it depends
// on the scenario's cluster. It builds the scenario's fixture with the
// seed and settings (the same fixture the run builds, up to the moment the
// cluster is ready; the run itself builds its own) and
//
//   - refuses, as "file:line: reason", a fault before the cluster is
//     ready, a node the cluster does not have, and a leader-of or
//     isr-follower selector naming a topic or partition the cluster does
//     not have, which would otherwise be a silent no-op every time;
//   - warns, in the same form, of an empty schedule (the run has no faults
//     at all) and of a fault timed after the run's faults end: skipped
//     once the liveness phase heals everything, or never reached.
//
// The run is untouched: nothing here reaches the run's kernel.
func CheckSchedule(sc Scenario, seed uint64, set []string, file ScheduleFile) (warnings []string, err error) {
	sc, set = resolve(sc, seed, set)
	kc, err := ConfigFor(sc, set)
	if err != nil {
		return nil, err
	}
	// The run's own fixture (fixtureOptions), so that readiness, racks and
	// every topic, member or broker the run has are the run's.
	s, err := NewScripted(fixtureOptions(sc, seed, kc, sim.Config{}))
	if err != nil {
		return nil, err
	}
	at := func(i int) string {
		if i < len(file.Lines) {
			return fmt.Sprintf("%s:%d", file.Name, file.Lines[i])
		}
		return fmt.Sprintf("%s: fault %d", file.Name, i+1)
	}
	if len(file.Schedule) == 0 {
		return []string{fmt.Sprintf("%s: the schedule has no faults, so this run of %s has none (a schedule file replaces the scenario's own faults)", file.Name, sc.Name)}, nil
	}
	ready := s.Sim.Now()
	safety := ready + sc.Safety
	if sc.Until > 0 {
		safety = sc.Until
	}
	nodes := map[model.BrokerID]bool{}
	for _, id := range s.Sim.Nodes() {
		nodes[model.BrokerID(id)] = true
	}
	members := newMemberCheck(s)
	for i, f := range file.Schedule {
		if f.At < ready {
			return nil, fmt.Errorf("%s: %s is before the cluster of %s is ready at %v with seed %d; faults start from then", at(i), f, sc.Name, ready, seed)
		}
		for _, sel := range faultSelectors(f) {
			if reason := s.missing(sel, nodes); reason != "" {
				return nil, fmt.Errorf("%s: %s: %s", at(i), f, reason)
			}
		}
		if reason := members.line(f); reason != "" {
			return nil, fmt.Errorf("%s: %s: %s", at(i), f, reason)
		}
	}
	for i, f := range file.Schedule {
		switch {
		case sc.LivenessBound > 0 && f.At > safety:
			warnings = append(warnings, fmt.Sprintf("%s: %s is after the faults of %s end at %v: the liveness phase heals everything then, so it is skipped", at(i), f, sc.Name, safety))
		case sc.LivenessBound > 0 && f.Windowed() && f.End > safety:
			warnings = append(warnings, fmt.Sprintf("%s: %s ends after the faults of %s end at %v: the liveness phase's heal closes it then", at(i), f, sc.Name, safety))
		case sc.LivenessBound == 0 && f.At > safety+drain:
			warnings = append(warnings, fmt.Sprintf("%s: %s is after the run of %s ends at %v: it never fires", at(i), f, sc.Name, safety+drain))
		case sc.LivenessBound == 0 && f.Windowed() && f.End > safety+drain:
			warnings = append(warnings, fmt.Sprintf("%s: %s ends after the run of %s ends at %v: its window never closes", at(i), f, sc.Name, safety+drain))
		}
	}
	return warnings, nil
}

// faultSelectors lists every selector of a fault.
func faultSelectors(f faults.Fault) []faults.Selector {
	out := []faults.Selector{f.Target, f.Peer}
	if f.Kind.IsOperation() && f.TP.Topic != "" {
		// The partition must exist. A topic operation names a topic that
		// may come and go during the run: the controller answers
		// UNKNOWN_TOPIC_OR_PARTITION when it fires if there is none.
		out = append(out, faults.LeaderOf(f.TP))
	}
	for _, g := range f.Groups {
		out = append(out, g...)
	}
	return out
}

// missing says why a selector names something this cluster does not
// have, or "" when it names something it has (or picks at fire time).
func (s *Scripted) missing(sel faults.Selector, nodes map[model.BrokerID]bool) string {
	switch sel.Kind {
	case faults.SelNode:
		if !nodes[sel.Node] {
			return fmt.Sprintf("no node %v in this cluster (brokers %s; controllers %s)", sel.Node, idList(s.Brokers), idList(s.Cluster.Controllers))
		}
	case faults.SelLeaderOf, faults.SelISRFollower, faults.SelFollowerOf, faults.SelOutOfISR:
		if _, ok := s.Partition(sel.TP); ok {
			return ""
		}
		if _, ok := s.Partition(model.TP(sel.TP.Topic, 0)); !ok {
			return fmt.Sprintf("no topic %q in this cluster (it has %s)", sel.TP.Topic, s.partitionList())
		}
		return fmt.Sprintf("no partition %v in this cluster (it has %s)", sel.TP, s.partitionList())
	case faults.SelRack:
		if len(s.RackNodes(sel.Rack)) == 0 {
			if len(s.Racks()) == 0 {
				return fmt.Sprintf("no rack %q: this cluster has no racks (racks are cluster.racks of an experiment file)", sel.Rack)
			}
			return fmt.Sprintf("no rack %q in this cluster (it has %s)", sel.Rack, strings.Join(s.Racks(), ", "))
		}
	case faults.SelMemberOf:
		ms := s.MembersOf(sel.Group)
		switch {
		case len(ms) == 0:
			return fmt.Sprintf("no consumer group %q in this run", sel.Group)
		case sel.Index > len(ms):
			return fmt.Sprintf("group %s has %d members, not #%d", sel.Group, len(ms), sel.Index)
		}
	}
	return ""
}

func idList(ids []model.BrokerID) string {
	var out []string
	for _, id := range ids {
		out = append(out, id.String())
	}
	return strings.Join(out, ", ")
}

// partitionList names the cluster's partitions, as "t/0..t/2": the
// workload's topic, and the group coordinators' offsets topic once it
// exists.
func (s *Scripted) partitionList() string {
	span := func(tps []model.TopicPartition) string {
		if len(tps) == 1 {
			return tps[0].String()
		}
		return fmt.Sprintf("%v..%v", tps[0], tps[len(tps)-1])
	}
	out := []string{span(s.TPs)}
	var offsets []model.TopicPartition
	for p := int32(0); p < s.Config.Group.OffsetsTopicPartitions; p++ {
		if tp := model.TP(broker.OffsetsTopic, p); s.hasPartition(tp) {
			offsets = append(offsets, tp)
		}
	}
	if len(offsets) > 0 {
		out = append(out, span(offsets))
	}
	return strings.Join(out, ", ")
}

func (s *Scripted) hasPartition(tp model.TopicPartition) bool {
	_, ok := s.Partition(tp)
	return ok
}
