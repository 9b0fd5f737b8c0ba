package scenarios

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/client"
	"kafkasim/sim"
)

// Shape is what a fixture runs beside topic "t" and its round-robin
// producer: more topics, and producers that leave the partition to
// Kafka's default partitioner, keyed or not. One topic of one partition
// on three brokers hides what real clusters have: many leaders per
// broker, a group coordinator on the same broker as data partitions,
// several topics in one fetch. A nil Shape is the plain fixture. The
// fixture's consumer groups subscribe to every topic, the shape's too
// (GroupSpec).
type Shape struct {
	Topics    []TopicShape
	Producers []ProducerShape
}

// TopicShape is one topic of a Shape.
type TopicShape struct {
	Name       string
	Partitions int32
	// ReplicationFactor 0 is default.replication.factor.
	ReplicationFactor int32
	// Configs are topic-level settings by Kafka name, sorted by name.
	Configs []model.ConfigEntry
}

// KeyKind is how a producer keys its records.
type KeyKind string

const (
	// KeysNone sends without keys: the sticky partitioner (KIP-794,
	// BuiltInPartitioner) chooses the partition.
	KeysNone KeyKind = "none"
	// KeysUniform draws each record's key uniformly among KeyCount keys.
	KeysUniform KeyKind = "uniform"
	// KeysZipf draws key i (0-based) among KeyCount keys with probability
	// proportional to 1/(i+1)^ZipfExponent: a few hot keys and a long
	// tail, as real keyed traffic (users, orders) has.
	KeysZipf KeyKind = "zipf"
)

// ProducerShape is one kind of producer of a Shape: Count client nodes,
// each sending to its Topics in turn, one record every Interval (Burst
// back to back), keyed as Keys says, values of ValueBytes, with its own
// producer settings, from Start to Stop.
type ProducerShape struct {
	// Name names the producers' nodes ("producer-<name>", or
	// "producer-<name>-<j>" for each of several) and prefixes their
	// values, which stay unique in the run.
	Name   string
	Count  int // 0: 1
	Topics []string
	Keys   KeyKind // "": none
	// KeyCount is how many distinct keys a keyed producer draws from
	// ("k0" to "k<KeyCount-1>"); ZipfExponent is the exponent of
	// KeysZipf, above 0.
	KeyCount     int
	ZipfExponent float64
	Interval     time.Duration // 0: the fixture's
	Burst        int           // 0: 1
	// ValueBytes pads each value to this many bytes (0: the value alone,
	// a few bytes). The padding counts wherever Kafka counts bytes: in
	// batch.size (a batch closes when the next record does not fit, and
	// the sticky partitioner moves on once a batch's worth went to a
	// partition), in fetch.max.bytes and max.partition.fetch.bytes, and
	// in retention.bytes.
	ValueBytes int
	// Settings are producer settings by Kafka name (linger.ms,
	// batch.size, ...), on top of the cluster's configuration, sorted by
	// name.
	Settings []model.ConfigEntry
	// Start and Stop are virtual times: the producers boot at Start (0:
	// with the cluster) and stop producing at Stop (0: they run to the
	// end, through the liveness phase).
	Start, Stop time.Duration
}

// count is the number of producer nodes of p.
func (p ProducerShape) count() int { return max(p.Count, 1) }

// keyName is the i-th key of a keyed producer.
func keyName(i int) string { return "k" + strconv.Itoa(i) }

// realistic is the shape of the safe catalog: besides "t", two topics of
// different widths (seven partitions in all on three brokers, so every
// broker leads several), a producer keyed uniformly over 16 keys (which
// reach every partition of both) and a keyless one, each writing both
// topics. The catalog adds a consumer group beside the assigning
// consumer (readersGroup).
func realistic() *Shape {
	return &Shape{
		Topics: []TopicShape{{Name: "orders", Partitions: 4}, {Name: "events", Partitions: 2}},
		Producers: []ProducerShape{
			{Name: "keyed", Topics: []string{"orders", "events"}, Keys: KeysUniform, KeyCount: 16},
			{Name: "keyless", Topics: []string{"orders", "events"}},
		},
	}
}

// readersGroup is the group the shaped safe scenarios run beside the
// assigning consumer: two members reading every topic.
var readersGroup = []GroupSpec{{Name: "readers", Members: 2}}

// shaped is the safe configuration for a shaped fixture: its group gets
// the group scenarios' sessions and a small __consumer_offsets, and a
// rebalance timeout (max.poll.interval.ms) of 30 s instead of 5 minutes.
// A member waits for its JoinGroup answer for the rebalance timeout and 5
// s more (AbstractCoordinator's joinGroupTimeoutMs, JOIN_GROUP_TIMEOUT_LAPSE):
// when its coordinator loses power mid-join, no reset tells it, and with
// Kafka's default it would sit out 305 s, past any liveness bound, as a
// real consumer would (power-loss seed 5: the coordinator lost power 5 s
// in, before the group's first rebalance completed, and the group never
// read a record). 30 s keeps that wait inside the liveness phase.
func shaped() model.Config {
	kc := safe()
	kc.Consumer.SessionTimeout = 10 * time.Second
	kc.Consumer.HeartbeatInterval = 3 * time.Second
	kc.Consumer.MaxPollInterval = 30 * time.Second
	kc.Group.OffsetsTopicPartitions = 5
	return kc
}

// topicSpecs are the shape's topics for cluster creation, rf the
// cluster's replication factor.
func (sh *Shape) topicSpecs(rf int32) []model.TopicSpec {
	var out []model.TopicSpec
	for _, t := range sh.Topics {
		r := rf
		if t.ReplicationFactor > 0 {
			r = t.ReplicationFactor
		}
		out = append(out, model.TopicSpec{Name: t.Name, Partitions: t.Partitions, ReplicationFactor: r, Configs: t.Configs})
	}
	return out
}

// partitions of a topic of the fixture (tPartitions for "t"), 0 when it
// has none such.
func (sh *Shape) partitions(topic string, tPartitions int32) int32 {
	if topic == "t" {
		return tPartitions
	}
	i := slices.IndexFunc(sh.Topics, func(t TopicShape) bool { return t.Name == topic })
	if i < 0 {
		return 0
	}
	return sh.Topics[i].Partitions
}

// validate says what is wrong with a shape whose "t" has tPartitions: a
// topic repeated, named "t" (the fixture makes that one) or without
// partitions; a producer without a name or topics, on a topic the
// fixture does not have, keyed without keys, or whose keys miss a
// partition of a topic it writes (the liveness phase asks every partition
// for a write, and a keyed producer can only reach what its keys hash
// to).
func (sh *Shape) validate(tPartitions int32) error {
	seen := map[string]bool{"t": true}
	for _, t := range sh.Topics {
		if seen[t.Name] || t.Partitions < 1 {
			return fmt.Errorf("shape: topic %q repeated, or without partitions", t.Name)
		}
		seen[t.Name] = true
	}
	names := map[string]bool{}
	for _, p := range sh.Producers {
		switch {
		case p.Name == "" || names[p.Name]:
			return fmt.Errorf("shape: producer name %q empty or repeated", p.Name)
		case len(p.Topics) == 0:
			return fmt.Errorf("shape: producer %s writes no topic", p.Name)
		case p.Stop > 0 && p.Stop <= p.Start:
			return fmt.Errorf("shape: producer %s stops at %v, not after it starts (%v)", p.Name, p.Stop, p.Start)
		}
		names[p.Name] = true
		for _, topic := range p.Topics {
			if sh.partitions(topic, tPartitions) == 0 {
				return fmt.Errorf("shape: producer %s writes %q, which is not a topic of the fixture", p.Name, topic)
			}
		}
		switch p.Keys {
		case "", KeysNone:
		case KeysUniform, KeysZipf:
			if p.KeyCount < 1 {
				return fmt.Errorf("shape: producer %s is keyed without keys", p.Name)
			}
			if p.Keys == KeysZipf && !(p.ZipfExponent > 0) {
				return fmt.Errorf("shape: producer %s: a Zipf exponent is above 0", p.Name)
			}
			for _, topic := range p.Topics {
				n := sh.partitions(topic, tPartitions)
				if reached := len(coverKeys(p.KeyCount, n)); reached < int(n) {
					return fmt.Errorf("shape: producer %s's %d keys reach %d of the %d partitions of %s (the liveness phase asks every partition for a write: give more keys)",
						p.Name, p.KeyCount, reached, n, topic)
				}
			}
		default:
			return fmt.Errorf("shape: producer %s: keys %q, want none, uniform or zipf", p.Name, p.Keys)
		}
	}
	return nil
}

// coverKeys is, for each partition of a topic of n partitions that one
// of keyCount keys reaches, the first key (by index) that hashes to it,
// keyed by partition. It stops once every partition has one.
func coverKeys(keyCount int, n int32) map[int32]string {
	out := map[int32]string{}
	for i := 0; i < keyCount && len(out) < int(n); i++ {
		p := client.KeyPartition(keyName(i), n)
		if _, ok := out[p]; !ok {
			out[p] = keyName(i)
		}
	}
	return out
}

// keyDraw draws a keyed producer's keys from its own random stream: the
// index of the key, uniform or by Zipf's law.
type keyDraw struct {
	r *rand.Rand
	n int
	// cdf[i] is the probability of a key index at most i (Zipf only).
	cdf []float64
}

func newKeyDraw(p ProducerShape, r *rand.Rand) *keyDraw {
	d := &keyDraw{r: r, n: p.KeyCount}
	if p.Keys == KeysZipf {
		d.cdf = zipfCDF(p.KeyCount, p.ZipfExponent)
	}
	return d
}

// zipfCDF is the cumulative distribution of Zipf's law over n keys with
// exponent s: P(i) = (i+1)^-s / sum over j=1..n of j^-s, for i in 0..n-1.
// The last entry is 1 exactly, so that every draw lands on a key.
func zipfCDF(n int, s float64) []float64 {
	cdf := make([]float64, n)
	total := 0.0
	for i := range n {
		total += math.Pow(float64(i+1), -s)
		cdf[i] = total
	}
	for i := range cdf {
		cdf[i] /= total
	}
	cdf[n-1] = 1
	return cdf
}

// next draws one key index: uniform in [0, n), or for Zipf the first i
// with u <= cdf[i] for u uniform in [0, 1).
func (d *keyDraw) next() int {
	if d.cdf == nil {
		return d.r.IntN(d.n)
	}
	return min(sort.SearchFloat64s(d.cdf, d.r.Float64()), d.n-1)
}

// shapeProducer is the workload of one producer node of a shape: unique
// values with a fixed prefix, sent to its topics in turn, keyed as its
// shape says. It lives outside the producer node, so a restarted producer
// goes on where the crashed one stopped.
type shapeProducer struct {
	shape  ProducerShape
	prefix string
	keys   *keyDraw // nil: keyless
	covers []model.TopicPartition
	// cover, once the liveness phase starts, is what the producer sends
	// in turn instead: one message per partition it covers (a key that
	// hashes to it, or, keyless, the partition named), so that every
	// partition gets a write within a few sends. The sticky partitioner
	// moves on only once a batch's worth (batch.size) went to a
	// partition, and a Zipf tail key comes up rarely: left to either, a
	// partition may go unwritten for minutes, and the liveness phase,
	// which asks every partition for an acknowledged write, would be
	// judging the workload, not the cluster.
	cover    []client.Message
	covering bool
	next     int
	stopped  bool
}

// Next implements client.Workload.
func (w *shapeProducer) Next(*sim.Env) (client.Message, bool) {
	if w.stopped {
		return client.Message{}, false
	}
	var m client.Message
	if w.covering {
		m = w.cover[w.next%len(w.cover)]
	} else {
		m.Topic = w.shape.Topics[w.next%len(w.shape.Topics)]
		if w.keys != nil {
			m.Key = keyName(w.keys.next())
		}
	}
	m.Value = w.value(w.next)
	w.next++
	return m, true
}

// value is the n-th value, padded to ValueBytes.
func (w *shapeProducer) value(n int) string {
	v := w.prefix + strconv.Itoa(n)
	if pad := w.shape.ValueBytes - len(v); pad > 0 {
		v += strings.Repeat(".", pad)
	}
	return v
}

// Stop ends the workload.
func (w *shapeProducer) Stop() { w.stopped = true }

// coverEveryPartition switches the producer to its cover list.
func (w *shapeProducer) coverEveryPartition() { w.covering = true }

// newShapeProducer builds the workload of the j-th node (of count) of p,
// in a fixture whose "t" has tPartitions, drawing keys from r.
func (sh *Shape) newShapeProducer(p ProducerShape, j int, tPartitions int32, r *rand.Rand) *shapeProducer {
	w := &shapeProducer{shape: p, prefix: p.Name + "-"}
	if p.count() > 1 {
		w.prefix = fmt.Sprintf("%s.%d-", p.Name, j)
	}
	keyed := p.Keys == KeysUniform || p.Keys == KeysZipf
	if keyed {
		w.keys = newKeyDraw(p, r)
	}
	for _, topic := range p.Topics {
		n := sh.partitions(topic, tPartitions)
		keys := coverKeys(p.KeyCount, n)
		for q := int32(0); q < n; q++ {
			tp := model.TP(topic, q)
			if slices.Contains(w.covers, tp) {
				continue // a topic named twice
			}
			w.covers = append(w.covers, tp)
			if keyed {
				w.cover = append(w.cover, client.Message{Topic: topic, Key: keys[q]})
			} else {
				w.cover = append(w.cover, client.Message{Topic: topic, Partition: q, HasPartition: true})
			}
		}
	}
	return w
}

// addShape adds the shape's producers to a fixture being built (its
// topics were created with the cluster): each node with its own
// configuration (the cluster's and its settings), its own key stream
// ("workload/<node name>"), and, with a Start, booted then.
func (s *Scripted) addShape(sh *Shape, kc model.Config, interval time.Duration, tPartitions int32) error {
	for _, p := range sh.Producers {
		pc := kc
		for _, e := range p.Settings {
			if err := pc.Set(e.Name, e.Value); err != nil {
				return fmt.Errorf("producer %s: %v", p.Name, err)
			}
		}
		every := interval
		if p.Interval > 0 {
			every = p.Interval
		}
		var topics []string
		for _, t := range p.Topics {
			if !slices.Contains(topics, t) {
				topics = append(topics, t)
			}
		}
		for j := 1; j <= p.count(); j++ {
			name := "producer-" + p.Name
			if p.count() > 1 {
				name = fmt.Sprintf("%s-%d", name, j)
			}
			w := sh.newShapeProducer(p, j, tPartitions, s.Sim.Rand("workload/"+name))
			s.extra = append(s.extra, w)
			f := func() sim.Node {
				return client.NewProducer(client.ProducerOptions{
					Bootstrap: s.Brokers, Config: pc, Recorder: s.History, Topics: topics,
					Workload: w, SendInterval: every, SendBurst: p.Burst,
				})
			}
			if p.Start > 0 {
				s.AddClientAt(name, f, p.Start)
			} else {
				s.AddClient(name, f)
			}
			if p.Stop > 0 {
				s.stops = append(s.stops, timedStep{at: p.Stop, name: "stop " + name, fn: w.Stop})
			}
		}
	}
	return nil
}

// timedStep is a step of the fixture's workload at a virtual time (a
// client that stops), scheduled once every node is added: the kernel
// takes no node after its first event.
type timedStep struct {
	at   time.Duration
	name string
	fn   func()
}

// topics are every topic of the fixture, "t" first.
func (s *Scripted) topics() []string {
	out := []string{"t"}
	if s.opts.Shape != nil {
		for _, t := range s.opts.Shape.Topics {
			out = append(out, t.Name)
		}
	}
	return out
}

// stopProducing stops every producer of the fixture.
func (s *Scripted) stopProducing() {
	s.Work.Stop()
	for _, w := range s.extra {
		w.Stop()
	}
}
