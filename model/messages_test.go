package model

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

// sampleState is a partition state with every list non-empty, so that the
// mutation test reaches every field.
func sampleState(p int32) PartitionState {
	return PartitionState{
		TP: TP("t", p), Leader: 1, LeaderEpoch: 3, PartitionEpoch: 7,
		Replicas: []BrokerID{1, 2, 3}, ISR: []BrokerID{1, 2}, ELR: []BrokerID{3},
	}
}

// goldenMessages pairs a message of every type with its one-line
// description. Each message has every field set (non-zero, lists
// non-empty), which the digest mutation test relies on.
func goldenMessages() []golden {
	return slices.Concat(coreGoldenMessages(), groupGoldenMessages(), connectionGoldenMessages(), txnGoldenMessages())
}

// golden is a message and its expected description.
type golden struct {
	m    Message
	want string
}

func coreGoldenMessages() []golden {
	batch := sampleBatch()
	rebased := batch.Rebase(20, 4)
	return []golden{
		{ProduceRequest{CorrelationID: 12, Acks: AcksAll, Timeout: 30 * time.Second, TP: TP("t", 0),
			Batch: NewBatch(7, 1, 4, Record{Timestamp: 1, Key: "k", Value: "v"}, Record{Value: "w"}, Record{Value: "x"})},
			"Produce t/0 acks=all n=3 pid=7:1 seq=4 corr=12"},
		{ProduceResponse{CorrelationID: 12, TP: TP("t", 0), Error: NoError, BaseOffset: 17, LogStartOffset: 2},
			"ProduceResponse t/0 NONE base=17 logStart=2 corr=12"},
		{InitProducerIDRequest{CorrelationID: 1, TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: 7, ProducerEpoch: 2},
			"InitProducerId txn=tx timeout=1m0s pid=7:2 corr=1"},
		{InitProducerIDResponse{CorrelationID: 1, Error: CoordinatorLoadInProgress, ProducerID: 7, ProducerEpoch: 3},
			"InitProducerIdResponse COORDINATOR_LOAD_IN_PROGRESS pid=7:3 corr=1"},
		{FetchRequest{CorrelationID: 9, ReplicaID: 2, BrokerEpoch: 12, MaxWait: 500 * time.Millisecond, MinBytes: 1, MaxBytes: 1 << 20,
			Partitions: []FetchPartition{
				{TP: TP("t", 0), FetchOffset: 17, CurrentLeaderEpoch: 4, LastFetchedEpoch: 3, LogStartOffset: 1, MaxBytes: 1 << 20},
				{TP: TP("t", 1), FetchOffset: 5, CurrentLeaderEpoch: 2, LastFetchedEpoch: 2, LogStartOffset: 1, MaxBytes: 1 << 20},
			}},
			"Fetch t/0 off=17 lastEpoch=3 curEpoch=4, t/1 off=5 lastEpoch=2 curEpoch=2; brokerEpoch=12 corr=9"},
		{FetchResponse{CorrelationID: 9, Error: NotController, Partitions: []FetchPartitionResponse{
			{TP: TP("t", 0), Error: NoError, HighWatermark: 17, LogStartOffset: 1, HasDiverging: true,
				DivergingEpoch: EpochEndOffset{Epoch: 3, EndOffset: 15}, Batches: []*Batch{&batch, &rebased},
				Txn: &FetchTxnState{LastStableOffset: 16, Aborted: []AbortedTransaction{{ProducerID: 7, FirstOffset: 12}}}},
		}},
			"FetchResponse NOT_CONTROLLER t/0 NONE hw=17 logStart=1 diverging=3@15 lso=16 aborted=7@12 [17..19]e3 [20..22]e4 corr=9"},
		{OffsetsForLeaderEpochRequest{CorrelationID: 5, ReplicaID: 2, Partitions: []LeaderEpochQuery{
			{TP: TP("t", 0), CurrentLeaderEpoch: 4, LeaderEpoch: 3},
		}},
			"OffsetsForLeaderEpoch t/0 epoch=3 curEpoch=4 corr=5"},
		{OffsetsForLeaderEpochResponse{CorrelationID: 5, Partitions: []LeaderEpochAnswer{
			{TP: TP("t", 0), Error: NoError, HasEpoch: true, LeaderEpoch: 3, EndOffset: 15},
			{TP: TP("t", 1), Error: NoError, HasEpoch: false, LeaderEpoch: 2, EndOffset: 9},
		}},
			"OffsetsForLeaderEpochResponse t/0 NONE epoch=3 end=15, t/1 NONE epoch=absent end=9 corr=5"},
		{ListOffsetsRequest{CorrelationID: 3, ReplicaID: 4, TP: TP("t", 0), CurrentLeaderEpoch: 4, Spec: SpecEarliest},
			"ListOffsets t/0 earliest curEpoch=4 corr=3"},
		{ListOffsetsResponse{CorrelationID: 3, TP: TP("t", 0), Error: FencedLeaderEpoch, Offset: 17, LeaderEpoch: 4},
			"ListOffsetsResponse t/0 FENCED_LEADER_EPOCH offset=17 epoch=4 corr=3"},
		{MetadataRequest{CorrelationID: 1, AllTopics: true, Topics: []string{"t", "u"}},
			"Metadata all corr=1"},
		{MetadataResponse{CorrelationID: 1, ControllerID: 100, Brokers: []BrokerID{1, 2, 3}, Topics: []TopicMetadata{
			{Topic: "t", Error: LeaderNotAvailable, Partitions: []PartitionState{sampleState(0), sampleState(1)}},
		}},
			"MetadataResponse controller=b100 brokers=[b1 b2 b3] t LEADER_NOT_AVAILABLE," +
				" t/0 leader=b1 epoch=3 pe=7 replicas=[b1 b2 b3] isr=[b1 b2] elr=[b3]," +
				" t/1 leader=b1 epoch=3 pe=7 replicas=[b1 b2 b3] isr=[b1 b2] elr=[b3] corr=1"},
		{CreateTopicsRequest{CorrelationID: 1, Topics: []TopicSpec{
			{Name: "t", Partitions: 2, ReplicationFactor: 3, Assignment: [][]BrokerID{{1, 2, 3}, {2, 3, 1}},
				Configs: []ConfigEntry{{Name: "min.insync.replicas", Value: "2"}}},
		}},
			"CreateTopics t partitions=2 rf=3 assign=[b1 b2 b3] [b2 b3 b1] min.insync.replicas=2 corr=1"},
		{CreateTopicsResponse{CorrelationID: 1, Topics: []TopicResult{{Name: "t", Error: NoError}, {Name: "u", Error: TopicAlreadyExists}}},
			"CreateTopicsResponse t NONE, u TOPIC_ALREADY_EXISTS corr=1"},
		{BrokerRegistrationRequest{CorrelationID: 1, BrokerID: 1, Incarnation: 3, CleanShutdown: true},
			"BrokerRegistration b1 inc=3 clean corr=1"},
		{BrokerRegistrationResponse{CorrelationID: 1, Error: NoError, BrokerEpoch: 12},
			"BrokerRegistrationResponse NONE brokerEpoch=12 corr=1"},
		{BrokerHeartbeatRequest{CorrelationID: 2, BrokerID: 1, BrokerEpoch: 12, MetadataOffset: 40, WantFence: true, WantShutdown: true},
			"BrokerHeartbeat b1 brokerEpoch=12 metadata=40 wantFence wantShutdown corr=2"},
		{BrokerHeartbeatResponse{CorrelationID: 2, Error: NoError, CaughtUp: true, Fenced: true, ShouldShutdown: true},
			"BrokerHeartbeatResponse NONE fenced caughtUp shutdown corr=2"},
		{AlterPartitionRequest{CorrelationID: 4, BrokerID: 1, BrokerEpoch: 12, TP: TP("t", 0), LeaderEpoch: 3, PartitionEpoch: 7,
			NewISR: []ISRMember{{ID: 1, BrokerEpoch: 12}, {ID: 2, BrokerEpoch: 5}}},
			"AlterPartition t/0 leader=b1 brokerEpoch=12 epoch=3 pe=7 isr=[b1:12 b2:5] corr=4"},
		{AlterPartitionResponse{CorrelationID: 4, Error: InvalidUpdateVersion, Partition: sampleState(0)},
			"AlterPartitionResponse INVALID_UPDATE_VERSION t/0 leader=b1 epoch=3 pe=7 replicas=[b1 b2 b3] isr=[b1 b2] elr=[b3] corr=4"},
		{MetadataUpdate{CorrelationID: 8, ControllerEpoch: 2, MetadataOffset: 40, Snapshot: true,
			LiveBrokers: []BrokerID{1, 2}, FencedBrokers: []BrokerID{3}, Partitions: []PartitionState{sampleState(0)}},
			"MetadataUpdate off=40 controllerEpoch=2 snapshot live=[b1 b2] fenced=[b3] t/0 leader=b1 epoch=3 pe=7 replicas=[b1 b2 b3] isr=[b1 b2] elr=[b3] corr=8"},
	}
}

func TestMessageStrings(t *testing.T) {
	for _, g := range goldenMessages() {
		if got := g.m.String(); got != g.want {
			t.Errorf("%T:\n got %s\nwant %s", g.m, got, g.want)
		}
	}
}

// TestMessageStringVariants covers the forms the golden table does not:
// consumers, the unset correlation id, no producer id, no diverging epoch.
func TestMessageStringVariants(t *testing.T) {
	cases := []struct {
		m    Message
		want string
	}{
		{FetchRequest{ReplicaID: NoBroker, Partitions: []FetchPartition{{TP: TP("t", 0), FetchOffset: 17, CurrentLeaderEpoch: 4, LastFetchedEpoch: NoEpoch}}},
			"Fetch t/0 off=17 lastEpoch=-1 curEpoch=4; consumer"},
		{FetchResponse{Partitions: []FetchPartitionResponse{{TP: TP("t", 0), Error: OffsetOutOfRange, HighWatermark: 3}}},
			"FetchResponse t/0 OFFSET_OUT_OF_RANGE hw=3 logStart=0"},
		{ProduceRequest{Acks: AcksLeader, TP: TP("t", 1), Batch: NewBatch(NoProducerID, NoEpoch, NoSequence, Record{Value: "a"})},
			"Produce t/1 acks=1 n=1"},
		{InitProducerIDRequest{CorrelationID: 1, ProducerID: NoProducerID, ProducerEpoch: NoEpoch},
			"InitProducerId corr=1"},
		{InitProducerIDRequest{CorrelationID: 1, ProducerID: 7, ProducerEpoch: 2},
			"InitProducerId pid=7:2 corr=1"},
		{ListOffsetsRequest{TP: TP("t", 0), Spec: SpecLatest, CurrentLeaderEpoch: NoEpoch},
			"ListOffsets t/0 latest curEpoch=-1"},
		{MetadataRequest{Topics: []string{"t", "u"}}, "Metadata t,u"},
		{MetadataResponse{ControllerID: NoBroker, Topics: []TopicMetadata{{Topic: "u", Error: UnknownTopicOrPartition}}},
			"MetadataResponse controller=none brokers=[] u UNKNOWN_TOPIC_OR_PARTITION"},
		{BrokerRegistrationRequest{BrokerID: 2}, "BrokerRegistration b2 inc=0 unclean"},
		{BrokerHeartbeatResponse{}, "BrokerHeartbeatResponse NONE unfenced"},
		{JoinGroupRequest{GroupID: "g", SessionTimeout: 45 * time.Second},
			"JoinGroup g member=- session=45s rebalance=0s assignors=[] topics=[] owned=[]"},
		{JoinGroupResponse{Error: MemberIDRequired, GenerationID: NoEpoch, MemberID: "m3"},
			"JoinGroupResponse MEMBER_ID_REQUIRED gen=-1 protocol=- leader=- member=m3 members=[]"},
		{AlterPartitionResponse{Partition: PartitionState{TP: TP("t", 0), Leader: NoBroker}},
			"AlterPartitionResponse NONE t/0 leader=none epoch=0 pe=0 replicas=[] isr=[] elr=[]"},
	}
	for _, c := range cases {
		if got := c.m.String(); got != c.want {
			t.Errorf("%T:\n got %s\nwant %s", c.m, got, c.want)
		}
	}
}

// TestMessageDigestEveryField changes each field of each golden message in
// turn (every leaf, and every list's length) and requires the digest to
// change. It finds the field a Digest method forgot, without a list of
// fields to keep up to date.
func TestMessageDigestEveryField(t *testing.T) {
	for _, g := range goldenMessages() {
		base := g.m.Digest()
		if base != g.m.Digest() {
			t.Fatalf("%T: digest not stable", g.m)
		}
		n := 0
		forEachMutation(reflect.ValueOf(g.m), func(path string, mutated reflect.Value) {
			n++
			m := mutated.Interface().(Message)
			if m.Digest() == base {
				t.Errorf("%T: changing %s leaves the digest unchanged", g.m, path)
			}
		})
		if n < reflect.TypeOf(g.m).NumField() {
			t.Errorf("%T: only %d mutations for %d fields", g.m, n, reflect.TypeOf(g.m).NumField())
		}
		// The original must be untouched by the mutations.
		if g.m.Digest() != base {
			t.Errorf("%T: a mutation leaked into the original", g.m)
		}
	}
}

// TestMessageDigestKinds requires different message types to digest
// differently even when all their fields are zero.
func TestMessageDigestKinds(t *testing.T) {
	seen := map[uint64]string{}
	for _, g := range goldenMessages() {
		zero := reflect.Zero(reflect.TypeOf(g.m)).Interface().(Message)
		name := reflect.TypeOf(g.m).Name()
		if other, dup := seen[zero.Digest()]; dup {
			t.Errorf("zero %s and zero %s digest alike", name, other)
		}
		seen[zero.Digest()] = name
	}
}

// TestMessageDigestNoAlloc holds Digest to its promise of no allocation:
// it runs for every delivered message.
func TestMessageDigestNoAlloc(t *testing.T) {
	for _, g := range goldenMessages() {
		m := g.m
		if a := testing.AllocsPerRun(100, func() { m.Digest() }); a != 0 {
			t.Errorf("%T.Digest allocates %.0f times", m, a)
		}
	}
}

// forEachMutation calls f with a deep copy of v changed in one place, for
// every place: each integer incremented, each bool flipped, each string
// extended, each slice grown by a zero element and shrunk by one.
func forEachMutation(v reflect.Value, f func(path string, mutated reflect.Value)) {
	// Mutations are described by a path of steps, applied to a fresh copy.
	type step struct {
		field, index int // field index in a struct, element index in a slice
	}
	var visit func(steps []step, name string, cur reflect.Value)
	visit = func(steps []step, name string, cur reflect.Value) {
		apply := func(desc string, change func(reflect.Value)) {
			c := deepCopy(v)
			target := c
			for _, s := range steps {
				if s.field >= 0 {
					target = target.Field(s.field)
				} else if s.field == -2 {
					target = target.Elem()
				} else {
					target = target.Index(s.index)
				}
			}
			change(target)
			f(name+desc, c)
		}
		switch cur.Kind() {
		case reflect.Struct:
			for i := 0; i < cur.NumField(); i++ {
				if !cur.Type().Field(i).IsExported() {
					continue // not message content (FetchRequest's room for its answer)
				}
				visit(append(append([]step(nil), steps...), step{field: i}), name+"."+cur.Type().Field(i).Name, cur.Field(i))
			}
		case reflect.Pointer:
			// Shared read-only data (a fetch answer's batches): mutate
			// what it points to, in the copy.
			visit(append(append([]step(nil), steps...), step{field: -2}), name, cur.Elem())
		case reflect.Slice:
			apply(" (grown)", func(s reflect.Value) { s.Set(reflect.Append(s, zeroElem(s.Type().Elem()))) })
			if cur.Len() > 0 {
				apply(" (shrunk)", func(s reflect.Value) { s.Set(s.Slice(0, s.Len()-1)) })
			}
			for i := 0; i < cur.Len(); i++ {
				visit(append(append([]step(nil), steps...), step{field: -1, index: i}), name+"["+itoa(int64(i))+"]", cur.Index(i))
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			apply("", func(x reflect.Value) { x.SetInt(x.Int() + 1) })
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			apply("", func(x reflect.Value) { x.SetUint(x.Uint() + 1) })
		case reflect.Bool:
			apply("", func(x reflect.Value) { x.SetBool(!x.Bool()) })
		case reflect.String:
			apply("", func(x reflect.Value) { x.SetString(x.String() + "x") })
		default:
			panic("forEachMutation: unhandled kind " + cur.Kind().String() + " at " + name)
		}
	}
	visit(nil, v.Type().Name(), v)
}

// deepCopy copies v into a new addressable value, slices included, so that
// mutating the copy leaves v alone.
func deepCopy(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	copyInto(c, v)
	return c
}

func copyInto(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		for i := 0; i < src.NumField(); i++ {
			copyInto(dst.Field(i), src.Field(i))
		}
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := 0; i < src.Len(); i++ {
			copyInto(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		copyInto(p.Elem(), src.Elem())
		dst.Set(p)
	default:
		dst.Set(src)
	}
}

// zeroElem is a new zero element of a slice of type t's elements: a
// pointer to a zero value when they are pointers, as a message never
// carries a nil one.
func zeroElem(t reflect.Type) reflect.Value {
	if t.Kind() == reflect.Pointer {
		return reflect.New(t.Elem())
	}
	return reflect.Zero(t)
}
