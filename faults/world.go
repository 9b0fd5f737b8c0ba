package faults

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// World is what faults act on: a kernel and the few facts about the system
// under test that selectors need. The scenarios package implements it over
// a cluster; tests implement it over toy nodes. Faults never reach into a
// node: they read the world through these methods, at the moment a fault
// fires, and act through the kernel.
type World interface {
	// Sim is the kernel the faults act on.
	Sim() *sim.Sim
	// Brokers lists the brokers' ids (each is also its kernel node id).
	Brokers() []model.BrokerID
	// Controllers lists the controllers' ids, the active one first.
	Controllers() []model.BrokerID
	// LeaderOf is a partition's current leader, or model.NoBroker.
	LeaderOf(tp model.TopicPartition) model.BrokerID
	// ISR is a partition's current in-sync replica set (leader included).
	ISR(tp model.TopicPartition) []model.BrokerID
	// CoordinatorOf is a consumer group's coordinator, or model.NoBroker
	// (always, until the world has groups).
	CoordinatorOf(group string) model.BrokerID
}

// servers lists the brokers and controllers, sorted, without duplicates:
// the nodes the random partition shapes split. Sorting makes the shapes a
// function of the seed alone, whatever order the world lists them in.
func servers(w World) []model.BrokerID {
	out := append(append([]model.BrokerID(nil), w.Brokers()...), w.Controllers()...)
	slices.Sort(out)
	return slices.Compact(out)
}

// node is the kernel id of a broker or controller id.
func node(b model.BrokerID) sim.NodeID { return sim.NodeID(b) }
