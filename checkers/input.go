package checkers

import (
	"time"

	"kafkasim/model"
)

// Input is everything a checker may look at: what the clients observed and,
// when the run was simulated, what an operator could read from the cluster.
// Only History is required; a checker whose input is absent has nothing to
// judge and reports nothing.
type Input struct {
	History model.History

	// Replicas are the partition logs read from each broker at the end of
	// the run.
	Replicas []ReplicaLog

	// model.Observations are what the nodes reported while the run went
	// (model.Observations), as the cluster recorded them.
	Observations model.Observations

	// DiskLost lists partitions for which every ISR and ELR replica lost
	// its disk (or its unflushed tail) at some point: acknowledged writes
	// to them are not promised to survive. The zero value promises it for
	// every partition.
	DiskLost []model.TopicPartition

	// Stranded lists partitions that Kafka's own controller left without
	// a leader it may elect at the end of the run (an empty ISR and an ELR
	// of brokers that are no longer replicas, PromiseStrandedByELR): that
	// they stayed leaderless, with their replicas outside the ISR and
	// their records unread, is allowed there.
	Stranded []model.TopicPartition

	_ struct{}
}

// ReplicaLog is one broker's copy of one partition at the end of a run.
type ReplicaLog struct {
	Broker   model.BrokerID
	TP       model.TopicPartition
	LogStart model.Offset        // first offset still held (retention deletes below it)
	HW       model.Offset        // the replica's high watermark
	Records  []model.OffsetValue // in offset order
	// OutOfSync: the replica was not in the partition's ISR when its log
	// was read. A follower that has not yet fetched from the current
	// leader (its fetch lost in a partition, say) may still hold records
	// of an older epoch that it will truncate; the agreement check leaves
	// it out until it is back in the ISR.
	OutOfSync bool
	// NeverRejoined: the replica was outside the ISR when its log was read
	// although every fault had healed and the cluster had had its liveness
	// bound to converge (CHECKERS.md, Liveness). It will not catch up by
	// itself, so it is no longer left out: its log is judged with the
	// others and its absence from the ISR is a violation of its own
	// (replica-not-rejoined), so a divergence cannot hide outside the ISR.
	NeverRejoined bool `json:",omitempty"`
	// Unhosted: the metadata assigns the replica to its broker, but the
	// broker hosts no log of the partition (it failed the replica, as
	// Kafka 3.6 does with a recreated topic's stray folder, KAFKA-14616);
	// Records is empty.
	Unhosted bool `json:",omitempty"`
}

// Options say what the configuration of the run promised; a finding the
// configuration allows is still reported, but it is not an error. The zero
// value is Kafka's classic client: acks=all, assign, no idempotence, with
// the durability promise assumed (min.insync.replicas not stated).
type Options struct {
	// Idempotent: enable.idempotence, which promises no duplicates and
	// per-partition send order.
	Idempotent bool
	// MaxInFlight is max.in.flight.requests.per.connection; 1 promises send
	// order even without idempotence. 0 means Kafka's default, 5.
	MaxInFlight int
	// Subscribe: consumers use subscribe (the group moves partitions
	// between them), so skips and rewinds across polls are expected;
	// otherwise they assign partitions themselves and must read in order.
	Subscribe bool
	// AutoOffsetReset is "earliest", "latest" or "none". With "latest" a
	// consumer that starts without a committed offset silently skips what
	// is already in the log, so records no one read are not proof of loss:
	// lost-write and unseen are then reported but allowed. "" is taken as
	// "earliest", Jepsen's setting, which skips nothing silently. Resets
	// recorded in the history excuse the records they jump over whatever
	// the setting.
	AutoOffsetReset string
	// Acks is "all" (or "-1"), "1" or "0"; "" means "all".
	Acks string
	// MinInsyncReplicas is min.insync.replicas; 0 means not stated, taken
	// as the promise holding. Below 2, acknowledged writes may be lost.
	MinInsyncReplicas int
	// UncleanLeaderElection voids the durability promise.
	UncleanLeaderElection bool
	// SelfFencing is kafkasim's consumer.self.fencing extension: the
	// consumers give up their partitions when their coordinator goes
	// silent, so no read by an expelled member is allowed (zombie.go).
	// False is Kafka's consumers, whose expelled members may read until
	// they hear from the coordinator.
	SelfFencing bool

	// LinearizabilityWork bounds porcupine's search of each partition by
	// the work it does (linearizability_budget.go), so that a verdict is
	// the same on every machine under every load; 0 means
	// DefaultLinearizabilityWork; negative means no bound.
	LinearizabilityWork int64
	// LinearizabilityBudget caps porcupine's search over the whole history
	// in wall-clock time, a last resort behind LinearizabilityWork; 0
	// means DefaultLinearizabilityCap; negative skips the check.
	LinearizabilityBudget time.Duration
	// OutDir, when set, receives porcupine's HTML visualization of each
	// partition found not linearizable.
	OutDir string

	_ struct{}
}

// durable reports whether the configuration promises that acknowledged
// writes survive, and says why not when it does not.
func (o *Options) durable() (bool, string) {
	switch o.Acks {
	case "", "all", "-1":
	default:
		return false, "acks=" + o.Acks
	}
	if o.UncleanLeaderElection {
		return false, "unclean.leader.election.enable=true"
	}
	if o.MinInsyncReplicas == 1 {
		return false, "min.insync.replicas=1"
	}
	return true, ""
}

// readsEverything reports whether every acknowledged record must be read
// by consumers that read past it, and says why not when it need not be.
func (o *Options) readsEverything() (bool, string) {
	durable, why := o.durable()
	if !durable {
		return false, why
	}
	if o.AutoOffsetReset == "latest" {
		return false, "auto.offset.reset=latest: a consumer may start past records no one else reads"
	}
	return true, ""
}

// orderedSends reports whether a producer's sends to one partition must
// keep their order.
func (o *Options) orderedSends() bool { return o.Idempotent || o.MaxInFlight == 1 }

func (o *Options) work() int64 {
	if o.LinearizabilityWork == 0 {
		return DefaultLinearizabilityWork
	}
	return o.LinearizabilityWork
}

func (o *Options) budget() time.Duration {
	if o.LinearizabilityBudget == 0 {
		return DefaultLinearizabilityCap
	}
	return o.LinearizabilityBudget
}
