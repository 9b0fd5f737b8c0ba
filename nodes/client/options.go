package client

import (
	"fmt"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// Message is what an application hands the producer: Kafka's
// ProducerRecord without headers. The record's timestamp is the producer's
// clock at Send.
type Message struct {
	Topic string
	// Key chooses the partition (murmur2, as Kafka) unless HasPartition is
	// set; an empty key means no key, and the sticky partitioner chooses.
	Key string
	// Value must be unique within the run, so that every record in the
	// history names its send.
	Value string
	// Partition is used when HasPartition is set: a flag rather than a
	// sentinel so that a Message literal that forgets it cannot silently
	// mean partition 0.
	Partition    int32
	HasPartition bool
}

// Workload feeds a producer from the harness. The producer calls Next every
// ProducerOptions.SendInterval of its own clock (SendBurst times in a row)
// and sends what it returns;
// ok=false ends the workload for this incarnation of the producer (the
// ticking stops; a restart starts it again and Next decides). The workload
// lives outside the node, so it survives crashes, which is what lets it
// keep values unique across restarts.
type Workload interface {
	Next(env *sim.Env) (m Message, ok bool)
}

// ProducerOptions configures a Producer.
type ProducerOptions struct {
	// Bootstrap lists the brokers the producer first asks for metadata.
	Bootstrap []model.BrokerID
	// Config supplies the Producer and Client settings under Kafka's names;
	// start from model.DefaultConfig().
	Config model.Config
	// Recorder is the run's shared history. It must outlive the node, so
	// that a crash (which discards the node) keeps what was recorded. Nil
	// records nothing.
	Recorder *model.Recorder
	// Process is the producer's process id in the history; 0 means the
	// node id.
	Process int
	// Topics, if any, have their metadata fetched at start, as an
	// application that calls partitionsFor before sending does, so that the
	// first sends need not wait for it.
	Topics []string
	// Workload, if set, is polled every SendInterval (which must then be
	// positive).
	Workload     Workload
	SendInterval time.Duration
	// SendBurst is how many records each tick takes from the Workload and
	// sends back to back; 0 means 1. Kafka's load generator paces this
	// way: ProducerPerformance's ThroughputThrottler sleeps only once 2 ms
	// of sleep is owed, so kafka-producer-perf-test --throughput 1000
	// sends two records every 2 ms.
	SendBurst int
	// MaxBlock is Kafka's max.block.ms, which the model's configuration does
	// not carry: how long a send waits for its topic's metadata before it
	// fails. 0 means Kafka's default, 60 s.
	MaxBlock time.Duration
	// TransactionalID is transactional.id: set, the producer is
	// transactional (KIP-98). It initializes transactions at every start
	// (which fences the transactions an earlier incarnation left open),
	// and sends only inside transactions: TxnWorkload's, or those harness
	// code begins, commits and aborts. It is a per-producer option rather
	// than a cluster setting because an id names one producer; its
	// transaction.timeout.ms is the configuration's. Needs
	// enable.idempotence.
	TransactionalID string
	// TxnWorkload, if set, drives a transactional producer instead of
	// Workload: one transaction per SendInterval while none is under
	// way.
	TxnWorkload TxnWorkload

	_ struct{}
}

// ConsumerOptions configures a Consumer.
type ConsumerOptions struct {
	// Bootstrap lists the brokers the consumer first asks for metadata.
	Bootstrap []model.BrokerID
	// Config supplies the Consumer and Client settings; start from
	// model.DefaultConfig().
	Config model.Config
	// Recorder is the run's shared history (see ProducerOptions.Recorder).
	Recorder *model.Recorder
	// Process is the consumer's process id in the history; 0 means the
	// node id.
	Process int
	// Assignment, if not empty, is assigned (and recorded as an assign op)
	// at every start, so that a consumer that crashes and restarts picks its
	// partitions up again.
	Assignment []model.TopicPartition
	// PollInterval is the period of the application's poll loop. 0 means
	// 100 ms.
	PollInterval time.Duration

	// GroupID (group.id), if set, makes the consumer a member of that
	// consumer group: it subscribes to Topics at every start (recorded as a
	// subscribe op) and the group assigns it partitions, instead of
	// Assignment, which must then be empty.
	GroupID string
	// Topics is the subscription of a group member.
	Topics []string
	// GroupInstanceID is group.instance.id (KIP-345): a static member keeps
	// its place in the group across restarts, and does not leave the group
	// when it stops.
	GroupInstanceID string
	// Assignors is partition.assignment.strategy, in preference order; the
	// coordinator picks the first one every member supports. Empty means
	// Config.Consumer.AssignmentStrategy, followed by cooperative-sticky
	// when that is range: Kafka's default list [range, cooperative-sticky].
	// The member revokes cooperatively (KIP-429) only if every assignor in
	// the list supports it, as Kafka's ConsumerCoordinator decides.
	Assignors []model.Assignor
	// OnRevoked, OnAssigned and OnLost are the ConsumerRebalanceListener
	// callbacks, called with the partitions concerned, sorted, before the
	// consumer stops fetching revoked or lost partitions and after it takes
	// assigned ones. Nil means no callback.
	OnRevoked  func(env *sim.Env, tps []model.TopicPartition)
	OnAssigned func(env *sim.Env, tps []model.TopicPartition)
	OnLost     func(env *sim.Env, tps []model.TopicPartition)

	// ManualPoll leaves the poll loop to the application: no poll timer
	// runs, and the application takes records with PollRecords, which
	// records nothing (a consume-transform-produce worker writes its
	// polls into its transactions' history ops).
	ManualPoll bool

	_ struct{}
}

// AdminOptions configures an Admin.
type AdminOptions struct {
	// Bootstrap lists the brokers the admin client first asks for
	// metadata.
	Bootstrap []model.BrokerID
	// Config supplies the Client settings (request.timeout.ms,
	// retry.backoff.ms, ...); start from model.DefaultConfig().
	Config model.Config
	// Topics are created at start, in one createTopics call. Names must
	// be distinct (KafkaAdminClient would drop the later of two specs of
	// one name).
	Topics []model.TopicSpec
	// APITimeout is default.api.timeout.ms, the call's deadline: the
	// model's configuration does not carry it. 0 means Kafka's 60 s.
	APITimeout time.Duration
	// WaitForBrokers, when positive, holds the call back until a Metadata
	// answer lists at least this many live (registered, unfenced)
	// brokers: what a deployment script does before it creates topics,
	// so that the replicas are placed over the whole cluster. The call's
	// deadline runs from the start all the same.
	WaitForBrokers int
	// Result receives the outcome. Like a Recorder it lives outside the
	// node, so that the harness can read it and a restarted admin client
	// does not create the topics twice.
	Result *CreateTopicsResult

	_ struct{}
}

// Defaults for settings the model's configuration does not carry.
const (
	defaultAPITimeout   = 60 * time.Second
	defaultMaxBlock     = 60 * time.Second
	defaultPollInterval = 100 * time.Millisecond
	// fetchMaxBytes and partitionFetchMaxBytes are Kafka's fetch.max.bytes
	// and max.partition.fetch.bytes defaults.
	fetchMaxBytes          = 50 << 20
	partitionFetchMaxBytes = 1 << 20
)

// checkProducer panics on settings that cannot work, as Kafka's
// ProducerConfig rejects them at construction: a programmer error of the
// harness, not a protocol condition.
func checkProducer(o *ProducerOptions) {
	p, c := &o.Config.Producer, &o.Config.Client
	var bad []string
	if len(o.Bootstrap) == 0 {
		bad = append(bad, "no bootstrap brokers")
	}
	if p.Acks != model.AcksNone && p.Acks != model.AcksLeader && p.Acks != model.AcksAll {
		bad = append(bad, fmt.Sprintf("acks=%d", int(p.Acks)))
	}
	if p.Idempotence && (p.Acks != model.AcksAll || p.MaxInFlight > 5 || p.Retries == 0) {
		bad = append(bad, fmt.Sprintf("enable.idempotence=true needs acks=all, max.in.flight.requests.per.connection<=5 and retries>0 (acks=%s, max.in.flight=%d, retries=%d)", p.Acks, p.MaxInFlight, p.Retries))
	}
	if p.MaxInFlight < 1 || p.BatchSize < 1 || p.DeliveryTimeout <= 0 || c.RequestTimeout <= 0 || c.MetadataMaxAge <= 0 {
		bad = append(bad, "max.in.flight.requests.per.connection, batch.size, delivery.timeout.ms, request.timeout.ms and metadata.max.age.ms must be positive (start from model.DefaultConfig())")
	}
	if (o.Workload != nil || o.TxnWorkload != nil) && o.SendInterval <= 0 {
		bad = append(bad, "a Workload needs a positive SendInterval")
	}
	if o.TransactionalID != "" && !p.Idempotence {
		// KafkaProducer: "Cannot set a transactional.id without also
		// enabling idempotence."
		bad = append(bad, "transactional.id needs enable.idempotence=true")
	}
	if o.TxnWorkload != nil && (o.TransactionalID == "" || o.Workload != nil) {
		bad = append(bad, "a TxnWorkload needs a TransactionalID and no Workload")
	}
	if o.SendBurst < 0 {
		bad = append(bad, fmt.Sprintf("SendBurst %d is negative", o.SendBurst))
	}
	if len(bad) > 0 {
		panic(fmt.Sprintf("client.NewProducer: %v", bad))
	}
}

// checkAdmin panics on settings that cannot work.
func checkAdmin(o *AdminOptions) {
	var bad []string
	if len(o.Bootstrap) == 0 {
		bad = append(bad, "no bootstrap brokers")
	}
	if o.Result == nil {
		bad = append(bad, "no Result to report to")
	}
	if c := &o.Config.Client; c.RequestTimeout <= 0 || c.MetadataMaxAge <= 0 {
		bad = append(bad, "request.timeout.ms and metadata.max.age.ms must be positive (start from model.DefaultConfig())")
	}
	seen := map[string]bool{}
	for _, t := range o.Topics {
		if seen[t.Name] {
			bad = append(bad, fmt.Sprintf("topic %q given twice", t.Name))
		}
		seen[t.Name] = true
	}
	if len(bad) > 0 {
		panic(fmt.Sprintf("client.NewAdmin: %v", bad))
	}
}

// checkConsumer panics on settings that cannot work.
func checkConsumer(o *ConsumerOptions) {
	cs, c := &o.Config.Consumer, &o.Config.Client
	var bad []string
	if len(o.Bootstrap) == 0 {
		bad = append(bad, "no bootstrap brokers")
	}
	switch cs.AutoOffsetReset {
	case model.ResetEarliest, model.ResetLatest, model.ResetNone:
	default:
		bad = append(bad, fmt.Sprintf("auto.offset.reset=%q", string(cs.AutoOffsetReset)))
	}
	if cs.MaxPollRecords < 1 || c.RequestTimeout <= 0 || c.MetadataMaxAge <= 0 {
		bad = append(bad, "max.poll.records, request.timeout.ms and metadata.max.age.ms must be positive (start from model.DefaultConfig())")
	}
	if o.GroupID == "" && (len(o.Topics) > 0 || o.GroupInstanceID != "" || len(o.Assignors) > 0) {
		bad = append(bad, "Topics, GroupInstanceID and Assignors need a GroupID")
	}
	if o.GroupID != "" {
		if len(o.Assignment) > 0 {
			bad = append(bad, "a group member subscribes: Assignment must be empty")
		}
		if cs.HeartbeatInterval <= 0 || cs.HeartbeatInterval >= cs.SessionTimeout || cs.MaxPollInterval <= 0 || cs.AutoCommitInterval <= 0 {
			bad = append(bad, "a group member needs 0 < heartbeat.interval.ms < session.timeout.ms and positive max.poll.interval.ms and auto.commit.interval.ms")
		}
		for _, a := range o.Assignors {
			if _, ok := group.ByName(a); !ok {
				bad = append(bad, fmt.Sprintf("unknown assignor %q", string(a)))
			}
		}
	}
	if len(bad) > 0 {
		panic(fmt.Sprintf("client.NewConsumer: %v", bad))
	}
}
