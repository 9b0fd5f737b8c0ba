package faults

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"kafkasim/model"
)

func TestParseTopicOperationsRoundTrip(t *testing.T) {
	for _, line := range []string{
		"at 20s create-topic u 6 3",
		"at 21s add-partitions u 12",
		"at 22s alter-config u min.insync.replicas=3",
		"at 23s alter-config u retention.ms=60000",
		"at 24s delete-topic u",
		"at 25s create-topic a.b_c-9 1 1",
	} {
		s, err := Parse(strings.NewReader(line), "ops")
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if got := s[0].String(); got != line {
			t.Errorf("%q formats as %q", line, got)
		}
		if !s[0].Kind.IsOperation() {
			t.Errorf("%q: not an operation", line)
		}
	}
}

func TestParseTopicOperationsRefusesBadLines(t *testing.T) {
	for line, want := range map[string]string{
		"at 1s create-topic":                           "ops:1: create-topic: missing topic name",
		"at 1s create-topic u":                         `ops:1: create-topic: bad partitions end of line: want a positive number`,
		"at 1s create-topic u 6":                       "ops:1: create-topic: bad replication factor end of line",
		"at 1s create-topic u 0 3":                     `bad partitions "0"`,
		"at 1s create-topic u 6 -1":                    `bad replication factor "-1"`,
		"at 1s create-topic u six 3":                   `bad partitions "six"`,
		"at 1s create-topic u 6 40000":                 "above 32767",
		"at 1s create-topic u 6 3 4":                   `unexpected "4"`,
		"at 1s create-topic u/0 6 3":                   `bad topic name "u/0"`,
		"at 1s create-topic .. 6 3":                    `bad topic name ".."`,
		"at 1s add-partitions t":                       "bad partition count end of line",
		"at 1s add-partitions t +3":                    `bad partition count "+3"`,
		"at 1s alter-config t":                         "bad config end of line: want name=value",
		"at 1s alter-config t min.insync.replicas":     `bad config "min.insync.replicas"`,
		"at 1s alter-config t =3":                      `bad config "=3"`,
		"at 1s alter-config t min.insync.replicas=":    `bad config "min.insync.replicas="`,
		"at 1s delete-topic __consumer_offsets":        "an internal topic may not be deleted",
		"at 1s delete-topic t 3":                       `unexpected "3"`,
		"from 1s to 2s delete-topic t":                 "instantaneous",
		"at 1s delete-topic":                           "missing topic name",
		"at 1s alter-config t min.insync.replicas=3 x": `unexpected "x"`,
	} {
		_, err := Parse(strings.NewReader(line), "ops")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", line, err, want)
		}
	}
}

// TestTopicOperationFieldsBelongToTopicOperations: Validate refuses a
// topic operation's fields on a fault, and a partition on a topic
// operation, so that a Schedule built in Go is held to the file's rules.
func TestTopicOperationFieldsBelongToTopicOperations(t *testing.T) {
	bad := []Fault{
		{At: 1, Kind: KindCrash, Target: Node(1), Topic: "u"},
		{At: 1, Kind: KindDeleteTopic, Topic: "u", Count: 3},
		{At: 1, Kind: KindAddPartitions, Topic: "u"},
		{At: 1, Kind: KindCreateTopic, Topic: "u", Count: 3},
		{At: 1, Kind: KindElectPreferred, TP: tp0, Topic: "t"},
	}
	for _, f := range bad {
		if err := f.Validate(); err == nil {
			t.Errorf("%+v validates", f)
		}
	}
	ok := Fault{At: 1, Kind: KindCreateTopic, Topic: "u", Count: 6, RF: 3}
	if err := ok.Validate(); err != nil {
		t.Errorf("%v: %v", ok, err)
	}
}

// Topic operations are drawn only when named, from their own streams:
// the faults and partition operations of the same seed stay exactly as
// they were, and every drawn topic operation is a valid line naming the
// options' topics (create, delete) or those and the shape's (grow,
// configure), never __consumer_offsets, and min.insync.replicas of at
// least 2.
func TestSwarmDrawsTopicOperationsOnlyWhenNamed(t *testing.T) {
	if want := []Kind{KindCreateTopic, KindDeleteTopic, KindAddPartitions, KindAlterConfig}; !slices.Equal(SwarmTopicOperations(), want) {
		t.Fatalf("SwarmTopicOperations %v, want %v", SwarmTopicOperations(), want)
	}
	shape := fiveBrokers
	shape.Partitions = append(slices.Clone(shape.Partitions), model.TP("__consumer_offsets", 0))
	drawn := map[Kind]int{}
	for seed := uint64(1); seed <= 100; seed++ {
		o := allSwarm()
		o.Kinds = slices.Concat(SwarmKinds(), SwarmOperations())
		before := Swarm(seed, o, shape)
		o.Kinds = slices.Concat(o.Kinds, SwarmTopicOperations())
		o.Topics = []string{"scratch", "fresh"}
		with := Swarm(seed, o, shape)
		if err := with.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var rest Schedule
		for _, f := range with {
			if !isTopicArgs(specs[f.Kind].args) {
				rest = append(rest, f)
				continue
			}
			drawn[f.Kind]++
			own := f.Topic == "scratch" || f.Topic == "fresh"
			if (f.Kind == KindCreateTopic || f.Kind == KindDeleteTopic) && !own || f.Topic == "__consumer_offsets" {
				t.Fatalf("seed %d: %v names a topic it may not", seed, f)
			}
			if f.Kind == KindAlterConfig && (f.Config.Value == "1" || f.Config.Name != "min.insync.replicas") {
				t.Fatalf("seed %d: %v", seed, f)
			}
		}
		if !reflect.DeepEqual(rest, before) {
			t.Fatalf("seed %d: naming the topic operations changed the other draws", seed)
		}
	}
	for _, k := range SwarmTopicOperations() {
		if drawn[k] == 0 {
			t.Errorf("%s never drawn in 100 seeds", k)
		}
	}
}
