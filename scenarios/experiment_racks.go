package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// The experiment file's racks and the swarm's targets and triggers: the
// checks that need the cluster's shape, each naming the key at fault.

// experimentRacksMax bounds the racks: more than the brokers would leave
// a rack empty anyway.
const experimentRacksMax = experimentBrokersMax

// checkRacks checks cluster.racks against the cluster and sets the
// scenario's racks: each a legal name, given once, and every rack
// holding a broker (round-robin fills the first racks first, so a rack
// beyond the brokers would hold none).
func checkRacks(c ExperimentCluster, brokers int, sc *Scenario, fail func(string, ...string) error) error {
	if c.RackAwarePlacement != nil && len(c.Racks) == 0 {
		return fail("rack_aware_placement without racks: give cluster.racks", "cluster", "rack_aware_placement")
	}
	if len(c.Racks) == 0 {
		return nil
	}
	if len(c.Racks) > experimentRacksMax {
		return fail(fmt.Sprintf("%d racks: at most %d", len(c.Racks), experimentRacksMax), "cluster", "racks")
	}
	for i, r := range c.Racks {
		if !experimentNamePattern.MatchString(r) {
			return fail(fmt.Sprintf("rack name %q: want 1 to 64 of a-z, 0-9, '.', '_', '-'", r), "cluster", "racks")
		}
		if slices.Contains(c.Racks[:i], r) {
			return fail(fmt.Sprintf("rack %q is given twice", r), "cluster", "racks")
		}
	}
	if len(c.Racks) > brokers {
		return fail(fmt.Sprintf("%d racks for %d brokers: rack %q would hold no broker (brokers are spread over the racks round-robin)",
			len(c.Racks), brokers, c.Racks[brokers]), "cluster", "racks")
	}
	sc.Racks = slices.Clone(c.Racks)
	sc.RackUnaware = c.RackAwarePlacement != nil && !*c.RackAwarePlacement
	return nil
}

// rackMistake says what is wrong with a rack selector in this scenario,
// or "".
func rackMistake(racks []string, rack string) string {
	switch {
	case slices.Contains(racks, rack):
		return ""
	case len(racks) == 0:
		return fmt.Sprintf("no rack %q: the cluster has no racks (give cluster.racks)", rack)
	}
	return fmt.Sprintf("no rack %q in this cluster (racks: %s)", rack, strings.Join(racks, ", "))
}

// checkScheduleRacks refuses a written-out fault whose rack selector
// names no rack of the scenario, at the fault's own line.
func checkScheduleRacks(sc Scenario, sf ScheduleFile) error {
	for i, f := range sf.Schedule {
		for _, sel := range faultSelectors(f) {
			if sel.Kind != faults.SelRack {
				continue
			}
			if why := rackMistake(sc.Racks, sel.Rack); why != "" {
				line := 0
				if i < len(sf.Lines) {
					line = sf.Lines[i]
				}
				return &ExperimentError{File: sf.Name, Line: line, Reason: f.String() + ": " + why}
			}
		}
	}
	return nil
}

// writerRackMistake finds a rack selector naming no rack in a writer's
// fault templates ("crash rack r9").
func writerRackMistake(templates []string, racks []string) string {
	for _, t := range templates {
		tok := strings.Fields(t)
		for i := 0; i+1 < len(tok); i++ {
			if tok[i] == "rack" {
				if why := rackMistake(racks, tok[i+1]); why != "" {
					return fmt.Sprintf("fault %q: %s", t, why)
				}
			}
		}
	}
	return ""
}

// swarmAims reads the swarm's targets and triggers into o, checking each
// against the scenario: a target must parse as a selector and name
// something the cluster has (a rack, a group, a partition of t, a node);
// a trigger must be an event, and trigger_prob a probability given with
// triggers.
func swarmAims(sw *ExperimentSwarm, sc Scenario, brokers, controllers int, o *faults.SwarmOptions, fail func(string, ...string) error) error {
	at := []string{"faults", "swarm", "targets"}
	for _, text := range sw.Targets {
		sel, err := faults.ParseSelector(text)
		if err != nil {
			return fail(fmt.Sprintf("target %q: %v", text, err), at...)
		}
		if why := targetMistake(sel, sc, brokers, controllers); why != "" {
			return fail(fmt.Sprintf("target %q: %s", text, why), at...)
		}
		if slices.Contains(o.Targets, sel) {
			return fail(fmt.Sprintf("target %q is given twice", text), at...)
		}
		o.Targets = append(o.Targets, sel)
	}
	for _, ev := range sw.Triggers {
		if !slices.Contains(faults.Events(), ev) {
			return fail(fmt.Sprintf("trigger %q: want one of %s", ev, strings.Join(faults.Events(), ", ")), "faults", "swarm", "triggers")
		}
		if slices.Contains(o.Triggers, ev) {
			return fail(fmt.Sprintf("trigger %q is given twice", ev), "faults", "swarm", "triggers")
		}
		o.Triggers = append(o.Triggers, ev)
	}
	switch {
	case sw.TriggerProb < 0 || sw.TriggerProb > 1:
		return fail(fmt.Sprintf("trigger_prob = %v: a probability, 0 to 1", sw.TriggerProb), "faults", "swarm", "trigger_prob")
	case (sw.TriggerProb > 0) != (len(sw.Triggers) > 0):
		return fail("triggers and trigger_prob go together", "faults", "swarm", "trigger_prob")
	case sw.MaxPerKind < 0 || sw.MaxPerKind > 1000:
		return fail(fmt.Sprintf("max_per_kind = %d: want 1 to 1000 (0: 1000)", sw.MaxPerKind), "faults", "swarm", "max_per_kind")
	}
	o.TriggerProb, o.MaxPerKind = sw.TriggerProb, sw.MaxPerKind
	return nil
}

// targetMistake says why a swarm target names nothing in this scenario,
// or "". Unlike a schedule's selectors, which CheckSchedule judges
// against a built fixture, targets are checked from the file alone: the
// cluster's shape is all they depend on.
func targetMistake(sel faults.Selector, sc Scenario, brokers, controllers int) string {
	switch sel.Kind {
	case faults.SelRack:
		return rackMistake(sc.Racks, sel.Rack)
	case faults.SelMemberOf, faults.SelCoordinatorOf:
		i := slices.IndexFunc(sc.Groups, func(g fixture.GroupSpec) bool { return g.Name == sel.Group })
		switch {
		case i < 0:
			return fmt.Sprintf("no consumer group %q in [[workload.groups]]", sel.Group)
		case sel.Index > sc.Groups[i].Members:
			return fmt.Sprintf("group %s has %d members, not #%d", sel.Group, sc.Groups[i].Members, sel.Index)
		}
	case faults.SelLeaderOf, faults.SelISRFollower, faults.SelFollowerOf, faults.SelOutOfISR:
		if sel.TP.Topic != "t" || sel.TP.Partition < 0 || sel.TP.Partition >= sc.Partitions {
			return fmt.Sprintf("no partition %v (topic t has partitions t/0 to t/%d)", sel.TP, sc.Partitions-1)
		}
	case faults.SelNode:
		id, first := sel.Node, fixture.FirstControllerID(brokers)
		if !(id >= 1 && int(id) <= brokers) && !(id >= first && int(id-first) < controllers) {
			return fmt.Sprintf("no node %v (brokers b1 to b%d, controllers %v to %v)", id, brokers, first, first+model.BrokerID(controllers-1))
		}
	}
	return ""
}
