package scenarios

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// An experiment file is a scenario written in TOML instead of Go: the
// cluster, its topic, the configuration by Kafka name, the workload, the
// faults, the phases and what the run must show. Experiment is the file
// as decoded; Scenario() maps it onto the Scenario the catalog uses, so
// an experiment runs through the same Run, sweep and shrink as a catalog
// entry (docs/experiments.md describes every key).
type Experiment struct {
	Name        string `toml:"name"`
	Description string `toml:"description,omitempty"`
	// Expect is "pass" (or empty) for an experiment that must pass, else
	// the anomaly the checkers must name (checkers.AnomalyNames).
	Expect string `toml:"expect,omitempty"`
	// Seeds are the seeds the go test harness runs (default 1, 2, 3).
	Seeds []uint64 `toml:"seeds,omitempty"`
	// Draw names a configuration swarm (Draws: "config") that draws the
	// cluster's brokers, controllers, topics, producers and Kafka
	// settings from each run's seed; the file then gives none of those
	// itself (its [config] is the base the drawn settings go on).
	Draw     string                  `toml:"draw,omitempty"`
	Cluster  ExperimentCluster       `toml:"cluster"`
	Config   map[string]SettingValue `toml:"config,omitempty"`
	Topics   []ExperimentTopic       `toml:"topics,omitempty"`
	Workload ExperimentWorkload      `toml:"workload"`
	Faults   ExperimentFaults        `toml:"faults"`
	Phases   ExperimentPhases        `toml:"phases"`
	_        struct{}                `toml:"-"`
}

// ExperimentCluster is the cluster's shape.
type ExperimentCluster struct {
	Brokers     int `toml:"brokers,omitzero"`     // default 3
	Controllers int `toml:"controllers,omitzero"` // default 3
	// SpareBrokers are brokers built and left down, ids following the
	// brokers', for add-broker lines to start (0 to 4; default 0).
	SpareBrokers int `toml:"spare_brokers,omitzero"`
	// DiskWriteback is how long unsynced writes wait in the page cache
	// ("never": until a sync); default 30 s.
	DiskWriteback Duration `toml:"disk_writeback,omitzero"`
	// MetadataSnapshotEvery is the metadata quorum's snapshot interval
	// in committed entries (1 to 1,000,000; default 1000): kafkasim's
	// count in place of Kafka's
	// metadata.log.max.record.bytes.between.snapshots.
	MetadataSnapshotEvery int `toml:"metadata_snapshot_every,omitzero"`
	// Link is every link's latency: uniform in [min, max], plus, with
	// probability tail_prob, up to tail more.
	Link *ExperimentLink `toml:"link,omitempty"`
	// Racks are the racks' names; brokers and controllers are spread
	// over them round-robin (scenarios/fixture/racks.go), and each broker gets
	// its rack as broker.rack, so that the controller places replicas
	// rack-aware (StripedReplicaPlacer).
	Racks []string `toml:"racks,omitempty"`
	// RackAwarePlacement false keeps the racks (faults can name them) but
	// does not tell the brokers theirs: placement cannot see them, as in
	// a cluster whose broker.rack was never set. Default true.
	RackAwarePlacement *bool `toml:"rack_aware_placement,omitempty"`
}

// ExperimentLink is a link latency distribution.
type ExperimentLink struct {
	Min      Duration `toml:"min"`
	Max      Duration `toml:"max"`
	TailProb float64  `toml:"tail_prob,omitzero"`
	Tail     Duration `toml:"tail,omitzero"`
	// Datagram switches every link from a FIFO connection to datagrams,
	// which the kernel may duplicate and reorder (stress, not TCP).
	Datagram *ExperimentDatagram `toml:"datagram,omitempty"`
}

// ExperimentDatagram is sim.Datagram: the probability a message is
// delivered twice, the probability it is held back, and for how long at
// most.
type ExperimentDatagram struct {
	DupProb     float64  `toml:"dup_prob,omitzero"`
	ReorderProb float64  `toml:"reorder_prob,omitzero"`
	ReorderMax  Duration `toml:"reorder_max,omitzero"`
}

// ExperimentTopic is a topic and its topic-level settings.
type ExperimentTopic struct {
	Name       string `toml:"name"`
	Partitions int32  `toml:"partitions,omitzero"` // default 1
	// ReplicationFactor defaults to default.replication.factor.
	ReplicationFactor int32                   `toml:"replication_factor,omitzero"`
	Config            map[string]SettingValue `toml:"config,omitempty"`
}

// ExperimentWorkload is the clients: topic t's round-robin producer, the
// consumer that assigns itself every partition, more producers, and
// consumer groups.
type ExperimentWorkload struct {
	// Interval is t's producer's time between sends (default 20 ms),
	// Burst the records it sends back to back each time (default 1).
	Interval Duration `toml:"interval,omitzero"`
	Burst    int      `toml:"burst,omitzero"`
	// ProduceUntil stops t's producer at this virtual time (default: it
	// runs through the safety phase).
	ProduceUntil Duration `toml:"produce_until,omitzero"`
	// AssignConsumer false leaves out the assigning consumer.
	AssignConsumer *bool                `toml:"assign_consumer,omitempty"`
	Producers      []ExperimentProducer `toml:"producers,omitempty"`
	Groups         []ExperimentGroup    `toml:"groups,omitempty"`
	// Transactions, if given, adds the transactional workload
	// (fixture.TxnSpec); its zero keys are the defaults.
	Transactions *ExperimentTransactions `toml:"transactions,omitempty"`
	// Pipeline, if given, adds the exactly-once consume-transform-produce
	// pipeline (fixture.EOSSpec); its zero keys are the defaults.
	Pipeline *ExperimentPipeline `toml:"pipeline,omitempty"`
}

// ExperimentPipeline is a fixture.EOSSpec: a source writing input every
// interval, and workers in group writing each input record's output to
// output inside transactions; both topics have partitions partitions.
type ExperimentPipeline struct {
	Input      string   `toml:"input,omitempty"`
	Output     string   `toml:"output,omitempty"`
	Group      string   `toml:"group,omitempty"`
	Partitions int32    `toml:"partitions,omitzero"`
	Workers    int      `toml:"workers,omitzero"`
	Interval   Duration `toml:"interval,omitzero"`
}

// ExperimentTransactions is a fixture.TxnSpec: producers transactional
// producers writing transactions of records records over the partitions
// of topic, every abort_every-th aborted, one every interval; with stop,
// none begun after it.
type ExperimentTransactions struct {
	Topic      string   `toml:"topic,omitempty"`
	Partitions int32    `toml:"partitions,omitzero"`
	Producers  int      `toml:"producers,omitzero"`
	Records    int      `toml:"records,omitzero"`
	AbortEvery int      `toml:"abort_every,omitzero"`
	Interval   Duration `toml:"interval,omitzero"`
	Stop       Duration `toml:"stop,omitzero"`
}

// ExperimentProducer is a ProducerShape: count producers writing topics
// in turn, keyed as keys says, with values of value_bytes and their own
// settings by Kafka name, from start to stop.
type ExperimentProducer struct {
	Name   string   `toml:"name"`
	Count  int      `toml:"count,omitzero"` // default 1
	Topics []string `toml:"topics"`
	// Keys is "none" (the default), "uniform" or "zipf", over key_count
	// keys; zipf_exponent is Zipf's s.
	Keys         string                  `toml:"keys,omitempty"`
	KeyCount     int                     `toml:"key_count,omitzero"`
	ZipfExponent float64                 `toml:"zipf_exponent,omitzero"`
	Interval     Duration                `toml:"interval,omitzero"`
	Burst        int                     `toml:"burst,omitzero"`
	ValueBytes   int                     `toml:"value_bytes,omitzero"`
	Settings     map[string]SettingValue `toml:"settings,omitempty"`
	Start        Duration                `toml:"start,omitzero"`
	Stop         Duration                `toml:"stop,omitzero"`
}

// ExperimentGroup is a consumer group subscribed to every topic.
type ExperimentGroup struct {
	Name    string `toml:"name"`
	Members int    `toml:"members"`
	// Assignor is the members' partition.assignment.strategy (default
	// the configuration's).
	Assignor string `toml:"assignor,omitempty"`
	// Start and Stop are virtual times: the members join then (default:
	// with the cluster) and leave cleanly then (default: never).
	Start Duration `toml:"start,omitzero"`
	Stop  Duration `toml:"stop,omitzero"`
}

// ExperimentFaults are the safety phase's faults: written out (schedule,
// inline, or schedule_file, relative to the experiment file), written by
// one of the catalog's writers, drawn by a swarm, or a schedule besides a
// writer or swarm.
type ExperimentFaults struct {
	Schedule     string            `toml:"schedule,omitempty"`
	ScheduleFile string            `toml:"schedule_file,omitempty"`
	Writer       *ExperimentWriter `toml:"writer,omitempty"`
	Swarm        *ExperimentSwarm  `toml:"swarm,omitempty"`
}

// ExperimentWriter is a ScheduleWriter.
type ExperimentWriter struct {
	Kind   string   `toml:"kind"`
	Stream string   `toml:"stream,omitempty"`
	GapMin Duration `toml:"gap_min,omitzero"`
	GapMax Duration `toml:"gap_max,omitzero"`
	Faults []string `toml:"faults,omitempty"`
	Script string   `toml:"script,omitempty"`
	// Writer "once" only.
	Start     Duration `toml:"start,omitzero"`
	Spread    Duration `toml:"spread,omitzero"`
	WindowMin Duration `toml:"window_min,omitzero"`
	WindowMax Duration `toml:"window_max,omitzero"`
}

// ExperimentSwarm is faults.SwarmOptions: the kinds it may draw ("all":
// every swarm kind) and its bounds (zero: the swarm's defaults).
type ExperimentSwarm struct {
	Kinds          []string `toml:"kinds"`
	Controllers    bool     `toml:"controllers,omitempty"`
	MeanInterval   Duration `toml:"mean_interval,omitzero"`
	WindowMin      Duration `toml:"window_min,omitzero"`
	WindowMax      Duration `toml:"window_max,omitzero"`
	SkewMax        Duration `toml:"skew_max,omitzero"`
	DriftMax       float64  `toml:"drift_max,omitzero"`
	DelayMax       Duration `toml:"delay_max,omitzero"`
	SyncLatencyMax Duration `toml:"sync_latency_max,omitzero"`
	// Targets, if given, are what every fault that takes a node aims at,
	// in the schedule format's selector words ("rack r1", "member-of g",
	// "follower-of t/0 #1", "out-of-isr t/0", "leader-of t/0", "b2").
	Targets []string `toml:"targets,omitempty"`
	// Topics are the topics the topic operations (create-topic,
	// delete-topic) name, beside the cluster's for add-partitions and
	// alter-config (faults.SwarmOptions.Topics).
	Topics []string `toml:"topics,omitempty"`
	// Triggers are events a drawn fault may wait for (ack, election,
	// alter-partition), each fault with probability trigger_prob.
	Triggers    []string `toml:"triggers,omitempty"`
	TriggerProb float64  `toml:"trigger_prob,omitzero"`
	// MaxPerKind bounds the faults of one kind in a run (0: 1000).
	MaxPerKind int `toml:"max_per_kind,omitzero"`
}

// ExperimentPhases are the run's lengths: safety after the cluster is
// ready, or until an absolute virtual time (a schedule written against
// absolute times); then, with a liveness bound, the liveness phase.
type ExperimentPhases struct {
	Safety        Duration `toml:"safety,omitzero"`
	Until         Duration `toml:"until,omitzero"`
	LivenessBound Duration `toml:"liveness_bound,omitzero"`
}

// Duration is a time.Duration written as Go writes one ("1m30s",
// "500ms"), or "never" (negative).
type Duration time.Duration

// UnmarshalText reads a duration; the decoder reports a bad one at its
// key's line and column.
func (d *Duration) UnmarshalText(b []byte) error {
	s := string(b)
	if s == "never" {
		*d = Duration(-1)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (say 30s, 500ms, 1m30s)", s)
	}
	if v < 0 {
		return fmt.Errorf("%q: a duration here is not negative (write \"never\" where that is meant)", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes what UnmarshalText reads.
func (d Duration) MarshalText() ([]byte, error) {
	if d < 0 {
		return []byte("never"), nil
	}
	return []byte(time.Duration(d).String()), nil
}

// SettingValue is one configuration value by Kafka name: TOML may give it as a
// string, an integer or a boolean, as a properties file would; it is kept
// as the text -set takes.
type SettingValue string

// UnmarshalTOML implements toml.Unmarshaler.
func (s *SettingValue) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*s = SettingValue(v)
	case int64:
		*s = SettingValue(strconv.FormatInt(v, 10))
	case bool:
		*s = SettingValue(strconv.FormatBool(v))
	default:
		return fmt.Errorf("a setting is a string, an integer or true/false, not %T", v)
	}
	return nil
}

// ExperimentError is a mistake in an experiment file at a line and column
// (0 when the file as a whole is meant).
type ExperimentError struct {
	File      string
	Line, Col int
	Reason    string
}

func (e *ExperimentError) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Reason)
}

// DecodeExperiment decodes an experiment file strictly: a syntax error, a
// value of the wrong type and a key the format does not have (with the
// nearest key it does have) are errors at their line and column. It does
// not check values (see Experiment.Scenario).
func DecodeExperiment(file string, data []byte) (Experiment, error) {
	var e Experiment
	md, err := toml.NewDecoder(strings.NewReader(string(data))).Decode(&e)
	if err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return Experiment{}, &ExperimentError{File: file, Line: pe.Position.Line, Col: pe.Position.Col, Reason: tomlReason(pe)}
		}
		return Experiment{}, &ExperimentError{File: file, Line: tomlLine(err.Error()), Reason: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		line, col := locateKey(data, k)
		return Experiment{}, &ExperimentError{File: file, Line: line, Col: col, Reason: unknownKeyReason(k)}
	}
	return e, nil
}

// tomlReason is a decoder error's message without its position, which
// ExperimentError gives.
func tomlReason(pe toml.ParseError) string {
	msg := pe.Message
	if pe.LastKey != "" && !strings.Contains(msg, pe.LastKey) {
		msg = pe.LastKey + ": " + msg
	}
	return msg
}

// tomlLine finds "line N" in a type error the decoder gives without a
// position, 0 when there is none.
func tomlLine(msg string) int {
	_, rest, ok := strings.Cut(msg, "line ")
	if !ok {
		return 0
	}
	end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		end = len(rest)
	}
	n, _ := strconv.Atoi(rest[:end])
	return n
}
