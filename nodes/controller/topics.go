package controller

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// topicConfigNames are the topic-level settings a CreateTopics request may
// override: the fields of model.TopicConfig, by their Kafka names (a test
// checks that the two lists agree).
var topicConfigNames = []string{
	"min.insync.replicas",
	"retention.bytes",
	"retention.ms",
	"unclean.leader.election.enable",
}

// maxTopicNameLength is Kafka's limit (Topic.MAX_NAME_LENGTH).
const maxTopicNameLength = 249

// handleCreateTopics creates the requested topics and answers per topic, in
// the request's order. The topics created are committed as one batch.
func (c *Controller) handleCreateTopics(env *sim.Env, from sim.NodeID, m model.CreateTopicsRequest) {
	resp := model.CreateTopicsResponse{CorrelationID: m.CorrelationID}
	var records []Record
	seen := map[string]bool{}
	for i := range m.Topics {
		spec := &m.Topics[i]
		var code model.ErrorCode
		var r CreateTopicRecord
		switch {
		case !c.active:
			code = model.NotController
		case seen[spec.Name]:
			// Kafka refuses a name given twice in one request.
			code = model.InvalidRequest
		default:
			r, code = c.buildTopic(env.Rand(), spec)
		}
		seen[spec.Name] = true
		if code == model.NoError {
			records = append(records, r)
		}
		resp.Topics = append(resp.Topics, model.TopicResult{Name: spec.Name, Error: code})
	}
	if len(records) == 0 {
		env.Send(from, resp)
		return
	}
	c.commit(records, func(ok bool) {
		if !ok {
			for i := range resp.Topics {
				if resp.Topics[i].Error == model.NoError {
					resp.Topics[i].Error = model.NotController
				}
			}
		}
		env.Send(from, resp)
	})
}

// CreateTopic creates one topic as a CreateTopicsRequest would, for a
// harness that sets a cluster up without a client. env may be nil: the
// controller then uses the environment of its current incarnation. It
// returns the error code the request would have answered, as far as the
// current state tells: NoError means the topic was handed to the quorum,
// and it exists once that is committed (Partition finds it then). A
// controller that is not active answers NOT_CONTROLLER.
func (c *Controller) CreateTopic(env *sim.Env, spec model.TopicSpec) model.ErrorCode {
	if env == nil {
		env = c.env
	}
	if !c.active {
		return model.NotController
	}
	// Validate with a scratch source: the placement drawn here is thrown
	// away, and the controller's own stream is drawn once, by the
	// operation that builds the record.
	if _, code := c.buildTopic(rand.New(rand.NewPCG(0, 0)), &spec); code != model.NoError {
		return code
	}
	c.submit(env, func() {
		if !c.active {
			return
		}
		r, code := c.buildTopic(env.Rand(), &spec)
		if code != model.NoError {
			env.Trace("create-topic-refused", spec.Name+" "+code.String())
			return
		}
		c.commit([]Record{r}, func(bool) {})
	})
	return model.NoError
}

// buildTopic validates a topic and builds its record, as Kafka's
// ReplicationControlManager.createTopics does:
//
//   - a name that Kafka would refuse (empty, ".", "..", longer than 249,
//     characters outside [a-zA-Z0-9._-]): INVALID_TOPIC_EXCEPTION;
//   - an existing name: TOPIC_ALREADY_EXISTS;
//   - a config that is not a topic-level setting, or a value it refuses:
//     INVALID_CONFIG;
//   - with a manual assignment: partition and replication counts that
//     contradict it (INVALID_REQUEST), an empty or duplicated replica list,
//     an unregistered broker, lists of different lengths, or a partition
//     whose replicas are all fenced (INVALID_REPLICA_ASSIGNMENT);
//   - otherwise: a partition count below 1 (INVALID_PARTITIONS), a
//     replication factor below 1 or above the registered brokers, or no
//     unfenced broker (INVALID_REPLICATION_FACTOR).
//
// Partitions and ReplicationFactor of 0 or -1 mean the default: one
// partition (Kafka's num.partitions), and default.replication.factor. (Kafka
// takes -1 for the default and refuses 0; 0 is accepted here so that a Go
// literal that leaves a field out asks for the default.)
//
// Each partition starts with its unfenced replicas as the ISR and the first
// of them as leader, at leader and partition epoch 0.
func (c *Controller) buildTopic(rnd *rand.Rand, spec *model.TopicSpec) (CreateTopicRecord, model.ErrorCode) {
	var none CreateTopicRecord
	if !validTopicName(spec.Name) {
		return none, model.InvalidTopicException
	}
	if c.state.topics[spec.Name] != nil {
		return none, model.TopicAlreadyExists
	}
	configs, ok := c.topicConfigs(spec.Configs)
	if !ok {
		return none, model.InvalidConfig
	}

	var assignment [][]model.BrokerID
	if len(spec.Assignment) > 0 {
		if spec.Partitions > 0 && int(spec.Partitions) != len(spec.Assignment) ||
			spec.ReplicationFactor > 0 && int(spec.ReplicationFactor) != len(spec.Assignment[0]) {
			return none, model.InvalidRequest
		}
		for _, replicas := range spec.Assignment {
			if !c.validManualAssignment(replicas, len(spec.Assignment[0])) {
				return none, model.InvalidReplicaAssignment
			}
			assignment = append(assignment, slices.Clone(replicas))
		}
	} else {
		partitions := spec.Partitions
		if partitions == 0 || partitions == -1 {
			partitions = 1
		}
		if partitions < 1 {
			return none, model.InvalidPartitions
		}
		rf := spec.ReplicationFactor
		if rf == 0 || rf == -1 {
			rf = c.cfg.Cluster.Broker.DefaultReplicationFactor
		}
		live, fenced := c.state.liveAndFenced()
		if rf < 1 || int(rf) > len(live)+len(fenced) || len(live) == 0 {
			return none, model.InvalidReplicationFactor
		}
		if c.state.racked() {
			// Rack-aware: StripedReplicaPlacer, which itself takes a
			// fenced broker only where a rack has no unfenced one left.
			assignment = placeStriped(rnd, c.state.placeable(), int(partitions), int(rf))
		} else {
			// Kafka's placer uses fenced brokers only when there are not
			// enough unfenced ones.
			candidates := live
			if len(live) < int(rf) {
				candidates = append(slices.Clone(live), fenced...)
			}
			assignment = assignReplicas(rnd, candidates, int(partitions), int(rf))
		}
	}

	r := CreateTopicRecord{Name: spec.Name, Configs: configs}
	for i, replicas := range assignment {
		var isr []model.BrokerID
		for _, id := range replicas {
			if c.state.active(id) {
				isr = append(isr, id)
			}
		}
		if len(isr) == 0 {
			if len(spec.Assignment) > 0 {
				return none, model.InvalidReplicaAssignment
			}
			return none, model.InvalidReplicationFactor
		}
		r.Partitions = append(r.Partitions, model.PartitionState{
			TP:       model.TP(spec.Name, int32(i)),
			Leader:   isr[0],
			Replicas: replicas,
			ISR:      isr,
		})
	}
	return r, model.NoError
}

// validManualAssignment checks one partition's replicas
// (ReplicationControlManager.validateManualPartitionAssignment).
func (c *Controller) validManualAssignment(replicas []model.BrokerID, rf int) bool {
	if len(replicas) == 0 || len(replicas) != rf {
		return false
	}
	for i, id := range replicas {
		if c.state.brokers[id] == nil || slices.Contains(replicas[:i], id) {
			return false
		}
	}
	return true
}

// topicConfigs checks a topic's overrides and returns them sorted by name:
// each must be a topic-level setting, named once, with a value the cluster
// configuration accepts.
func (c *Controller) topicConfigs(entries []model.ConfigEntry) ([]model.ConfigEntry, bool) {
	if len(entries) == 0 {
		return nil, true
	}
	cfg := c.cfg.Cluster
	out := slices.Clone(entries)
	slices.SortFunc(out, func(a, b model.ConfigEntry) int { return cmp.Compare(a.Name, b.Name) })
	for i, e := range out {
		if !slices.Contains(topicConfigNames, e.Name) || (i > 0 && out[i-1].Name == e.Name) {
			return nil, false
		}
		if err := cfg.Set(e.Name, e.Value); err != nil {
			return nil, false
		}
	}
	// Validate the topic settings alone, on otherwise default settings. The
	// one rule tying a topic setting to another (min.insync.replicas at most
	// default.replication.factor) is about the cluster defaults; Kafka lets
	// a topic set a min ISR above its replication factor, and so does this.
	probe := model.DefaultConfig()
	probe.Topic = cfg.Topic
	probe.Broker.DefaultReplicationFactor = math.MaxInt32
	if err := probe.Validate(); err != nil {
		return nil, false
	}
	return out, true
}

// validTopicName applies Kafka's rules (org.apache.kafka.common.internals.
// Topic.validate).
func validTopicName(name string) bool {
	if name == "" || name == "." || name == ".." || len(name) > maxTopicNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		ch := name[i]
		ok := ch == '.' || ch == '_' || ch == '-' ||
			(ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// assignReplicas places partitions on brokers with Kafka's classic
// rack-unaware assignment (AdminUtils.assignReplicasToBrokersRackUnaware,
// used by the ZooKeeper-era controller and still the reference for
// rack-unaware placement):
//
//   - a start index and a replica shift are drawn uniformly from
//     [0, n) for n brokers;
//   - partition p's first replica (its preferred leader) is broker
//     (start + p) mod n, so leaders go round the brokers;
//   - its j-th follower is at first + 1 + (shift + j) mod (n - 1), so
//     followers never repeat the first replica and are spread too;
//   - the shift grows by one each time p wraps round n, so that the same
//     leader gets different followers on each lap.
//
// KRaft's StripedReplicaPlacer gives the same striped pattern without
// racks; the classic form is used because its two draws make a placement
// easy to reproduce from a seed. brokers must be sorted.
func assignReplicas(rnd *rand.Rand, brokers []model.BrokerID, partitions, rf int) [][]model.BrokerID {
	n := len(brokers)
	start := rnd.IntN(n)
	shift := rnd.IntN(n)
	out := make([][]model.BrokerID, 0, partitions)
	for p := 0; p < partitions; p++ {
		if p > 0 && p%n == 0 {
			shift++
		}
		first := (p + start) % n
		replicas := make([]model.BrokerID, 0, rf)
		replicas = append(replicas, brokers[first])
		for j := 0; j < rf-1; j++ {
			replicas = append(replicas, brokers[(first+1+(shift+j)%(n-1))%n])
		}
		out = append(out, replicas)
	}
	return out
}
