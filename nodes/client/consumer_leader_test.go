package client

import (
	"testing"

	"kafkasim/model"
)

// leaderOf keeps a partition's leader while the metadata stays the same
// version, and reads it again once an answer is applied, whatever the
// answer changed: a consumer that kept a cached leader across answers
// would fetch from a deposed leader and never validate its position.
func TestConsumerLeaderOfFollowsMetadata(t *testing.T) {
	c := NewConsumer(ConsumerOptions{Bootstrap: []model.BrokerID{1, 2}, Config: model.DefaultConfig(), Assignment: []model.TopicPartition{t0}})
	ps := &partState{tp: t0}
	answer := func(leader model.BrokerID, epoch model.Epoch) {
		c.md.apply(model.MetadataResponse{Brokers: []model.BrokerID{1, 2}, Topics: []model.TopicMetadata{{
			Topic: "t", Partitions: []model.PartitionState{{TP: t0, Leader: leader, LeaderEpoch: epoch}},
		}}}, 0)
	}
	check := func(step string, leader model.BrokerID, epoch model.Epoch) {
		t.Helper()
		if l, e := c.leaderOf(ps); l != leader || e != epoch {
			t.Fatalf("%s: leaderOf says %v epoch %d, want %v epoch %d", step, l, e, leader, epoch)
		}
		if l, e := c.md.leader(t0); l != leader || e != epoch {
			t.Fatalf("%s: the metadata says %v epoch %d, want %v epoch %d", step, l, e, leader, epoch)
		}
	}
	check("before any answer", model.NoBroker, model.NoEpoch)
	answer(1, 3)
	check("first answer", 1, 3)
	check("same version", 1, 3)
	answer(2, 4)
	check("new leader", 2, 4)
	answer(2, 5)
	check("new epoch, same leader", 2, 5)
	answer(2, 4) // stale: the metadata keeps epoch 5
	check("stale answer", 2, 5)
}
