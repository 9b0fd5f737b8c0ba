package broker

import "kafkasim/model"

// AssignmentObserver is an Observer that also wants the replica sets the
// metadata log sets: each record that creates a partition or moves its
// replicas (a reassignment's start, completion or cancellation), as this
// broker replays it, one call per record. The checkers follow a
// partition's replica set over the run from them (which replicas a final
// log must rejoin, whether a replica left before its replacement was in
// the ISR). Every broker replays every record it does not restore from a
// snapshot, so the same record comes from several brokers; the Time is
// left to the observer.
type AssignmentObserver interface {
	Observer
	ReplicaSetChanged(broker model.BrokerID, a model.AssignmentObservation)
}

// DeletionObserver is an Observer that also wants the topic deletions the
// metadata log commits, as this broker replays them (the record's offset
// tells the copies from several brokers apart).
type DeletionObserver interface {
	Observer
	TopicDeleted(broker model.BrokerID, topic string, offset int64)
}
