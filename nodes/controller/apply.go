package controller

import (
	"cmp"
	"fmt"
	"slices"

	"kafkasim/model"
)

// metadataState is the cluster metadata as the log's committed records
// built it: the controller's whole durable state, and nothing else. It
// changes only in apply (or by restoring a snapshot), one record at a
// time, so that the state after any prefix of the log is the same on every
// controller and broker, whether the records were replayed at a restart or
// fetched from the quorum's leader.
//
// Slices stored here are never changed in place: a change builds new ones.
// Messages share them with the state, and a message once sent must not
// change.
type metadataState struct {
	// offset is the offset of the last applied record (0: none).
	offset int64
	// controllerEpoch is the quorum epoch of the last applied record.
	controllerEpoch model.Epoch
	controllerID    model.BrokerID

	brokers   map[model.BrokerID]*brokerRegistration
	brokerIDs []model.BrokerID // sorted: the order every walk over brokers uses

	topics     map[string]*topicInfo
	topicNames []string // sorted
	// deleted counts each topic name's deletions (RemoveTopicRecord): a
	// topic created under a name deleted n times is its life n, which
	// stands in for Kafka's topic id where a name is reused.
	deleted map[string]int32

	// cluster is the cluster configuration, the base that topic-level
	// overrides in CreateTopicRecord apply to.
	cluster model.Config
}

// brokerRegistration is one registered broker's current incarnation.
type brokerRegistration struct {
	ID          model.BrokerID
	Epoch       model.Epoch
	Incarnation uint64
	Fenced      bool
	// Rack is the broker's broker.rack, "" for none.
	Rack string
	// registeredAt is the offset of the RegisterBrokerRecord, which equals
	// Epoch; kept as an offset because that is how it is compared (a
	// heartbeat's metadata offset must reach it before the broker is
	// unfenced).
	registeredAt int64
	// InControlledShutdown: the broker asked to shut down and is waiting
	// for its leaderships to move (BrokerRegistrationChangeRecord).
	InControlledShutdown bool
}

// topicInfo is one topic.
type topicInfo struct {
	name    string
	configs []model.ConfigEntry
	// config is the topic's settings as they apply to it: its overrides
	// on top of the cluster's defaults (Kafka's LogConfig, built from the
	// topic's ConfigRecords over the broker's defaults). min.insync.replicas
	// here is before capping at the replication factor.
	config model.TopicConfig
	parts  []*partitionInfo
	// life is how many topics of this name were deleted before it was
	// created (metadataState.deleted): 0 unless the name was reused.
	life int32
}

// partitionInfo is one partition: what brokers and clients see, plus the
// controller's own election memory.
type partitionInfo struct {
	model.PartitionState
	// LastKnownLeader is KIP-966's last known leader (see
	// PartitionChangeRecord), NoBroker when there is none.
	LastKnownLeader model.BrokerID
	// UncleanElections counts the leaders elected from outside the ISR
	// and ELR (records marked Unclean), for the harness: from the first,
	// acknowledged writes to the partition are no longer promised.
	UncleanElections int
	// changedAt is the offset of the record that last changed the
	// partition. Pushes to a broker carry every partition changed since the
	// broker last confirmed its offset (see publish.go).
	changedAt int64
	// Adding and Removing are the reassignment in progress (KIP-455):
	// replicas joining, which must reach the ISR before it completes, and
	// replicas leaving once it does. Both empty when none is.
	Adding, Removing []model.BrokerID
}

// reassigning reports whether a reassignment is in progress
// (PartitionReassignmentReplicas.isReassignmentInProgress).
func (p *partitionInfo) reassigning() bool { return len(p.Adding) > 0 || len(p.Removing) > 0 }

func newMetadataState(cluster model.Config) *metadataState {
	return &metadataState{
		controllerID: model.NoBroker,
		brokers:      map[model.BrokerID]*brokerRegistration{},
		topics:       map[string]*topicInfo{},
		deleted:      map[string]int32{},
		cluster:      cluster,
	}
}

// apply makes one record at one offset take effect. It is the only code
// that changes metadataState. A record that does not fit the state (a
// fence for an unknown broker epoch, a partition epoch that does not
// follow) is a programmer error: the controller builds records from this
// same state, and the log's checksums keep corruption out, so apply panics
// rather than guessing. It stays one function: one case per record kind,
// as Kafka's QuorumController.replay dispatches them.
func (s *metadataState) apply(offset int64, r Record) {
	// Offsets grow; they may skip, over the quorum's own control entries.
	if offset <= s.offset {
		panic(fmt.Sprintf("controller: record %v at offset %d, after offset %d", r, offset, s.offset))
	}
	switch r := r.(type) {
	case LeaderChangeRecord:
		if r.ControllerEpoch <= s.controllerEpoch {
			panic(fmt.Sprintf("controller: %v does not raise controller epoch %d", r, s.controllerEpoch))
		}
		s.controllerEpoch = r.ControllerEpoch
		s.controllerID = r.ControllerID

	case RegisterBrokerRecord:
		if int64(r.Epoch) != offset {
			panic(fmt.Sprintf("controller: %v at offset %d: the broker epoch is the record's offset", r, offset))
		}
		if _, ok := s.brokers[r.ID]; !ok {
			s.brokerIDs = insertSorted(s.brokerIDs, r.ID)
		}
		s.brokers[r.ID] = &brokerRegistration{
			ID: r.ID, Epoch: r.Epoch, Incarnation: r.Incarnation, Fenced: true, Rack: r.Rack, registeredAt: offset,
		}

	case FenceBrokerRecord:
		s.registrationFor(r, r.ID, r.Epoch).Fenced = true

	case UnfenceBrokerRecord:
		s.registrationFor(r, r.ID, r.Epoch).Fenced = false

	case BrokerRegistrationChangeRecord:
		s.registrationFor(r, r.ID, r.Epoch).InControlledShutdown = true

	case CreateTopicRecord:
		if _, ok := s.topics[r.Name]; ok {
			panic(fmt.Sprintf("controller: %v: topic exists", r))
		}
		config, err := resolveTopicConfig(s.cluster, r.Configs)
		if err != nil {
			panic(fmt.Sprintf("controller: %v: %v", r, err))
		}
		t := &topicInfo{name: r.Name, configs: r.Configs, config: config, life: s.deleted[r.Name]}
		for i := range r.Partitions {
			p := r.Partitions[i]
			if p.TP != model.TP(r.Name, int32(i)) {
				panic(fmt.Sprintf("controller: %v: partition %d is %v", r, i, p.TP))
			}
			t.parts = append(t.parts, &partitionInfo{PartitionState: p, LastKnownLeader: model.NoBroker, changedAt: offset})
		}
		s.topics[r.Name] = t
		s.topicNames = insertSorted(s.topicNames, r.Name)

	case PartitionChangeRecord:
		p := s.partition(r.TP)
		if p == nil {
			panic(fmt.Sprintf("controller: %v: no such partition", r))
		}
		if r.PartitionEpoch != p.PartitionEpoch+1 {
			panic(fmt.Sprintf("controller: %v: partition epoch must follow %d", r, p.PartitionEpoch))
		}
		wantLeaderEpoch := p.LeaderEpoch
		if r.Leader != p.Leader {
			wantLeaderEpoch++
		}
		// A change of assignment may bump the epoch of a leader that stays.
		bumpedForAssignment := r.Assignment != nil && r.Leader == p.Leader && r.LeaderEpoch == p.LeaderEpoch+1
		if r.LeaderEpoch != wantLeaderEpoch && !bumpedForAssignment {
			panic(fmt.Sprintf("controller: %v: leader epoch must be %d", r, wantLeaderEpoch))
		}
		p.Leader = r.Leader
		p.LeaderEpoch = r.LeaderEpoch
		p.PartitionEpoch = r.PartitionEpoch
		p.ISR = r.ISR
		p.ELR = r.ELR
		p.LastKnownLeader = r.LastKnownLeader
		if r.Unclean {
			p.UncleanElections++
		}
		if a := r.Assignment; a != nil {
			p.Replicas, p.Adding, p.Removing = a.Replicas, a.Adding, a.Removing
		}
		p.changedAt = offset

	case RemoveTopicRecord, CreatePartitionsRecord, ConfigRecord:
		s.applyTopicChange(offset, r)

	case UnregisterBrokerRecord:
		s.applyUnregister(r)

	default:
		panic(fmt.Sprintf("controller: unknown record %T", r))
	}
	s.offset = offset
}

// registrationFor finds the registration a fence or unfence record names.
func (s *metadataState) registrationFor(r Record, id model.BrokerID, epoch model.Epoch) *brokerRegistration {
	b := s.brokers[id]
	if b == nil || b.Epoch != epoch {
		panic(fmt.Sprintf("controller: %v: no registration of %v with that epoch", r, id))
	}
	return b
}

// partition returns the named partition, or nil.
func (s *metadataState) partition(tp model.TopicPartition) *partitionInfo {
	t := s.topics[tp.Topic]
	if t == nil || tp.Partition < 0 || int(tp.Partition) >= len(t.parts) {
		return nil
	}
	return t.parts[tp.Partition]
}

// active reports whether a broker may lead and be in ISRs: registered,
// unfenced and not in controlled shutdown (ClusterControlManager.isActive).
func (s *metadataState) active(id model.BrokerID) bool {
	b := s.brokers[id]
	return b != nil && !b.Fenced && !b.InControlledShutdown
}

// effectiveMinISR is min.insync.replicas capped at the replication factor,
// the value ReplicationControlManager.getTopicEffectiveMinIsr hands the
// change builder. (With the ELR rules as they are, a cap or none gives the
// same ELR: an ISR holding every replica leaves nobody to put in it.)
func (t *topicInfo) effectiveMinISR() int {
	m := int(t.config.MinInsyncReplicas)
	if len(t.parts) > 0 && len(t.parts[0].Replicas) < m {
		m = len(t.parts[0].Replicas)
	}
	return m
}

// resolveTopicConfig is a topic's settings: the cluster's topic defaults
// with the topic's overrides applied, as Kafka's LogConfig.fromProps lays a
// topic's configs over the broker's defaults.
func resolveTopicConfig(cluster model.Config, overrides []model.ConfigEntry) (model.TopicConfig, error) {
	cfg := cluster
	for _, c := range overrides {
		if err := cfg.Set(c.Name, c.Value); err != nil {
			return model.TopicConfig{}, err
		}
	}
	return cfg.Topic, nil
}

// eachPartition calls f for every partition in (topic, partition) order.
func (s *metadataState) eachPartition(f func(t *topicInfo, p *partitionInfo)) {
	for _, name := range s.topicNames {
		t := s.topics[name]
		for _, p := range t.parts {
			f(t, p)
		}
	}
}

// liveAndFenced lists the registered brokers by state, sorted.
func (s *metadataState) liveAndFenced() (live, fenced []model.BrokerID) {
	for _, id := range s.brokerIDs {
		if s.brokers[id].Fenced {
			fenced = append(fenced, id)
		} else {
			live = append(live, id)
		}
	}
	return live, fenced
}

func insertSorted[T cmp.Ordered](xs []T, x T) []T {
	i, found := slices.BinarySearch(xs, x)
	if found {
		return xs
	}
	return slices.Insert(xs, i, x)
}
