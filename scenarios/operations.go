package scenarios

import (
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/controller"
	"kafkasim/sim"
)

// The world runs a schedule's operations (elect-preferred, elect-unclean,
// reassign, cancel-reassign) as admin requests to the active controller,
// the way an admin client's request reaches it. A paused active controller
// answers nothing: the request times out (REQUEST_TIMED_OUT), as a
// client's would.

var _ faults.Operator = world{}

// ElectLeader runs ElectLeaders for one partition.
func (w world) ElectLeader(tp model.TopicPartition, unclean bool) (model.BrokerID, model.ErrorCode) {
	kind := controller.ElectPreferred
	if unclean {
		kind = controller.ElectUnclean
	}
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.ElectLeader(nil, tp, kind) })
}

// Reassign runs AlterPartitionReassignments for one partition (nil
// replicas: cancel).
func (w world) Reassign(tp model.TopicPartition, replicas []model.BrokerID) (model.BrokerID, model.ErrorCode) {
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.AlterPartitionReassignment(nil, tp, replicas) })
}

// admin hands one request to the active controller.
func (w world) admin(request func(*controller.Controller) model.ErrorCode) (model.BrokerID, model.ErrorCode) {
	c := w.s.ControllerNode()
	if c == nil {
		return model.NoBroker, model.NotController
	}
	if w.s.Sim.IsPaused(sim.NodeID(c.ID())) {
		return c.ID(), model.RequestTimedOut
	}
	return c.ID(), request(c)
}
