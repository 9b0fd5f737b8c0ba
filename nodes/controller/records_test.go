package controller

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"kafkasim/model"
)

// sampleRecords has one record of every kind, with every field set.
var sampleRecords = []Record{
	LeaderChangeRecord{ControllerEpoch: 3, ControllerID: 100},
	RegisterBrokerRecord{ID: 2, Epoch: 7, Incarnation: 1<<63 + 5},
	FenceBrokerRecord{ID: 2, Epoch: 7},
	UnfenceBrokerRecord{ID: 2, Epoch: 7},
	BrokerRegistrationChangeRecord{ID: 2, Epoch: 7},
	CreateTopicRecord{
		Name:    "t",
		Configs: []model.ConfigEntry{{Name: "min.insync.replicas", Value: "2"}},
		Partitions: []model.PartitionState{
			{TP: model.TP("t", 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
			{TP: model.TP("t", 1), Leader: 2, LeaderEpoch: 1, PartitionEpoch: 2, Replicas: ids(2, 3, 1), ISR: ids(2), ELR: ids(1)},
		},
	},
	PartitionChangeRecord{TP: model.TP("t", 1), Leader: model.NoBroker, LeaderEpoch: 4, PartitionEpoch: 9, ELR: ids(2, 3), LastKnownLeader: 1},
	PartitionChangeRecord{TP: model.TP("t", 0), Leader: 3, LeaderEpoch: 5, PartitionEpoch: 10, ISR: ids(3), LastKnownLeader: model.NoBroker, Unclean: true},
}

func TestRecordsRoundTrip(t *testing.T) {
	for _, r := range sampleRecords {
		d := decoder{b: r.appendTo(nil)}
		got := d.record()
		if d.err != nil || len(d.b) != 0 || !reflect.DeepEqual(got, r) {
			t.Fatalf("%v decoded as %v (err %v, %d bytes left)", r, got, d.err, len(d.b))
		}
		// Every proper prefix is refused rather than misread.
		enc := r.appendTo(nil)
		for n := 0; n < len(enc); n++ {
			d := decoder{b: enc[:n]}
			if got := d.record(); d.err == nil && reflect.DeepEqual(got, r) {
				t.Fatalf("%v: a %d-byte prefix decoded whole", r, n)
			}
		}
	}
}

func TestRecordStrings(t *testing.T) {
	want := []string{
		"LeaderChange controllerEpoch=3 controller=b100",
		"RegisterBroker b2 brokerEpoch=7 inc=9223372036854775813",
		"FenceBroker b2 brokerEpoch=7",
		"UnfenceBroker b2 brokerEpoch=7",
		"BrokerRegistrationChange b2 brokerEpoch=7 inControlledShutdown",
		"CreateTopic t min.insync.replicas=2 [t/0 leader=b1 epoch=0 pe=0 replicas=[b1 b2 b3] isr=[b1 b2 b3] elr=[], " +
			"t/1 leader=b2 epoch=1 pe=2 replicas=[b2 b3 b1] isr=[b2] elr=[b1]]",
		"PartitionChange t/1 leader=none epoch=4 pe=9 isr=[] elr=[b2 b3] lastKnownLeader=b1",
		"PartitionChange t/0 leader=b3 epoch=5 pe=10 isr=[b3] elr=[] lastKnownLeader=none unclean",
	}
	for i, r := range sampleRecords {
		if r.String() != want[i] {
			t.Errorf("got  %s\nwant %s", r, want[i])
		}
	}
}

// TestSnapshotRoundTrip: the state after a log of records, snapshotted
// and restored, is the same state: every field apply sets is in the
// snapshot (a restored controller or broker must equal one that replayed).
func TestSnapshotRoundTrip(t *testing.T) {
	cfg := testConfig()
	s := newMetadataState(cfg)
	log := []Record{
		RegisterBrokerRecord{ID: 1, Epoch: 2, Incarnation: 11},
		RegisterBrokerRecord{ID: 2, Epoch: 3, Incarnation: 1<<63 + 5},
		RegisterBrokerRecord{ID: 3, Epoch: 4, Incarnation: 13},
		UnfenceBrokerRecord{ID: 1, Epoch: 2},
		UnfenceBrokerRecord{ID: 2, Epoch: 3},
		sampleRecords[5], // CreateTopic t, with a config override
		PartitionChangeRecord{TP: model.TP("t", 1), Leader: model.NoBroker, LeaderEpoch: 2, PartitionEpoch: 3,
			ELR: ids(2, 3), LastKnownLeader: 1},
		PartitionChangeRecord{TP: model.TP("t", 0), Leader: 3, LeaderEpoch: 1, PartitionEpoch: 1, ISR: ids(3), Unclean: true},
		FenceBrokerRecord{ID: 2, Epoch: 3},
		BrokerRegistrationChangeRecord{ID: 1, Epoch: 2},
	}
	off := int64(1)
	for _, r := range log {
		off += 2 // offsets may skip (the quorum's control entries)
		if rb, ok := r.(RegisterBrokerRecord); ok {
			off = int64(rb.Epoch)
		}
		s.apply(off, r)
	}
	got := restoreState(cfg, s.snapshot())
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("restored state differs:\n got %+v\nwant %+v", got, s)
	}
	// Every proper prefix of a snapshot is refused, not misread.
	data := s.snapshot()
	for n := 0; n < len(data); n++ {
		func() {
			defer func() { _ = recover() }()
			restoreState(cfg, data[:n])
			t.Fatalf("a %d-byte prefix of a %d-byte snapshot restored", n, len(data))
		}()
	}
}

func TestAssignReplicas(t *testing.T) {
	brokers := ids(1, 2, 3, 4, 5)
	a := assignReplicas(rand.New(rand.NewPCG(1, 2)), brokers, 10, 3)
	leads := map[model.BrokerID]int{}
	for p, replicas := range a {
		if len(replicas) != 3 || len(slices.Compact(slices.Sorted(slices.Values(replicas)))) != 3 {
			t.Fatalf("partition %d: replicas %v, want 3 distinct", p, replicas)
		}
		leads[replicas[0]]++
		// Leaders go round the brokers in order.
		if p > 0 {
			prev := slices.Index(brokers, a[p-1][0])
			if a[p][0] != brokers[(prev+1)%len(brokers)] {
				t.Fatalf("partition %d led by %v after %v", p, a[p][0], a[p-1][0])
			}
		}
	}
	for _, id := range brokers {
		if leads[id] != 2 {
			t.Fatalf("leaderships %v, want 2 each", leads)
		}
	}
	// The second lap shifts the followers.
	if slices.Equal(a[0][1:], a[5][1:]) {
		t.Fatalf("partitions 0 and 5 have the same followers %v: the shift did not grow", a[0][1:])
	}
	if b := assignReplicas(rand.New(rand.NewPCG(1, 2)), brokers, 10, 3); !reflect.DeepEqual(a, b) {
		t.Fatalf("same draws, different placements")
	}
	if one := assignReplicas(rand.New(rand.NewPCG(1, 2)), ids(7), 3, 1); !reflect.DeepEqual(one, [][]model.BrokerID{{7}, {7}, {7}}) {
		t.Fatalf("one broker: %v", one)
	}
}

func TestTopicConfigNamesMatchModel(t *testing.T) {
	var names []string
	typ := reflect.TypeFor[model.TopicConfig]()
	for i := 0; i < typ.NumField(); i++ {
		names = append(names, typ.Field(i).Tag.Get("kafka"))
	}
	sort.Strings(names)
	if !slices.Equal(names, topicConfigNames) {
		t.Fatalf("topicConfigNames %v, model.TopicConfig has %v", topicConfigNames, names)
	}
}

func TestValidTopicName(t *testing.T) {
	for name, ok := range map[string]bool{
		"t": true, "a.b_c-D9": true, "": false, ".": false, "..": false, "a b": false, "a/b": false,
		strings.Repeat("x", 249): true, strings.Repeat("x", 250): false,
	} {
		if validTopicName(name) != ok {
			t.Errorf("validTopicName(%q) = %v", name, !ok)
		}
	}
}
