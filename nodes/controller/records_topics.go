package controller

import (
	"encoding/binary"
	"strings"

	"kafkasim/model"
)

// The records of the topic operations that change a running cluster:
// deleting a topic, adding partitions, changing a topic's configuration.
// Their kinds come after every older one, so that a log without them
// encodes as it did before they existed.
const (
	kindRemoveTopic      recordKind = 10
	kindCreatePartitions recordKind = 11
	kindConfig           recordKind = 12
)

// RemoveTopicRecord deletes a topic and its partitions (Kafka's
// RemoveTopicRecord, written by ReplicationControlManager.deleteTopic).
// Kafka names the topic by its id; kafkasim topics have no ids, so the
// record names it. Brokers that host a replica stop it and delete its log
// when they replay the record (ReplicaManager.applyDelta).
type RemoveTopicRecord struct {
	Name string
}

// CreatePartitionsRecord adds partitions to a topic: Kafka's
// PartitionRecords written by ReplicationControlManager.createPartitions,
// in one record so that a torn log never holds half of them. The new
// partitions follow the existing ones, numbered from the current count.
type CreatePartitionsRecord struct {
	Topic      string
	Partitions []model.PartitionState
}

// ConfigRecord sets one topic-level config (Kafka's ConfigRecord for a
// TOPIC resource, written by
// ConfigurationControlManager.incrementalAlterConfigs for a SET).
type ConfigRecord struct {
	Topic string
	Name  string
	Value string
}

func (RemoveTopicRecord) kind() recordKind      { return kindRemoveTopic }
func (CreatePartitionsRecord) kind() recordKind { return kindCreatePartitions }
func (ConfigRecord) kind() recordKind           { return kindConfig }

// String reads "RemoveTopic u".
func (r RemoveTopicRecord) String() string { return "RemoveTopic " + r.Name }

// String reads "CreatePartitions t [t/3 leader=b1 ..., t/4 ...]".
func (r CreatePartitionsRecord) String() string {
	var b strings.Builder
	b.WriteString("CreatePartitions " + r.Topic)
	writePartitionList(&b, r.Partitions)
	return b.String()
}

// String reads "Config t min.insync.replicas=3".
func (r ConfigRecord) String() string { return "Config " + r.Topic + " " + r.Name + "=" + r.Value }

func (r RemoveTopicRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindRemoveTopic))
	return appendString(b, r.Name)
}

func (r CreatePartitionsRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindCreatePartitions))
	b = appendString(b, r.Topic)
	b = binary.AppendUvarint(b, uint64(len(r.Partitions)))
	for i := range r.Partitions {
		b = appendPartitionState(b, &r.Partitions[i])
	}
	return b
}

func (r ConfigRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindConfig))
	b = appendString(b, r.Topic)
	b = appendString(b, r.Name)
	return appendString(b, r.Value)
}

// appendPartitionState writes a new partition as CreateTopicRecord does.
func appendPartitionState(b []byte, p *model.PartitionState) []byte {
	b = binary.AppendVarint(b, int64(p.TP.Partition))
	b = binary.AppendVarint(b, int64(p.Leader))
	b = binary.AppendVarint(b, int64(p.LeaderEpoch))
	b = binary.AppendVarint(b, int64(p.PartitionEpoch))
	b = appendBrokers(b, p.Replicas)
	b = appendBrokers(b, p.ISR)
	return appendBrokers(b, p.ELR)
}

// partitionState reads what appendPartitionState wrote.
func (d *decoder) partitionState(topic string) model.PartitionState {
	p := model.PartitionState{TP: model.TP(topic, d.int32())}
	p.Leader = model.BrokerID(d.int32())
	p.LeaderEpoch = model.Epoch(d.int32())
	p.PartitionEpoch = model.Epoch(d.int32())
	p.Replicas = d.brokers()
	p.ISR = d.brokers()
	p.ELR = d.brokers()
	return p
}

// topicRecord decodes the records of this file; ok is false for any
// other kind.
func (d *decoder) topicRecord(k recordKind) (Record, bool) {
	switch k {
	case kindRemoveTopic:
		return RemoveTopicRecord{Name: d.string()}, true
	case kindCreatePartitions:
		r := CreatePartitionsRecord{Topic: d.string()}
		n := d.count()
		for i := 0; i < n && d.err == nil; i++ {
			r.Partitions = append(r.Partitions, d.partitionState(r.Topic))
		}
		return r, true
	case kindConfig:
		return ConfigRecord{Topic: d.string(), Name: d.string(), Value: d.string()}, true
	}
	return nil, false
}
