package model

import "strings"

// MetadataRequest asks any broker which brokers are alive and who leads
// each partition: what a client does at start, periodically
// (metadata.max.age.ms), and after an error such as NOT_LEADER_OR_FOLLOWER.
type MetadataRequest struct {
	CorrelationID int32
	// AllTopics asks for every topic, and Topics is then ignored. A flag,
	// not a nil list, so that "no topics" stays expressible, as in Kafka.
	AllTopics bool
	// Topics are sorted.
	Topics []string
}

// String reads "Metadata t,u corr=1" or "Metadata all corr=1".
func (m MetadataRequest) String() string {
	var b strings.Builder
	b.WriteString("Metadata")
	if m.AllTopics {
		word(&b, "all")
	} else {
		word(&b, strings.Join(m.Topics, ","))
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m MetadataRequest) Digest() uint64 {
	h := request(apiMetadata).Int32(m.CorrelationID).Bool(m.AllTopics).Int(len(m.Topics))
	for _, t := range m.Topics {
		h = h.Str(t)
	}
	return h.Sum()
}

// MetadataResponse is the answering broker's view of the cluster, which may
// be stale: it is what the broker last learnt from the controller.
type MetadataResponse struct {
	CorrelationID int32
	ControllerID  BrokerID
	// Brokers are the live (registered, unfenced) brokers, sorted.
	Brokers []BrokerID
	// Topics are sorted by name.
	Topics []TopicMetadata
}

// TopicMetadata is one topic of a MetadataResponse.
type TopicMetadata struct {
	Topic string
	// Error is UNKNOWN_TOPIC_OR_PARTITION for a topic the broker does not
	// know, with no partitions.
	Error ErrorCode
	// Partitions are sorted by partition. Kafka's MetadataResponse carries
	// no ELR (DescribeTopicPartitions does); here it does, so that a test
	// client sees the whole state.
	Partitions []PartitionState
	// Life tells a topic created again under a deleted topic's name from
	// the one before (0 unless the name was reused): the stand-in for
	// Kafka's topic id, which kafkasim's topics do not have.
	Life int32
}

// String reads "MetadataResponse controller=b0 brokers=[b1 b2] t/0
// leader=b1 epoch=3 ..., t/1 ..., u UNKNOWN_TOPIC_OR_PARTITION corr=1": the
// partitions, and a topic by name only when it has an error or is empty.
func (m MetadataResponse) String() string {
	var b strings.Builder
	b.WriteString("MetadataResponse")
	kv(&b, "controller", m.ControllerID.String())
	kv(&b, "brokers", brokerList(m.Brokers))
	n := 0
	for i := range m.Topics {
		t := &m.Topics[i]
		if t.Error != NoError || len(t.Partitions) == 0 {
			sep(&b, n)
			n++
			word(&b, t.Topic)
			errWord(&b, t.Error)
		}
		for j := range t.Partitions {
			sep(&b, n)
			n++
			word(&b, t.Partitions[j].String())
		}
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m MetadataResponse) Digest() uint64 {
	h := response(apiMetadata).Int32(m.CorrelationID).Broker(m.ControllerID).Brokers(m.Brokers).
		Int(len(m.Topics))
	for i := range m.Topics {
		t := &m.Topics[i]
		h = h.Str(t.Topic).Error(t.Error).partitionStates(t.Partitions)
		if t.Life != 0 {
			// Only a reused name has a life: every answer before topics
			// could be deleted digests as it did.
			h = h.Int(int(t.Life))
		}
	}
	return h.Sum()
}

// CreateTopicsRequest asks the controller to create topics.
type CreateTopicsRequest struct {
	CorrelationID int32
	// Topics are sorted by name.
	Topics []TopicSpec
}

// TopicSpec describes one topic to create.
type TopicSpec struct {
	Name       string
	Partitions int32
	// ReplicationFactor is used when Assignment is empty; the controller
	// then places replicas itself.
	ReplicationFactor int32
	// Assignment, if not empty, gives each partition's replicas in
	// preference order (the first is the preferred leader).
	Assignment [][]BrokerID
	// Configs are topic-level settings by Kafka name (such as
	// min.insync.replicas), sorted by name, overriding the cluster's.
	Configs []ConfigEntry
}

// ConfigEntry is one setting by its Kafka name.
type ConfigEntry struct {
	Name, Value string
}

// String reads "CreateTopics t partitions=3 rf=3 min.insync.replicas=2
// corr=1", with "assign=[b1 b2] [b2 b1]" for a manual assignment.
func (m CreateTopicsRequest) String() string {
	var b strings.Builder
	b.WriteString("CreateTopics")
	for i := range m.Topics {
		t := &m.Topics[i]
		sep(&b, i)
		word(&b, t.Name)
		kvInt(&b, "partitions", int64(t.Partitions))
		kvInt(&b, "rf", int64(t.ReplicationFactor))
		for j, a := range t.Assignment {
			if j == 0 {
				kv(&b, "assign", brokerList(a))
			} else {
				word(&b, brokerList(a))
			}
		}
		for _, c := range t.Configs {
			kv(&b, c.Name, c.Value)
		}
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m CreateTopicsRequest) Digest() uint64 {
	h := request(apiCreateTopics).Int32(m.CorrelationID).Int(len(m.Topics))
	for i := range m.Topics {
		t := &m.Topics[i]
		h = h.Str(t.Name).Int32(t.Partitions).Int32(t.ReplicationFactor).Int(len(t.Assignment))
		for _, a := range t.Assignment {
			h = h.Brokers(a)
		}
		h = h.Int(len(t.Configs))
		for _, c := range t.Configs {
			h = h.Str(c.Name).Str(c.Value)
		}
	}
	return h.Sum()
}

// CreateTopicsResponse answers per topic: NONE, TOPIC_ALREADY_EXISTS,
// INVALID_REPLICATION_FACTOR (more replicas than live brokers), ...
type CreateTopicsResponse struct {
	CorrelationID int32
	Topics        []TopicResult
}

// TopicResult is one topic's outcome.
type TopicResult struct {
	Name  string
	Error ErrorCode
}

// String reads "CreateTopicsResponse t NONE, u TOPIC_ALREADY_EXISTS corr=1".
func (m CreateTopicsResponse) String() string {
	var b strings.Builder
	b.WriteString("CreateTopicsResponse")
	for i, t := range m.Topics {
		sep(&b, i)
		word(&b, t.Name)
		errWord(&b, t.Error)
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m CreateTopicsResponse) Digest() uint64 {
	h := response(apiCreateTopics).Int32(m.CorrelationID).Int(len(m.Topics))
	for _, t := range m.Topics {
		h = h.Str(t.Name).Error(t.Error)
	}
	return h.Sum()
}
