package controller

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"kafkasim/model"
	"kafkasim/sim"
)

// sampleRecords has one record of every kind, with every field set.
var sampleRecords = []Record{
	LeaderChangeRecord{ControllerEpoch: 3, ControllerID: 100},
	RegisterBrokerRecord{ID: 2, Epoch: 7, Incarnation: 1<<63 + 5},
	FenceBrokerRecord{ID: 2, Epoch: 7},
	UnfenceBrokerRecord{ID: 2, Epoch: 7},
	CreateTopicRecord{
		Name:    "t",
		Configs: []model.ConfigEntry{{Name: "min.insync.replicas", Value: "2"}},
		Partitions: []model.PartitionState{
			{TP: model.TP("t", 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3)},
			{TP: model.TP("t", 1), Leader: 2, LeaderEpoch: 1, PartitionEpoch: 2, Replicas: ids(2, 3, 1), ISR: ids(2), ELR: ids(1)},
		},
	},
	PartitionChangeRecord{TP: model.TP("t", 1), Leader: model.NoBroker, LeaderEpoch: 4, PartitionEpoch: 9, ELR: ids(2, 3), LastKnownLeader: 1},
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
		"CreateTopic t min.insync.replicas=2 [t/0 leader=b1 epoch=0 pe=0 replicas=[b1 b2 b3] isr=[b1 b2 b3] elr=[], " +
			"t/1 leader=b2 epoch=1 pe=2 replicas=[b2 b3 b1] isr=[b2] elr=[b1]]",
		"PartitionChange t/1 leader=none epoch=4 pe=9 isr=[] elr=[b2 b3] lastKnownLeader=b1",
	}
	for i, r := range sampleRecords {
		if r.String() != want[i] {
			t.Errorf("got  %s\nwant %s", r, want[i])
		}
	}
}

// scratchDisk returns a disk of a node that is never started.
func scratchDisk() *sim.Disk {
	s := sim.New(sim.Config{Seed: 1})
	s.AddNode(1, "scratch", func() sim.Node { return New(Config{}) })
	return s.Disk(1)
}

func TestLogRecoversEveryPrefix(t *testing.T) {
	disk := scratchDisk()
	l, entries, torn := openLog(disk)
	if len(entries) != 0 || torn != 0 || !disk.Exists(LogFile) {
		t.Fatalf("new log: %v entries, %d torn", entries, torn)
	}
	if _, ok := disk.Durable(LogFile); !ok {
		t.Fatalf("a new log's name is not durable")
	}
	batches := [][]Record{sampleRecords[:1], sampleRecords[1:4], sampleRecords[4:]}
	var ends []int64 // file size after each batch
	for _, b := range batches {
		l.append(b)
		ends = append(ends, disk.Size(LogFile))
	}
	if durable, _ := disk.Durable(LogFile); int64(len(durable)) != ends[len(ends)-1] {
		t.Fatalf("appended batches are not synced")
	}
	data := disk.Read(LogFile)
	for n := 0; n <= len(data); n++ {
		disk.Create(LogFile)
		disk.Append(LogFile, data[:n])
		l, entries, torn := openLog(disk)
		// The intact prefix is every batch that ends at or before n.
		whole, good := 0, int64(0)
		for i, end := range ends {
			if end <= int64(n) {
				whole += len(batches[i])
				good = end
			}
		}
		if len(entries) != whole || torn != int64(n)-good || disk.Size(LogFile) != good || l.next != int64(whole)+1 {
			t.Fatalf("prefix %d: %d entries, %d torn, file %d, next %d; want %d, %d, %d, %d",
				n, len(entries), torn, disk.Size(LogFile), l.next, whole, int64(n)-good, good, whole+1)
		}
		for i, e := range entries {
			if e.offset != int64(i)+1 || !reflect.DeepEqual(e.record, sampleRecords[i]) {
				t.Fatalf("prefix %d: entry %d is %d %v", n, i, e.offset, e.record)
			}
		}
	}
	// A frame whose checksum fails, or that claims the wrong offset, ends
	// the log too.
	disk.Create(LogFile)
	bad := encodeFrame(1, sampleRecords[:1])
	bad[len(bad)-1] ^= 1
	disk.Append(LogFile, bad)
	if _, entries, _ := openLog(disk); len(entries) != 0 {
		t.Fatalf("a corrupt frame was read")
	}
	disk.Create(LogFile)
	disk.Append(LogFile, encodeFrame(2, sampleRecords[:1]))
	if _, entries, _ := openLog(disk); len(entries) != 0 {
		t.Fatalf("a frame at the wrong offset was read")
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
