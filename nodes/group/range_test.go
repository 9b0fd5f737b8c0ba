package group

import (
	"reflect"
	"testing"
)

// assignorCase is one case of a Kafka assignor test: members and topic
// sizes in, and each member's partitions out ("topic/partition" strings).
type assignorCase struct {
	method  string
	members []Member
	parts   map[string]int32
	want    map[string][]string
}

// static is a member with a group.instance.id (KIP-345).
func static(id, instance string, topics ...string) Member {
	return Member{ID: id, InstanceID: instance, Subscription: topics}
}

// checkAssignment runs a on the case's members and compares every
// member's partitions, as sets (Kafka's assertions ignore order; ours are
// sorted lists, so comparing them is comparing sets).
func checkAssignment(t *testing.T, a Assignor, members []Member, parts map[string]int32, want map[string][]string) Assignment {
	t.Helper()
	got := a.Assign(members, parts)
	w := Assignment{}
	for id, ss := range want {
		w[id] = tps(t, ss...)
	}
	if !reflect.DeepEqual(got, w) {
		t.Fatalf("got %v\nwant %v", got, w)
	}
	return got
}

func runAssignorCases(t *testing.T, a Assignor, cases []assignorCase) {
	for _, c := range cases {
		t.Run(c.method, func(t *testing.T) { checkAssignment(t, a, c.members, c.parts, c.want) })
	}
}

// byInstance maps each static member's instance id to its partitions.
func byInstance(members []Member, a Assignment) map[string][]string {
	out := map[string][]string{}
	for _, m := range members {
		if m.InstanceID != "" {
			for _, tp := range a[m.ID] {
				out[m.InstanceID] = append(out[m.InstanceID], tp.String())
			}
		}
	}
	return out
}

// TestRangeAssignor ports the cases of Kafka's RangeAssignorTest that do
// not depend on racks, one subtest per Kafka method. Kafka runs most of
// them once per rack configuration and, because its racks line up with
// the member order, expects the same assignment in each; the case without
// racks is the one kafkasim can state.
//
// Kafka: RangeAssignorTest.testOneConsumerNoTopic
// Kafka: RangeAssignorTest.testOneConsumerNonexistentTopic
// Kafka: RangeAssignorTest.testOneConsumerOneTopic
// Kafka: RangeAssignorTest.testOnlyAssignsPartitionsFromSubscribedTopics
// Kafka: RangeAssignorTest.testOneConsumerMultipleTopics
// Kafka: RangeAssignorTest.testTwoConsumersOneTopicOnePartition
// Kafka: RangeAssignorTest.testTwoConsumersOneTopicTwoPartitions
// Kafka: RangeAssignorTest.testMultipleConsumersMixedTopics
// Kafka: RangeAssignorTest.testTwoConsumersTwoTopicsSixPartitions
// Kafka: RangeAssignorTest.testTwoStaticConsumersTwoTopicsSixPartitions
// Kafka: RangeAssignorTest.testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions
// Kafka: RangeAssignorTest.testStaticMemberRangeAssignmentPersistent
// Kafka: RangeAssignorTest.testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges
func TestRangeAssignor(t *testing.T) {
	const t1, t2 = "topic1", "topic2"
	two := func(n1, n2 int32) map[string]int32 { return map[string]int32{t1: n1, t2: n2} }
	runAssignorCases(t, Range{}, []assignorCase{
		{"testOneConsumerNoTopic", []Member{sub("consumer1")}, map[string]int32{},
			map[string][]string{"consumer1": {}}},
		{"testOneConsumerNonexistentTopic", []Member{sub("consumer1", t1)}, map[string]int32{},
			map[string][]string{"consumer1": {}}},
		{"testOneConsumerOneTopic", []Member{sub("consumer1", t1)}, map[string]int32{t1: 3},
			map[string][]string{"consumer1": {"topic1/0", "topic1/1", "topic1/2"}}},
		{"testOnlyAssignsPartitionsFromSubscribedTopics", []Member{sub("consumer1", t1)}, map[string]int32{t1: 3, "other": 3},
			map[string][]string{"consumer1": {"topic1/0", "topic1/1", "topic1/2"}}},
		{"testOneConsumerMultipleTopics", []Member{sub("consumer1", t1, t2)}, two(1, 2),
			map[string][]string{"consumer1": {"topic1/0", "topic2/0", "topic2/1"}}},
		{"testTwoConsumersOneTopicOnePartition", []Member{sub("consumer1", t1), sub("consumer2", t1)}, map[string]int32{t1: 1},
			map[string][]string{"consumer1": {"topic1/0"}, "consumer2": {}}},
		{"testTwoConsumersOneTopicTwoPartitions", []Member{sub("consumer1", t1), sub("consumer2", t1)}, map[string]int32{t1: 2},
			map[string][]string{"consumer1": {"topic1/0"}, "consumer2": {"topic1/1"}}},
		{"testMultipleConsumersMixedTopics", []Member{sub("consumer1", t1), sub("consumer2", t1, t2), sub("consumer3", t1)}, two(3, 2),
			map[string][]string{"consumer1": {"topic1/0"}, "consumer2": {"topic1/1", "topic2/0", "topic2/1"}, "consumer3": {"topic1/2"}}},
		{"testTwoConsumersTwoTopicsSixPartitions", []Member{sub("consumer1", t1, t2), sub("consumer2", t1, t2)}, two(3, 3),
			map[string][]string{"consumer1": {"topic1/0", "topic1/1", "topic2/0", "topic2/1"}, "consumer2": {"topic1/2", "topic2/2"}}},
		// Static members are ordered by instance id, not member id: the
		// member id "consumer-b" sorts after "consumer-a" but leads.
		{"testTwoStaticConsumersTwoTopicsSixPartitions",
			[]Member{static("consumer-b", "instance1", t1, t2), static("consumer-a", "instance2", t1, t2)}, two(3, 3),
			map[string][]string{"consumer-b": {"topic1/0", "topic1/1", "topic2/0", "topic2/1"}, "consumer-a": {"topic1/2", "topic2/2"}}},
		// A static member comes before every dynamic one.
		{"testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
			[]Member{static("consumer-b", "instance1", t1, t2), sub("consumer-a", t1, t2)}, two(3, 3),
			map[string][]string{"consumer-b": {"topic1/0", "topic1/1", "topic2/0", "topic2/1"}, "consumer-a": {"topic1/2", "topic2/2"}}},
	})

	t.Run("testStaticMemberRangeAssignmentPersistent", func(t *testing.T) {
		// Three static members keep their partitions when the dynamic
		// member is replaced by another.
		statics := []Member{static("consumer1", "instance1", t1, t2), static("consumer2", "instance2", t1, t2), static("consumer3", "instance3", t1, t2)}
		want := map[string][]string{
			"consumer1": {"topic1/0", "topic1/1", "topic2/0"},
			"consumer2": {"topic1/2", "topic2/1"},
			"consumer3": {"topic1/3", "topic2/2"},
			"consumer4": {"topic1/4", "topic2/3"},
		}
		checkAssignment(t, Range{}, append(statics, sub("consumer4", t1, t2)), two(5, 4), want)
		want["consumer5"] = want["consumer4"]
		delete(want, "consumer4")
		checkAssignment(t, Range{}, append(statics, sub("consumer5", t1, t2)), two(5, 4), want)
	})

	t.Run("testStaticMemberRangeAssignmentPersistentAfterMemberIdChanges", func(t *testing.T) {
		// Each instance keeps its partitions when the member ids change
		// under it (instance3 moves from consumer3 to consumer4, instance2
		// from consumer2 to consumer5).
		want := map[string][]string{
			"instance1": {"topic1/0", "topic1/1", "topic2/0", "topic2/1"},
			"instance2": {"topic1/2", "topic1/3", "topic2/2", "topic2/3"},
			"instance3": {"topic1/4", "topic2/4"},
		}
		before := []Member{static("consumer1", "instance1", t1, t2), static("consumer2", "instance2", t1, t2), static("consumer3", "instance3", t1, t2)}
		after := []Member{static("consumer1", "instance1", t1, t2), static("consumer5", "instance2", t1, t2), static("consumer4", "instance3", t1, t2)}
		for _, ms := range [][]Member{before, after} {
			if got := byInstance(ms, Range{}.Assign(ms, two(5, 5))); !reflect.DeepEqual(got, want) {
				t.Fatalf("members %v: by instance %v, want %v", ms, got, want)
			}
		}
	})
}
