package controller

import (
	"time"

	"kafkasim/sim"
)

// Automatic preferred-leader balancing (auto.leader.rebalance.enable), as
// KRaft's controller does it:
//
//   - A partition is imbalanced when its leader is not its preferred
//     replica, the first of its assignment (PartitionRegistration
//     .hasPreferredLeader), a leaderless partition included. Kafka keeps
//     the set (ReplicationControlManager.imbalancedPartitions, updated in
//     replay); kafkasim scans the partitions, in (topic, partition) order,
//     when it needs the answer.
//   - After every write operation, and when it becomes active, the active
//     controller arms one check if some partition is imbalanced and none
//     is armed (QuorumController.maybeScheduleNextBalancePartitionLeaders):
//     leader.imbalance.check.interval.seconds from now, or 10 ms from now
//     when the previous check stopped at its batch limit. So the check is
//     not a fixed period: it runs an interval after leadership first left
//     a preferred replica, and again an interval later while some
//     partition stays imbalanced.
//   - The check (the "maybeBalancePartitionLeaders" write event, running
//     ReplicationControlManager.maybeBalancePartitionLeaders) runs the
//     change builder with the PREFERRED election on each imbalanced
//     partition: the preferred replica leads if it is in the ISR and
//     active (unfenced, not in controlled shutdown: LeaderAcceptor);
//     otherwise the current leader stays, or a leaderless partition gets
//     any valid replica. It stops at MAX_ELECTIONS_PER_IMBALANCE (1,000)
//     records, and then the next check is the 10 ms one.
//   - A controller that stops being active drops the check
//     (cancelMaybeBalancePartitionLeaders), and the next active one arms
//     its own.
//
// There is no per-broker threshold: leader.imbalance.per.broker.percentage
// is read only by the ZooKeeper-era KafkaController.checkAndTriggerAutoLeaderRebalance.

// balanceSchedule is QuorumController.ImbalanceSchedule: whether a check
// is armed, and if not, how soon the next one is due.
type balanceSchedule uint8

const (
	// balanceDeferred: none armed; the next is due an interval from when
	// it is armed.
	balanceDeferred balanceSchedule = iota
	// balanceImmediately: none armed; the last check stopped at the batch
	// limit, so the next is due balanceRetryDelay from when it is armed.
	balanceImmediately
	// balanceScheduled: a check is armed (or queued behind other
	// operations).
	balanceScheduled
)

const (
	// maxElectionsPerImbalance is ReplicationControlManager
	// .MAX_ELECTIONS_PER_IMBALANCE: the records one check writes at most.
	maxElectionsPerImbalance = 1000
	// balanceRetryDelay is the delay QuorumController gives a check that
	// follows one stopped at the batch limit, so that it does not starve
	// the operations queued behind it.
	balanceRetryDelay = 10 * time.Millisecond
	// timerBalance is the check's timer kind.
	timerBalance = "leader-balance"
)

// balanceInterval is leader.imbalance.check.interval.seconds, or 0 when
// auto.leader.rebalance.enable is false (ControllerServer hands the
// controller no interval then, and it never balances).
func (c *Controller) balanceInterval() time.Duration {
	cc := c.cfg.Cluster.Controller
	if !cc.AutoLeaderRebalance {
		return 0
	}
	return time.Duration(cc.LeaderImbalanceCheckIntervalSeconds) * time.Second
}

// leadersImbalanced reports whether some partition's leader is not its
// preferred replica (ReplicationControlManager.arePartitionLeadersImbalanced).
func (s *metadataState) leadersImbalanced() bool {
	for _, name := range s.topicNames {
		for _, p := range s.topics[name].parts {
			if len(p.Replicas) > 0 && p.Leader != p.Replicas[0] {
				return true
			}
		}
	}
	return false
}

// maybeScheduleBalance arms the check if balancing is on, this controller
// is active, none is armed and some partition is imbalanced
// (QuorumController.maybeScheduleNextBalancePartitionLeaders).
func (c *Controller) maybeScheduleBalance(env *sim.Env) {
	interval := c.balanceInterval()
	if !c.active || interval == 0 || c.balance == balanceScheduled || !c.state.leadersImbalanced() {
		return
	}
	delay := interval
	if c.balance == balanceImmediately {
		delay = balanceRetryDelay
	}
	c.balanceTimer = env.After(delay, timerBalance, 0)
	c.balance = balanceScheduled
}

// cancelBalance drops the armed check (cancelMaybeBalancePartitionLeaders):
// the controller is no longer active.
func (c *Controller) cancelBalance(env *sim.Env) {
	env.Cancel(c.balanceTimer)
	c.balanceTimer = 0
	c.balance = balanceDeferred
}

// fireBalance queues the check as an operation, behind the ones waiting,
// as Kafka's deferred write event joins the controller's queue. The check
// stays armed (balanceTimer keeps its id) until the operation runs, so that
// no second check is armed meanwhile; an operation left over from an
// earlier activation finds another id and does nothing.
func (c *Controller) fireBalance(env *sim.Env, id sim.TimerID) {
	c.submit(env, func() {
		if !c.active || c.balanceTimer != id {
			return
		}
		c.balanceTimer = 0
		records := c.balanceRecords()
		c.balance = balanceDeferred
		if len(records) >= maxElectionsPerImbalance {
			c.balance = balanceImmediately
		}
		if len(records) == 0 {
			c.maybeScheduleBalance(env)
			return
		}
		env.Trace("leader-balance", itoa(int64(len(records))))
		c.commit(records, func(bool) { c.maybeScheduleBalance(env) })
	})
}

// balanceRecords runs the preferred election on every imbalanced
// partition, in (topic, partition) order, up to the batch limit
// (maybeTriggerLeaderChangeForPartitionsWithoutPreferredLeader). Kafka
// walks a hash set, so which partitions a check that hits the limit
// leaves for the next is an order kafkasim does not reproduce.
func (c *Controller) balanceRecords() []Record {
	var out []Record
	elr := c.cfg.Cluster.Controller.EligibleLeaderReplicas
	c.state.eachPartition(func(t *topicInfo, p *partitionInfo) {
		if len(out) >= maxElectionsPerImbalance || len(p.Replicas) == 0 || p.Leader == p.Replicas[0] {
			return
		}
		spec := topicChangeSpec(t, p.ISR, c.state.active, elr)
		spec.election = electPreferred
		if r, ok := buildChange(p, spec); ok {
			out = append(out, r)
		}
	})
	return out
}
