package group

import (
	"reflect"
	"testing"
)

// TestRoundRobinAssignor ports every case of Kafka's RoundRobinAssignorTest,
// one subtest per Kafka method.
//
// Kafka: RoundRobinAssignorTest.testOneConsumerNoTopic
// Kafka: RoundRobinAssignorTest.testOneConsumerNonexistentTopic
// Kafka: RoundRobinAssignorTest.testOneConsumerOneTopic
// Kafka: RoundRobinAssignorTest.testOnlyAssignsPartitionsFromSubscribedTopics
// Kafka: RoundRobinAssignorTest.testOneConsumerMultipleTopics
// Kafka: RoundRobinAssignorTest.testTwoConsumersOneTopicOnePartition
// Kafka: RoundRobinAssignorTest.testTwoConsumersOneTopicTwoPartitions
// Kafka: RoundRobinAssignorTest.testMultipleConsumersMixedTopics
// Kafka: RoundRobinAssignorTest.testTwoDynamicConsumersTwoTopicsSixPartitions
// Kafka: RoundRobinAssignorTest.testTwoStaticConsumersTwoTopicsSixPartitions
// Kafka: RoundRobinAssignorTest.testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions
// Kafka: RoundRobinAssignorTest.testStaticMemberRoundRobinAssignmentPersistent
// Kafka: RoundRobinAssignorTest.testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges
func TestRoundRobinAssignor(t *testing.T) {
	const tp, t1, t2 = "topic", "topic1", "topic2"
	two := func(n1, n2 int32) map[string]int32 { return map[string]int32{t1: n1, t2: n2} }
	runAssignorCases(t, RoundRobin{}, []assignorCase{
		{"testOneConsumerNoTopic", []Member{sub("consumer")}, map[string]int32{},
			map[string][]string{"consumer": {}}},
		{"testOneConsumerNonexistentTopic", []Member{sub("consumer", tp)}, map[string]int32{},
			map[string][]string{"consumer": {}}},
		{"testOneConsumerOneTopic", []Member{sub("consumer", tp)}, map[string]int32{tp: 3},
			map[string][]string{"consumer": {"topic/0", "topic/1", "topic/2"}}},
		{"testOnlyAssignsPartitionsFromSubscribedTopics", []Member{sub("consumer", tp)}, map[string]int32{tp: 3, "other": 3},
			map[string][]string{"consumer": {"topic/0", "topic/1", "topic/2"}}},
		{"testOneConsumerMultipleTopics", []Member{sub("consumer", t1, t2)}, two(1, 2),
			map[string][]string{"consumer": {"topic1/0", "topic2/0", "topic2/1"}}},
		{"testTwoConsumersOneTopicOnePartition", []Member{sub("consumer1", tp), sub("consumer2", tp)}, map[string]int32{tp: 1},
			map[string][]string{"consumer1": {"topic/0"}, "consumer2": {}}},
		{"testTwoConsumersOneTopicTwoPartitions", []Member{sub("consumer1", tp), sub("consumer2", tp)}, map[string]int32{tp: 2},
			map[string][]string{"consumer1": {"topic/0"}, "consumer2": {"topic/1"}}},
		// topic2's partitions skip the members not subscribed to it.
		{"testMultipleConsumersMixedTopics", []Member{sub("consumer1", t1), sub("consumer2", t1, t2), sub("consumer3", t1)}, two(3, 2),
			map[string][]string{"consumer1": {"topic1/0"}, "consumer2": {"topic1/1", "topic2/0", "topic2/1"}, "consumer3": {"topic1/2"}}},
		{"testTwoDynamicConsumersTwoTopicsSixPartitions", []Member{sub("consumer1", t1, t2), sub("consumer2", t1, t2)}, two(3, 3),
			map[string][]string{"consumer1": {"topic1/0", "topic1/2", "topic2/1"}, "consumer2": {"topic1/1", "topic2/0", "topic2/2"}}},
		// Instance ids order static members, whatever their member ids.
		{"testTwoStaticConsumersTwoTopicsSixPartitions",
			[]Member{static("consumer-b", "instance1", t1, t2), static("consumer-a", "instance2", t1, t2)}, two(3, 3),
			map[string][]string{"consumer-b": {"topic1/0", "topic1/2", "topic2/1"}, "consumer-a": {"topic1/1", "topic2/0", "topic2/2"}}},
		{"testOneStaticConsumerAndOneDynamicConsumerTwoTopicsSixPartitions",
			[]Member{static("consumer-b", "instance1", t1, t2), sub("consumer-a", t1, t2)}, two(3, 3),
			map[string][]string{"consumer-b": {"topic1/0", "topic1/2", "topic2/1"}, "consumer-a": {"topic1/1", "topic2/0", "topic2/2"}}},
	})

	t.Run("testStaticMemberRoundRobinAssignmentPersistent", func(t *testing.T) {
		statics := []Member{static("consumer1", "instance1", t1, t2), static("consumer2", "instance2", t1, t2), static("consumer3", "instance3", t1, t2)}
		want := map[string][]string{
			"consumer1": {"topic1/0", "topic2/1"},
			"consumer2": {"topic1/1", "topic2/2"},
			"consumer3": {"topic1/2"},
			"consumer4": {"topic2/0"},
		}
		checkAssignment(t, RoundRobin{}, append(statics, sub("consumer4", t1, t2)), two(3, 3), want)
		// The dynamic member replaced by another: the static ones keep
		// theirs, and the newcomer takes the old one's.
		want["consumer5"] = want["consumer4"]
		delete(want, "consumer4")
		checkAssignment(t, RoundRobin{}, append(statics, sub("consumer5", t1, t2)), two(3, 3), want)
	})

	t.Run("testStaticMemberRoundRobinAssignmentPersistentAfterMemberIdChanges", func(t *testing.T) {
		want := map[string][]string{
			"instance1": {"topic1/0", "topic1/3", "topic2/1", "topic2/4"},
			"instance2": {"topic1/1", "topic1/4", "topic2/2"},
			"instance3": {"topic1/2", "topic2/0", "topic2/3"},
		}
		before := []Member{static("consumer1", "instance1", t1, t2), static("consumer2", "instance2", t1, t2), static("consumer3", "instance3", t1, t2)}
		after := []Member{static("consumer1", "instance1", t1, t2), static("consumer5", "instance2", t1, t2), static("consumer4", "instance3", t1, t2)}
		for _, ms := range [][]Member{before, after} {
			if got := byInstance(ms, RoundRobin{}.Assign(ms, two(5, 5))); !reflect.DeepEqual(got, want) {
				t.Fatalf("members %v: by instance %v, want %v", ms, got, want)
			}
		}
	})
}
