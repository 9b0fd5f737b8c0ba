package model

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
)

// BrokerID names a broker (or a controller) the way Kafka's node.id does.
// In a simulated cluster it is also the node's id in the kernel.
type BrokerID int32

// NoBroker is the "no leader" value, Kafka's -1.
const NoBroker BrokerID = -1

func (b BrokerID) String() string {
	if b == NoBroker {
		return "none"
	}
	return "b" + strconv.Itoa(int(b))
}

// Offset is a position in a partition log. The next offset to read or
// write; Kafka's int64 offsets.
type Offset int64

// NoOffset marks an absent offset (Kafka's -1).
const NoOffset Offset = -1

// Epoch is a leader epoch, a partition epoch, a broker epoch, a producer
// epoch or a group generation: a number that only grows.
type Epoch int32

// NoEpoch is Kafka's -1 for an unknown epoch.
const NoEpoch Epoch = -1

// ProducerID identifies an idempotent producer (KIP-98).
type ProducerID int64

// NoProducerID is the id of a producer without idempotence.
const NoProducerID ProducerID = -1

// TopicPartition names one partition of one topic. Its text form is
// "topic/partition", as in "t/0".
type TopicPartition struct {
	Topic     string
	Partition int32
}

// TP is a short constructor for a TopicPartition.
func TP(topic string, partition int32) TopicPartition {
	return TopicPartition{Topic: topic, Partition: partition}
}

func (tp TopicPartition) String() string {
	return tp.Topic + "/" + strconv.Itoa(int(tp.Partition))
}

// Less orders topic-partitions by topic, then partition, so that code that
// walks a set of them can do so in one fixed order.
func (tp TopicPartition) Less(o TopicPartition) bool {
	if tp.Topic != o.Topic {
		return tp.Topic < o.Topic
	}
	return tp.Partition < o.Partition
}

// Compare orders topic-partitions as Less does, for slices.SortFunc and
// slices.BinarySearchFunc: negative, zero or positive.
func (tp TopicPartition) Compare(o TopicPartition) int {
	// Equal topics first: brokers look partitions up with it for every
	// message, nearly always within one topic, where == is cheaper than an
	// ordered comparison of the names.
	if tp.Topic == o.Topic {
		return cmp.Compare(tp.Partition, o.Partition)
	}
	return strings.Compare(tp.Topic, o.Topic)
}

// ParseTopicPartition reads the "topic/partition" form written by String.
// The topic may itself contain slashes; the partition is after the last one.
func ParseTopicPartition(s string) (TopicPartition, error) {
	i := strings.LastIndexByte(s, '/')
	if i <= 0 || i == len(s)-1 {
		return TopicPartition{}, fmt.Errorf("topic-partition %q: want topic/partition", s)
	}
	p, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || p < 0 {
		return TopicPartition{}, fmt.Errorf("topic-partition %q: partition %q is not a non-negative integer", s, s[i+1:])
	}
	return TopicPartition{Topic: s[:i], Partition: int32(p)}, nil
}

// MarshalText writes the "topic/partition" form, so that a TopicPartition
// can be a JSON object key or value.
func (tp TopicPartition) MarshalText() ([]byte, error) { return []byte(tp.String()), nil }

// UnmarshalText reads the "topic/partition" form. The zero value (a
// finding about no one partition, such as a whole-history anomaly) is
// written by MarshalText as "/0", which ParseTopicPartition rightly
// refuses as a name; it is read back here as the zero value, so that
// every result kafkasim writes can be read again (sweep merge, report).
func (tp *TopicPartition) UnmarshalText(b []byte) error {
	if s := string(b); s == "/0" || s == "" {
		*tp = TopicPartition{}
		return nil
	}
	v, err := ParseTopicPartition(string(b))
	if err != nil {
		return err
	}
	*tp = v
	return nil
}
