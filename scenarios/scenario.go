package scenarios

import (
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// Scenario is a named, runnable experiment: a cluster shape, a
// configuration, a workload, a fault policy, run lengths, and what the
// run is expected to show. It is a value: the catalog is a list of them,
// and a run is a pure function of (scenario, seed, options).
type Scenario struct {
	Name        string
	Description string

	Brokers    int   // default 3
	Partitions int32 // partitions of topic "t", default 3
	// Groups are consumer groups subscribed to every topic ("t" and the
	// Shape's), besides the consumer that assigns itself every partition.
	Groups []GroupSpec
	// Shape, if set, adds topics and keyed or keyless producers beside
	// "t" and its round-robin producer (shape.go).
	Shape *Shape
	// Controllers is the size of the metadata quorum (default the
	// cluster's, 3); 1 is the single-controller configuration.
	Controllers int
	// Config is the cluster's configuration before -set overrides.
	Config func() model.Config
	// Interval is the producer's time between sends (default 20 ms);
	// Burst is how many records it sends back to back each time (0: 1).
	Interval time.Duration
	Burst    int
	// ReplicationFactor of topic "t" (0: default.replication.factor) and
	// its topic-level settings by Kafka name, sorted by name.
	ReplicationFactor int32
	TopicConfigs      []model.ConfigEntry
	// NoAssignConsumer leaves out the consumer that assigns itself every
	// partition (an experiment that only wants its groups).
	NoAssignConsumer bool
	// Link is every link's latency (zero: the cluster's default) and
	// DiskWriteback the brokers' page-cache writeback delay (zero: 30 s;
	// negative: never), as cluster.Options has them.
	Link          sim.LinkConfig
	DiskWriteback time.Duration
	// Racks are the cluster's racks (racks.go): brokers and controllers
	// are spread over them round-robin, each broker told its broker.rack
	// (so the controller places replicas rack-aware) unless RackUnaware,
	// and "rack R" selects a rack's nodes. None: no racks, as before.
	Racks       []string
	RackUnaware bool

	// Schedule writes the safety phase's faults for a ready fixture (it may
	// name the nodes that lead or follow at that moment); Swarm instead
	// draws them from the seed. Neither: no faults. A -schedule file given
	// to a run replaces both.
	// Writer is the same as data: one of the catalog's schedule writers
	// with its parameters, what an experiment file can name (see
	// ScheduleWriter). At most one of Schedule and Writer is set.
	Schedule func(s *Scripted) faults.Schedule
	Writer   *ScheduleWriter
	Swarm    *faults.SwarmOptions
	// Faults are written-out faults (an experiment's schedule), played
	// besides whatever Schedule, Writer or Swarm write.
	Faults faults.Schedule
	// ProduceUntil stops the producer at this virtual time (0: it runs
	// through the safety phase).
	ProduceUntil time.Duration
	// Safety is when the safety phase ends: a span of virtual time after
	// the cluster is ready, or, for a scripted scenario (Until), an
	// absolute virtual time its schedule was written against.
	Safety time.Duration
	Until  time.Duration
	// LivenessBound is how long, after every fault heals, the cluster has
	// to converge (liveness.go says what converged means). Zero skips the liveness phase,
	// as a scripted bug replay may: its faults are its story.
	LivenessBound time.Duration

	// Draw, if set, names a configuration swarm (Draws) that draws the
	// cluster's shape and Kafka settings from the seed (chaosconfig.go);
	// Run and everything that replays a run resolve it first.
	Draw string

	// Expect is "" for a scenario that must pass, or the anomaly the
	// checkers must name (a historical bug under its configuration).
	Expect string

	// Experiment is the experiment file the scenario was read from (a run
	// or sweep directory's copy when there is one) and ExperimentHash its
	// hash (LoadedExperiment.Hash); "" for a catalog scenario. Results
	// and reproduce lines name them.
	Experiment     string
	ExperimentHash string
	_              struct{}
}

// Catalog lists every scenario in a fixed order.
func Catalog() []Scenario {
	out := append([]Scenario(nil), safeScenarios()...)
	out = append(out, groupScenarios()...)
	out = append(out, controllerScenarios()...)
	out = append(out, chaosConfig())
	out = append(out, leaderLossScenarios()...)
	for _, h := range HistoricalBugs {
		out = append(out, h.Scenario())
	}
	return out
}

// Find returns the catalog scenario with the given name.
func Find(name string) (Scenario, bool) {
	for _, s := range Catalog() {
		if s.Name == name {
			return s, true
		}
	}
	return Scenario{}, false
}

// Scenario turns a historical bug into a catalog scenario under its
// historical configuration.
func (h Historical) Scenario() Scenario {
	return Scenario{
		Name:         h.Name,
		Description:  h.Summary,
		Brokers:      h.Brokers,
		Partitions:   max(h.Partitions, 1),
		Groups:       h.Groups,
		Config:       h.BuggyConfig,
		Writer:       &ScheduleWriter{Kind: WriterScript, Script: h.Name},
		ProduceUntil: h.ProduceUntil,
		Until:        h.End,
		Expect:       historicalAnomaly[h.Name],
	}
}

// historicalAnomaly is the anomaly each historical bug must show.
var historicalAnomaly = map[string]string{
	"kip101-hw-truncation": "acked-write-lost",
	"kip101-divergence":    "replica-divergence",
	"jepsen-2013":          "acked-write-lost",
	"acks1-failover":       "lost-write",
	"kip279-divergence":    "replica-divergence",
	"kip966-last-replica":  "acked-write-lost",
	"group-zombie":         "double-owner",
	"offset-commit-lost":   "commit-regression",
}
