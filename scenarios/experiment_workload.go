package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// The topics and workload sections of an experiment file, mapped onto a
// Scenario: topic t (its partitions, replication factor and topic
// settings are the Scenario's own fields, as the catalog has them), the
// other topics and the producers as a Shape, and the groups.

// Limits on the workload sections (see the cluster's in
// experiment_scenario.go).
const (
	experimentTopicsMax     = 20
	experimentProducersMax  = 20
	experimentProducerNodes = 50 // count over every producer table
	experimentKeysMax       = 1_000_000
	experimentValueBytesMax = 1 << 20
	experimentZipfMax       = 10.0
)

// failFunc makes an error at the key path in the file.
type failFunc func(reason string, key ...string) error

// topicPromise is what a topic promises its writes, by which the
// checkers judge a run: every topic must promise what t does.
type topicPromise struct{ minISR, unclean string }

// mapTopics checks [[topics]] and maps it: the table named t onto the
// scenario's t (default: 1 partition at default.replication.factor), the
// others, in their order, onto its Shape. A topic's replication factor is
// at most the brokers and at least its min.insync.replicas. The checkers
// judge a run by one promise, t's: another topic may not set
// min.insync.replicas or unclean.leader.election.enable to anything else.
func (e Experiment) mapTopics(sc *Scenario, kc model.Config, brokers int, fail failFunc) error {
	sc.Partitions = 1
	if len(e.Topics) > experimentTopicsMax {
		return fail(fmt.Sprintf("%d topics: at most %d", len(e.Topics), experimentTopicsMax), "topics")
	}
	var tPromise topicPromise
	var others []fixture.TopicShape
	var otherPromise []topicPromise
	hasT := false
	for i, t := range e.Topics {
		configs, pr, err := e.checkTopic(i, kc, brokers, fail)
		if err != nil {
			return err
		}
		if t.Name == "t" {
			hasT, tPromise = true, pr
			sc.Partitions = max(t.Partitions, 1)
			sc.ReplicationFactor = t.ReplicationFactor
			sc.TopicConfigs = configs
			continue
		}
		others = append(others, fixture.TopicShape{Name: t.Name, Partitions: max(t.Partitions, 1), ReplicationFactor: t.ReplicationFactor, Configs: configs})
		otherPromise = append(otherPromise, pr)
	}
	if !hasT {
		if rf := kc.Broker.DefaultReplicationFactor; int(rf) > brokers {
			return fail(fmt.Sprintf("replication factor %d (default.replication.factor, topic t's) is more than the %d brokers", rf, brokers), "config", "default.replication.factor")
		}
		if m, rf := kc.Topic.MinInsyncReplicas, kc.Broker.DefaultReplicationFactor; m > rf {
			return fail(fmt.Sprintf("min.insync.replicas %d is above the replication factor %d: no acks=all write could ever succeed", m, rf), "config", "min.insync.replicas")
		}
		tPromise = topicPromise{kc.Get("min.insync.replicas"), kc.Get("unclean.leader.election.enable")}
	}
	for i, pr := range otherPromise {
		if pr != tPromise {
			j := slices.IndexFunc(e.Topics, func(t ExperimentTopic) bool { return t.Name == others[i].Name })
			return fail(fmt.Sprintf("topic %s: min.insync.replicas %s and unclean.leader.election.enable %s differ from topic t's (%s, %s), and the checkers judge a run by one promise: give them to t or in [config]",
				others[i].Name, pr.minISR, pr.unclean, tPromise.minISR, tPromise.unclean), "topics", strconv.Itoa(j), "config")
		}
	}
	if len(others) > 0 {
		sc.Shape = &fixture.Shape{Topics: others}
	}
	return nil
}

// checkTopic checks the i-th [[topics]] table: its name, size, settings
// and replication factor; it returns the settings it gives and the
// promise it makes.
func (e Experiment) checkTopic(i int, kc model.Config, brokers int, fail failFunc) ([]model.ConfigEntry, topicPromise, error) {
	t := e.Topics[i]
	at := func(k ...string) []string { return append([]string{"topics", strconv.Itoa(i)}, k...) }
	if !experimentNamePattern.MatchString(t.Name) || strings.HasPrefix(t.Name, "__") {
		return nil, topicPromise{}, fail(fmt.Sprintf("topic name %q: want 1 to 64 of a-z, 0-9, '.', '_', '-', not starting with __ (Kafka's internal topics)", t.Name), at("name")...)
	}
	if slices.ContainsFunc(e.Topics[:i], func(o ExperimentTopic) bool { return o.Name == t.Name }) {
		return nil, topicPromise{}, fail(fmt.Sprintf("topic %q is given twice", t.Name), at("name")...)
	}
	if t.Partitions < 0 || t.Partitions > experimentPartitionsMax {
		return nil, topicPromise{}, fail(fmt.Sprintf("partitions = %d: want 1 to %d", t.Partitions, experimentPartitionsMax), at("partitions")...)
	}
	if t.ReplicationFactor < 0 {
		return nil, topicPromise{}, fail("replication_factor: want at least 1", at("replication_factor")...)
	}
	rf := kc.Broker.DefaultReplicationFactor
	if t.ReplicationFactor > 0 {
		rf = t.ReplicationFactor
	}
	probe, configs, err := topicConfigs(t, kc, func(reason, name string) error { return fail(reason, at("config", name)...) })
	if err != nil {
		return nil, topicPromise{}, err
	}
	if int(rf) > brokers {
		return nil, topicPromise{}, fail(fmt.Sprintf("replication factor %d is more than the %d brokers", rf, brokers), at("replication_factor")...)
	}
	if m := probe.Topic.MinInsyncReplicas; m > rf {
		where := at("config", "min.insync.replicas")
		if _, own := t.Config["min.insync.replicas"]; !own {
			where = []string{"config", "min.insync.replicas"}
		}
		return nil, topicPromise{}, fail(fmt.Sprintf("min.insync.replicas %d is above topic %s's replication factor %d: no acks=all write could ever succeed", m, t.Name, rf), where...)
	}
	return configs, topicPromise{probe.Get("min.insync.replicas"), probe.Get("unclean.leader.election.enable")}, nil
}

// topicConfigs checks a topic's own settings, each a topic-level one and
// valid on the cluster's configuration; it returns that configuration
// with them set (probe) and the settings as entries. failAt makes an
// error at the setting's key.
func topicConfigs(t ExperimentTopic, kc model.Config, failAt func(reason, name string) error) (probe model.Config, configs []model.ConfigEntry, err error) {
	probe = kc
	for _, name := range sortedKeys(t.Config) {
		v := string(t.Config[name])
		if !slices.Contains(topicSettings(), name) {
			return probe, nil, failAt(fmt.Sprintf("%q is not a topic-level setting (topic-level: %s)", name, strings.Join(topicSettings(), ", ")), name)
		}
		// Validated alone, as the controller does (topicConfigs): the
		// rule tying min.insync.replicas to default.replication.factor
		// is about the cluster's defaults; the topic's own replication
		// factor is checked by checkTopic.
		probe.Broker.DefaultReplicationFactor = math.MaxInt32
		if err := probe.Set(name, v); err != nil {
			return probe, nil, failAt(err.Error(), name)
		}
		if err := probe.Validate(); err != nil {
			return probe, nil, failAt(err.Error(), name)
		}
		configs = append(configs, model.ConfigEntry{Name: name, Value: v})
	}
	return probe, configs, nil
}

// mapWorkload checks [workload] and its producers and groups, and maps
// them onto sc (whose topics mapTopics set).
func (e Experiment) mapWorkload(sc *Scenario, kc model.Config, fail failFunc) error {
	w := e.Workload
	sc.Interval, sc.Burst, sc.ProduceUntil = time.Duration(w.Interval), w.Burst, time.Duration(w.ProduceUntil)
	if w.Interval < 0 {
		return fail("interval cannot be never", "workload", "interval")
	}
	if w.ProduceUntil < 0 {
		return fail("produce_until cannot be never (leave it out to produce through the safety phase)", "workload", "produce_until")
	}
	if w.Burst < 0 || w.Burst > experimentBurstMax {
		return fail(fmt.Sprintf("burst = %d: want 1 to %d", w.Burst, experimentBurstMax), "workload", "burst")
	}
	sc.NoAssignConsumer = w.AssignConsumer != nil && !*w.AssignConsumer
	if err := e.mapProducers(sc, kc, fail); err != nil {
		return err
	}
	if len(w.Groups) > experimentGroupsMax {
		return fail(fmt.Sprintf("%d groups: at most %d", len(w.Groups), experimentGroupsMax), "workload", "groups")
	}
	for i, g := range w.Groups {
		at := func(k string) []string { return []string{"workload", "groups", fmt.Sprint(i), k} }
		if !experimentNamePattern.MatchString(g.Name) {
			return fail(fmt.Sprintf("group name %q: want 1 to 64 of a-z, 0-9, '.', '_', '-'", g.Name), at("name")...)
		}
		if slices.ContainsFunc(w.Groups[:i], func(o ExperimentGroup) bool { return o.Name == g.Name }) {
			return fail(fmt.Sprintf("group %q is given twice", g.Name), at("name")...)
		}
		if g.Members < 1 || g.Members > experimentMembersMax {
			return fail(fmt.Sprintf("members = %d: want 1 to %d", g.Members, experimentMembersMax), at("members")...)
		}
		spec := fixture.GroupSpec{Name: g.Name, Members: g.Members, Start: time.Duration(g.Start), Stop: time.Duration(g.Stop)}
		switch {
		case g.Start < 0 || g.Stop < 0:
			return fail("a group's start and stop cannot be never (leave stop out for a group that runs to the end)", at("stop")...)
		case g.Stop > 0 && g.Stop <= g.Start:
			return fail(fmt.Sprintf("group %s stops at %v, not after it starts (%v)", g.Name, time.Duration(g.Stop), time.Duration(g.Start)), at("stop")...)
		}
		if g.Assignor != "" {
			var a model.Assignor
			if err := a.UnmarshalText([]byte(g.Assignor)); err != nil {
				return fail(err.Error(), at("assignor")...)
			}
			spec.Assignor = a
		}
		sc.Groups = append(sc.Groups, spec)
	}
	if sc.NoAssignConsumer && len(sc.Groups) == 0 {
		return fail("assign_consumer = false and no groups: nothing would read", "workload", "assign_consumer")
	}
	if err := e.mapTransactions(sc, fail); err != nil {
		return err
	}
	return e.mapPipeline(sc, fail)
}

// Bounds of [workload.pipeline].
const (
	experimentPipelinePartitionsMax = 64
	experimentPipelineWorkersMax    = 8
)

// mapPipeline checks [workload.pipeline] and sets sc's EOS.
func (e Experiment) mapPipeline(sc *Scenario, fail failFunc) error {
	x := e.Workload.Pipeline
	if x == nil {
		return nil
	}
	at := func(k string) []string { return []string{"workload", "pipeline", k} }
	spec := fixture.EOSSpec{Input: x.Input, Output: x.Output, Group: x.Group, Partitions: x.Partitions, Workers: x.Workers, Interval: time.Duration(x.Interval)}
	d := spec.WithDefaults()
	taken := func(name string) bool {
		return name == "t" || (sc.Txn != nil && sc.Txn.WithDefaults().Topic == name) ||
			(sc.Shape != nil && slices.ContainsFunc(sc.Shape.Topics, func(t fixture.TopicShape) bool { return t.Name == name }))
	}
	for _, k := range []struct{ key, name, given string }{{"input", d.Input, x.Input}, {"output", d.Output, x.Output}, {"group", d.Group, x.Group}} {
		switch {
		case k.given != "" && !experimentNamePattern.MatchString(k.given):
			return fail(fmt.Sprintf("%s %q: want 1 to 64 of a-z, 0-9, '.', '_', '-'", k.key, k.given), at(k.key)...)
		case k.key != "group" && taken(k.name):
			return fail(fmt.Sprintf("topic %q is another workload's: the pipeline reads and writes topics of its own", k.name), at(k.key)...)
		}
	}
	switch {
	case d.Input == d.Output:
		return fail(fmt.Sprintf("input and output are both %q: the pipeline reads one topic and writes another", d.Input), at("output")...)
	case slices.ContainsFunc(sc.Groups, func(g fixture.GroupSpec) bool { return g.Name == d.Group }):
		return fail(fmt.Sprintf("group %q is one of [[workload.groups]]: the pipeline's workers are a group of their own", d.Group), at("group")...)
	case x.Partitions < 0 || x.Partitions > experimentPipelinePartitionsMax:
		return fail(fmt.Sprintf("partitions = %d: want 1 to %d", x.Partitions, experimentPipelinePartitionsMax), at("partitions")...)
	case x.Workers < 0 || x.Workers > experimentPipelineWorkersMax:
		return fail(fmt.Sprintf("workers = %d: want 1 to %d", x.Workers, experimentPipelineWorkersMax), at("workers")...)
	case x.Interval < 0:
		return fail("interval cannot be never", at("interval")...)
	}
	sc.EOS = &spec
	return nil
}

// Bounds of [workload.transactions].
const (
	experimentTxnPartitionsMax = 64
	experimentTxnProducersMax  = 8
	experimentTxnRecordsMax    = 1000
)

// mapTransactions checks [workload.transactions] and sets sc's Txn.
func (e Experiment) mapTransactions(sc *Scenario, fail failFunc) error {
	x := e.Workload.Transactions
	if x == nil {
		return nil
	}
	at := func(k string) []string { return []string{"workload", "transactions", k} }
	spec := fixture.TxnSpec{Topic: x.Topic, Partitions: x.Partitions, Producers: x.Producers, Records: x.Records,
		AbortEvery: x.AbortEvery, Interval: time.Duration(x.Interval), Stop: time.Duration(x.Stop)}
	d := spec.WithDefaults()
	taken := d.Topic == "t" || (sc.Shape != nil && slices.ContainsFunc(sc.Shape.Topics, func(t fixture.TopicShape) bool { return t.Name == d.Topic }))
	switch {
	case x.Topic != "" && !experimentNamePattern.MatchString(x.Topic):
		return fail(fmt.Sprintf("topic %q: want 1 to 64 of a-z, 0-9, '.', '_', '-'", x.Topic), at("topic")...)
	case taken:
		return fail(fmt.Sprintf("topic %q is another workload's: the transactional producers write a topic of their own", d.Topic), at("topic")...)
	case x.Partitions < 0 || x.Partitions > experimentTxnPartitionsMax:
		return fail(fmt.Sprintf("partitions = %d: want 1 to %d", x.Partitions, experimentTxnPartitionsMax), at("partitions")...)
	case x.Producers < 0 || x.Producers > experimentTxnProducersMax:
		return fail(fmt.Sprintf("producers = %d: want 1 to %d", x.Producers, experimentTxnProducersMax), at("producers")...)
	case x.Records < 0 || x.Records > experimentTxnRecordsMax || (x.Records > 0 && x.Records < int(d.Partitions)):
		return fail(fmt.Sprintf("records = %d: want %d (the partitions, so that every transaction writes each) to %d", x.Records, d.Partitions, experimentTxnRecordsMax), at("records")...)
	case x.AbortEvery < 0:
		return fail(fmt.Sprintf("abort_every = %d: want 1 or more", x.AbortEvery), at("abort_every")...)
	case x.Interval < 0:
		return fail("interval cannot be never", at("interval")...)
	case x.Stop < 0:
		return fail("stop cannot be never", at("stop")...)
	}
	sc.Txn = &spec
	return nil
}

// mapProducers checks [[workload.producers]] and adds them to sc's Shape.
func (e Experiment) mapProducers(sc *Scenario, kc model.Config, fail failFunc) error {
	ps := e.Workload.Producers
	if len(ps) > experimentProducersMax {
		return fail(fmt.Sprintf("%d producer tables: at most %d", len(ps), experimentProducersMax), "workload", "producers")
	}
	nodes := 0
	for i, p := range ps {
		at := func(k ...string) []string {
			return append([]string{"workload", "producers", strconv.Itoa(i)}, k...)
		}
		if !experimentNamePattern.MatchString(p.Name) {
			return fail(fmt.Sprintf("producer name %q: want 1 to 64 of a-z, 0-9, '.', '_', '-' (it names the producers' nodes and prefixes their values)", p.Name), at("name")...)
		}
		if slices.ContainsFunc(ps[:i], func(o ExperimentProducer) bool { return o.Name == p.Name }) {
			return fail(fmt.Sprintf("producer %q is given twice", p.Name), at("name")...)
		}
		if p.Count < 0 || nodes+max(p.Count, 1) > experimentProducerNodes {
			return fail(fmt.Sprintf("count = %d: want 1 or more, at most %d producers in all", p.Count, experimentProducerNodes), at("count")...)
		}
		nodes += max(p.Count, 1)
		if len(p.Topics) == 0 {
			return fail("topics: name the topics it writes", at("topics")...)
		}
		for _, topic := range p.Topics {
			if topic != "t" && (sc.Shape == nil || !slices.ContainsFunc(sc.Shape.Topics, func(t fixture.TopicShape) bool { return t.Name == topic })) {
				return fail(fmt.Sprintf("topic %q is not in [[topics]] (nor t)", topic), at("topics")...)
			}
		}
		shape, err := producerShape(p, kc, func(reason string, k ...string) error { return fail(reason, at(k...)...) })
		if err != nil {
			return err
		}
		if sc.Shape == nil {
			sc.Shape = &fixture.Shape{}
		}
		sc.Shape.Producers = append(sc.Shape.Producers, shape)
		if err := sc.Shape.Validate(sc.Partitions); err != nil {
			return fail(strings.TrimPrefix(err.Error(), "shape: "), at("key_count")...)
		}
	}
	return nil
}

// producerShape checks one producer table's keys, timing and settings
// and maps it onto a ProducerShape; failAt makes an error at a key of
// the table.
func producerShape(p ExperimentProducer, kc model.Config, failAt failFunc) (fixture.ProducerShape, error) {
	ps := fixture.ProducerShape{Name: p.Name, Count: p.Count, Topics: slices.Clone(p.Topics), KeyCount: p.KeyCount, ZipfExponent: p.ZipfExponent,
		Interval: time.Duration(p.Interval), Burst: p.Burst, ValueBytes: p.ValueBytes, Start: time.Duration(p.Start), Stop: time.Duration(p.Stop)}
	keys, err := producerKeys(p, failAt)
	if err != nil {
		return fixture.ProducerShape{}, err
	}
	ps.Keys = keys
	switch {
	case p.Interval < 0:
		return fixture.ProducerShape{}, failAt("interval cannot be never", "interval")
	case p.Burst < 0 || p.Burst > experimentBurstMax:
		return fixture.ProducerShape{}, failAt(fmt.Sprintf("burst = %d: want 1 to %d", p.Burst, experimentBurstMax), "burst")
	case p.ValueBytes < 0 || p.ValueBytes > experimentValueBytesMax:
		return fixture.ProducerShape{}, failAt(fmt.Sprintf("value_bytes = %d: want 0 to %d", p.ValueBytes, experimentValueBytesMax), "value_bytes")
	case p.Start < 0 || p.Stop < 0:
		return fixture.ProducerShape{}, failAt("start and stop cannot be never (leave stop out for a producer that runs to the end)", "stop")
	case p.Stop > 0 && p.Stop <= p.Start:
		return fixture.ProducerShape{}, failAt(fmt.Sprintf("stop %v is not after start %v", time.Duration(p.Stop), time.Duration(p.Start)), "stop")
	}
	pc := kc
	for _, name := range sortedKeys(p.Settings) {
		v := string(p.Settings[name])
		if !slices.Contains(producerSettings(), name) {
			return fixture.ProducerShape{}, failAt(fmt.Sprintf("%q is not a producer setting (producer settings: %s)", name, strings.Join(producerSettings(), ", ")), "settings", name)
		}
		if err := pc.Set(name, v); err != nil {
			return fixture.ProducerShape{}, failAt(err.Error(), "settings", name)
		}
		if err := pc.Validate(); err != nil {
			return fixture.ProducerShape{}, failAt(err.Error(), "settings", name)
		}
		if slices.Contains(CheckSettings(), name) && pc.Get(name) != kc.Get(name) {
			return fixture.ProducerShape{}, failAt(fmt.Sprintf("%s = %s differs from the cluster's %s, and the checkers judge a run by one promise: set it in [config]", name, v, kc.Get(name)), "settings", name)
		}
		ps.Settings = append(ps.Settings, model.ConfigEntry{Name: name, Value: v})
	}
	return ps, nil
}

// producerKeys checks a producer table's keys and the key_count and
// zipf_exponent that go with them.
func producerKeys(p ExperimentProducer, failAt failFunc) (fixture.KeyKind, error) {
	var keys fixture.KeyKind
	switch fixture.KeyKind(p.Keys) {
	case "", fixture.KeysNone:
		keys = fixture.KeysNone
		if p.KeyCount != 0 || p.ZipfExponent != 0 {
			return "", failAt("key_count and zipf_exponent go with keys = \"uniform\" or \"zipf\"", "keys")
		}
	case fixture.KeysUniform:
		keys = fixture.KeysUniform
		if p.ZipfExponent != 0 {
			return "", failAt("zipf_exponent goes with keys = \"zipf\"", "zipf_exponent")
		}
	case fixture.KeysZipf:
		keys = fixture.KeysZipf
		if !(p.ZipfExponent > 0 && p.ZipfExponent <= experimentZipfMax) {
			return "", failAt(fmt.Sprintf("zipf_exponent = %v: want above 0, at most %v", p.ZipfExponent, experimentZipfMax), "zipf_exponent")
		}
	default:
		return "", failAt(fmt.Sprintf("keys %q: want none, uniform or zipf", p.Keys), "keys")
	}
	if keys != fixture.KeysNone && (p.KeyCount < 1 || p.KeyCount > experimentKeysMax) {
		return "", failAt(fmt.Sprintf("key_count = %d: want 1 to %d", p.KeyCount, experimentKeysMax), "key_count")
	}
	return keys, nil
}

// checkCoverage: with a liveness phase, every partition must have a
// producer that writes it to the end (t's round-robin producer unless
// produce_until stops it, and the producers without a stop), since the
// liveness phase asks each partition for an acknowledged write after the
// heal.
func (e Experiment) checkCoverage(sc Scenario, fail failFunc) error {
	if sc.LivenessBound == 0 {
		return nil
	}
	covered := map[model.TopicPartition]bool{}
	if sc.ProduceUntil == 0 {
		for p := int32(0); p < sc.Partitions; p++ {
			covered[model.TP("t", p)] = true
		}
	}
	var all []model.TopicPartition
	for p := int32(0); p < sc.Partitions; p++ {
		all = append(all, model.TP("t", p))
	}
	if sh := sc.Shape; sh != nil {
		for _, t := range sh.Topics {
			for p := int32(0); p < t.Partitions; p++ {
				all = append(all, model.TP(t.Name, p))
			}
		}
		for _, pr := range sh.Producers {
			if pr.Stop > 0 {
				continue
			}
			for _, topic := range pr.Topics {
				for p := int32(0); p < sh.Partitions(topic, sc.Partitions); p++ {
					covered[model.TP(topic, p)] = true
				}
			}
		}
	}
	var missing []string
	for _, tp := range all {
		if !covered[tp] {
			missing = append(missing, tp.String())
		}
	}
	if len(missing) > 0 {
		return fail(fmt.Sprintf("no producer writes %s to the end, and the liveness phase asks every partition for a write after the heal: add a producer, or drop liveness_bound", describeList(missing)), "workload")
	}
	return nil
}

// describeList is the first five of a list and a count beyond.
func describeList(l []string) string {
	if len(l) > 5 {
		return fmt.Sprintf("%s, ... (%d partitions)", strings.Join(l[:5], ", "), len(l))
	}
	return strings.Join(l, ", ")
}

// producerSettings are the settings a producer table may give: model's
// "producer" and "client" groups.
func producerSettings() []string {
	var out []string
	for _, d := range model.SettingDocs() {
		if d.Group == "producer" || d.Group == "client" {
			out = append(out, d.Name)
		}
	}
	return out
}
