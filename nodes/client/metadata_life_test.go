package client

import (
	"testing"

	"kafkasim/model"
)

// TestMetadataTakesARecreatedTopic: a cached partition ignores an answer
// with an older leader epoch (a stale broker, KIP-320), unless the answer
// is of a topic created again under the name (a higher life, Kafka's new
// topic id), whose epochs start over; an answer of the older life after
// that is the stale one.
func TestMetadataTakesARecreatedTopic(t *testing.T) {
	m := newMetadata([]model.BrokerID{1}, model.DefaultConfig().Client)
	tp := model.TP("u", 0)
	answer := func(life int32, leader model.BrokerID, epoch model.Epoch) {
		m.apply(model.MetadataResponse{Brokers: []model.BrokerID{1, 2, 3}, Topics: []model.TopicMetadata{{Topic: "u", Life: life,
			Partitions: []model.PartitionState{{TP: tp, Leader: leader, LeaderEpoch: epoch, Replicas: []model.BrokerID{1, 2, 3}}}}}}, 0)
	}
	answer(0, 1, 5)
	answer(0, 2, 3) // stale
	if l, e := m.leader(tp); l != 1 || e != 5 {
		t.Fatalf("a stale answer was taken: leader %v epoch %d", l, e)
	}
	answer(1, 3, 0) // recreated
	if l, e := m.leader(tp); l != 3 || e != 0 {
		t.Fatalf("the recreated topic was not taken: leader %v epoch %d", l, e)
	}
	answer(0, 1, 5) // a broker that has not replayed the deletion
	if l, e := m.leader(tp); l != 3 || e != 0 {
		t.Fatalf("the deleted topic's view came back: leader %v epoch %d", l, e)
	}
}
