package scenarios

import (
	"fmt"
	"slices"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// memberCheck follows a schedule file's membership operations line by
// line against the cluster it is given to (CheckSchedule): which brokers
// are members at each line, which spares are left, and whether enough
// brokers remain for the replication factor. Every line it refuses would
// otherwise be a no-op event in the run, or a run whose partitions cannot
// all be placed.
type memberCheck struct {
	members, spares, gone []model.BrokerID
	// rf is the largest replica count of the cluster's partitions when it
	// is ready: the brokers a decommission must leave.
	rf int
}

// newMemberCheck starts from the ready cluster s.
func newMemberCheck(s *Scripted) *memberCheck {
	m := &memberCheck{members: slices.Clone(s.Brokers), spares: slices.Clone(s.Spares)}
	if c := s.ControllerNode(); c != nil {
		m.rf = maxReplicas(c)
	}
	return m
}

// line judges one fault; it returns "" when the line is fine, else why
// not.
func (m *memberCheck) line(f faults.Fault) string {
	switch f.Kind {
	case faults.KindAddBroker:
		id := f.Target.Node
		switch {
		case slices.Contains(m.members, id) || slices.Contains(m.gone, id):
			return fmt.Sprintf("%v is a broker of this cluster already, not a spare to add", id)
		case !slices.Contains(m.spares, id):
			return fmt.Sprintf("no spare broker %v in this cluster (spares: %s; a scenario's spare_brokers)", id, orNone(m.spares))
		}
		m.spares = slices.DeleteFunc(m.spares, func(b model.BrokerID) bool { return b == id })
		m.members = append(m.members, id)
	case faults.KindDecommission:
		id := f.Target.Node
		switch {
		case slices.Contains(m.gone, id):
			return fmt.Sprintf("%v is decommissioned already", id)
		case slices.Contains(m.spares, id):
			return fmt.Sprintf("%v is a spare not added yet: add-broker it first", id)
		case !slices.Contains(m.members, id):
			return fmt.Sprintf("no broker %v in this cluster (brokers %s)", id, idList(m.members))
		case len(m.members)-1 < m.rf:
			return fmt.Sprintf("decommissioning %v would leave %d brokers, fewer than the %d replicas of a partition (INVALID_REPLICATION_FACTOR)", id, len(m.members)-1, m.rf)
		}
		m.members = slices.DeleteFunc(m.members, func(b model.BrokerID) bool { return b == id })
		m.gone = append(m.gone, id)
	}
	for _, id := range f.Replicas {
		if !slices.Contains(m.members, id) && !slices.Contains(m.gone, id) {
			if slices.Contains(m.spares, id) {
				return fmt.Sprintf("%v is a spare not added yet: add-broker it before this line", id)
			}
			return fmt.Sprintf("no broker %v in this cluster (brokers %s)", id, idList(m.members))
		}
	}
	return ""
}

func orNone(ids []model.BrokerID) string {
	if len(ids) == 0 {
		return "none"
	}
	return idList(ids)
}

// membersGuard is, for a shrink of a schedule with membership operations,
// the check that a candidate's membership lines are ones CheckSchedule
// accepts, so that a shrunk file replays with run -schedule: dropping an
// add-broker may otherwise leave a decommission below the replication
// factor, or a reassignment onto a spare never added. It is nil for a
// schedule without any, which then shrinks as it always did.
func membersGuard(sc Scenario, seed uint64, set []string, orig faults.Schedule) (func(faults.Schedule) bool, error) {
	if !slices.ContainsFunc(orig, func(f faults.Fault) bool {
		return f.Kind == faults.KindAddBroker || f.Kind == faults.KindDecommission
	}) {
		return nil, nil
	}
	sc, set = resolve(sc, seed, set)
	kc, err := ConfigFor(sc, set)
	if err != nil {
		return nil, err
	}
	s, err := NewScripted(fixtureOptions(sc, seed, kc, sim.Config{}))
	if err != nil {
		return nil, err
	}
	base := newMemberCheck(s)
	return func(cand faults.Schedule) bool {
		m := &memberCheck{members: slices.Clone(base.members), spares: slices.Clone(base.spares), rf: base.rf}
		for _, f := range cand {
			if m.line(f) != "" {
				return false
			}
		}
		return true
	}, nil
}
