package scenarios

import (
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/controller"
)

// The world runs a schedule's topic operations (create-topic,
// delete-topic, add-partitions, alter-config) as admin requests to the
// active controller, as it runs the partition operations (operations.go).
// The counts a schedule gives are positive: 0, which the controller reads
// as "the default" for a Go literal, never reaches it from a schedule.

var _ faults.TopicOperator = world{}

// CreateTopic runs CreateTopics for one topic.
func (w world) CreateTopic(name string, partitions, rf int32) (model.BrokerID, model.ErrorCode) {
	spec := model.TopicSpec{Name: name, Partitions: partitions, ReplicationFactor: rf}
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.CreateTopic(nil, spec) })
}

// DeleteTopic runs DeleteTopics for one topic.
func (w world) DeleteTopic(name string) (model.BrokerID, model.ErrorCode) {
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.DeleteTopic(nil, name) })
}

// CreatePartitions runs CreatePartitions for one topic.
func (w world) CreatePartitions(name string, count int32) (model.BrokerID, model.ErrorCode) {
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.CreatePartitions(nil, name, count) })
}

// AlterConfig runs IncrementalAlterConfigs for one topic config.
func (w world) AlterConfig(name string, e model.ConfigEntry) (model.BrokerID, model.ErrorCode) {
	return w.admin(func(c *controller.Controller) model.ErrorCode { return c.AlterTopicConfig(nil, name, e.Name, e.Value) })
}
