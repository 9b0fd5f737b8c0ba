package controller

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// balanceInterval is the shortened leader.imbalance.check.interval.seconds
// of these tests.
const testBalanceInterval = 30 * time.Second

// failedOver builds three brokers and one partition, then freezes the
// partition's preferred replica until its session expires, so that
// leadership moves to another replica, and brings it back unfenced but out
// of the ISR. It returns the cluster, the partition, its preferred
// replica and the moment leadership left it (when the check is armed).
func failedOver(t *testing.T, enable bool) (*cluster, model.TopicPartition, model.BrokerID, time.Duration) {
	t.Helper()
	cfg := testConfig()
	cfg.Controller.AutoLeaderRebalance = enable
	cfg.Controller.LeaderImbalanceCheckIntervalSeconds = int64(testBalanceInterval / time.Second)
	c := started(t, cfg, 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	tp := model.TP("t", 0)
	pref := c.partition(tp).Replicas[0]
	if c.partition(tp).Leader != pref {
		t.Fatalf("a new partition is led by %v, not its preferred replica %v", c.partition(tp).Leader, pref)
	}
	c.s.Pause(sim.NodeID(pref))
	var left time.Duration
	for i := 0; i < 200 && left == 0; i++ {
		c.runFor(100 * time.Millisecond)
		if l := c.partition(tp).Leader; l != pref && l != model.NoBroker {
			left = c.s.Now()
		}
	}
	if left == 0 {
		t.Fatalf("leadership never left the frozen %v: %v", pref, c.partition(tp))
	}
	c.s.Resume(sim.NodeID(pref))
	c.runFor(5 * time.Second)
	if c.broker(pref).Fenced || slices.Contains(c.partition(tp).ISR, pref) {
		t.Fatalf("after its return %v should be unfenced and out of the ISR: %+v, %v", pref, c.broker(pref), c.partition(tp))
	}
	return c, tp, pref, left
}

// rejoin has the partition's leader add pref back to the ISR.
func (c *cluster) rejoin(tp model.TopicPartition, pref model.BrokerID) {
	c.t.Helper()
	p := c.partition(tp)
	resp := c.alter(model.AlterPartitionRequest{
		BrokerID: p.Leader, BrokerEpoch: c.broker(p.Leader).Epoch, TP: tp,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(append(slices.Clone(p.ISR), pref)...),
	})
	if resp.Error != model.NoError || !slices.Contains(c.partition(tp).ISR, pref) {
		c.t.Fatalf("adding %v to the ISR: %v, %v", pref, resp.Error, c.partition(tp))
	}
}

// A preferred replica that is back in the ISR gets its leadership back at
// the check, leader.imbalance.check.interval.seconds after leadership left
// it, and not before (QuorumController.maybeScheduleNextBalancePartitionLeaders).
func TestBalanceGivesThePreferredReplicaItsLeadershipBack(t *testing.T) {
	c, tp, pref, left := failedOver(t, true)
	c.rejoin(tp, pref)
	c.runUntil(left + testBalanceInterval - 500*time.Millisecond)
	if l := c.partition(tp).Leader; l == pref {
		t.Fatalf("%v leads before the check is due", pref)
	}
	c.runUntil(left + testBalanceInterval + 500*time.Millisecond)
	if l := c.partition(tp).Leader; l != pref {
		t.Fatalf("after the check %v leads, want the preferred %v: %v", l, pref, c.partition(tp))
	}
	// Balanced now: no check is armed.
	if c.ctrl().balance == balanceScheduled {
		t.Fatal("a check is armed in a balanced cluster")
	}
}

// With auto.leader.rebalance.enable=false leadership stays where the
// failover put it.
func TestBalanceOffLeavesLeadershipAlone(t *testing.T) {
	c, tp, pref, left := failedOver(t, false)
	c.rejoin(tp, pref)
	c.runUntil(left + 3*testBalanceInterval)
	if l := c.partition(tp).Leader; l == pref {
		t.Fatalf("%v got its leadership back with balancing off", pref)
	}
	if c.ctrl().balance == balanceScheduled {
		t.Fatal("a check is armed with balancing off")
	}
}

// A preferred replica outside the ISR is not elected (electPreferredLeader
// wants it in the ISR); the check is armed again an interval later, and
// once the replica is back in the ISR that check moves leadership.
func TestBalanceSkipsAPreferredReplicaOutsideTheISR(t *testing.T) {
	c, tp, pref, left := failedOver(t, true)
	c.runUntil(left + testBalanceInterval + 500*time.Millisecond)
	if l := c.partition(tp).Leader; l == pref || l == model.NoBroker {
		t.Fatalf("the check elected %v with %v outside the ISR %v", l, pref, c.partition(tp).ISR)
	}
	if c.ctrl().balance != balanceScheduled {
		t.Fatal("still imbalanced, but no check is armed")
	}
	c.rejoin(tp, pref)
	c.runUntil(left + 2*testBalanceInterval - 500*time.Millisecond)
	if l := c.partition(tp).Leader; l == pref {
		t.Fatalf("%v leads before the second check", pref)
	}
	c.runUntil(left + 2*testBalanceInterval + 500*time.Millisecond)
	if l := c.partition(tp).Leader; l != pref {
		t.Fatalf("after the second check %v leads, want %v", l, pref)
	}
}

// A preferred replica in the ISR that may not lead (fenced, or in
// controlled shutdown: LeaderAcceptor wants it active) is not elected.
// The registration is marked by hand, as in
// TestAlterPartitionRefusesABrokerInControlledShutdown, so that the ISR
// keeps it and only the liveness rule is tested; a broker marked fenced is
// also frozen, so that no heartbeat unfences it before the check.
func TestBalanceSkipsAPreferredReplicaThatMayNotLead(t *testing.T) {
	for _, mark := range []string{"fenced", "controlled shutdown"} {
		t.Run(mark, func(t *testing.T) {
			c, tp, pref, left := failedOver(t, true)
			c.rejoin(tp, pref)
			b := c.ctrl().state.brokers[pref]
			set := func(v bool) {
				if mark == "fenced" {
					// Frozen too, or its next heartbeat would unfence it.
					if v {
						c.s.Pause(sim.NodeID(pref))
					} else {
						c.s.Resume(sim.NodeID(pref))
					}
					b.Fenced = v
				} else {
					b.InControlledShutdown = v
				}
			}
			set(true)
			c.runUntil(left + testBalanceInterval + 500*time.Millisecond)
			set(false)
			if l := c.partition(tp).Leader; l == pref {
				t.Fatalf("%v (%s) was elected", pref, mark)
			}
			c.runUntil(left + 2*testBalanceInterval + 500*time.Millisecond)
			if l := c.partition(tp).Leader; l != pref {
				t.Fatalf("once %v may lead, the next check should elect it; %v leads", pref, l)
			}
		})
	}
}

// A check that writes maxElectionsPerImbalance records stops there and
// the next follows 10 ms later, not an interval later
// (ImbalanceSchedule.IMMEDIATELY).
func TestBalanceStopsAtTheBatchLimit(t *testing.T) {
	cfg := testConfig()
	cfg.Controller.LeaderImbalanceCheckIntervalSeconds = int64(testBalanceInterval / time.Second)
	c := started(t, cfg, 3)
	const parts = 1650 // two thirds of them, 1,100, lose their preferred leader
	c.createTopic(model.TopicSpec{Name: "t", Partitions: parts, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	imbalanced := func() int {
		n := 0
		c.ctrl().state.eachPartition(func(_ *topicInfo, p *partitionInfo) {
			if p.Leader != p.Replicas[0] {
				n++
			}
		})
		return n
	}
	// Freeze b1 and b2 until both are fenced: b3 leads everything.
	c.s.Pause(1)
	c.s.Pause(2)
	var left time.Duration
	for i := 0; i < 200 && left == 0; i++ {
		c.runFor(100 * time.Millisecond)
		if c.broker(1).Fenced && c.broker(2).Fenced {
			left = c.s.Now()
		}
	}
	c.s.Resume(1)
	c.s.Resume(2)
	c.runFor(5 * time.Second)
	before := imbalanced()
	if before <= maxElectionsPerImbalance {
		t.Fatalf("%d imbalanced partitions, want more than %d", before, maxElectionsPerImbalance)
	}
	// b3 takes both back into every ISR, in rounds that fit the
	// controller's queue (opsMax).
	corr := int32(injected)
	for i, p := range c.ctrl().Partitions() {
		if i%1000 == 999 {
			c.runFor(time.Second)
		}
		corr++
		c.send(3, model.AlterPartitionRequest{
			CorrelationID: corr, BrokerID: 3, BrokerEpoch: c.broker(3).Epoch, TP: p.TP,
			LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(1, 2, 3),
		})
	}
	c.runFor(2 * time.Second)
	for _, p := range c.ctrl().Partitions() {
		if len(p.ISR) != 3 {
			t.Fatalf("%v: ISR %v after the AlterPartitions", p.TP, p.ISR)
		}
	}
	// The first check was armed when the first leadership moved, a little
	// before both were fenced; it runs within a second of left+interval.
	c.runUntil(left + testBalanceInterval - time.Second)
	if n := imbalanced(); n != before {
		t.Fatalf("%d imbalanced before the check, want %d", n, before)
	}
	var after []int
	for n := imbalanced(); n > 0 && len(after) < 2000; n = imbalanced() {
		c.runFor(time.Millisecond)
		if m := imbalanced(); m != n {
			after = append(after, m)
		}
	}
	if len(after) != 2 || after[0] != before-maxElectionsPerImbalance || after[1] != 0 {
		t.Fatalf("imbalanced partitions after each check: %v, want [%d 0]", after, before-maxElectionsPerImbalance)
	}
}

// A controller that becomes active arms its own check, an interval from
// its activation (QuorumController.completeActivation reschedules the
// balance): the check of the controller before it died with it.
func TestBalanceNewActiveControllerArmsItsOwnCheck(t *testing.T) {
	c, tp, pref, left := failedOver(t, true)
	c.rejoin(tp, pref)
	c.runUntil(left + testBalanceInterval/2)
	c.s.Crash(ctrlID)
	c.s.Restart(ctrlID)
	var activated time.Duration
	for i := 0; i < 1000 && activated == 0; i++ {
		c.runFor(10 * time.Millisecond)
		if c.ctrl().Active() {
			activated = c.s.Now()
		}
	}
	if activated == 0 {
		t.Fatal("the restarted controller never became active")
	}
	c.runUntil(left + testBalanceInterval + 500*time.Millisecond)
	if l := c.partition(tp).Leader; l == pref {
		t.Fatalf("%v leads at the dead controller's check time", pref)
	}
	c.runUntil(activated + testBalanceInterval + 500*time.Millisecond)
	if l := c.partition(tp).Leader; l != pref {
		t.Fatalf("an interval after the new activation %v leads, want %v", l, pref)
	}
}
