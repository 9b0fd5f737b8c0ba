package scenarios

import (
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/controller"
	"kafkasim/sim"
)

// The world runs a schedule's membership operations (faults/members.go).
//
// add-broker starts a spare broker node; it registers and joins on its
// own (fixture.Cluster.AddBroker).
//
// decommission is an operator's script, as Kafka has no single request
// for it: kafka-reassign-partitions.sh moving every replica off the
// broker, its --verify run until nothing is left to move, then the broker
// stopped cleanly (a controlled shutdown) and kafka-cluster.sh
// unregister. The script looks at the active controller every
// decommissionPoll and, each time:
//
//  1. for every partition that still has the broker among its replicas
//     and is not already moving it off, asks for a reassignment
//     (AlterPartitionReassignments) to the same replicas with the broker
//     replaced by a target: the registered, unfenced broker, neither the
//     partition's replica nor being decommissioned, that holds the fewest
//     replicas (ties: the lowest id), so the choice is the cluster's state
//     and nothing else. A reassignment someone else started, cancelled or
//     pointed back at the broker is moved again at the next look;
//  2. once no partition has the broker as a replica, stops it for good
//     (the nemesis retires it: no window's end, no heal restarts it);
//  3. once it is down, asks the controller to unregister it
//     (UnregisterBroker), again at every look until its registration is
//     gone.
//
// The script keeps running through the liveness phase, as an operator's
// would, and gives up after decommissionLooksMax looks.

// decommissionPoll is how often the script looks: an operator's loop of
// kafka-reassign-partitions.sh --verify, sped up to the run's scale.
const decommissionPoll = time.Second

// decommissionLooksMax bounds the script: ten minutes of looks, far past
// every run's end.
const decommissionLooksMax = 600

// decommissionStep is where a decommission script stands.
type decommissionStep uint8

const (
	stepMoving        decommissionStep = iota // replicas still to move off
	stepStopping                              // stopped for good, waiting until it is down
	stepUnregistering                         // down: UnregisterBroker until it is gone
	stepDone
)

// decommission is one broker's decommission script.
type decommission struct {
	id       model.BrokerID
	step     decommissionStep
	looks    int
	progress func(step string, retire bool)
}

var _ faults.MemberOperator = world{}

// AddBroker starts a spare broker. It answers with the broker itself (the
// request goes to no controller), or DUPLICATE_BROKER_REGISTRATION for a
// broker that is a member already or was decommissioned, as a second
// process with a registered node.id is refused.
func (w world) AddBroker(id model.BrokerID) (model.BrokerID, model.ErrorCode) {
	if err := w.s.Cluster.AddBroker(id); err != nil {
		return id, model.DuplicateBrokerRegistration
	}
	return id, model.NoError
}

// Decommission starts the decommission script of a member broker. The
// active controller answers BROKER_ID_NOT_REGISTERED for a broker it has
// not registered or that is not a member (a spare, one already
// decommissioned or being so), and INVALID_REPLICATION_FACTOR when the
// registered brokers left would be fewer than a partition's replicas:
// AlterPartitionReassignments could not place them
// (ReplicationControlManager.validateManualPartitionAssignment needs that
// many registered brokers, and CreateTopics answers a replication factor
// above them so).
func (w world) Decommission(id model.BrokerID, progress func(string, bool)) (model.BrokerID, model.ErrorCode) {
	s := w.s
	return w.admin(func(c *controller.Controller) model.ErrorCode {
		if !slices.Contains(s.Brokers, id) || s.decommissioning[id] || !registered(c, id) {
			return model.BrokerIDNotRegistered
		}
		if len(s.placeable(c, id, false)) < maxReplicas(c) {
			return model.InvalidReplicationFactor
		}
		if s.decommissioning == nil {
			s.decommissioning = map[model.BrokerID]bool{}
		}
		s.decommissioning[id] = true
		d := &decommission{id: id, progress: progress}
		s.decommissions = append(s.decommissions, d)
		s.Sim.At(s.Sim.Now(), "decommission "+id.String(), func() { s.decommissionLook(d) })
		return model.NoError
	})
}

// decommissionLook is one look of the script; it schedules the next.
func (s *Scripted) decommissionLook(d *decommission) {
	d.looks++
	c := s.ControllerNode()
	if c != nil && !s.Sim.IsPaused(sim.NodeID(c.ID())) {
		s.decommissionStep(c, d)
	}
	if d.step == stepDone {
		return
	}
	if d.looks >= decommissionLooksMax {
		d.progress("gave up after "+(decommissionPoll*decommissionLooksMax).String(), false)
		return
	}
	s.Sim.At(s.Sim.Now()+decommissionPoll, "decommission "+d.id.String(), func() { s.decommissionLook(d) })
}

// decommissionStep does what the script's step calls for.
func (s *Scripted) decommissionStep(c *controller.Controller, d *decommission) {
	nid := sim.NodeID(d.id)
	if hosting := s.moveOff(c, d.id); hosting > 0 {
		return // step 1, also after the stop: a replica pointed back
	}
	switch d.step {
	case stepMoving:
		d.step = stepStopping
		d.progress("no replica left on it: stopped for good (controlled shutdown)", true)
		s.Cluster.Retire(d.id)
		s.Sim.Shutdown(nid)
	case stepStopping:
		if s.Sim.IsUp(nid) && !s.Sim.IsStopping(nid) {
			// Running again: a window's end asked for a restart while an
			// earlier stop was still under way, and the kernel restarted
			// it once that stop ended (members-under-chaos 92600208).
			// Stopped for good means stopped again.
			s.Sim.Shutdown(nid)
			return
		}
		if !s.Sim.IsUp(nid) && !s.Sim.IsStopping(nid) {
			d.step = stepUnregistering
			d.progress("down: UnregisterBroker", false)
			c.UnregisterBroker(nil, d.id)
		}
	case stepUnregistering:
		if !registered(c, d.id) {
			d.step = stepDone
			d.progress("unregistered: decommissioned", false)
			return
		}
		c.UnregisterBroker(nil, d.id)
	}
}

// moveOff asks for a reassignment of every partition that has id among
// its replicas and is not already moving it off, and returns how many
// partitions still have it as a replica.
func (s *Scripted) moveOff(c *controller.Controller, id model.BrokerID) int {
	removing := map[model.TopicPartition][]model.BrokerID{}
	for _, r := range c.ListPartitionReassignments() {
		removing[r.TP] = r.Removing
	}
	load := replicaLoad(c)
	hosting := 0
	for _, ps := range c.Partitions() {
		if !slices.Contains(ps.Replicas, id) {
			continue
		}
		hosting++
		if slices.Contains(removing[ps.TP], id) {
			continue // moving off already: wait for it to complete
		}
		target := withoutAll(ps.Replicas, removing[ps.TP])
		to, ok := s.target(c, id, target, load)
		switch {
		case ok:
			target[slices.Index(target, id)] = to
		case len(target) > int(s.Config.Broker.DefaultReplicationFactor):
			// More replicas than the replication factor (a cancelled
			// reassignment that had replaced another keeps the first
			// one's new replicas: KIP-455 reverts only the last) and no
			// broker to take this one: it goes without a replacement.
			target = slices.DeleteFunc(target, func(b model.BrokerID) bool { return b == id })
		default:
			continue // no broker to take it now (fenced ones): next look
		}
		if c.AlterPartitionReassignment(nil, ps.TP, target) == model.NoError && ok {
			load[to]++
		}
	}
	return hosting
}

// target is the broker a replica of id moves to: among the placeable
// brokers (registered, unfenced, not being decommissioned) that are not
// in the partition's target replicas (one a reassignment in progress is
// removing may stay instead), the one with the fewest replicas, the
// lowest id on a tie.
func (s *Scripted) target(c *controller.Controller, id model.BrokerID, replicas []model.BrokerID, load map[model.BrokerID]int) (model.BrokerID, bool) {
	best, found := model.NoBroker, false
	for _, b := range s.placeable(c, id, true) {
		if slices.Contains(replicas, b) {
			continue
		}
		if !found || load[b] < load[best] {
			best, found = b, true
		}
	}
	return best, found
}

// placeable lists, in id order, the registered brokers other than id that
// a decommission may move replicas to: members not being decommissioned,
// and with unfenced, only those the controller has unfenced.
func (s *Scripted) placeable(c *controller.Controller, id model.BrokerID, unfenced bool) []model.BrokerID {
	var out []model.BrokerID
	for _, b := range c.Brokers() {
		if b.ID == id || s.decommissioning[b.ID] || !slices.Contains(s.Brokers, b.ID) || (unfenced && b.Fenced) {
			continue
		}
		out = append(out, b.ID)
	}
	return out
}

// registered reports whether the controller has a registration of id.
func registered(c *controller.Controller, id model.BrokerID) bool {
	return slices.ContainsFunc(c.Brokers(), func(b controller.BrokerState) bool { return b.ID == id })
}

// replicaLoad counts each broker's replicas over every partition.
func replicaLoad(c *controller.Controller) map[model.BrokerID]int {
	load := map[model.BrokerID]int{}
	for _, ps := range c.Partitions() {
		for _, r := range ps.Replicas {
			load[r]++
		}
	}
	return load
}

// maxReplicas is the largest replica count of a partition, its target's
// during a reassignment (the replicas it keeps once it completes).
func maxReplicas(c *controller.Controller) int {
	removing := map[model.TopicPartition]int{}
	for _, r := range c.ListPartitionReassignments() {
		removing[r.TP] = len(r.Removing)
	}
	n := 0
	for _, ps := range c.Partitions() {
		n = max(n, len(ps.Replicas)-removing[ps.TP])
	}
	return n
}

// withoutAll is xs minus every member of drop, as a new slice.
func withoutAll(xs, drop []model.BrokerID) []model.BrokerID {
	out := make([]model.BrokerID, 0, len(xs))
	for _, x := range xs {
		if !slices.Contains(drop, x) {
			out = append(out, x)
		}
	}
	return out
}

// stepNames say where a script stands, for a liveness report.
var stepNames = [...]string{
	stepMoving:        "its replicas still moving off",
	stepStopping:      "stopping",
	stepUnregistering: "down, not yet unregistered",
	stepDone:          "done",
}

// decommissionStuck is the liveness phase's look at the decommissions: a
// script started before the heal must finish within the bound, as the
// reassignments it waits for and the controller it asks are whole again;
// "" when every one has.
func (s *Scripted) decommissionStuck() string {
	var stuck []string
	for _, d := range s.decommissions {
		if d.step != stepDone {
			stuck = append(stuck, "decommission of "+d.id.String()+" not finished: "+stepNames[d.step]+s.stillHosted(d.id))
		}
	}
	return strings.Join(stuck, "; ")
}

// stillHosted names, for a stuck report, the partitions that still have
// id among their replicas, with their reassignment in progress if any.
func (s *Scripted) stillHosted(id model.BrokerID) string {
	c := s.ControllerNode()
	if c == nil {
		return ""
	}
	moving := map[model.TopicPartition]controller.Reassignment{}
	for _, r := range c.ListPartitionReassignments() {
		moving[r.TP] = r
	}
	var out []string
	for _, ps := range c.Partitions() {
		if !slices.Contains(ps.Replicas, id) {
			continue
		}
		what := ps.TP.String() + " replicas " + model.ListString(ps.Replicas) + " isr " + model.ListString(ps.ISR)
		if r, ok := moving[ps.TP]; ok {
			what += " adding " + model.ListString(r.Adding) + " removing " + model.ListString(r.Removing)
		}
		out = append(out, what)
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, ", ") + ")"
}
