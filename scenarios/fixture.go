package scenarios

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Fixture is the shape of the cluster and workload a run starts from:
// what NewScripted builds. It is defined once and embedded in Scenario
// (the catalog's and experiments' runs), ScriptOptions (the builder's
// input) and Historical (the bugs' replays), so that a field added here
// reaches every run without being copied field by field. Zero values are
// the defaults NewScripted gives them.
type Fixture struct {
	Brokers int // default 3
	// Controllers is the metadata quorum's size (0: the cluster's
	// default, 3; 1: the single-controller configuration).
	Controllers int
	Partitions  int32 // partitions of topic "t", default 1
	// Interval is the producer's time between sends (default 20 ms);
	// Burst is how many records it sends back to back each time (0: 1).
	Interval time.Duration
	Burst    int
	// Groups are consumer groups subscribed to every topic ("t" and the
	// Shape's), besides the consumer that assigns itself every partition.
	Groups []GroupSpec
	// Shape, if set, adds topics and keyed or keyless producers beside
	// "t" and its round-robin producer (shape.go).
	Shape *Shape
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
	// and "rack R" selects a rack's nodes. None: no racks.
	Racks       []string
	RackUnaware bool
}
