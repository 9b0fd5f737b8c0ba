package cluster

import (
	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// groupObserver is the cluster's broker observer with the group part: it
// records the group coordinators' completed generations and committed
// offsets, for the group invariants.
type groupObserver struct{ observer }

var _ broker.GroupObserver = groupObserver{}

func (o groupObserver) GroupStable(b model.BrokerID, g string, epoch, gen model.Epoch, members []group.MemberView) {
	assigned := make([]model.MemberAssignment, len(members))
	for i, m := range members {
		assigned[i] = model.MemberAssignment{MemberID: m.ID, Partitions: m.Assignment}
	}
	o.obs.Generations = append(o.obs.Generations, model.GenerationObservation{Time: o.s.Now(), Broker: b, Epoch: epoch, Group: g, Generation: gen, Members: assigned})
}

func (o groupObserver) CommittedOffsets(b model.BrokerID, g string, epoch model.Epoch, offsets []model.CommittedOffset) {
	for _, co := range offsets {
		o.obs.Committed = append(o.obs.Committed, model.CommittedObservation{Time: o.s.Now(), Broker: b, Epoch: epoch, Group: g, TP: co.TP, Offset: co.Offset})
	}
}

// newObserver is the observer every broker of a cluster reports to.
func newObserver(s *sim.Sim, c *Cluster) broker.Observer {
	return groupObserver{observer{s, c.Observed}}
}
