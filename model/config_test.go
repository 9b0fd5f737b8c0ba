package model

import (
	"math"
	"sort"
	"strings"
	"testing"
	"time"
)

// TestDefaultConfig pins every default, by Kafka name, to the text Get gives.
// It also fails when a field is added without a line here.
func TestDefaultConfig(t *testing.T) {
	want := map[string]string{
		"acks":                                          "all",
		"auto.commit.interval.ms":                       "5s",
		"auto.leader.rebalance.enable":                  "true",
		"auto.offset.reset":                             "latest",
		"batch.size":                                    "16384",
		"broker.heartbeat.interval.ms":                  "2s",
		"broker.session.timeout.ms":                     "9s",
		"consumer.self.fencing":                         "false",
		"default.replication.factor":                    "1",
		"delivery.timeout.ms":                           "2m0s",
		"transaction.timeout.ms":                        "1m0s",
		"eligible.leader.replicas.enable":               "true",
		"enable.auto.commit":                            "true",
		"enable.idempotence":                            "true",
		"fetch.max.wait.ms":                             "500ms",
		"fetch.min.bytes":                               "1",
		"group.initial.rebalance.delay.ms":              "3s",
		"controlled.shutdown.enable":                    "true",
		"group.max.session.timeout.ms":                  "30m0s",
		"group.min.session.timeout.ms":                  "6s",
		"heartbeat.interval.ms":                         "3s",
		"high.watermark.freeze.below.min.isr":           "true",
		"kafka.version":                                 "4.1",
		"stray.replica.check.at.load":                   "true",
		"leader.imbalance.check.interval.seconds":       "300",
		"linger.ms":                                     "5ms",
		"log.flush.interval.messages":                   "9223372036854775807",
		"log.flush.interval.ms":                         "never",
		"log.segment.bytes":                             "1073741824",
		"max.in.flight.requests.per.connection":         "5",
		"producer.id.expiration.check.interval.ms":      "10m0s",
		"producer.id.expiration.ms":                     "24h0m0s",
		"producer.snapshot.last.batch.only":             "false",
		"max.incremental.fetch.session.cache.slots":     "1000",
		"max.poll.interval.ms":                          "5m0s",
		"max.poll.records":                              "500",
		"metadata.max.age.ms":                           "5m0s",
		"min.insync.replicas":                           "1",
		"network.tcp":                                   "true",
		"offsets.commit.timeout.ms":                     "5s",
		"offsets.topic.num.partitions":                  "50",
		"offsets.topic.replication.factor":              "3",
		"partition.assignment.strategy":                 "range",
		"isolation.level":                               "read_uncommitted",
		"replica.fetch.backoff.ms":                      "1s",
		"replica.fetch.max.bytes":                       "1048576",
		"replica.fetch.min.bytes":                       "1",
		"replica.fetch.wait.max.ms":                     "500ms",
		"replica.high.watermark.checkpoint.interval.ms": "5s",
		"replica.lag.time.max.ms":                       "30s",
		"replica.socket.timeout.ms":                     "30s",
		"reconnect.backoff.ms":                          "50ms",
		"reconnect.backoff.max.ms":                      "1s",
		"socket.connection.setup.timeout.ms":            "10s",
		"socket.connection.setup.timeout.max.ms":        "30s",
		"request.timeout.ms":                            "30s",
		"retention.bytes":                               "-1",
		"retention.ms":                                  "168h0m0s",
		"retries":                                       "2147483647",
		"retry.backoff.max.ms":                          "1s",
		"retry.backoff.ms":                              "100ms",
		"session.timeout.ms":                            "45s",
		"truncation":                                    "leader-epoch",
		"unclean.leader.election.enable":                "false",
		"transaction.state.log.num.partitions":          "50",
		"transaction.state.log.replication.factor":      "3",
		"transaction.state.log.min.isr":                 "2",
		"transaction.max.timeout.ms":                    "15m0s",
		"transactional.id.expiration.ms":                "168h0m0s",
		"transaction.abort.timed.out.transaction.cleanup.interval.ms": "10s",
		"transaction.remove.expired.transaction.cleanup.interval.ms":  "1h0m0s",
		"transaction.version":                       "2",
		"transaction.partition.verification.enable": "true",
	}
	c := DefaultConfig()
	names := c.Names()
	if len(names) != len(want) {
		t.Errorf("%d names, %d expected", len(names), len(want))
	}
	for _, n := range names {
		w, ok := want[n]
		if !ok {
			t.Errorf("%s has no expected default here", n)
			continue
		}
		if got := c.Get(n); got != w {
			t.Errorf("default %s = %q, want %q", n, got, w)
		}
	}
	if err := c.Validate(); err != nil {
		t.Errorf("DefaultConfig().Validate() = %v", err)
	}
	if len(c.NonDefault()) != 0 {
		t.Errorf("NonDefault of the default = %v", c.NonDefault())
	}
	// Typed spot checks, so that the text form cannot hide a unit mistake.
	if c.Broker.ReplicaLagTimeMax != 30*time.Second || c.Producer.Acks != AcksAll ||
		c.Producer.Retries != math.MaxInt32 || c.Broker.LogFlushInterval != Never {
		t.Errorf("typed defaults wrong: %+v %+v", c.Broker, c.Producer)
	}
}

func TestConfigNamesSorted(t *testing.T) {
	c := DefaultConfig()
	names := c.Names()
	if !sort.StringsAreSorted(names) {
		t.Errorf("names not sorted: %v", names)
	}
	names[0] = "mutated"
	if c.Names()[0] == "mutated" {
		t.Error("Names returned the shared slice")
	}
	if c.Get("no.such.key") != "" {
		t.Error("Get of an unknown name is not empty")
	}
}

// TestConfigSetGetRoundTrip sets every name to the text Get gives for it and
// to a changed value, checking that Get reads back what Set wrote.
func TestConfigSetGetRoundTrip(t *testing.T) {
	c := DefaultConfig()
	for _, n := range c.Names() {
		if err := c.Set(n, c.Get(n)); err != nil {
			t.Errorf("Set(%s, Get) = %v", n, err)
		}
	}
	if c != DefaultConfig() {
		t.Error("Set(name, Get(name)) changed the config")
	}
	changed := map[string]string{
		"acks":                                    "1",
		"truncation":                              "high-watermark",
		"auto.offset.reset":                       "earliest",
		"partition.assignment.strategy":           "cooperative-sticky",
		"eligible.leader.replicas.enable":         "false",
		"min.insync.replicas":                     "2",
		"log.flush.interval.messages":             "1",
		"replica.lag.time.max.ms":                 "10s",
		"auto.leader.rebalance.enable":            "false",
		"leader.imbalance.check.interval.seconds": "30",
	}
	for n, v := range changed {
		if err := c.Set(n, v); err != nil {
			t.Fatalf("Set(%s, %s) = %v", n, v, err)
		}
		if got := c.Get(n); got != v {
			t.Errorf("after Set(%s, %s), Get = %q", n, v, got)
		}
	}
	if c.Producer.Acks != AcksLeader || c.Broker.Truncation != TruncateHighWatermark ||
		c.Topic.MinInsyncReplicas != 2 || c.Controller.EligibleLeaderReplicas ||
		c.Controller.AutoLeaderRebalance || c.Controller.LeaderImbalanceCheckIntervalSeconds != 30 {
		t.Errorf("typed fields not set: %+v", c)
	}
	nd := c.NonDefault()
	if len(nd) != len(changed) || !sort.StringsAreSorted(nd) || nd[0] != "acks=1" {
		t.Errorf("NonDefault = %v", nd)
	}
}

func TestConfigSetParsing(t *testing.T) {
	ok := []struct {
		name, value string
		check       func(c *Config) bool
	}{
		{"replica.lag.time.max.ms", "1500", func(c *Config) bool { return c.Broker.ReplicaLagTimeMax == 1500*time.Millisecond }},
		{"replica.lag.time.max.ms", "2m", func(c *Config) bool { return c.Broker.ReplicaLagTimeMax == 2*time.Minute }},
		{"log.flush.interval.ms", "never", func(c *Config) bool { return c.Broker.LogFlushInterval == Never }},
		{"log.flush.interval.ms", "9223372036854775807", func(c *Config) bool { return c.Broker.LogFlushInterval == Never }},
		{"log.flush.interval.ms", "0", func(c *Config) bool { return c.Broker.LogFlushInterval == 0 }},
		{"acks", "-1", func(c *Config) bool { return c.Producer.Acks == AcksAll }},
		{"acks", "0", func(c *Config) bool { return c.Producer.Acks == AcksNone }},
		{"unclean.leader.election.enable", "true", func(c *Config) bool { return c.Topic.UncleanLeaderElection }},
		{"log.segment.bytes", "4096", func(c *Config) bool { return c.Broker.LogSegmentBytes == 4096 }},
		{"truncation", "leader-epoch-kip101", func(c *Config) bool { return c.Broker.Truncation == TruncateLeaderEpochKIP101 }},
		{"consumer.self.fencing", "true", func(c *Config) bool { return c.Consumer.SelfFencing }},
	}
	for _, tc := range ok {
		c := DefaultConfig()
		if err := c.Set(tc.name, tc.value); err != nil || !tc.check(&c) {
			t.Errorf("Set(%s, %q): err %v, field not as expected", tc.name, tc.value, err)
		}
	}
	bad := []struct{ name, value, wantInErr string }{
		{"no.such.key", "1", `unknown configuration "no.such.key"`},
		{"replica.lag.time.max.ms", "soon", "replica.lag.time.max.ms"},
		{"replica.lag.time.max.ms", "1.5", "replica.lag.time.max.ms"},
		{"enable.idempotence", "yes", "enable.idempotence"},
		{"min.insync.replicas", "2147483648", "min.insync.replicas"},
		{"min.insync.replicas", "two", "min.insync.replicas"},
		{"acks", "2", "acks"},
		{"truncation", "magic", "truncation"},
		{"auto.offset.reset", "smallest", "auto.offset.reset"},
		{"partition.assignment.strategy", "random", "partition.assignment.strategy"},
	}
	for _, tc := range bad {
		c := DefaultConfig()
		err := c.Set(tc.name, tc.value)
		if err == nil || !strings.Contains(err.Error(), tc.wantInErr) {
			t.Errorf("Set(%s, %q) = %v, want an error naming %q", tc.name, tc.value, err, tc.wantInErr)
		}
		if c != DefaultConfig() {
			t.Errorf("failed Set(%s, %q) changed the config", tc.name, tc.value)
		}
	}
}

func TestConfigSetPair(t *testing.T) {
	c := DefaultConfig()
	if err := c.SetPair("min.insync.replicas=2"); err != nil || c.Topic.MinInsyncReplicas != 2 {
		t.Errorf("SetPair: %v, min ISR %d", err, c.Topic.MinInsyncReplicas)
	}
	if err := c.SetPair(" acks = 1 "); err != nil || c.Producer.Acks != AcksLeader {
		t.Errorf("SetPair with spaces: %v", err)
	}
	if err := c.SetPair("acks"); err == nil {
		t.Error("SetPair without = succeeded")
	}
}

// TestConfigValidate checks each rule both ways: a setting just inside the
// rule passes, one just outside fails with an error naming the keys.
func TestConfigValidate(t *testing.T) {
	cases := []struct {
		rule      string
		pass      []string // settings that must validate
		fail      []string // settings that must not
		wantInErr []string
	}{
		{"min ISR at most RF",
			[]string{"default.replication.factor=3", "min.insync.replicas=3"},
			[]string{"default.replication.factor=3", "min.insync.replicas=4"},
			[]string{"min.insync.replicas=4", "default.replication.factor=3"}},
		{"min ISR at least 1",
			[]string{"min.insync.replicas=1"},
			[]string{"min.insync.replicas=0"},
			[]string{"min.insync.replicas=0", "at least 1"}},
		{"idempotence needs acks=all",
			[]string{"acks=1", "enable.idempotence=false"},
			[]string{"acks=1", "enable.idempotence=true"},
			[]string{"enable.idempotence", "acks=1"}},
		{"idempotence needs acks=all (acks=0)",
			[]string{"acks=0", "enable.idempotence=false"},
			[]string{"acks=0"},
			[]string{"enable.idempotence", "acks=0"}},
		{"idempotence bounds in-flight",
			[]string{"max.in.flight.requests.per.connection=5"},
			[]string{"max.in.flight.requests.per.connection=6"},
			[]string{"max.in.flight.requests.per.connection", "6"}},
		{"in-flight unbounded without idempotence",
			[]string{"enable.idempotence=false", "max.in.flight.requests.per.connection=50"},
			[]string{"enable.idempotence=false", "max.in.flight.requests.per.connection=0"},
			[]string{"max.in.flight.requests.per.connection=0"}},
		{"idempotence needs retries",
			[]string{"retries=1"},
			[]string{"retries=0"},
			[]string{"retries"}},
		{"delivery timeout covers linger and request timeout",
			[]string{"linger.ms=5", "request.timeout.ms=30000", "delivery.timeout.ms=30005"},
			[]string{"linger.ms=5", "request.timeout.ms=30000", "delivery.timeout.ms=30004"},
			[]string{"delivery.timeout.ms", "linger.ms", "request.timeout.ms"}},
		{"heartbeat below session timeout",
			[]string{"heartbeat.interval.ms=44999", "session.timeout.ms=45000"},
			[]string{"heartbeat.interval.ms=45000", "session.timeout.ms=45000"},
			[]string{"heartbeat.interval.ms", "session.timeout.ms"}},
		{"broker heartbeat below broker session timeout",
			[]string{"broker.heartbeat.interval.ms=8999", "broker.session.timeout.ms=9000"},
			[]string{"broker.heartbeat.interval.ms=9000", "broker.session.timeout.ms=9000"},
			[]string{"broker.heartbeat.interval.ms", "broker.session.timeout.ms"}},
		{"group session bounds ordered",
			[]string{"group.min.session.timeout.ms=10s", "group.max.session.timeout.ms=10s"},
			[]string{"group.min.session.timeout.ms=11s", "group.max.session.timeout.ms=10s"},
			[]string{"group.min.session.timeout.ms", "group.max.session.timeout.ms"}},
		{"negative duration",
			[]string{"linger.ms=0"},
			[]string{"linger.ms=-1"},
			[]string{"linger.ms=-1ms", "at least 0"}},
		{"negative count",
			[]string{"fetch.min.bytes=0"},
			[]string{"fetch.min.bytes=-1"},
			[]string{"fetch.min.bytes=-1"}},
		{"retention.bytes allows -1 only",
			[]string{"retention.bytes=-1"},
			[]string{"retention.bytes=-2"},
			[]string{"retention.bytes=-2", "at least -1"}},
		{"leader imbalance check interval at least one second (Kafka's atLeast(1))",
			[]string{"leader.imbalance.check.interval.seconds=1"},
			[]string{"leader.imbalance.check.interval.seconds=0"},
			[]string{"leader.imbalance.check.interval.seconds=0", "at least 1"}},
		{"timer intervals must be positive",
			[]string{"broker.heartbeat.interval.ms=1ms"},
			[]string{"broker.heartbeat.interval.ms=0"},
			[]string{"broker.heartbeat.interval.ms=0s"}},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		for _, s := range tc.pass {
			if err := c.SetPair(s); err != nil {
				t.Fatalf("%s: %v", tc.rule, err)
			}
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v rejected: %v", tc.rule, tc.pass, err)
		}
		c = DefaultConfig()
		for _, s := range tc.fail {
			if err := c.SetPair(s); err != nil {
				t.Fatalf("%s: %v", tc.rule, err)
			}
		}
		err := c.Validate()
		if err == nil {
			t.Errorf("%s: %v accepted", tc.rule, tc.fail)
			continue
		}
		for _, w := range tc.wantInErr {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.rule, err, w)
			}
		}
	}
}

// TestConfigValidateEnums covers values that Set refuses but Go code can
// still assign directly.
func TestConfigValidateEnums(t *testing.T) {
	cases := []struct {
		mutate func(c *Config)
		want   string
	}{
		{func(c *Config) { c.Broker.Truncation = "bogus" }, "truncation"},
		{func(c *Config) { c.Producer.Acks = 2; c.Producer.Idempotence = false }, "acks=2"},
		{func(c *Config) { c.Consumer.AutoOffsetReset = "" }, "auto.offset.reset"},
		{func(c *Config) { c.Consumer.AssignmentStrategy = "x" }, "partition.assignment.strategy"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mutate(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want an error naming %s", err, tc.want)
		}
	}
	// Several problems are all reported.
	c := DefaultConfig()
	c.Topic.MinInsyncReplicas = 0
	c.Broker.Truncation = "bogus"
	err := c.Validate()
	if err == nil || !strings.Contains(err.Error(), "min.insync.replicas") || !strings.Contains(err.Error(), "truncation") {
		t.Errorf("Validate = %v, want both problems", err)
	}
}
