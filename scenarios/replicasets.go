package scenarios

import (
	"time"

	"kafkasim/model"
)

// replicasAt is tp's replica set at time t, as the committed metadata
// records had set it by then (the brokers' assignment observations):
// a reassignment moves it, so a power loss long ago is judged by the
// replicas of its time, not by the final ones. Before the first
// observation, or without any, it is the controller's final view.
func (s *Scripted) replicasAt(tp model.TopicPartition, t time.Duration) []model.BrokerID {
	var at *model.AssignmentObservation
	obs := s.Observed.Assignments
	for i := range obs {
		o := &obs[i]
		if o.TP == tp && o.Time <= t && (at == nil || o.PartitionEpoch > at.PartitionEpoch) {
			at = o
		}
	}
	if at != nil {
		return at.Replicas
	}
	ps, _ := s.Partition(tp)
	return ps.Replicas
}
