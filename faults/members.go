package faults

import (
	"fmt"

	"kafkasim/model"
)

// Membership operations, written in a schedule beside the faults:
//
//	at 20s add-broker b4      # a spare broker joins the running cluster
//	at 40s decommission b2    # its replicas moved off, then it leaves
//
// add-broker starts a spare broker node (one the world built and left
// down): it registers with the active controller, is unfenced once it has
// caught up with the metadata log, and holds no replica until a
// reassignment or a new topic places one there, as in Kafka.
//
// decommission is what an operator does, since Kafka has no single
// request for it: reassign every replica off the broker
// (AlterPartitionReassignments, targets chosen by the world), wait until
// the reassignments complete, shut the broker down cleanly (a controlled
// shutdown), then UnregisterBroker. It runs over time, in the world
// (MemberOperator); from the moment the broker is stopped for good it is
// decommissioned: no window's end and no heal restarts it.
//
// Both name a fixed broker id. The file checks the form; whether the
// cluster has such a spare, or enough brokers left for the replication
// factor, is the check before a run (a spare the cluster does not have,
// a broker added twice or decommissioned twice, the last brokers
// decommissioned) or, when the schedule reaches the world otherwise, the
// world's answer, the event's note.

// MemberOperator is a World that runs membership operations. Each call
// returns the node that answered (the active controller, NoBroker when
// there is none) and its answer; AddBroker answers NoError once the spare
// is started, and Decommission once its script has started (it runs on,
// in the world). The script tells the nemesis its steps through
// progress: each is a line of the fault log, and the one with retire set
// is the broker stopped for good, which the nemesis then leaves down.
type MemberOperator interface {
	AddBroker(id model.BrokerID) (model.BrokerID, model.ErrorCode)
	Decommission(id model.BrokerID, progress func(step string, retire bool)) (model.BrokerID, model.ErrorCode)
}

// isMemberArgs reports whether a takes a membership operation's argument.
func isMemberArgs(a args) bool { return a == argsBroker }

// memberOperation reads a membership operation's broker.
func (c *cursor) memberOperation(f *Fault) error {
	t := c.next()
	id, ok := parseBrokerID(t)
	if !ok {
		return fmt.Errorf("bad broker %s: want a broker id such as b4", quoteTok(t))
	}
	f.Target = Node(id)
	return nil
}

// validateMemberOperation checks that a membership operation names one
// fixed broker and nothing else.
func (f Fault) validateMemberOperation() error {
	if f.Target.Kind != SelNode || !f.Peer.IsZero() || f.Groups != nil {
		return fmt.Errorf("%s names one broker by id, as in \"%s b4\"", f.Kind, f.Kind)
	}
	return nil
}

// operateMember fires a membership operation on a MemberOperator.
func (n *Nemesis) operateMember(f Fault) (model.BrokerID, model.ErrorCode) {
	op := n.w.(MemberOperator) // Apply refuses membership operations in a world without one
	id := f.Target.Node
	switch f.Kind {
	case KindAddBroker:
		ctrl, code := op.AddBroker(id)
		if code == model.NoError {
			delete(n.outside, id)
		}
		return ctrl, code
	case KindDecommission:
		return op.Decommission(id, func(step string, retire bool) {
			if retire {
				n.retire(id)
			}
			n.log = append(n.log, Event{Time: n.s.Now(), Edge: EdgeAt, Fault: f, Nodes: []model.BrokerID{id}, Note: step})
		})
	}
	panic("faults: not a membership operation: " + string(f.Kind))
}

// SetOutside names the nodes that are not (or not yet) members of the
// world's cluster, the spare brokers: crashes, restarts, window ends and
// the heal leave them alone until an add-broker makes them members.
func (n *Nemesis) SetOutside(ids []model.BrokerID) {
	for _, id := range ids {
		n.outside[id] = true
	}
}

// retire makes a decommissioned broker an outsider for good: nothing the
// nemesis does restarts it, and the heal forgets it was crashed.
func (n *Nemesis) retire(id model.BrokerID) {
	n.outside[id] = true
	delete(n.crashed, id)
	delete(n.down, id)
}

// memberOperation draws a membership operation's broker, the drawn-th of
// its kind in this schedule: add-broker names the shape's spares in id
// order, one each, and stops when they are all added; decommission names
// distinct brokers the cluster starts with, drawn, and stops while as
// many remain as the replication factor (so that every partition keeps a
// full replica set, whatever was added). It is false when there is none
// left to name.
func (d *drawer) memberOperation(f *Fault, drawn int) bool {
	switch f.Kind {
	case KindAddBroker:
		if drawn >= len(d.shape.Spares) {
			return false
		}
		f.Target = Node(d.shape.Spares[drawn])
		return true
	}
	rf := d.shape.ReplicationFactor
	if rf <= 0 {
		rf = 3
	}
	if drawn >= len(d.shape.Brokers)-rf {
		return false
	}
	if d.gone == nil {
		d.gone = map[model.BrokerID]bool{}
	}
	var left []model.BrokerID
	for _, id := range d.shape.Brokers {
		if !d.gone[id] {
			left = append(left, id)
		}
	}
	id := left[d.r.IntN(len(left))]
	d.gone[id] = true
	f.Target = Node(id)
	return true
}
