package controller

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A leader that asks to shut down enters controlled shutdown: its
// leaderships move and it leaves every ISR while it stays unfenced, and it
// is not let go while a live broker has not reported the metadata that
// moved them (BrokerHeartbeatManager's lowestActiveOffset). Once that
// broker heartbeats again, the next request is granted and fences it.
func TestControlledShutdownWaitsForEveryActiveBrokerToCatchUp(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 6, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	victim := c.ctrl().Partitions()[0].Leader
	other := model.BrokerID(1)
	if other == victim {
		other = 2
	}
	corr := int32(injected)
	ask := func() model.BrokerHeartbeatResponse {
		corr++
		c.send(victim, model.BrokerHeartbeatRequest{
			CorrelationID: corr, BrokerID: victim, BrokerEpoch: c.broker(victim).Epoch,
			MetadataOffset: c.logs[victim].offset, WantShutdown: true,
		})
		c.runFor(20 * time.Millisecond)
		hb := c.logs[victim].heartbeats
		last := hb[len(hb)-1]
		if last.CorrelationID != corr {
			t.Fatalf("no answer to heartbeat %d: %v", corr, last)
		}
		return last
	}
	// The other broker stops heartbeating (its process is frozen, its
	// session still valid): the controller knows only an offset from
	// before the shutdown's records.
	c.s.Pause(sim.NodeID(other))

	first := ask()
	if first.ShouldShutdown || first.Fenced || c.broker(victim).Fenced {
		t.Fatalf("first answer %v: a leader must not be let go or fenced at once", first)
	}
	if !c.ctrl().state.brokers[victim].InControlledShutdown {
		t.Fatal("the registration is not marked in controlled shutdown")
	}
	for _, p := range c.ctrl().Partitions() {
		if p.Leader == victim || slices.Contains(p.ISR, victim) {
			t.Fatalf("%v still has b%d leading or in the ISR: %v", p.TP, victim, p)
		}
	}
	if again := ask(); again.ShouldShutdown {
		t.Fatalf("let go while b%d has not reported the new metadata: %v", other, again)
	}
	c.s.Resume(sim.NodeID(other))
	c.runFor(2500 * time.Millisecond) // a heartbeat interval: b1 reports its offset
	if last := ask(); !last.ShouldShutdown || !last.Fenced || !c.broker(victim).Fenced {
		t.Fatalf("every active broker has caught up: answer %v, broker %+v; want let go and fenced", last, c.broker(victim))
	}
}

// A broker in controlled shutdown may not re-enter an ISR: an
// AlterPartition listing it is refused as INELIGIBLE_REPLICA
// (ineligibleReplicasForIsr's "shutting down").
func TestAlterPartitionRefusesABrokerInControlledShutdown(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	tp := model.TP("t", 0)
	p := c.partition(tp)
	follower := p.ISR[len(p.ISR)-1]
	if follower == p.Leader {
		follower = p.ISR[0]
	}
	// The follower leads nothing, so its request would be granted at
	// once; mark it by hand to test the AlterPartition rule alone.
	b := c.ctrl().state.brokers[follower]
	b.InControlledShutdown = true
	defer func() { b.InControlledShutdown = false }()
	resp := c.alter(model.AlterPartitionRequest{
		BrokerID: p.Leader, BrokerEpoch: c.broker(p.Leader).Epoch, TP: tp,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(p.ISR...),
	})
	if resp.Error != model.IneligibleReplica {
		t.Fatalf("ISR %v with b%d in controlled shutdown: %v, want INELIGIBLE_REPLICA", p.ISR, follower, resp.Error)
	}
	b.InControlledShutdown = false
	if resp := c.alter(model.AlterPartitionRequest{
		BrokerID: p.Leader, BrokerEpoch: c.broker(p.Leader).Epoch, TP: tp,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(p.ISR...),
	}); resp.Error == model.IneligibleReplica {
		t.Fatalf("the same ISR with nobody shutting down: %v", resp.Error)
	}
}
