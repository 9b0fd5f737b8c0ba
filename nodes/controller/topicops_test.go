package controller

import (
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
)

var topicRecords = []Record{
	RemoveTopicRecord{Name: "u"},
	CreatePartitionsRecord{Topic: "t", Partitions: []model.PartitionState{
		{TP: model.TP("t", 2), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2)},
		{TP: model.TP("t", 3), Leader: 2, Replicas: ids(2, 3, 1), ISR: ids(2, 3, 1)},
	}},
	ConfigRecord{Topic: "t", Name: "min.insync.replicas", Value: "3"},
}

func TestTopicRecordsRoundTrip(t *testing.T) {
	want := []string{
		"RemoveTopic u",
		"CreatePartitions t [t/2 leader=b1 epoch=0 pe=0 replicas=[b1 b2 b3] isr=[b1 b2] elr=[], t/3 leader=b2 epoch=0 pe=0 replicas=[b2 b3 b1] isr=[b2 b3 b1] elr=[]]",
		"Config t min.insync.replicas=3",
	}
	for i, r := range topicRecords {
		if r.String() != want[i] {
			t.Errorf("got  %s\nwant %s", r, want[i])
		}
		enc := r.appendTo(nil)
		d := decoder{b: enc}
		if got := d.record(); d.err != nil || len(d.b) != 0 || !reflect.DeepEqual(got, r) {
			t.Fatalf("%v decoded as %v (err %v)", r, got, d.err)
		}
		for n := 0; n < len(enc); n++ {
			d := decoder{b: enc[:n]}
			if got := d.record(); d.err == nil && reflect.DeepEqual(got, r) {
				t.Fatalf("%v: a %d-byte prefix decoded whole", r, n)
			}
		}
	}
}

// TestTopicRecordsApplyAndSnapshot: the records change the state as
// Kafka's replay does, and a snapshot after them restores the same state
// (the snapshot format needed nothing new: a deleted topic is absent, the
// new partitions are partitions, the config is an override).
func TestTopicRecordsApplyAndSnapshot(t *testing.T) {
	cfg := testConfig()
	s := newMetadataState(cfg)
	two := func(name string) CreateTopicRecord {
		return CreateTopicRecord{Name: name, Partitions: []model.PartitionState{
			{TP: model.TP(name, 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
			{TP: model.TP(name, 1), Leader: 2, Replicas: ids(2, 3, 1), ISR: ids(2, 3, 1)},
		}}
	}
	off := int64(0)
	for _, r := range append([]Record{two("t"), two("u")}, topicRecords...) {
		off += 2
		s.apply(off, r)
	}
	if s.topics["u"] != nil || len(s.topicNames) != 1 || s.partition(model.TP("u", 0)) != nil {
		t.Fatalf("u not deleted: %v", s.topicNames)
	}
	if p := s.partition(model.TP("t", 3)); p == nil || p.Leader != 2 || p.changedAt != 8 {
		t.Fatalf("t/3 = %+v", p)
	}
	if got := s.topics["t"].config.MinInsyncReplicas; got != 3 {
		t.Fatalf("min.insync.replicas = %d, want 3", got)
	}
	got := restoreState(cfg, s.snapshot())
	if !reflect.DeepEqual(got, s) {
		t.Fatalf("restored state differs:\n got %+v\nwant %+v", got, s)
	}
}

// TestTopicOperationsRefusedWithKafkasCodes: each bad request gets the
// code Kafka's controller answers it with, and changes nothing.
func TestTopicOperationsRefusedWithKafkasCodes(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 2, ReplicationFactor: 3})
	ctl := c.ctrl()
	for name, got := range map[string]model.ErrorCode{
		"create an existing topic":      ctl.CreateTopic(nil, model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 1}),
		"create with too many replicas": ctl.CreateTopic(nil, model.TopicSpec{Name: "u", Partitions: 1, ReplicationFactor: 4}),
		"delete an unknown topic":       ctl.DeleteTopic(nil, "nope"),
		"grow an unknown topic":         ctl.CreatePartitions(nil, "nope", 3),
		"grow to the same count":        ctl.CreatePartitions(nil, "t", 2),
		"shrink":                        ctl.CreatePartitions(nil, "t", 1),
		"set an unknown config":         ctl.AlterTopicConfig(nil, "t", "foo.bar", "1"),
		"set a broker config":           ctl.AlterTopicConfig(nil, "t", "default.replication.factor", "1"),
		"set a bad value":               ctl.AlterTopicConfig(nil, "t", "min.insync.replicas", "x"),
		"set a value below the minimum": ctl.AlterTopicConfig(nil, "t", "min.insync.replicas", "0"),
		"set a config of unknown topic": ctl.AlterTopicConfig(nil, "nope", "min.insync.replicas", "2"),
	} {
		want := map[string]model.ErrorCode{
			"create an existing topic":      model.TopicAlreadyExists,
			"create with too many replicas": model.InvalidReplicationFactor,
			"delete an unknown topic":       model.UnknownTopicOrPartition,
			"grow an unknown topic":         model.UnknownTopicOrPartition,
			"grow to the same count":        model.InvalidPartitions,
			"shrink":                        model.InvalidPartitions,
			"set an unknown config":         model.InvalidConfig,
			"set a broker config":           model.InvalidConfig,
			"set a bad value":               model.InvalidConfig,
			"set a value below the minimum": model.InvalidConfig,
			"set a config of unknown topic": model.UnknownTopicOrPartition,
		}[name]
		if got != want {
			t.Errorf("%s: got %v, want %v", name, got, want)
		}
	}
	c.runFor(100 * time.Millisecond)
	if len(c.ctrl().state.topics["t"].parts) != 2 || len(c.ctrl().state.topics["t"].configs) != 0 {
		t.Fatalf("a refused request changed t")
	}
}

// TestTopicOperationsCommit: growing, reconfiguring, deleting and
// recreating a topic, each committed through the quorum.
func TestTopicOperationsCommit(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 2, ReplicationFactor: 3})
	if code := c.ctrl().CreatePartitions(nil, "t", 5); code != model.NoError {
		t.Fatalf("CreatePartitions: %v", code)
	}
	c.runFor(100 * time.Millisecond)
	for p := int32(2); p < 5; p++ {
		ps := c.partition(model.TP("t", p))
		if len(ps.Replicas) != 3 || len(ps.ISR) != 3 || ps.Leader != ps.ISR[0] {
			t.Fatalf("t/%d = %v", p, ps)
		}
	}
	if code := c.ctrl().AlterTopicConfig(nil, "t", "min.insync.replicas", "3"); code != model.NoError {
		t.Fatalf("AlterTopicConfig: %v", code)
	}
	c.runFor(100 * time.Millisecond)
	if got := c.ctrl().state.topics["t"].config.MinInsyncReplicas; got != 3 {
		t.Fatalf("min.insync.replicas = %d", got)
	}
	if code := c.ctrl().DeleteTopic(nil, "t"); code != model.NoError {
		t.Fatalf("DeleteTopic: %v", code)
	}
	c.runFor(100 * time.Millisecond)
	if _, ok := c.ctrl().Partition(model.TP("t", 0)); ok {
		t.Fatal("t/0 survives the deletion")
	}
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	if c.ctrl().state.topics["t"].config.MinInsyncReplicas != c.cfg.Topic.MinInsyncReplicas {
		t.Fatal("the recreated topic kept the deleted one's config")
	}
}

// TestMinISRChangeClearsELR: with eligible leader replicas on, a change
// of min.insync.replicas clears the topic's ELR and last known leaders
// (KIP-966); other configs, and the same change without ELR, leave them.
func TestMinISRChangeClearsELR(t *testing.T) {
	cfg := testConfig()
	cfg.Controller.EligibleLeaderReplicas = true
	s := newMetadataState(cfg)
	s.apply(1, CreateTopicRecord{Name: "t", Partitions: []model.PartitionState{
		{TP: model.TP("t", 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1)},
		{TP: model.TP("t", 1), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
	}})
	s.apply(2, PartitionChangeRecord{TP: model.TP("t", 0), Leader: 1, PartitionEpoch: 1, ISR: ids(1), ELR: ids(2), LastKnownLeader: model.NoBroker})
	ctl := &Controller{state: s, cfg: Config{Cluster: cfg}}
	rs, code := ctl.buildConfigChange("t", "min.insync.replicas", "3")
	if code != model.NoError || len(rs) != 2 {
		t.Fatalf("got %v %v, want the config and one partition change", rs, code)
	}
	pc, ok := rs[1].(PartitionChangeRecord)
	if !ok || pc.TP != model.TP("t", 0) || pc.ELR != nil || pc.PartitionEpoch != 2 || pc.LeaderEpoch != 0 {
		t.Fatalf("got %v", rs[1])
	}
	if rs, _ := ctl.buildConfigChange("t", "retention.ms", "1000"); len(rs) != 1 {
		t.Fatalf("retention.ms touched the ELR: %v", rs)
	}
	ctl.cfg.Cluster.Controller.EligibleLeaderReplicas = false
	if rs, _ := ctl.buildConfigChange("t", "min.insync.replicas", "3"); len(rs) != 1 {
		t.Fatalf("without ELR: %v", rs)
	}
}

// TestRestoredSnapshotNamesATopicRecreatedMeanwhile: an image that knew t
// in its first life and restores a snapshot taken after t was deleted and
// created again lists t's partitions as recreated (their replicas belong
// to the old topic), not as removed; a snapshot of the same life lists
// nothing.
func TestRestoredSnapshotNamesATopicRecreatedMeanwhile(t *testing.T) {
	cfg := testConfig()
	create := CreateTopicRecord{Name: "t", Partitions: []model.PartitionState{
		{TP: model.TP("t", 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
	}}
	first := newMetadataState(cfg)
	first.apply(1, create)
	later := newMetadataState(cfg)
	later.apply(1, create)
	later.apply(2, RemoveTopicRecord{Name: "t"})
	later.apply(3, create)

	img := NewMetadataImage(cfg)
	img.Restore(first.snapshot())
	img.TakeRecreated()
	img.Restore(first.snapshot())
	if got := img.TakeRecreated(); len(got) != 0 {
		t.Fatalf("the same life restored lists %v as recreated", got)
	}
	img.Restore(later.snapshot())
	if got := img.TakeRecreated(); !reflect.DeepEqual(got, []model.TopicPartition{model.TP("t", 0)}) {
		t.Fatalf("recreated = %v, want [t/0]", got)
	}
	if removed, _ := img.TakeTopicChanges(); len(removed) != 0 {
		t.Fatalf("removed = %v; t still exists", removed)
	}
	if img.TopicLife("t") != 1 {
		t.Fatalf("life %d, want 1", img.TopicLife("t"))
	}
}
