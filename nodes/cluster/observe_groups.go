package cluster

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// GroupObservations are what the group coordinators did, for the group
// invariants: generations completed and committed offsets as each
// coordinator held them.
type GroupObservations struct {
	Generations []GenerationObservation
	Committed   []CommittedObservation
}

// GenerationObservation: at Time, Broker, coordinating Group under the
// offsets partition's leader Epoch, completed Generation with these
// assignments (member id and partitions, join order).
type GenerationObservation struct {
	Time       time.Duration
	Broker     model.BrokerID
	Epoch      model.Epoch
	Group      string
	Generation model.Epoch
	Members    []group.MemberView
}

// CommittedObservation: at Time, coordinator Broker, serving under the
// offsets partition's leader Epoch, held Offset as Group's committed offset
// for TP.
type CommittedObservation struct {
	Time   time.Duration
	Broker model.BrokerID
	Epoch  model.Epoch
	Group  string
	TP     model.TopicPartition
	Offset model.Offset
}

// groupObserver is the cluster's broker observer with the group part.
type groupObserver struct {
	observer
	groups *GroupObservations
}

var _ broker.GroupObserver = groupObserver{}

func (o groupObserver) GroupStable(b model.BrokerID, g string, epoch, gen model.Epoch, members []group.MemberView) {
	o.groups.Generations = append(o.groups.Generations, GenerationObservation{Time: o.s.Now(), Broker: b, Epoch: epoch, Group: g, Generation: gen, Members: slices.Clone(members)})
}

func (o groupObserver) CommittedOffsets(b model.BrokerID, g string, epoch model.Epoch, offsets []model.CommittedOffset) {
	for _, co := range offsets {
		o.groups.Committed = append(o.groups.Committed, CommittedObservation{Time: o.s.Now(), Broker: b, Epoch: epoch, Group: g, TP: co.TP, Offset: co.Offset})
	}
}

// newObserver is the observer every broker of a cluster reports to.
func newObserver(s *sim.Sim, c *Cluster) broker.Observer {
	return groupObserver{observer{s, c.Observed}, c.Groups}
}
