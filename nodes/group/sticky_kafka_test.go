package group

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"kafkasim/model"
)

// Kafka's AbstractStickyAssignorTest, case by case, each run with both
// sticky assignors and, where Kafka parameterizes it, every rack
// configuration. Inputs and expected outputs are Kafka's; see
// sticky_kafka_helpers_test.go for how its subscriptions are built.

const (
	c1, c2, c3, c4  = "consumer1", "consumer2", "consumer3", "consumer4"
	tpc, t1, t2, t3 = "topic", "topic1", "topic2", "topic3"
)

func topics(ts ...string) []string { return ts }

// Kafka: AbstractStickyAssignorTest.testOneConsumerNoTopic
func TestOneConsumerNoTopic(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.put(e.plain("consumer", nil, 0))
		a := e.assign()
		want(t, a, "consumer")
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOneConsumerNonexistentTopic
func TestOneConsumerNonexistentTopic(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 0)
		e.put(e.plain("consumer", topics(tpc), 0))
		a := e.assign()
		want(t, a, "consumer")
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOneConsumerOneTopic
func TestOneConsumerOneTopic(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.plain("consumer", topics(tpc), 0))
		a := e.assign()
		want(t, a, "consumer", tp(tpc, 0), tp(tpc, 1), tp(tpc, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOnlyAssignsPartitionsFromSubscribedTopics
func TestOnlyAssignsPartitionsFromSubscribedTopics(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 2)
		e.put(e.v2("consumer", topics(tpc), tpl(tp(tpc, 0), tp(tpc, 1), tp("other", 0), tp("other", 1)), generationID, 0))
		a := e.assign()
		want(t, a, "consumer", tp(tpc, 0), tp(tpc, 1))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOneConsumerMultipleTopics
func TestOneConsumerMultipleTopics(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 1)
		e.topic(t2, 2)
		e.put(e.plain("consumer", topics(t1, t2), 0))
		a := e.assign()
		want(t, a, "consumer", tp(t1, 0), tp(t2, 0), tp(t2, 1))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testTwoConsumersOneTopicOnePartition
func TestTwoConsumersOneTopicOnePartition(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 1)
		e.put(e.plain(c1, topics(tpc), 0))
		e.put(e.plain(c2, topics(tpc), 1))
		a := e.assign()
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testTwoConsumersOneTopicTwoPartitions
func TestTwoConsumersOneTopicTwoPartitions(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 2)
		e.put(e.plain(c1, topics(tpc), 0))
		e.put(e.plain(c2, topics(tpc), 1))
		a := e.assign()
		want(t, a, c1, tp(tpc, 0))
		want(t, a, c2, tp(tpc, 1))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testMultipleConsumersMixedTopicSubscriptions
func TestMultipleConsumersMixedTopicSubscriptions(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 3)
		e.topic(t2, 2)
		e.put(e.plain(c1, topics(t1), 0))
		e.put(e.plain(c2, topics(t1, t2), 1))
		e.put(e.plain(c3, topics(t1), 2))
		a := e.assign()
		want(t, a, c1, tp(t1, 0), tp(t1, 2))
		want(t, a, c2, tp(t2, 0), tp(t2, 1))
		want(t, a, c3, tp(t1, 1))
		e.transferring(nil)
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testTwoConsumersTwoTopicsSixPartitions
func TestTwoConsumersTwoTopicsSixPartitions(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 3)
		e.topic(t2, 3)
		e.put(e.plain(c1, topics(t1, t2), 0))
		e.put(e.plain(c2, topics(t1, t2), 1))
		a := e.assign()
		want(t, a, c1, tp(t1, 0), tp(t1, 2), tp(t2, 1))
		want(t, a, c2, tp(t1, 1), tp(t2, 0), tp(t2, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testConsumerOwningMinQuotaExpectedMaxQuota
func TestConsumerOwningMinQuotaExpectedMaxQuota(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 2)
		e.topic(t2, 3)
		all := topics(t1, t2)
		e.put(e.v2(c1, all, tpl(tp(t1, 0), tp(t2, 1)), generationID, 0))
		e.put(e.v2(c2, all, tpl(tp(t1, 1), tp(t2, 2)), generationID, 1))
		a := e.assign()
		want(t, a, c1, tp(t1, 0), tp(t2, 1), tp(t2, 0))
		want(t, a, c2, tp(t1, 1), tp(t2, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers
func TestMaxQuotaConsumerMoreThanNumExpectedMaxCapacityMembers(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 2)
		e.topic(t2, 2)
		all := topics(t1, t2)
		e.put(e.v2(c1, all, tpl(tp(t1, 0), tp(t2, 0)), generationID, 0))
		e.put(e.v2(c2, all, tpl(tp(t1, 1), tp(t2, 1)), generationID, 1))
		e.put(e.v2(c3, all, nil, generationID, 2))
		a := e.assign()
		e.transferring(map[string]string{"topic2/0": c3})
		a = e.verify(a)
		want(t, a, c1, tp(t1, 0))
		want(t, a, c2, tp(t1, 1), tp(t2, 1))
		want(t, a, c3, tp(t2, 0))
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testAllConsumersAreUnderMinQuota
func TestAllConsumersAreUnderMinQuota(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 2)
		e.topic(t2, 3)
		all := topics(t1, t2)
		e.put(e.v2(c1, all, tpl(tp(t1, 0)), generationID, 0))
		e.put(e.v2(c2, all, tpl(tp(t1, 1)), generationID, 1))
		e.put(e.v2(c3, all, nil, generationID, 2))
		a := e.assign()
		e.noneTransferring()
		a = e.verify(a)
		want(t, a, c1, tp(t1, 0), tp(t2, 1))
		want(t, a, c2, tp(t1, 1), tp(t2, 2))
		want(t, a, c3, tp(t2, 0))
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testAddRemoveConsumerOneTopic
func TestAddRemoveConsumerOneTopic(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.plain(c1, topics(tpc), 0))
		a := e.assign()
		want(t, a, c1, tp(tpc, 0), tp(tpc, 1), tp(tpc, 2))
		a = e.verify(a)
		fullyBalanced(t, a)

		e.put(e.v2(c1, topics(tpc), a[c1], generationID, 0))
		e.put(e.v2(c2, topics(tpc), nil, generationID, 1))
		a = e.assign()
		e.transferring(map[string]string{"topic/2": c2})
		a = e.verify(a)
		want(t, a, c1, tp(tpc, 0), tp(tpc, 1))
		want(t, a, c2, tp(tpc, 2))
		fullyBalanced(t, a)

		e.remove(c1)
		e.put(e.v2(c2, topics(tpc), a[c2], generationID, 1))
		a = e.assign()
		want(t, a, c2, tp(tpc, 0), tp(tpc, 1), tp(tpc, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testTopicBalanceAfterReassignment
func TestTopicBalanceAfterReassignment(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		all := topics(t1, t2)
		e.topic(t1, 12)
		e.topic(t2, 12)
		perTopic := func(a Assignment, n int) {
			t.Helper()
			for id, tps := range a {
				for _, topic := range all {
					got := 0
					for _, p := range tps {
						if p.Topic == topic {
							got++
						}
					}
					if got != n {
						t.Fatalf("%s has %d partitions of %s, want %d: %v", id, got, topic, n, a)
					}
				}
			}
		}
		e.put(e.plain(c1, all, 0))
		a := e.assign()
		a = e.verify(a)
		perTopic(a, 12)
		e.noneTransferring()
		fullyBalanced(t, a)

		e.put(e.v2(c1, all, a[c1], generationID, 0))
		e.put(e.v2(c2, all, nil, generationID, 1))
		a = e.verify(e.assign())
		perTopic(a, 6)
		fullyBalanced(t, a)

		e.put(e.v2(c1, all, a[c1], generationID, 0))
		e.put(e.v2(c2, all, a[c2], generationID, 1))
		e.put(e.v2(c3, all, nil, generationID, 2))
		e.put(e.v2(c4, all, nil, generationID, 3))
		a = e.verify(e.assign())
		perTopic(a, 3)
		fullyBalanced(t, a)

		e.remove(c1)
		e.remove(c2)
		e.put(e.v2(c3, all, a[c3], generationID, 2))
		e.put(e.v2(c4, all, a[c4], generationID, 3))
		a = e.assign()
		e.noneTransferring()
		a = e.verify(a)
		perTopic(a, 6)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testAddRemoveTwoConsumersTwoTopics
func TestAddRemoveTwoConsumersTwoTopics(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		all := topics(t1, t2)
		e.topic(t1, 3)
		e.topic(t2, 4)
		e.put(e.plain(c1, all, 0))
		e.put(e.plain(c2, all, 1))
		a := e.assign()
		want(t, a, c1, tp(t1, 0), tp(t1, 2), tp(t2, 1), tp(t2, 3))
		want(t, a, c2, tp(t1, 1), tp(t2, 0), tp(t2, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)

		e.put(e.v2(c1, all, a[c1], generationID, 0))
		e.put(e.v2(c2, all, a[c2], generationID, 1))
		e.put(e.v2(c3, all, nil, generationID, 2))
		e.put(e.v2(c4, all, nil, generationID, 3))
		a = e.assign()
		e.transferring(map[string]string{"topic1/2": c3, "topic2/3": c3, "topic2/2": c4})
		a = e.verify(a)
		want(t, a, c1, tp(t1, 0), tp(t2, 1))
		want(t, a, c2, tp(t2, 0), tp(t1, 1))
		want(t, a, c3, tp(t1, 2), tp(t2, 3))
		want(t, a, c4, tp(t2, 2))
		fullyBalanced(t, a)

		e.remove(c1)
		e.remove(c2)
		e.put(e.v2(c3, all, a[c3], generationID, 2))
		e.put(e.v2(c4, all, a[c4], generationID, 3))
		a = e.assign()
		want(t, a, c3, tp(t1, 2), tp(t2, 3), tp(t1, 0), tp(t2, 1))
		want(t, a, c4, tp(t2, 2), tp(t1, 1), tp(t2, 0))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testPoorRoundRobinAssignmentScenario
func TestPoorRoundRobinAssignmentScenario(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		for i := 1; i <= 5; i++ {
			e.topic(canonical("topic", i, 1), i%2+1)
		}
		e.put(e.plain(c1, topics("topic1", "topic2", "topic3", "topic4", "topic5"), 0))
		e.put(e.plain(c2, topics("topic1", "topic3", "topic5"), 1))
		e.put(e.plain(c3, topics("topic1", "topic3", "topic5"), 2))
		e.put(e.plain(c4, topics("topic1", "topic2", "topic3", "topic4", "topic5"), 3))
		e.verify(e.assign())
	})
}

// Kafka: AbstractStickyAssignorTest.testAddRemoveTopicTwoConsumers
func TestAddRemoveTopicTwoConsumers(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.plain(c1, topics(tpc), 0))
		e.put(e.plain(c2, topics(tpc), 1))
		a := e.assign()
		e.noneTransferring()
		fullyBalanced(t, a)
		a = e.verify(a)
		first1, first2 := a[c1], a[c2]
		if s := sizes(a, c1, c2); !slices.Equal(s, []int{1, 2}) && !slices.Equal(s, []int{2, 1}) {
			t.Fatalf("sizes %v, want 1 and 2", s)
		}

		e.topic(t2, 3)
		e.put(e.v2(c1, topics(tpc, t2), a[c1], generationID, 0))
		e.put(e.v2(c2, topics(tpc, t2), a[c2], generationID, 1))
		a = e.assign()
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
		second1, second2 := a[c1], a[c2]
		if s := sizes(a, c1, c2); !slices.Equal(s, []int{3, 3}) || !containsAll(second1, first1) || !containsAll(second2, first2) {
			t.Fatalf("not sticky after adding %s: %v (before %v %v)", t2, a, first1, first2)
		}

		e.dropTopic(tpc)
		e.put(e.v2(c1, topics(t2), a[c1], generationID, 0))
		e.put(e.v2(c2, topics(t2), a[c2], generationID, 1))
		a = e.assign()
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
		if s := sizes(a, c1, c2); !slices.Equal(s, []int{1, 2}) && !slices.Equal(s, []int{2, 1}) {
			t.Fatalf("sizes %v, want 1 and 2", s)
		}
		if !containsAll(second1, a[c1]) || !containsAll(second2, a[c2]) {
			t.Fatalf("not sticky after removing %s: %v (before %v %v)", tpc, a, second1, second2)
		}
	})
}

// Kafka: AbstractStickyAssignorTest.testReassignmentAfterOneConsumerLeaves
func TestReassignmentAfterOneConsumerLeaves(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		for i := 1; i < 20; i++ {
			e.topic(canonical("t", i, 20), i)
		}
		for i := 1; i < 20; i++ {
			var ts []string
			for j := 1; j <= i; j++ {
				ts = append(ts, canonical("t", j, 20))
			}
			e.put(e.plain(canonical("c", i, 20), ts, i))
		}
		a := e.assign()
		e.verify(a)
		for i := 1; i < 20; i++ {
			id := canonical("c", i, 20)
			e.put(e.v2(id, e.member(id).Subscription, a[id], generationID, i))
		}
		e.remove("c10")
		a = e.assign()
		e.verify(a)
		e.isSticky()
	})
}

// Kafka: AbstractStickyAssignorTest.testReassignmentAfterOneConsumerAdded
func TestReassignmentAfterOneConsumerAdded(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic("topic", 20)
		for i := 1; i < 10; i++ {
			e.put(e.plain(canonical("c", i, 10), topics("topic"), i))
		}
		a := e.assign()
		e.noneTransferring()
		e.verify(a)
		e.put(e.plain(canonical("c", 10, 10), topics("topic"), 10))
		a = e.assign()
		e.noneTransferring()
		e.verify(a)
	})
}

// Kafka: AbstractStickyAssignorTest.testSameSubscriptions
func TestSameSubscriptions(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		for i := 1; i < 15; i++ {
			e.topic(canonical("t", i, 15), i)
		}
		var all []string
		for j := 1; j < 15; j++ {
			all = append(all, canonical("t", j, 15))
		}
		for i := 1; i < 9; i++ {
			e.put(e.plain(canonical("c", i, 9), all, i))
		}
		a := e.assign()
		e.noneTransferring()
		e.verify(a)
		for i := 1; i < 9; i++ {
			id := canonical("c", i, 9)
			e.put(e.v2(id, all, a[id], generationID, i))
		}
		e.remove(canonical("c", 5, 9))
		a = e.assign()
		e.noneTransferring()
		e.verify(a)
	})
}

// Kafka: AbstractStickyAssignorTest.testAssignmentAndGroupWithNonEqualSubscriptionNotTimeout
func TestAssignmentAndGroupWithNonEqualSubscriptionNotTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("20,000 partitions over 500 members")
	}
	for _, rack := range []bool{false, true} {
		for _, coop := range []bool{false, true} {
			t.Run(assignorName(coop)+"/rack="+strconv.FormatBool(rack), func(t *testing.T) {
				e := newEnv(t, coop)
				rc := noConsumerRack
				if rack {
					rc = brokerAndConsumerRack
				}
				e.initializeRacks(rc)
				topicCount, consumerCount := 100, 500
				if rack {
					topicCount = 50
				}
				var all []string
				for i := range topicCount {
					all = append(all, canonical("t", i, topicCount))
					e.topic(all[i], 200)
				}
				subOf := func(i int) []string {
					if i%4 == 0 {
						return all[:topicCount/2]
					}
					return all[topicCount/2:]
				}
				for i := range consumerCount {
					e.put(e.plain(canonical("c", i, consumerCount), subOf(i), i))
				}
				a := e.assign()
				for i := 1; i < consumerCount; i++ {
					id := canonical("c", i, consumerCount)
					e.put(e.v2(id, subOf(i), a[id], generationID, i))
				}
				checkValidityAndBalance(t, e.members, e.assign())
			})
		}
	}
}

// Kafka: AbstractStickyAssignorTest.testSubscriptionNotEqualAndAssignSamePartitionWith3Generation
func TestSubscriptionNotEqualAndAssignSamePartitionWith3Generation(t *testing.T) {
	forBoth(t, func(e *kafkaEnv) {
		e.topic(tpc, 6)
		e.topic(t1, 1)
		for _, g := range [][3]model.Epoch{{1, 2, 3}, {1, 3, 2}, {2, 1, 3}, {2, 3, 1}, {3, 1, 2}, {3, 2, 1}} {
			e.put(e.v2(c1, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 2)), g[0], 0))
			e.put(e.v2(c2, topics(tpc), tpl(tp(tpc, 1), tp(tpc, 2), tp(tpc, 3)), g[1], 1))
			e.put(e.v2(c3, topics(tpc), tpl(tp(tpc, 2), tp(tpc, 4), tp(tpc, 5)), g[2], 2))
			e.put(e.v2(c4, topics(t1), tpl(tp(t1, 0)), 2, 3))
			a := e.assign()
			a.Owners() // panics on a partition given twice
			for id, l := range a {
				if len(l) < 1 || len(l) > 2 {
					t.Fatalf("generations %v: %s got %v, want 1 or 2 partitions", g, id, l)
				}
			}
		}
	})
}

// randomSubscriptions draws the test's random subscriptions from a seeded
// source (Kafka draws from an unseeded java.util.Random each run).
func randomSublist(r *rand.Rand, list []string) []string {
	out := slices.Clone(list)
	for range r.IntN(len(list)) {
		i := r.IntN(len(out))
		out = slices.Delete(out, i, i+1)
	}
	slices.Sort(out)
	return out
}

// Kafka: AbstractStickyAssignorTest.testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription
func TestLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription(t *testing.T) {
	for _, rack := range []bool{false, true} {
		for _, coop := range []bool{false, true} {
			t.Run(assignorName(coop)+"/rack="+strconv.FormatBool(rack), func(t *testing.T) {
				e := newEnv(t, coop)
				rc := noConsumerRack
				if rack {
					rc = brokerAndConsumerRack
				}
				e.initializeRacks(rc)
				r := rand.New(rand.NewPCG(40, 200))
				for i := range 40 {
					e.topic(canonical("t", i, 40), r.IntN(10)+1)
				}
				for i := range 200 {
					var ts []string
					for range r.IntN(20) {
						ts = append(ts, canonical("t", r.IntN(40), 40))
					}
					slices.Sort(ts)
					e.put(e.plain(canonical("c", i, 200), slices.Compact(ts), i))
				}
				a := e.verify(e.assign())
				for i := 1; i < 200; i++ {
					id := canonical("c", i, 200)
					e.put(e.v2(id, e.member(id).Subscription, a[id], generationID, i))
				}
				for range 50 {
					e.remove(canonical("c", r.IntN(200), 200))
				}
				e.verify(e.assign())
				e.isSticky()
			})
		}
	}
}

// Kafka: AbstractStickyAssignorTest.testNewSubscription
func TestNewSubscription(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		for i := 1; i < 5; i++ {
			e.topic(canonical("t", i, 5), 1)
		}
		for i := range 3 {
			var ts []string
			for j := i; j <= 3*i-2; j++ {
				ts = append(ts, canonical("t", j, 5))
			}
			e.put(e.plain(canonical("c", i, 3), ts, i))
		}
		e.verify(e.assign())
		m := e.member(canonical("c", 0, 3))
		m.Subscription = append(slices.Clone(m.Subscription), canonical("t", 1, 5))
		e.put(m)
		e.verify(e.assign())
		e.isSticky()
	})
}

// Kafka: AbstractStickyAssignorTest.testMoveExistingAssignments
func TestMoveExistingAssignments(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		for i := 1; i <= 6; i++ {
			e.topic(canonical("topic", i, 1), 1)
		}
		e.put(e.v2(c1, topics("topic1", "topic2"), tpl(tp("topic1", 0)), generationID, 0))
		e.put(e.v2(c2, topics("topic1", "topic2", "topic3", "topic4"), tpl(tp("topic2", 0), tp("topic3", 0)), generationID, 1))
		e.put(e.v2(c3, topics("topic2", "topic3", "topic4", "topic5", "topic6"), tpl(tp("topic4", 0), tp("topic5", 0), tp("topic6", 0)), generationID, 2))
		a := e.assign()
		e.transferring(nil)
		e.verify(a)
	})
}

// Kafka: AbstractStickyAssignorTest.testStickiness
func TestStickiness(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 3)
		for i, id := range []string{c1, c2, c3, c4} {
			e.put(e.plain(id, topics(t1), i))
		}
		a := e.assign()
		e.noneTransferring()
		a = e.verify(a)
		had := map[string]model.TopicPartition{}
		for id, l := range a {
			if len(l) > 1 {
				t.Fatalf("%s got %v, more than one", id, l)
			}
			if len(l) == 1 {
				had[id] = l[0]
			}
		}
		e.remove(c1)
		for i, id := range []string{c2, c3, c4} {
			e.put(e.v2(id, topics(t1), a[id], generationID, i+1))
		}
		a = e.assign()
		e.noneTransferring()
		a = e.verify(a)
		for id, l := range a {
			if len(l) != 1 {
				t.Fatalf("%s got %v, want one partition", id, l)
			}
			if p, ok := had[id]; ok && !slices.Contains(l, p) {
				t.Fatalf("%s lost %v: %v", id, p, l)
			}
		}
	})
}

// Kafka: AbstractStickyAssignorTest.testAssignmentUpdatedForDeletedTopic
func TestAssignmentUpdatedForDeletedTopic(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(t1, 1)
		e.topic(t3, 100)
		e.put(e.plain("consumer", topics(t1, t2, t3), 0))
		a := e.assign()
		e.noneTransferring()
		if n := len(a["consumer"]); n != 101 || len(a) != 1 {
			t.Fatalf("got %d partitions over %d members, want 101 to one", n, len(a))
		}
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testNoExceptionThrownWhenOnlySubscribedTopicDeleted
func TestNoExceptionThrownWhenOnlySubscribedTopicDeleted(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.plain("consumer", topics(tpc), 0))
		a := e.assign()
		e.noneTransferring()
		e.put(e.v2("consumer", topics(tpc), a["consumer"], generationID, 0))
		e.dropTopic(tpc)
		a = e.assign()
		e.noneTransferring()
		if len(a) != 1 {
			t.Fatalf("%d entries, want 1: %v", len(a), a)
		}
		want(t, a, "consumer")
	})
}

// Kafka: AbstractStickyAssignorTest.testReassignmentWithRandomSubscriptionsAndChanges
func TestReassignmentWithRandomSubscriptionsAndChanges(t *testing.T) {
	rounds := 100
	if testing.Short() {
		rounds = 10
	}
	forRacks(t, func(e *kafkaEnv) {
		r := rand.New(rand.NewPCG(20, 40))
		for range rounds {
			numTopics := 10 + r.IntN(10)
			var all []string
			e.parts, e.racks, e.members = map[string]int32{}, PartitionRacks{}, nil
			for i := range numTopics {
				all = append(all, canonical("t", i, 20))
				e.topic(all[i], i+1)
			}
			numConsumers := 20 + r.IntN(20)
			for i := range numConsumers {
				e.put(e.plain(canonical("c", i, 40), randomSublist(r, all), i))
			}
			e.assignorGen = model.NoEpoch // a fresh assignor each round
			a := e.verify(e.assign())
			e.members = nil
			for i := range numConsumers {
				id := canonical("c", i, 40)
				e.put(e.v2(id, randomSublist(r, all), a[id], generationID, i))
			}
			e.verify(e.assign())
			e.isSticky()
		}
	})
}

// Kafka: AbstractStickyAssignorTest.testAllConsumersReachExpectedQuotaAndAreConsideredFilled
func TestAllConsumersReachExpectedQuotaAndAreConsideredFilled(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 4)
		e.put(e.v2(c1, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 1)), generationID, 0))
		e.put(e.v2(c2, topics(tpc), tpl(tp(tpc, 2)), generationID, 1))
		e.put(e.v2(c3, topics(tpc), nil, generationID, 2))
		a := e.assign()
		want(t, a, c1, tp(tpc, 0), tp(tpc, 1))
		want(t, a, c2, tp(tpc, 2))
		want(t, a, c3, tp(tpc, 3))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration
func TestOwnedPartitionsAreInvalidatedForConsumerWithStaleGeneration(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.topic(t2, 3)
		const current = 10
		owned := tpl(tp(tpc, 0), tp(tpc, 2), tp(t2, 1))
		e.put(e.v2(c1, topics(tpc, t2), owned, current, 0))
		e.put(e.v2(c2, topics(tpc, t2), owned, current-1, 1))
		a := e.assign()
		want(t, a, c1, owned...)
		want(t, a, c2, tp(tpc, 1), tp(t2, 0), tp(t2, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration
func TestOwnedPartitionsAreInvalidatedForConsumerWithNoGeneration(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.topic(t2, 3)
		owned := tpl(tp(tpc, 0), tp(tpc, 2), tp(t2, 1))
		e.put(e.v2(c1, topics(tpc, t2), owned, 10, 0))
		e.put(e.v2(c2, topics(tpc, t2), owned, model.NoEpoch, 1))
		a := e.assign()
		want(t, a, c1, owned...)
		want(t, a, c2, tp(tpc, 1), tp(t2, 0), tp(t2, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration
func TestPartitionsTransferringOwnershipIncludeThePartitionClaimedByMultipleConsumersInSameGeneration(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.v2(c1, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 1)), generationID, 0))
		e.put(e.v2(c2, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 2)), generationID, 1))
		e.put(e.v2(c3, topics(tpc), nil, generationID, 2))
		a := e.assign()
		e.transferring(map[string]string{"topic/0": c3})
		a = e.verify(a)
		want(t, a, c1, tp(tpc, 1))
		want(t, a, c2, tp(tpc, 2))
		want(t, a, c3, tp(tpc, 0))
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testEnsurePartitionsAssignedToHighestGeneration
func TestEnsurePartitionsAssignedToHighestGeneration(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		all := topics(tpc, t2, t3)
		for _, n := range all {
			e.topic(n, 3)
		}
		const current = 10
		e.put(e.v2(c1, all, tpl(tp(tpc, 0), tp(t2, 0), tp(t3, 0)), current, 0))
		e.put(e.v2(c2, all, tpl(tp(tpc, 1), tp(t2, 1), tp(t3, 1)), current-1, 1))
		e.put(e.v2(c3, all, tpl(tp(t2, 1), tp(t3, 0), tp(t3, 2)), current-2, 1))
		a := e.assign()
		want(t, a, c1, tp(tpc, 0), tp(t2, 0), tp(t3, 0))
		want(t, a, c2, tp(tpc, 1), tp(t2, 1), tp(t3, 1))
		want(t, a, c3, tp(tpc, 2), tp(t2, 2), tp(t3, 2))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testNoReassignmentOnCurrentMembers
func TestNoReassignmentOnCurrentMembers(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		all := topics(tpc, t2, t3, t1)
		for _, n := range []string{tpc, t1, t2, t3} {
			e.topic(n, 3)
		}
		const current = 10
		e.put(e.v2(c1, all, tpl(), model.NoEpoch, 0))
		e.put(e.v2(c2, all, tpl(tp(tpc, 0), tp(t2, 0), tp(t1, 0)), current-1, 1))
		e.put(e.v2(c3, all, tpl(tp(t3, 2), tp(t2, 2), tp(t1, 1)), current-2, 2))
		e.put(e.v2(c4, all, tpl(tp(t3, 1), tp(tpc, 1), tp(tpc, 2)), current-3, 3))
		a := e.assign()
		want(t, a, c1, tp(t1, 2), tp(t2, 1), tp(t3, 0))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: AbstractStickyAssignorTest.testOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration
func TestOwnedPartitionsAreInvalidatedForConsumerWithMultipleGeneration(t *testing.T) {
	forRacks(t, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.topic(t2, 3)
		const current = 10
		e.put(e.v2(c1, topics(tpc, t2), tpl(tp(tpc, 0), tp(t2, 1), tp(tpc, 1)), current, 0))
		e.put(e.v2(c2, topics(tpc, t2), tpl(tp(tpc, 0), tp(t2, 1), tp(t2, 2)), current-2, 1))
		a := e.assign()
		want(t, a, c1, tp(tpc, 0), tp(t2, 1), tp(tpc, 1))
		want(t, a, c2, tp(tpc, 2), tp(t2, 2), tp(t2, 0))
		e.noneTransferring()
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// TestStickyGivesBackToOlderClaimant pins a rule of
// GeneralAssignmentBuilder.performReassignments that none of Kafka's own
// cases decides: a partition whose holder has two more than the member
// that claimed it in an older generation goes back to that member, even
// when another member has fewer. Here b (generation 2) holds all of t;
// a's older claim on t/1 lost to b's, but when b gives up partitions, t/1
// goes back to a rather than to d, which has fewer at that moment.
func TestStickyGivesBackToOlderClaimant(t *testing.T) {
	forBoth(t, func(e *kafkaEnv) {
		e.topic("t", 4)
		e.topic("u", 1)
		e.put(e.v2("a", topics("t"), tpl(tp("t", 1)), 1, 0))
		e.put(e.v2("b", topics("t", "u"), tpl(tp("t", 0), tp("t", 1), tp("t", 2), tp("t", 3)), 2, 1))
		e.put(e.v2("c", topics("u"), tpl(tp("u", 0)), 2, 2))
		e.put(e.v2("d", topics("t"), nil, model.NoEpoch, 3))
		e.last = stickyAssign(e.members, e.parts, stickyOptions{cooperative: e.coop})
		a := e.last.assignment
		want(t, a, "a", tp("t", 0), tp("t", 1))
		want(t, a, "b", tp("t", 3))
		want(t, a, "c", tp("u", 0))
		want(t, a, "d", tp("t", 2))
	})
}
