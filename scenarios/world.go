package scenarios

import (
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/sim"
)

// world lets the fault schedule act on a scripted cluster: it resolves
// selectors such as leader-of t/0 from the controller's current view.
type world struct{ s *Scripted }

var _ faults.World = world{}

func (w world) Sim() *sim.Sim             { return w.s.Sim }
func (w world) Brokers() []model.BrokerID { return w.s.Brokers }

// Controllers lists the controllers, the active one first.
func (w world) Controllers() []model.BrokerID {
	active := w.s.ActiveController()
	out := []model.BrokerID{}
	if active != model.NoBroker {
		out = append(out, active)
	}
	for _, id := range w.s.Cluster.Controllers {
		if id != active {
			out = append(out, id)
		}
	}
	return out
}

func (w world) LeaderOf(tp model.TopicPartition) model.BrokerID { return w.s.Leader(tp) }

func (w world) ISR(tp model.TopicPartition) []model.BrokerID {
	ps, _ := w.s.Partition(tp)
	return ps.ISR
}

// CoordinatorOf is the leader, in the controller's view, of the
// __consumer_offsets partition the group id hashes to.
func (w world) CoordinatorOf(group string) model.BrokerID {
	return w.s.Leader(model.TP(broker.OffsetsTopic, broker.PartitionFor(group, w.s.Config.Group.OffsetsTopicPartitions)))
}

// Replicas is a partition's assignment, in preference order, as the
// controller sees it (follower-of, out-of-isr).
func (w world) Replicas(tp model.TopicPartition) []model.BrokerID {
	ps, _ := w.s.Partition(tp)
	return ps.Replicas
}

// MembersOf lists a group's member nodes in creation order (member-of).
func (w world) MembersOf(group string) []model.BrokerID {
	var out []model.BrokerID
	for _, id := range w.s.MembersOf(group) {
		out = append(out, model.BrokerID(id))
	}
	return out
}

var (
	_ faults.GroupWorld   = world{}
	_ faults.ReplicaWorld = world{}
)

// shape describes the cluster to the swarm generator.
func (s *Scripted) shape() faults.Shape {
	return faults.Shape{Brokers: s.Brokers, Controllers: s.Cluster.Controllers, Partitions: s.TPs}
}
