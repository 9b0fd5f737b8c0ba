package faults

import (
	"fmt"
	"strconv"
	"strings"

	"kafkasim/model"
)

// Topic operations, written in a schedule beside the faults:
//
//	at 20s create-topic u 6 3               # name, partitions, replication factor
//	at 30s add-partitions u 12              # the new total
//	at 35s alter-config u min.insync.replicas=3
//	at 40s delete-topic u
//
// Each is one admin request to the active controller (CreateTopics,
// CreatePartitions, IncrementalAlterConfigs SET, DeleteTopics), answered
// as Kafka answers it: the answer is the event's note, and a refused
// request (TOPIC_ALREADY_EXISTS, UNKNOWN_TOPIC_OR_PARTITION,
// INVALID_PARTITIONS, INVALID_REPLICATION_FACTOR, INVALID_CONFIG, ...) is
// a no-op event. The file checks the form only: a topic name Kafka could
// accept, counts that are positive numbers, a config written name=value,
// and no deletion of an internal topic (kafka-topics.sh refuses that
// before it asks: "Topic __consumer_offsets is a kafka internal topic and
// is not allowed to be marked for deletion").

// TopicOperator is a World that runs topic operations. Each call sends
// the request to the active controller and returns that controller
// (NoBroker when there is none) and its answer.
type TopicOperator interface {
	// CreateTopic runs CreateTopics for one topic.
	CreateTopic(name string, partitions, replicationFactor int32) (model.BrokerID, model.ErrorCode)
	// DeleteTopic runs DeleteTopics for one topic.
	DeleteTopic(name string) (model.BrokerID, model.ErrorCode)
	// CreatePartitions runs CreatePartitions: the topic grows to count.
	CreatePartitions(name string, count int32) (model.BrokerID, model.ErrorCode)
	// AlterConfig runs IncrementalAlterConfigs, SET of one topic config.
	AlterConfig(name string, entry model.ConfigEntry) (model.BrokerID, model.ErrorCode)
}

// isTopicArgs reports whether a takes a topic operation's arguments.
func isTopicArgs(a args) bool {
	return a == argsCreateTopic || a == argsTopic || a == argsAddPartitions || a == argsAlterConfig
}

// internalTopics are Kafka's internal topics (Topic.isInternal).
var internalTopics = []string{"__consumer_offsets", "__transaction_state"}

// topicOperation reads a topic operation's arguments.
func (c *cursor) topicOperation(f *Fault, spec kindSpec) error {
	f.Topic = c.next()
	if err := checkTopicName(f.Topic); err != nil {
		return err
	}
	var err error
	switch spec.args {
	case argsCreateTopic:
		if f.Count, err = c.count("partitions"); err == nil {
			f.RF, err = c.count("replication factor")
		}
	case argsAddPartitions:
		f.Count, err = c.count("partition count")
	case argsAlterConfig:
		t := c.next()
		name, value, ok := strings.Cut(t, "=")
		if !ok || name == "" || value == "" {
			return fmt.Errorf("bad config %s: want name=value, as in min.insync.replicas=3", quoteTok(t))
		}
		f.Config = model.ConfigEntry{Name: name, Value: value}
	}
	return err
}

// count reads a positive count: Kafka's CreateTopics and CreatePartitions
// take no zero or negative partition count or replication factor except
// -1 for the default, which a schedule has no use for.
func (c *cursor) count(what string) (int32, error) {
	t := c.next()
	n, err := strconv.ParseInt(t, 10, 32)
	if err != nil || n < 1 || t[0] == '+' {
		return 0, fmt.Errorf("bad %s %s: want a positive number", what, quoteTok(t))
	}
	return int32(n), nil
}

// CheckTopicName applies Kafka's topic name rules, for a caller that takes
// topic names from elsewhere than a schedule (an experiment's swarm).
func CheckTopicName(name string) error { return checkTopicName(name) }

// checkTopicName applies Kafka's topic name rules (Topic.validate): not
// empty, "." or "..", at most 249 characters of [a-zA-Z0-9._-].
func checkTopicName(name string) error {
	if name == "" {
		return fmt.Errorf("missing topic name")
	}
	if name == "." || name == ".." || len(name) > 249 {
		return fmt.Errorf("bad topic name %q", name)
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		if !(ch == '.' || ch == '_' || ch == '-' || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')) {
			return fmt.Errorf("bad topic name %q: Kafka allows only letters, digits, '.', '_' and '-'", name)
		}
	}
	return nil
}

// validateTopicOperation checks a topic operation's fields, and that any
// other kind has none of them.
func (f Fault) validateTopicOperation(spec kindSpec) error {
	if !isTopicArgs(spec.args) {
		count := f.Count != 0 && spec.args != argsRounds // rolling-restart's rounds
		if f.Topic != "" || count || f.RF != 0 || f.Config != (model.ConfigEntry{}) {
			return fmt.Errorf("%s takes no topic, count or config", f.Kind)
		}
		return nil
	}
	if f.TP != (model.TopicPartition{}) || f.Replicas != nil {
		return fmt.Errorf("%s takes a topic, not a partition or replicas", f.Kind)
	}
	if err := checkTopicName(f.Topic); err != nil {
		return fmt.Errorf("%s: %v", f.Kind, err)
	}
	wantCount := spec.args == argsCreateTopic || spec.args == argsAddPartitions
	switch {
	case wantCount && f.Count <= 0:
		return fmt.Errorf("%s %s: needs a positive partition count", f.Kind, f.Topic)
	case !wantCount && f.Count != 0:
		return fmt.Errorf("%s %s: takes no count", f.Kind, f.Topic)
	case (spec.args == argsCreateTopic) != (f.RF > 0) || f.RF < 0:
		return fmt.Errorf("%s %s: the replication factor is create-topic's alone, and positive", f.Kind, f.Topic)
	case (spec.args == argsAlterConfig) != (f.Config.Name != ""):
		return fmt.Errorf("%s %s: a config name=value is alter-config's alone", f.Kind, f.Topic)
	case spec.args == argsAlterConfig && f.Config.Value == "":
		return fmt.Errorf("alter-config %s %s: empty value", f.Topic, f.Config.Name)
	case spec.args == argsCreateTopic && f.RF > 32767:
		return fmt.Errorf("create-topic %s: replication factor %d above 32767 (an INT16)", f.Topic, f.RF)
	}
	if f.Kind == KindDeleteTopic {
		for _, t := range internalTopics {
			if f.Topic == t {
				return fmt.Errorf("delete-topic %s: an internal topic may not be deleted", t)
			}
		}
	}
	return nil
}

// topicWhat writes a topic operation's arguments, the form the parser
// reads.
func (f Fault) topicWhat(spec kindSpec) string {
	switch spec.args {
	case argsCreateTopic:
		return " " + f.Topic + " " + itoa32(f.Count) + " " + itoa32(f.RF)
	case argsAddPartitions:
		return " " + f.Topic + " " + itoa32(f.Count)
	case argsAlterConfig:
		return " " + f.Topic + " " + f.Config.Name + "=" + f.Config.Value
	}
	return " " + f.Topic
}

func itoa32(n int32) string { return strconv.FormatInt(int64(n), 10) }

// operateTopic fires a topic operation on a TopicOperator.
func (n *Nemesis) operateTopic(f Fault) (model.BrokerID, model.ErrorCode) {
	op := n.w.(TopicOperator) // Apply refuses topic operations in a world without one
	switch f.Kind {
	case KindCreateTopic:
		return op.CreateTopic(f.Topic, f.Count, f.RF)
	case KindDeleteTopic:
		return op.DeleteTopic(f.Topic)
	case KindAddPartitions:
		return op.CreatePartitions(f.Topic, f.Count)
	case KindAlterConfig:
		return op.AlterConfig(f.Topic, f.Config)
	}
	panic("faults: not a topic operation: " + string(f.Kind))
}
