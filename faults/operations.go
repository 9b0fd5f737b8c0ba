package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"kafkasim/model"
)

// Operations are what an operator does to a running cluster, written in a
// schedule beside the faults and fired the same way, at their time:
//
//	at 20s elect-preferred t/0
//	at 20s elect-unclean t/0
//	at 30s reassign t/0 to b1,b2,b4
//	at 35s cancel-reassign t/0
//
// Each is one admin request to the active controller (ElectLeaders,
// AlterPartitionReassignments), which answers as Kafka's does; the answer
// is the event's note, and a refused request is a no-op event. The file
// checks only the form (a partition, registered-looking broker ids, each
// once); whether the cluster accepts the request is the controller's
// answer, as it would be for an admin client. Swarm draws elect-preferred,
// reassign and cancel-reassign when its options name them (SwarmOperations).

// Operator is a World that runs operations. Each call sends the request to
// the active controller, and returns that controller (NoBroker when there
// is none) and its answer.
type Operator interface {
	// ElectLeader runs ElectLeaders for tp, PREFERRED or UNCLEAN.
	ElectLeader(tp model.TopicPartition, unclean bool) (model.BrokerID, model.ErrorCode)
	// Reassign runs AlterPartitionReassignments for tp: to replicas, or
	// a cancellation when replicas is nil.
	Reassign(tp model.TopicPartition, replicas []model.BrokerID) (model.BrokerID, model.ErrorCode)
}

// operation reads an operation's partition and, for reassign, "to" and
// its replicas.
func (c *cursor) operation(f *Fault, spec kindSpec) error {
	tp, err := parseTP(c.next())
	if err != nil {
		return err
	}
	f.TP = tp
	if spec.args != argsReassign {
		return nil
	}
	if t := c.next(); t != "to" {
		return fmt.Errorf("want \"to b1,b2,...\" after %q, got %s", "reassign "+tp.String(), quoteTok(t))
	}
	for {
		t := c.next()
		id, ok := parseBrokerID(t)
		if !ok {
			return fmt.Errorf("bad replica %s: want a broker id such as b2", quoteTok(t))
		}
		f.Replicas = append(f.Replicas, id)
		if c.peek() != "," {
			return nil
		}
		c.next()
	}
}

// parseBrokerID reads "b2" or "2".
func parseBrokerID(t string) (model.BrokerID, bool) {
	num := strings.TrimPrefix(t, "b")
	id, err := strconv.ParseInt(num, 10, 32)
	if err != nil || id < 0 || num == "" || num[0] == '+' {
		return model.NoBroker, false
	}
	return model.BrokerID(id), true
}

// validateOperation checks an operation's fields, and that a fault has
// none of them.
func (f Fault) validateOperation(spec kindSpec) error {
	if err := f.validateTopicOperation(spec); err != nil || isTopicArgs(spec.args) {
		return err
	}
	if spec.args == argsRounds {
		return f.validateRolling()
	}
	if isMemberArgs(spec.args) {
		if f.TP != (model.TopicPartition{}) || f.Replicas != nil {
			return fmt.Errorf("%s takes no partition or replicas", f.Kind)
		}
		return f.validateMemberOperation()
	}
	if !f.Kind.IsOperation() {
		if f.TP != (model.TopicPartition{}) || f.Replicas != nil {
			return fmt.Errorf("%s takes no partition or replicas", f.Kind)
		}
		return nil
	}
	if f.TP.Topic == "" {
		return fmt.Errorf("%s needs a partition, as in t/0", f.Kind)
	}
	if (spec.args == argsReassign) != (len(f.Replicas) > 0) {
		if spec.args == argsReassign {
			return fmt.Errorf("reassign needs replicas, as in \"reassign t/0 to b1,b2,b4\"")
		}
		return fmt.Errorf("%s takes no replicas", f.Kind)
	}
	for i, id := range f.Replicas {
		if slices.Contains(f.Replicas[:i], id) {
			return fmt.Errorf("reassign %v: %v is named twice", f.TP, id)
		}
	}
	return nil
}

// replicaList writes "b1,b2,b4", the form the parser reads.
func replicaList(ids []model.BrokerID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return strings.Join(parts, ",")
}

// operate fires an operation: the request goes to the active controller,
// and the event records that controller and its answer.
func (n *Nemesis) operate(a *armed, edge Edge) {
	op := n.w.(Operator) // Apply refuses operations in a world without one
	f := a.f
	var ctrl model.BrokerID
	var code model.ErrorCode
	switch f.Kind {
	case KindElectPreferred, KindElectUnclean:
		ctrl, code = op.ElectLeader(f.TP, f.Kind == KindElectUnclean)
	case KindReassign:
		ctrl, code = op.Reassign(f.TP, slices.Clone(f.Replicas))
	case KindCancelReassign:
		ctrl, code = op.Reassign(f.TP, nil)
	case KindAddBroker, KindDecommission:
		ctrl, code = n.operateMember(f)
	case KindRollingRestart:
		ctrl, code = n.operateRolling(a)
	default:
		ctrl, code = n.operateTopic(f)
	}
	if ctrl == model.NoBroker || code != model.NoError {
		a.noop = true
		why := "no active controller"
		if ctrl != model.NoBroker {
			why = ctrl.String() + " refused: " + code.String()
		}
		n.record(a, edge, nil, why)
		return
	}
	a.nodes = []model.BrokerID{ctrl}
	n.record(a, edge, a.nodes, code.String())
}
