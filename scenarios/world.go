package scenarios

import (
	"slices"

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
	_ faults.EventWorld   = world{}
)

// waitingFault is a triggered fault's callback, waiting for its event.
type waitingFault struct {
	event string
	tp    model.TopicPartition
	fn    func()
}

// OnEvent calls fn once, at the first event of the kind on tp from now
// on: an acknowledged send (the history), a broker reporting leadership,
// or a leader reporting an ISR other than the one it reported last (the
// brokers' observations). The hooks are set only once a fault waits, so
// a run without triggered faults is not touched.
func (w world) OnEvent(event string, tp model.TopicPartition, fn func()) {
	s := w.s
	if len(s.waiting) == 0 {
		s.History.NotifySendOK(func(tp model.TopicPartition) { s.happened(faults.EventAck, tp) })
		s.Observed.Notify = func(event string, tp model.TopicPartition) {
			if event == faults.EventAlterPartition && !s.isrChanged(tp) {
				return
			}
			s.happened(event, tp)
		}
	}
	s.waiting = append(s.waiting, waitingFault{event: event, tp: tp, fn: fn})
}

// happened calls, in arming order, every waiting callback for (event,
// tp) and forgets them; the hooks go when nothing waits.
func (s *Scripted) happened(event string, tp model.TopicPartition) {
	var fire []func()
	kept := s.waiting[:0]
	for _, wf := range s.waiting {
		if wf.event == event && wf.tp == tp {
			fire = append(fire, wf.fn)
		} else {
			kept = append(kept, wf)
		}
	}
	s.waiting = kept
	if len(s.waiting) == 0 {
		s.History.NotifySendOK(nil)
		s.Observed.Notify = nil
	}
	for _, fn := range fire {
		fn()
	}
}

// isrChanged says whether the latest ISR observation of tp differs from
// the one before it (a first one counts as a change).
func (s *Scripted) isrChanged(tp model.TopicPartition) bool {
	obs := s.Observed.ISRs
	var last, prev []model.BrokerID
	n := 0
	for i := len(obs) - 1; i >= 0 && n < 2; i-- {
		if obs[i].TP == tp {
			if n == 0 {
				last = obs[i].ISR
			} else {
				prev = obs[i].ISR
			}
			n++
		}
	}
	return n < 2 || !slices.Equal(slices.Sorted(slices.Values(last)), slices.Sorted(slices.Values(prev)))
}

// shape describes the cluster to the swarm generator.
func (s *Scripted) shape() faults.Shape {
	// The transaction coordinators' partitions too, where there are
	// transactional producers: their leaders are the coordinators.
	tps := s.TPs
	if coord := s.TxnCoordinatorTPs(); len(coord) > 0 {
		tps = append(slices.Clone(s.TPs), coord...)
	}
	return faults.Shape{Brokers: s.Brokers, Controllers: s.Cluster.Controllers, Partitions: tps,
		ReplicationFactor: int(s.Config.Broker.DefaultReplicationFactor), Spares: s.Spares}
}

// RackNodes is the fixture's (rack r1).
func (w world) RackNodes(rack string) []model.BrokerID { return w.s.RackNodes(rack) }

var _ faults.RackWorld = world{}
