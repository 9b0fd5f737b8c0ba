package model

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Config is the configuration of a simulated cluster, its clients and the
// simulation switches that bring back historical behaviours. Every field
// carries Kafka's own configuration name in a `kafka:"..."` tag, so that a
// scenario, a command line (-set min.insync.replicas=2) and a report speak
// the names an operator already knows, and DefaultConfig gives Kafka's
// defaults (Kafka 4.1, the default kafka.version; ConfigForVersion gives
// an older release's), except where a field's doc says otherwise.
//
// Config is plain data without slices or maps: copying it copies it all.
// The groups only help reading; names are unique across them.
type Config struct {
	Broker     BrokerConfig
	Topic      TopicConfig
	Controller ControllerConfig
	Group      GroupConfig
	Txn        TransactionConfig
	Producer   ProducerConfig
	Consumer   ConsumerConfig
	Client     ClientConfig
	Release    ReleaseConfig
}

// ReleaseConfig holds kafka.version, the Kafka release whose defaults the
// other settings start from (see versions.go).
type ReleaseConfig struct {
	// KafkaVersion is kafkasim's own setting (Kafka has none): setting it
	// moves every setting whose default changed between the modelled
	// releases, and that has not been set otherwise, to that release's
	// value. Nodes never read it; they read the settings it moved.
	KafkaVersion KafkaVersion `kafka:"kafka.version"`
}

// BrokerConfig holds the broker's replication and storage settings.
type BrokerConfig struct {
	// DefaultReplicationFactor is the replication factor of topics created
	// without one. Kafka's default is 1; the scenarios set 3.
	DefaultReplicationFactor int32 `kafka:"default.replication.factor" min:"1"`
	// ReplicaLagTimeMax is how long a follower may go without catching up
	// to the leader's log end before the leader drops it from the ISR.
	ReplicaLagTimeMax time.Duration `kafka:"replica.lag.time.max.ms" min:"1ms"`
	// ReplicaFetchWaitMax is how long a leader holds a follower's fetch
	// when there is nothing new to return.
	ReplicaFetchWaitMax time.Duration `kafka:"replica.fetch.wait.max.ms"`
	// ReplicaFetchMaxBytes is the bytes a follower asks for per partition.
	ReplicaFetchMaxBytes int32 `kafka:"replica.fetch.max.bytes" min:"1"`
	// ReplicaFetchMinBytes is the bytes a follower's fetch waits for.
	ReplicaFetchMinBytes int32 `kafka:"replica.fetch.min.bytes"`
	// ReplicaFetchBackoff is the pause after a failed follower fetch.
	ReplicaFetchBackoff time.Duration `kafka:"replica.fetch.backoff.ms"`
	// ReplicaSocketTimeout bounds how long a follower waits for its
	// connection to the leader to become ready before the fetch fails
	// (BrokerBlockingSender.sendRequest's NetworkClientUtils.awaitReady);
	// the fetch itself then waits request.timeout.ms. Kafka requires it
	// to be at least replica.fetch.wait.max.ms.
	ReplicaSocketTimeout time.Duration `kafka:"replica.socket.timeout.ms" min:"1ms"`
	// MaxIncrementalFetchSessionCacheSlots is how many fetch sessions
	// (KIP-227) a broker keeps for its followers and consumers; 0 keeps
	// none, and every fetch is then a full fetch naming every partition.
	MaxIncrementalFetchSessionCacheSlots int32 `kafka:"max.incremental.fetch.session.cache.slots" min:"0"`
	// HighWatermarkCheckpointInterval is how often a broker writes its high
	// watermarks to disk. Before KIP-101 a restarting follower truncated to
	// this checkpoint, which can lag the real high watermark.
	HighWatermarkCheckpointInterval time.Duration `kafka:"replica.high.watermark.checkpoint.interval.ms" min:"1ms"`
	// LogFlushIntervalMessages is how many appended messages force an fsync.
	// Kafka's default is the largest int64: it never fsyncs on count and
	// leaves durability to replication, which is where power-loss bugs
	// live.
	LogFlushIntervalMessages int64 `kafka:"log.flush.interval.messages" min:"1"`
	// LogFlushInterval is how long a message may stay unflushed. Kafka's
	// default is unset, which means never; here that is Never.
	LogFlushInterval time.Duration `kafka:"log.flush.interval.ms"`
	// LogSegmentBytes is the size at which a partition log rolls to a new
	// segment file.
	LogSegmentBytes int64 `kafka:"log.segment.bytes" min:"1"`
	// ProducerIDExpiration is how long a partition remembers an idempotent
	// producer after its last batch (by the batch's timestamp); after it,
	// the producer's next batch is accepted at any sequence, as a new
	// producer's is, and a retry is no longer recognised as a duplicate.
	ProducerIDExpiration time.Duration `kafka:"producer.id.expiration.ms" min:"1ms"`
	// ProducerIDExpirationCheckInterval is how often a broker looks for
	// expired producers in each partition it hosts.
	ProducerIDExpirationCheckInterval time.Duration `kafka:"producer.id.expiration.check.interval.ms" min:"1ms"`
	// Truncation is kafkasim's own switch (not a Kafka setting) choosing how
	// a follower finds where its log diverges from the leader's: see
	// TruncationMode.
	Truncation TruncationMode `kafka:"truncation"`
	// ProducerSnapshotLastBatchOnly is kafkasim's own switch (not a Kafka
	// setting) for what a producer-state snapshot keeps of each producer.
	// True is Kafka's format (ProducerSnapshot holds one BatchMetadata per
	// producer): after a restart or a truncation reloads a snapshot, only
	// a retry of a producer's newest batch is recognised, a retry of an
	// older batch still in flight is answered OUT_OF_ORDER_SEQUENCE_NUMBER,
	// and the producer's epoch bump (KIP-360) then appends it a second
	// time. False, the default, keeps the five batches the live state
	// retains, so that a reload deduplicates as the state before it did
	// and the catalog's idempotence promise holds across restarts.
	ProducerSnapshotLastBatchOnly bool `kafka:"producer.snapshot.last.batch.only"`
	// HighWatermarkFreezeBelowMinISR is kafkasim's own switch (Kafka has
	// no setting: the behaviour came with a release) for KAFKA-15583, in
	// Kafka since 3.7: while a partition's ISR is below its effective
	// min.insync.replicas the leader does not advance the high watermark,
	// so an acks=1 write taken then is not committed until the ISR
	// recovers. False is Kafka 3.6 and older, which advance it over
	// whatever ISR is left. ELR relies on it (KIP-966), so Validate
	// rejects ELR without it.
	HighWatermarkFreezeBelowMinISR bool `kafka:"high.watermark.freeze.below.min.isr"`
	// StrayReplicaCheckAtLoad is kafkasim's own switch (Kafka has no
	// setting: the behaviour came with a release) for KAFKA-14616, fixed
	// in Kafka 3.7 (PR #15230): a broker opening a partition's log checks
	// that the folder was created for the topic the metadata names now
	// (LogManager.isStrayKraftReplica, by topic id; here by topic life)
	// and, if not, deletes it as stray and starts a fresh replica. False
	// is Kafka 3.6: making the replica meets the old folder,
	// Partition.createLogIfNotExists fails with INCONSISTENT_TOPIC_ID,
	// the stray folder is deleted after the first publish
	// (BrokerMetadataPublisher.findStrayPartitions), and the broker hosts
	// no replica of the partition until its metadata changes again.
	StrayReplicaCheckAtLoad bool `kafka:"stray.replica.check.at.load"`
	// NetworkTCP is kafkasim's own switch (not a Kafka setting) choosing
	// the simulated network. True is the TCP-faithful one: a partition
	// drops packets silently and the kernels retransmit with TCP's
	// backoff (200 ms doubling to 120 s, giving up after 15
	// retransmissions), a power loss announces nothing, and a client that
	// times out closes its connection. It is the default. False is the
	// announcing network the catalog was first built on, kept for
	// comparison: a partition or a power loss resets the connection and
	// both ends learn it at once, and what is sent into a partition is
	// lost.
	NetworkTCP bool `kafka:"network.tcp"`
	// ControlledShutdownEnable makes a clean stop a controlled shutdown
	// (KRaft's BrokerServer.shutdown): the broker asks the controller to
	// move its leaderships and goes on serving until it is let go, or for
	// at most five minutes (KafkaBroker.shutdown's default timeout), and
	// only then closes its logs. Off, the broker stops at once and the
	// controller finds out when its session expires.
	ControlledShutdownEnable bool `kafka:"controlled.shutdown.enable"`
}

// TopicConfig holds the per-topic settings: the cluster's defaults, which a
// topic's own configs (CreateTopics) override on the controller and on
// every broker alike.
type TopicConfig struct {
	// MinInsyncReplicas is the ISR size an acks=all write needs; below it
	// the leader answers NOT_ENOUGH_REPLICAS and the high watermark stops
	// (Kafka 3.7+, KAFKA-15583, with or without ELR). Brokers cap it at a
	// partition's replica count.
	MinInsyncReplicas int32 `kafka:"min.insync.replicas" min:"1"`
	// UncleanLeaderElection lets the controller elect a replica outside the
	// ISR when no ISR member is alive: availability at the price of
	// acknowledged writes (the Jepsen 2013 configuration).
	UncleanLeaderElection bool `kafka:"unclean.leader.election.enable"`
	// Retention is how long a log keeps a closed segment.
	Retention time.Duration `kafka:"retention.ms" min:"1ms"`
	// RetentionBytes bounds a partition's log size; -1 means no bound.
	RetentionBytes int64 `kafka:"retention.bytes" min:"-1"`
}

// ControllerConfig holds the KRaft controller's broker liveness and
// election settings.
type ControllerConfig struct {
	// BrokerHeartbeatInterval is how often a broker heartbeats the
	// controller.
	BrokerHeartbeatInterval time.Duration `kafka:"broker.heartbeat.interval.ms" min:"1ms"`
	// BrokerSessionTimeout is how long the controller waits for a heartbeat
	// before fencing the broker, which removes it from every ISR.
	BrokerSessionTimeout time.Duration `kafka:"broker.session.timeout.ms" min:"1ms"`
	// EligibleLeaderReplicas turns on KIP-966's ELR: replicas that leave the
	// ISR while it is below min.insync.replicas stay electable, and a broker restarting
	// without a clean shutdown leaves every ISR and ELR. In Kafka this is
	// the feature eligible.leader.replicas.version (on for new clusters
	// since 4.1, kafka.version's default); false, as in 4.0 and older,
	// brings back the KIP-966 bug.
	EligibleLeaderReplicas bool `kafka:"eligible.leader.replicas.enable"`
	// AutoLeaderRebalance lets the active controller move leadership back
	// to each partition's preferred replica (the first of its assignment)
	// once it is in the ISR and unfenced, checking every
	// LeaderImbalanceCheckIntervalSeconds.
	AutoLeaderRebalance bool `kafka:"auto.leader.rebalance.enable"`
	// LeaderImbalanceCheckIntervalSeconds is how long after a partition's
	// leader stops being its preferred replica the controller checks
	// (Kafka's unit, seconds; at least 1 as Kafka's ConfigDef says).
	LeaderImbalanceCheckIntervalSeconds int64 `kafka:"leader.imbalance.check.interval.seconds" min:"1"`
}

// GroupConfig holds the group coordinator's settings (broker side).
type GroupConfig struct {
	// InitialRebalanceDelay is how long the coordinator waits for more
	// members before completing the first rebalance of an empty group.
	InitialRebalanceDelay time.Duration `kafka:"group.initial.rebalance.delay.ms"`
	// MinSessionTimeout and MaxSessionTimeout bound a member's
	// session.timeout.ms; outside them JoinGroup fails with
	// INVALID_SESSION_TIMEOUT.
	MinSessionTimeout time.Duration `kafka:"group.min.session.timeout.ms" min:"1ms"`
	MaxSessionTimeout time.Duration `kafka:"group.max.session.timeout.ms" min:"1ms"`
	// OffsetsTopicPartitions is the partition count of __consumer_offsets;
	// a group's coordinator is the leader of partition hash(group) mod it.
	OffsetsTopicPartitions int32 `kafka:"offsets.topic.num.partitions" min:"1"`
	// OffsetsTopicReplicationFactor is the replication factor of
	// __consumer_offsets.
	OffsetsTopicReplicationFactor int32 `kafka:"offsets.topic.replication.factor" min:"1"`
	// OffsetCommitTimeout bounds how long the coordinator waits for one of
	// its writes (an offset commit, a group's assignment) to commit in
	// __consumer_offsets before it answers with an error.
	OffsetCommitTimeout time.Duration `kafka:"offsets.commit.timeout.ms" min:"1ms"`
}

// TransactionConfig holds the transaction coordinator's settings (broker
// side, Kafka's TransactionStateManagerConfig and TransactionLogConfig).
type TransactionConfig struct {
	// StateLogPartitions is the partition count of __transaction_state; a
	// transactional id's coordinator leads partition hash(id) mod it.
	StateLogPartitions int32 `kafka:"transaction.state.log.num.partitions" min:"1"`
	// StateLogReplicationFactor is the replication factor of
	// __transaction_state.
	StateLogReplicationFactor int32 `kafka:"transaction.state.log.replication.factor" min:"1"`
	// StateLogMinISR is the min.insync.replicas __transaction_state is
	// created with: the coordinator's acks=all writes need it.
	StateLogMinISR int32 `kafka:"transaction.state.log.min.isr" min:"1"`
	// MaxTimeout is the largest transaction.timeout.ms a producer may ask
	// for; above it InitProducerId fails with INVALID_TRANSACTION_TIMEOUT.
	MaxTimeout time.Duration `kafka:"transaction.max.timeout.ms" min:"1ms"`
	// IDExpiration is how long a transactional id with no transaction in
	// flight and no update is kept.
	IDExpiration time.Duration `kafka:"transactional.id.expiration.ms" min:"1ms"`
	// AbortTimedOutInterval is how often the coordinator looks for
	// transactions past their timeout, to abort them.
	AbortTimedOutInterval time.Duration `kafka:"transaction.abort.timed.out.transaction.cleanup.interval.ms" min:"1ms"`
	// RemoveExpiredInterval is how often it looks for expired ids.
	RemoveExpiredInterval time.Duration `kafka:"transaction.remove.expired.transaction.cleanup.interval.ms" min:"1ms"`
	// Version is the transaction.version feature level
	// (TransactionVersion TV_0, TV_1, TV_2; KIP-890): from 1 the
	// coordinator's records are flexible, from 2 every transaction end
	// bumps the producer epoch and EndTxn answers the new one (part 2).
	// Kafka 4.0 bootstraps new clusters at 2 (TV_2's bootstrap metadata
	// version is IBP_4_0_IV2); 3.x has no such feature, level 0.
	Version int32 `kafka:"transaction.version" min:"0"`
	// PartitionVerification is transaction.partition.verification.enable
	// (KIP-890 part 1, Kafka 3.6+, default true): a partition leader asks
	// the transaction coordinator whether a transactional produce's
	// partition is in the producer's ongoing transaction before it
	// appends the first batch of a transaction there.
	PartitionVerification bool `kafka:"transaction.partition.verification.enable"`
}

// ProducerConfig holds the producer's settings.
type ProducerConfig struct {
	// Acks is how many replicas must have a write before it is
	// acknowledged: 0 (none, no response), 1 (the leader) or all (the ISR,
	// at least min.insync.replicas of it).
	Acks Acks `kafka:"acks"`
	// Idempotence gives each write a producer id and sequence so that
	// retries are not duplicated (KIP-98).
	Idempotence bool `kafka:"enable.idempotence"`
	// MaxInFlight bounds the unanswered produce requests per broker
	// connection. Above 1 without idempotence, retries can reorder writes.
	MaxInFlight int32 `kafka:"max.in.flight.requests.per.connection" min:"1"`
	// Retries bounds resends of a failed batch; delivery.timeout.ms is the
	// bound that normally ends them.
	Retries int32 `kafka:"retries"`
	// Linger is how long a batch waits for more records before it is sent.
	// Kafka 4.0 raised the default from 0 to 5 ms (KIP-1030).
	Linger time.Duration `kafka:"linger.ms"`
	// BatchSize is the bytes a batch may reach before it is sent.
	BatchSize int32 `kafka:"batch.size"`
	// DeliveryTimeout bounds the time from send() to the outcome, retries
	// included; after it the write is reported failed, although it may
	// still have been appended (an indeterminate outcome).
	DeliveryTimeout time.Duration `kafka:"delivery.timeout.ms" min:"1ms"`
	// TransactionTimeout is how long the transaction coordinator lets a
	// transaction of this producer stay open before it aborts it
	// (ProducerConfig's transaction.timeout.ms, 60 s). It is sent with
	// InitProducerId and read only by a producer with a transactional id
	// (client.ProducerOptions.TransactionalID: an id names one producer,
	// so it is not a cluster-wide setting here).
	TransactionTimeout time.Duration `kafka:"transaction.timeout.ms" min:"1ms"`
}

// ConsumerConfig holds the consumer's settings.
type ConsumerConfig struct {
	// SessionTimeout is how long the coordinator waits for a member's
	// heartbeat before removing it and rebalancing.
	SessionTimeout time.Duration `kafka:"session.timeout.ms" min:"1ms"`
	// HeartbeatInterval is how often a member heartbeats the coordinator.
	HeartbeatInterval time.Duration `kafka:"heartbeat.interval.ms" min:"1ms"`
	// MaxPollInterval bounds the time between polls, and is the rebalance
	// timeout the member sends with JoinGroup.
	MaxPollInterval time.Duration `kafka:"max.poll.interval.ms" min:"1ms"`
	// MaxPollRecords bounds the records one poll returns.
	MaxPollRecords int32 `kafka:"max.poll.records" min:"1"`
	// AutoOffsetReset is where to start without a committed offset.
	AutoOffsetReset OffsetReset `kafka:"auto.offset.reset"`
	// AutoCommit commits the positions of the previous poll periodically.
	AutoCommit bool `kafka:"enable.auto.commit"`
	// AutoCommitInterval is the period of auto-commit.
	AutoCommitInterval time.Duration `kafka:"auto.commit.interval.ms" min:"1ms"`
	// FetchMaxWait is how long the leader holds a consumer's fetch when
	// fewer than fetch.min.bytes are available.
	FetchMaxWait time.Duration `kafka:"fetch.max.wait.ms"`
	// FetchMinBytes is the bytes a consumer's fetch waits for.
	FetchMinBytes int32 `kafka:"fetch.min.bytes"`
	// AssignmentStrategy is the partition assignor. Kafka's default list is
	// [range, cooperative-sticky], which settles on range while any member
	// lacks cooperative-sticky; kafkasim runs one assignor per group.
	AssignmentStrategy Assignor `kafka:"partition.assignment.strategy"`
	// IsolationLevel is isolation.level (KIP-98): read_uncommitted (the
	// default) reads up to the high watermark; read_committed reads up
	// to the last stable offset and drops the records of aborted
	// transactions.
	IsolationLevel IsolationLevel `kafka:"isolation.level"`
	// SelfFencing is kafkasim's own switch (not a Kafka setting), off by
	// default as in Kafka. Neither of Kafka's consumers gives up its
	// partitions on its own when its coordinator stops answering: the
	// classic one's heartbeat thread (AbstractCoordinator.HeartbeatThread)
	// on session expiry only marks the coordinator unknown and looks it up
	// again, and the KIP-848 one (AbstractHeartbeatRequestManager) skips
	// heartbeats while the coordinator is unknown and fences itself
	// (AbstractMembershipManager.transitionToFenced) only on an answer
	// with FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID. (Its leave on an
	// expired max.poll.interval.ms is about a stalled poll loop, not a
	// silent coordinator.) So a member cut off from its coordinator but not
	// from the partition leaders keeps fetching partitions the coordinator
	// has already given to another member until it hears back (the zombie
	// consumer). True is the extension: the member treats its partitions
	// as lost once it has had no successful answer for session.timeout.ms,
	// counted from when it sent the last request that got one, which is no
	// later than the coordinator expires it.
	SelfFencing bool `kafka:"consumer.self.fencing"`
}

// ClientConfig holds settings that Kafka's producer and consumer both have
// under the same name and default; the simulated clients share them.
type ClientConfig struct {
	// RequestTimeout is how long a client waits for a response before it
	// gives up on the request (and, for a write, does not know its fate).
	RequestTimeout time.Duration `kafka:"request.timeout.ms" min:"1ms"`
	// RetryBackoff is the first pause before a retry; it grows
	// exponentially up to RetryBackoffMax (KIP-580).
	RetryBackoff    time.Duration `kafka:"retry.backoff.ms"`
	RetryBackoffMax time.Duration `kafka:"retry.backoff.max.ms"`
	// ReconnectBackoff is the wait before reconnecting to a node whose
	// connection broke or timed out; it doubles with each consecutive
	// failure up to ReconnectBackoffMax, with ±20% jitter
	// (ClusterConnectionStates.updateReconnectBackoff).
	ReconnectBackoff    time.Duration `kafka:"reconnect.backoff.ms"`
	ReconnectBackoffMax time.Duration `kafka:"reconnect.backoff.max.ms"`
	// SocketConnectionSetupTimeout is how long a new connection may take
	// to become ready before the client closes it; it doubles with each
	// consecutive failure up to SocketConnectionSetupTimeoutMax, with
	// ±20% jitter (KIP-601, ClusterConnectionStates). The replica
	// fetcher's NetworkClient (BrokerBlockingSender) uses the same
	// settings.
	SocketConnectionSetupTimeout    time.Duration `kafka:"socket.connection.setup.timeout.ms" min:"1ms"`
	SocketConnectionSetupTimeoutMax time.Duration `kafka:"socket.connection.setup.timeout.max.ms" min:"1ms"`
	// MetadataMaxAge is how often a client refreshes metadata even without
	// an error that calls for it.
	MetadataMaxAge time.Duration `kafka:"metadata.max.age.ms" min:"1ms"`
}

// Never is the duration of a periodic action that never happens, Kafka's
// Long.MAX_VALUE milliseconds.
const Never = time.Duration(math.MaxInt64)

// DefaultConfig returns Kafka's defaults, with kafkasim's own switches at
// their fixed behaviour (epoch-based truncation, ELR on). It stays one long
// literal: a table of defaults reads best as the table.
func DefaultConfig() Config {
	return Config{
		Broker: BrokerConfig{
			DefaultReplicationFactor:             1,
			ReplicaLagTimeMax:                    30 * time.Second,
			ReplicaFetchWaitMax:                  500 * time.Millisecond,
			ReplicaFetchMaxBytes:                 1 << 20,
			ReplicaFetchMinBytes:                 1,
			ReplicaFetchBackoff:                  time.Second,
			ReplicaSocketTimeout:                 30 * time.Second,
			MaxIncrementalFetchSessionCacheSlots: 1000,
			HighWatermarkCheckpointInterval:      5 * time.Second,
			LogFlushIntervalMessages:             math.MaxInt64,
			LogFlushInterval:                     Never,
			LogSegmentBytes:                      1 << 30,
			ProducerIDExpiration:                 24 * time.Hour,
			ProducerIDExpirationCheckInterval:    10 * time.Minute,
			Truncation:                           TruncateLeaderEpoch,
			HighWatermarkFreezeBelowMinISR:       true,
			StrayReplicaCheckAtLoad:              true,
			NetworkTCP:                           true,
			ControlledShutdownEnable:             true,
		},
		Topic: TopicConfig{
			MinInsyncReplicas:     1,
			UncleanLeaderElection: false,
			Retention:             7 * 24 * time.Hour,
			RetentionBytes:        -1,
		},
		Controller: ControllerConfig{
			BrokerHeartbeatInterval: 2 * time.Second,
			BrokerSessionTimeout:    9 * time.Second,
			EligibleLeaderReplicas:  true,
			// ReplicationConfigs: AUTO_LEADER_REBALANCE_ENABLE_DEFAULT and
			// LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS_DEFAULT.
			AutoLeaderRebalance:                 true,
			LeaderImbalanceCheckIntervalSeconds: 300,
		},
		Group: GroupConfig{
			InitialRebalanceDelay:         3 * time.Second,
			MinSessionTimeout:             6 * time.Second,
			MaxSessionTimeout:             30 * time.Minute,
			OffsetsTopicPartitions:        50,
			OffsetsTopicReplicationFactor: 3,
			OffsetCommitTimeout:           5 * time.Second,
		},
		Txn: TransactionConfig{
			StateLogPartitions:        50,
			StateLogReplicationFactor: 3,
			StateLogMinISR:            2,
			MaxTimeout:                15 * time.Minute,
			IDExpiration:              7 * 24 * time.Hour,
			AbortTimedOutInterval:     10 * time.Second,
			RemoveExpiredInterval:     time.Hour,
			Version:                   2,
			PartitionVerification:     true,
		},
		Producer: ProducerConfig{
			Acks:            AcksAll,
			Idempotence:     true,
			MaxInFlight:     5,
			Retries:         math.MaxInt32,
			Linger:          5 * time.Millisecond,
			BatchSize:       16384,
			DeliveryTimeout: 120 * time.Second,
			// ProducerConfig.TRANSACTION_TIMEOUT_CONFIG's default.
			TransactionTimeout: 60 * time.Second,
		},
		Consumer: ConsumerConfig{
			SessionTimeout:     45 * time.Second,
			HeartbeatInterval:  3 * time.Second,
			MaxPollInterval:    300 * time.Second,
			MaxPollRecords:     500,
			AutoOffsetReset:    ResetLatest,
			AutoCommit:         true,
			AutoCommitInterval: 5 * time.Second,
			FetchMaxWait:       500 * time.Millisecond,
			FetchMinBytes:      1,
			AssignmentStrategy: AssignRange,
			SelfFencing:        false,
		},
		Client: ClientConfig{
			RequestTimeout:  30 * time.Second,
			RetryBackoff:    100 * time.Millisecond,
			RetryBackoffMax: time.Second,
			MetadataMaxAge:  5 * time.Minute,
			// CommonClientConfigs' defaults.
			ReconnectBackoff:                50 * time.Millisecond,
			ReconnectBackoffMax:             time.Second,
			SocketConnectionSetupTimeout:    10 * time.Second,
			SocketConnectionSetupTimeoutMax: 30 * time.Second,
		},
		Release: ReleaseConfig{KafkaVersion: NewestKafkaVersion},
	}
}

// Acks is the producer's acks setting. Its values are Kafka's wire values.
type Acks int16

const (
	AcksNone   Acks = 0  // acks=0: no response at all
	AcksLeader Acks = 1  // acks=1: the leader's own append
	AcksAll    Acks = -1 // acks=all (-1): the ISR, at least min.insync.replicas
)

// String gives the configuration text: "0", "1" or "all".
func (a Acks) String() string {
	switch a {
	case AcksAll:
		return "all"
	case AcksNone, AcksLeader:
		return strconv.Itoa(int(a))
	}
	return "acks(" + strconv.Itoa(int(a)) + ")"
}

// UnmarshalText reads "0", "1", "all" or "-1".
func (a *Acks) UnmarshalText(b []byte) error {
	switch string(b) {
	case "0":
		*a = AcksNone
	case "1":
		*a = AcksLeader
	case "all", "-1":
		*a = AcksAll
	default:
		return fmt.Errorf("%q is not one of 0, 1, all", b)
	}
	return nil
}

// TruncationMode selects how a follower that becomes a follower (or
// restarts) finds the point where its log may diverge from the leader's.
// Kafka changed this twice; each older behaviour brings back the bugs that
// forced the change, which is why all three stay available.
type TruncationMode string

const (
	// TruncateLeaderEpoch is today's behaviour (KIP-101 with KIP-279): the
	// leader answers the follower's last epoch with (epoch, end offset),
	// and the follower truncates and asks again until they agree.
	TruncateLeaderEpoch TruncationMode = "leader-epoch"
	// TruncateLeaderEpochKIP101 is KIP-101 alone: the leader's answer
	// carries the end offset but no epoch, so a follower cannot tell when
	// the leader's epoch history differs further back, and may truncate
	// too little (the KIP-279 bug).
	TruncateLeaderEpochKIP101 TruncationMode = "leader-epoch-kip101"
	// TruncateHighWatermark is the behaviour before KIP-101: truncate to
	// the local high watermark on becoming a follower, which loses
	// committed records and lets logs diverge after power loss.
	TruncateHighWatermark TruncationMode = "high-watermark"
)

// UnmarshalText accepts the three mode names.
func (m *TruncationMode) UnmarshalText(b []byte) error {
	v := TruncationMode(b)
	if !v.valid() {
		return fmt.Errorf("%q is not one of %s, %s, %s", b, TruncateLeaderEpoch, TruncateLeaderEpochKIP101, TruncateHighWatermark)
	}
	*m = v
	return nil
}

func (m TruncationMode) valid() bool {
	return m == TruncateLeaderEpoch || m == TruncateLeaderEpochKIP101 || m == TruncateHighWatermark
}

// OffsetReset is auto.offset.reset: where a consumer without a committed
// offset starts.
type OffsetReset string

const (
	ResetLatest   OffsetReset = "latest"   // the log end: only new records
	ResetEarliest OffsetReset = "earliest" // the log start
	ResetNone     OffsetReset = "none"     // fail instead of guessing
)

// UnmarshalText accepts latest, earliest or none.
func (r *OffsetReset) UnmarshalText(b []byte) error {
	v := OffsetReset(b)
	if !v.valid() {
		return fmt.Errorf("%q is not one of latest, earliest, none", b)
	}
	*r = v
	return nil
}

func (r OffsetReset) valid() bool {
	return r == ResetLatest || r == ResetEarliest || r == ResetNone
}

// Assignor names a consumer partition assignor, by the short names Kafka's
// assignors report as their protocol names.
type Assignor string

const (
	AssignRange             Assignor = "range"
	AssignRoundRobin        Assignor = "roundrobin"
	AssignSticky            Assignor = "sticky"
	AssignCooperativeSticky Assignor = "cooperative-sticky" // KIP-429
)

// UnmarshalText accepts the four assignor names.
func (a *Assignor) UnmarshalText(b []byte) error {
	v := Assignor(b)
	if !v.valid() {
		return fmt.Errorf("%q is not one of range, roundrobin, sticky, cooperative-sticky", b)
	}
	*a = v
	return nil
}

func (a Assignor) valid() bool {
	return a == AssignRange || a == AssignRoundRobin || a == AssignSticky || a == AssignCooperativeSticky
}

// configField locates one tagged field.
type configField struct {
	index []int // reflect path from Config
	min   string
}

// configFields maps each Kafka name to its field; configNames lists the
// names sorted. Both are built once from the struct tags and only read.
var configFields, configNames = indexConfig()

func indexConfig() (map[string]configField, []string) {
	fields := map[string]configField{}
	var names []string
	top := reflect.TypeFor[Config]()
	for i := 0; i < top.NumField(); i++ {
		group := top.Field(i).Type
		for j := 0; j < group.NumField(); j++ {
			f := group.Field(j)
			name := f.Tag.Get("kafka")
			if name == "" {
				panic("model: config field " + top.Field(i).Name + "." + f.Name + " has no kafka tag")
			}
			if _, dup := fields[name]; dup {
				panic("model: config name " + name + " used twice")
			}
			fields[name] = configField{index: []int{i, j}, min: f.Tag.Get("min")}
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return fields, names
}

// Names returns every configuration name, sorted.
func (c *Config) Names() []string { return append([]string(nil), configNames...) }

// durationType is told apart from the other int64 fields by type.
var durationType = reflect.TypeFor[time.Duration]()

// Set sets the field named by its Kafka name from text, as a command line
// gives it. Durations accept Go syntax ("30s", "500ms"), a bare integer of
// milliseconds as Kafka's *.ms settings do, or "never". Set checks the
// value's form only; Validate checks ranges and combinations.
func (c *Config) Set(name, value string) error {
	f, ok := configFields[name]
	if !ok {
		return unknownSettingError(name)
	}
	if name == "kafka.version" {
		// Not a plain field: a release moves the settings it governs.
		return c.setKafkaVersion(KafkaVersion(value))
	}
	v := reflect.ValueOf(c).Elem().FieldByIndex(f.index)
	if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := u.UnmarshalText([]byte(value)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	switch {
	case v.Type() == durationType:
		d, err := parseConfigDuration(value)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("%s: %q is not true or false", name, value)
		}
		v.SetBool(b)
	case v.Kind() == reflect.Int32 || v.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(value, 10, v.Type().Bits())
		if err != nil {
			return fmt.Errorf("%s: %q is not an integer of %d bits", name, value, v.Type().Bits())
		}
		v.SetInt(n)
	default:
		panic("model: config field " + name + " has unsupported type " + v.Type().String())
	}
	return nil
}

// SetPair applies a "name=value" setting, the form of -set on the command
// line.
func (c *Config) SetPair(pair string) error {
	name, value, ok := strings.Cut(pair, "=")
	if !ok {
		return fmt.Errorf("setting %q: want name=value", pair)
	}
	return c.Set(strings.TrimSpace(name), strings.TrimSpace(value))
}

// parseConfigDuration reads "30s", "1500" (milliseconds) or "never".
func parseConfigDuration(s string) (time.Duration, error) {
	if s == "never" {
		return Never, nil
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		// Kafka writes "forever" as Long.MAX_VALUE milliseconds, which does
		// not fit in a Duration: anything that large means never.
		if ms > int64(Never/time.Millisecond) {
			return Never, nil
		}
		if ms < int64(math.MinInt64/time.Millisecond) {
			return 0, fmt.Errorf("%q milliseconds is out of range", s)
		}
		return time.Duration(ms) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (30s, 500ms, or an integer of milliseconds)", s)
	}
	return d, nil
}

// Get returns the value of the named field as text that Set accepts, or ""
// for an unknown name.
func (c *Config) Get(name string) string {
	f, ok := configFields[name]
	if !ok {
		return ""
	}
	return formatConfigValue(reflect.ValueOf(c).Elem().FieldByIndex(f.index))
}

func formatConfigValue(v reflect.Value) string {
	if s, ok := v.Interface().(fmt.Stringer); ok && v.Type() != durationType {
		return s.String()
	}
	switch {
	case v.Type() == durationType:
		if time.Duration(v.Int()) == Never {
			return "never"
		}
		return time.Duration(v.Int()).String()
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case v.Kind() == reflect.String:
		return v.String()
	default:
		return strconv.FormatInt(v.Int(), 10)
	}
}

// NonDefault lists "name=value" for every setting that differs from
// DefaultConfig, sorted by name: what a failure report prints so that a run
// can be reproduced.
func (c *Config) NonDefault() []string {
	def := DefaultConfig()
	var out []string
	for _, name := range configNames {
		if v := c.Get(name); v != def.Get(name) {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// Validate rejects values out of range and combinations Kafka rejects or
// that cannot work, naming the keys involved. It reports every problem, in
// a fixed order, joined into one error.
func (c *Config) Validate() error {
	errs := c.checkMinimums()
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// The rules between settings and on enumerations, one flat list read
	// top to bottom, in the order their errors are reported.
	b, t, p, cs, cl := &c.Broker, &c.Topic, &c.Producer, &c.Consumer, &c.Client
	if !b.Truncation.valid() {
		bad("truncation=%q: must be one of %s, %s, %s", string(b.Truncation), TruncateLeaderEpoch, TruncateLeaderEpochKIP101, TruncateHighWatermark)
	}
	if !c.Release.KafkaVersion.valid() {
		bad("kafka.version=%q: must be one of %s", string(c.Release.KafkaVersion), kafkaVersionList())
	}
	if c.Txn.Version > 2 {
		bad("transaction.version=%d: must be 0, 1 or 2 (TransactionVersion TV_0 to TV_2)", c.Txn.Version)
	}
	if c.Controller.EligibleLeaderReplicas && !b.HighWatermarkFreezeBelowMinISR {
		// KIP-966: a replica that leaves the ISR below min ISR stays
		// electable only because the high watermark cannot pass it then.
		bad("eligible.leader.replicas.enable=true requires high.watermark.freeze.below.min.isr=true (KIP-966's ELR is safe only while the high watermark stops below min ISR)")
	}
	if t.MinInsyncReplicas > b.DefaultReplicationFactor {
		bad("min.insync.replicas=%d exceeds default.replication.factor=%d: no acks=all write could ever succeed", t.MinInsyncReplicas, b.DefaultReplicationFactor)
	}
	if p.Acks != AcksNone && p.Acks != AcksLeader && p.Acks != AcksAll {
		bad("acks=%d: must be 0, 1 or all", int(p.Acks))
	}
	if p.Idempotence {
		if p.Acks != AcksAll {
			bad("enable.idempotence=true requires acks=all, got acks=%s (set enable.idempotence=false to use it)", p.Acks)
		}
		if p.MaxInFlight > 5 {
			bad("enable.idempotence=true requires max.in.flight.requests.per.connection <= 5, got %d", p.MaxInFlight)
		}
		if p.Retries == 0 {
			bad("enable.idempotence=true requires retries > 0")
		}
	}
	if p.DeliveryTimeout < satAdd(p.Linger, cl.RequestTimeout) {
		bad("delivery.timeout.ms=%s must be at least linger.ms + request.timeout.ms = %s + %s", p.DeliveryTimeout, p.Linger, cl.RequestTimeout)
	}
	if b.ReplicaSocketTimeout < b.ReplicaFetchWaitMax {
		// KafkaConfig.validateValues: "replica.socket.timeout.ms should
		// always be at least replica.fetch.wait.max.ms to prevent
		// unnecessary socket timeouts".
		bad("replica.socket.timeout.ms=%s must be at least replica.fetch.wait.max.ms=%s", b.ReplicaSocketTimeout, b.ReplicaFetchWaitMax)
	}
	if cs.HeartbeatInterval >= cs.SessionTimeout {
		bad("heartbeat.interval.ms=%s must be lower than session.timeout.ms=%s", cs.HeartbeatInterval, cs.SessionTimeout)
	}
	if c.Controller.BrokerHeartbeatInterval >= c.Controller.BrokerSessionTimeout {
		bad("broker.heartbeat.interval.ms=%s must be lower than broker.session.timeout.ms=%s", c.Controller.BrokerHeartbeatInterval, c.Controller.BrokerSessionTimeout)
	}
	if c.Group.MinSessionTimeout > c.Group.MaxSessionTimeout {
		bad("group.min.session.timeout.ms=%s exceeds group.max.session.timeout.ms=%s", c.Group.MinSessionTimeout, c.Group.MaxSessionTimeout)
	}
	if !cs.AutoOffsetReset.valid() {
		bad("auto.offset.reset=%q: must be latest, earliest or none", string(cs.AutoOffsetReset))
	}
	if !cs.AssignmentStrategy.valid() {
		bad("partition.assignment.strategy=%q: must be range, roundrobin, sticky or cooperative-sticky", string(cs.AssignmentStrategy))
	}
	return errors.Join(errs...)
}

// checkMinimums checks every setting against its min tag (0 when absent):
// no negative counts, sizes or durations. Enumerations (acks, truncation,
// ...) are Validate's rules.
func (c *Config) checkMinimums() []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	for _, name := range configNames {
		f := configFields[name]
		v := reflect.ValueOf(c).Elem().FieldByIndex(f.index)
		switch {
		case v.Type() == durationType:
			lo := time.Duration(0)
			if f.min != "" {
				lo = mustParseDuration(f.min)
			}
			if d := time.Duration(v.Int()); d < lo {
				bad("%s=%s: must be at least %s", name, formatConfigValue(v), lo)
			}
		case v.Kind() == reflect.Int32 || v.Kind() == reflect.Int64:
			lo := int64(0)
			if f.min != "" {
				lo, _ = strconv.ParseInt(f.min, 10, 64)
			}
			if v.Int() < lo {
				bad("%s=%d: must be at least %d", name, v.Int(), lo)
			}
		}
	}
	return errs
}

// satAdd adds durations, saturating at Never instead of overflowing.
func satAdd(a, b time.Duration) time.Duration {
	if a > 0 && b > Never-a {
		return Never
	}
	return a + b
}

func mustParseDuration(s string) time.Duration {
	d, err := time.ParseDuration(s)
	if err != nil {
		panic("model: bad min tag " + s)
	}
	return d
}
