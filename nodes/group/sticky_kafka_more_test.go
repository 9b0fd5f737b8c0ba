package group

import (
	"fmt"
	"slices"
	"testing"

	"kafkasim/model"
)

// The rest of Kafka's sticky assignor tests: member data, rack-aware
// assignment, and the cases of StickyAssignorTest and
// CooperativeStickyAssignorTest.

// Kafka: AbstractStickyAssignorTest.testMemberData
func TestMemberData(t *testing.T) {
	forBoth(t, func(e *kafkaEnv) {
		owned := tpl(tp(t1, 0), tp(t2, 1))
		subs := []Member{e.v1("m1", topics(tpc), owned, generationID), e.v2("m2", topics(tpc), owned, generationID, 2)}
		if !e.coop {
			subs = append(subs, e.v0("m0", topics(tpc), owned, generationID, 0))
		}
		for _, m := range subs {
			d := stickyMemberData(m)
			if e.coop {
				d = cooperativeMemberData(m)
			}
			if !slices.Equal(d.partitions, owned) || d.generation != generationID {
				t.Fatalf("%s: member data %v gen %d, want %v gen %d", m.ID, d.partitions, d.generation, owned, generationID)
			}
		}
	})
}

// rackCase is one verifyRackAssignment call of Kafka's rack-aware tests:
// consumers consumer0.., the given brokers' racks ("" for none), the
// consumers' racks, subscriptions and owned partitions, and the expected
// assignment with the number of partitions whose replicas are all off the
// consumer's rack (-1 to skip that count).
type rackCase struct {
	rf            int
	brokerRacks   []string
	consumerRacks []string
	owned         []string
	want          []string
	mismatched    int
}

// verifyRackAssignment is AbstractPartitionAssignorTest.verifyRackAssignment
// for the topics t1 (6), t2 (7), t3 (2). The subscriptions carry owned
// partitions but no user data and no generation, so StickyAssignor sees no
// claims at all and the cooperative one sees claims of no generation.
func verifyRackAssignment(t *testing.T, coop, prefer bool, consumerTopics [][]string, c rackCase) {
	t.Helper()
	parts := map[string]int32{"t1": 6, "t2": 7, "t3": 2}
	racks := replicaRacks([]string{"t1", "t2", "t3"}, parts, c.rf, c.brokerRacks)
	members := make([]Member, len(c.consumerRacks))
	for i := range members {
		var owned []model.TopicPartition
		if i < len(c.owned) {
			owned = parseTPs(t, c.owned[i])
		}
		members[i] = Member{
			ID: fmt.Sprintf("consumer%d", i), Subscription: consumerTopics[i], Owned: owned,
			Generation: model.NoEpoch, AssignedGeneration: model.NoEpoch, RackID: c.consumerRacks[i],
		}
	}
	e := &kafkaEnv{t: t, coop: coop, prefer: prefer, parts: parts, racks: racks, members: members}
	a := e.assign()
	for i, m := range members {
		if w := parseTPs(t, c.want[i]); !slices.Equal(a[m.ID], w) {
			t.Fatalf("%s got %v, want %v (all %v)", m.ID, a[m.ID], w, a)
		}
	}
	if c.mismatched < 0 {
		return
	}
	n := 0
	for _, m := range members {
		if m.RackID == "" {
			continue
		}
		for _, p := range a[m.ID] {
			if !slices.Contains(racks[p], m.RackID) {
				n++
			}
		}
	}
	if n != c.mismatched {
		t.Fatalf("%d partitions off their consumer's rack, want %d: %v", n, c.mismatched, a)
	}
}

// replicaRacks is the partition layout of AbstractPartitionAssignorTest's
// partitionsPerTopic: one broker per entry of brokerRacks ("" for no
// rack), partition p of a topic on rf consecutive brokers from p plus the
// number of partitions of the topics before it.
func replicaRacks(topics []string, parts map[string]int32, rf int, brokerRacks []string) PartitionRacks {
	racks := PartitionRacks{}
	next := 0
	for _, topic := range topics {
		for p := range int(parts[topic]) {
			var rs []string
			for j := range rf {
				if r := brokerRacks[(p+j+next)%len(brokerRacks)]; r != "" {
					rs = append(rs, r)
				}
			}
			racks[model.TP(topic, int32(p))] = rs
		}
		next += int(parts[topic])
	}
	return racks
}

func rackList(n int) []string  { return slices.Clone(allRacks[:n]) }
func nullRacks(n int) []string { return make([]string, n) }

// rackSteps runs Kafka's sequence of verify calls, with
// preferRackAwareLogic switched as the test switches it. uniform calls
// come in pairs (without, then with, the expected assignment as owned).
type rackStep struct {
	prefer *bool
	c      rackCase
	pair   bool
}

func runRackSteps(t *testing.T, coop bool, consumerTopics [][]string, steps []rackStep) {
	prefer := false
	for i, s := range steps {
		if s.prefer != nil {
			prefer = *s.prefer
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			c := s.c
			verifyRackAssignment(t, coop, prefer, consumerTopics, c)
			if s.pair {
				c.owned = c.want
				verifyRackAssignment(t, coop, prefer, consumerTopics, c)
			}
		})
	}
}

var yes, no = true, false

// Kafka: AbstractStickyAssignorTest.testRackAwareAssignmentWithUniformSubscription
func TestRackAwareAssignmentWithUniformSubscription(t *testing.T) {
	all := []string{"t1", "t2", "t3"}
	cts := [][]string{all, all, all}
	plain := []string{"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"}
	owned := []string{"t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"}
	for _, coop := range []bool{false, true} {
		t.Run(assignorName(coop), func(t *testing.T) {
			steps := []rackStep{
				{nil, rackCase{3, nullRacks(3), rackList(3), nil, plain, -1}, true},
				{nil, rackCase{3, rackList(3), nullRacks(3), nil, plain, -1}, true},
				{&yes, rackCase{3, rackList(3), rackList(3), nil, plain, 0}, true},
				{&yes, rackCase{4, rackList(4), rackList(3), nil, plain, 0}, true},
				{&no, rackCase{3, rackList(3), rackList(3), nil, plain, 0}, true},
				{nil, rackCase{3, rackList(3), []string{"d", "e", "f"}, nil, plain, -1}, true},
				{nil, rackCase{3, rackList(3), []string{"", "e", "f"}, nil, plain, -1}, true},
				{nil, rackCase{1, rackList(3), rackList(3), nil, plain, 0}, true},
				{nil, rackCase{2, rackList(3), rackList(3), nil, plain, 0}, true},
				{nil, rackCase{3, rackList(2), rackList(3), nil, plain, 5}, true},
			}
			if coop {
				steps = append(steps,
					rackStep{nil, rackCase{1, rackList(3), rackList(3), owned, []string{"t1-0, t1-3", "t2-1", "t2-5, t3-1"}, 0}, false},
					rackStep{&yes, rackCase{3, rackList(3), rackList(3), plain, plain, 0}, false})
			} else {
				steps = append(steps,
					rackStep{nil, rackCase{1, rackList(3), rackList(3), owned, plain, 0}, false},
					rackStep{&yes, rackCase{3, rackList(3), rackList(3), plain, plain, 0}, false})
			}
			runRackSteps(t, coop, cts, steps)
		})
	}
}

// Kafka: AbstractStickyAssignorTest.testRackAwareAssignmentWithNonEqualSubscription
func TestRackAwareAssignmentWithNonEqualSubscription(t *testing.T) {
	all := []string{"t1", "t2", "t3"}
	cts := [][]string{all, all, {"t1", "t3"}}
	plain := []string{"t1-5, t2-0, t2-2, t2-4, t2-6", "t1-3, t2-1, t2-3, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-4, t3-1"}
	owned := []string{"t1-0, t1-1, t1-2, t1-3, t1-4", "t1-5, t2-0, t2-1, t2-2, t2-3", "t2-4, t2-5, t2-6, t3-0, t3-1"}
	rf1 := []string{"t1-3, t2-0, t2-2, t2-3, t2-6", "t1-4, t2-1, t2-4, t2-5, t3-0", "t1-0, t1-1, t1-2, t1-5, t3-1"}
	for _, coop := range []bool{false, true} {
		t.Run(assignorName(coop), func(t *testing.T) {
			steps := []rackStep{
				{nil, rackCase{3, nullRacks(3), rackList(3), nil, plain, -1}, true},
				{nil, rackCase{3, rackList(3), nullRacks(3), nil, plain, -1}, true},
				{&yes, rackCase{3, rackList(3), rackList(3), nil, plain, 0}, true},
				{&yes, rackCase{4, rackList(4), rackList(3), nil, plain, 0}, true},
				{&no, rackCase{3, rackList(3), rackList(3), nil, plain, 0}, true},
				{nil, rackCase{3, rackList(3), []string{"d", "e", "f"}, nil, plain, -1}, true},
				{nil, rackCase{3, rackList(3), []string{"", "e", "f"}, nil, plain, -1}, true},
				{nil, rackCase{1, rackList(3), rackList(3), nil, rf1, 4}, true},
				{nil, rackCase{2, rackList(3), rackList(3), nil,
					[]string{"t1-3, t2-0, t2-2, t2-5, t2-6", "t1-0, t2-1, t2-3, t2-4, t3-0", "t1-1, t1-2, t1-4, t1-5, t3-1"}, 0}, true},
				{nil, rackCase{3, rackList(2), rackList(3), nil, plain, 5}, true},
			}
			if !coop {
				steps = append(steps,
					rackStep{nil, rackCase{1, rackList(3), rackList(3), owned, rf1, 4}, false},
					rackStep{&no, rackCase{3, rackList(3), rackList(3), owned, plain, 0}, false},
					rackStep{&yes, rackCase{3, rackList(3), rackList(3), owned, plain, 0}, false})
			} else {
				intermediate := []string{"t1-3", "t2-1", "t3-1"}
				final := []string{"t1-2, t1-3, t1-4, t2-4, t2-5", "t2-0, t2-1, t2-2, t2-3, t2-6", "t1-0, t1-1, t1-5, t3-0, t3-1"}
				inter2 := []string{"t1-2, t1-3, t1-4", "t2-0, t2-1, t2-2, t2-3", "t3-0, t3-1"}
				steps = append(steps,
					rackStep{nil, rackCase{1, rackList(3), rackList(3), owned, intermediate, 0}, false},
					rackStep{nil, rackCase{1, rackList(3), rackList(3), intermediate, rf1, 4}, false},
					rackStep{&no, rackCase{3, rackList(3), rackList(3), owned, inter2, 0}, false},
					rackStep{nil, rackCase{3, rackList(3), rackList(3), inter2, final, 0}, false},
					rackStep{&yes, rackCase{3, rackList(3), rackList(3), owned, inter2, 0}, false},
					rackStep{nil, rackCase{3, rackList(3), rackList(3), inter2, final, 0}, false})
			}
			runRackSteps(t, coop, cts, steps)
		})
	}
}

// Kafka: StickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer
// Kafka: StickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer
// Kafka: CooperativeStickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithEqualPartitionsPerConsumer
// Kafka: CooperativeStickyAssignorTest.testAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGenerationWithUnequalPartitionsPerConsumer
//
// Two members of one generation claim topic-0: neither keeps it. The
// sticky assignor gives it to the third member at once; the cooperative
// one withholds it this round, since both claimants must revoke it first.
func TestAllConsumersHaveOwnedPartitionInvalidatedWhenClaimedByMultipleConsumersInSameGeneration(t *testing.T) {
	for _, partitions := range []int{3, 4} {
		for _, coop := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/%d", assignorName(coop), partitions), func(t *testing.T) {
				forOne(t, coop, func(e *kafkaEnv) {
					e.topic(tpc, partitions)
					e.put(e.v2(c1, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 1)), generationID, 0))
					e.put(e.v2(c2, topics(tpc), tpl(tp(tpc, 0), tp(tpc, 2)), generationID, 1))
					e.put(e.v2(c3, topics(tpc), nil, generationID, 2))
					a := e.assign()
					if partitions == 3 {
						want(t, a, c1, tp(tpc, 1))
					} else {
						want(t, a, c1, tp(tpc, 1), tp(tpc, 3))
					}
					want(t, a, c2, tp(tpc, 2))
					if coop {
						want(t, a, c3)
					} else {
						want(t, a, c3, tp(tpc, 0))
					}
					a = e.verify(a)
					fullyBalanced(t, a)
				})
			})
		}
	}
}

// multipleGenerationsParams is StickyAssignorTest.rackAndSubscriptionCombinations.
func multipleGenerationsParams(t *testing.T, f func(e *kafkaEnv, equal bool)) {
	for _, equal := range []bool{true, false} {
		for _, rc := range []rackConfig{noBrokerRack, noConsumerRack, brokerAndConsumerRack} {
			t.Run(fmt.Sprintf("%s/equal=%v", rc, equal), func(t *testing.T) {
				e := newEnv(t, false)
				e.initializeRacks(rc)
				f(e, equal)
			})
		}
	}
}

// Kafka: StickyAssignorTest.testAssignmentWithMultipleGenerations1
func TestAssignmentWithMultipleGenerations1(t *testing.T) {
	multipleGenerationsParams(t, func(e *kafkaEnv, equal bool) {
		all := topics(tpc, t2)
		c2Topics := topics(tpc)
		if equal {
			c2Topics = all
		}
		e.topic(tpc, 6)
		e.topic(t2, 6)
		e.put(e.plain(c1, all, 0))
		e.put(e.plain(c2, c2Topics, 1))
		e.put(e.plain(c3, all, 2))
		a := e.assign()
		r1 := [3][]model.TopicPartition{a[c1], a[c2], a[c3]}
		if s := sizes(a, c1, c2, c3); !slices.Equal(s, []int{4, 4, 4}) {
			t.Fatalf("sizes %v, want 4 4 4: %v", s, a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)

		e.put(e.v2(c1, all, r1[0], generationID, 0))
		e.put(e.v2(c2, c2Topics, r1[1], generationID, 1))
		e.remove(c3)
		a = e.assign()
		r2 := [2][]model.TopicPartition{a[c1], a[c2]}
		if s := sizes(a, c1, c2); !slices.Equal(s, []int{6, 6}) {
			t.Fatalf("sizes %v, want 6 6: %v", s, a)
		}
		if equal && !containsAll(r2[0], r1[0]) {
			t.Fatalf("%s lost partitions: %v then %v", c1, r1[0], r2[0])
		}
		if !containsAll(r2[1], r1[1]) {
			t.Fatalf("%s lost partitions: %v then %v", c2, r1[1], r2[1])
		}
		a = e.verify(a)
		fullyBalanced(t, a)
		if disjoint(r2[1], r1[2]) {
			t.Fatalf("%s took none of the leaver's %v: %v", c2, r1[2], r2[1])
		}

		e.remove(c1)
		e.put(e.v2(c2, c2Topics, r2[1], 2, 1))
		e.put(e.v2(c3, all, r1[2], 1, 2))
		a = e.assign()
		if s := sizes(a, c2, c3); !slices.Equal(s, []int{6, 6}) || !disjoint(a[c2], a[c3]) {
			t.Fatalf("want 6 and 6, disjoint: %v", a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: StickyAssignorTest.testAssignmentWithMultipleGenerations2
func TestAssignmentWithMultipleGenerations2(t *testing.T) {
	multipleGenerationsParams(t, func(e *kafkaEnv, equal bool) {
		all := topics(tpc, t2, t3)
		c1Topics, c3Topics := topics(tpc), topics(tpc, t2)
		if equal {
			c1Topics, c3Topics = all, all
		}
		for _, n := range all {
			e.topic(n, 4)
		}
		e.put(e.plain(c1, c1Topics, 0))
		e.put(e.plain(c2, all, 1))
		e.put(e.plain(c3, c3Topics, 2))
		a := e.assign()
		r1 := [3][]model.TopicPartition{a[c1], a[c2], a[c3]}
		if s := sizes(a, c1, c2, c3); !slices.Equal(s, []int{4, 4, 4}) {
			t.Fatalf("sizes %v, want 4 4 4: %v", s, a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)

		e.remove(c1)
		e.put(e.v2(c2, all, r1[1], 1, 1))
		e.remove(c3)
		a = e.assign()
		r2 := a[c2]
		if len(r2) != 12 || !containsAll(r2, r1[1]) {
			t.Fatalf("%s got %v, want all 12 including %v", c2, r2, r1[1])
		}
		a = e.verify(a)
		fullyBalanced(t, a)

		e.put(e.v2(c1, c1Topics, r1[0], 1, 0))
		e.put(e.v2(c2, all, r2, 2, 1))
		e.put(e.v2(c3, c3Topics, r1[2], 1, 2))
		a = e.assign()
		if s := sizes(a, c1, c2, c3); !slices.Equal(s, []int{4, 4, 4}) {
			t.Fatalf("sizes %v, want 4 4 4: %v", s, a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: StickyAssignorTest.testAssignmentWithConflictingPreviousGenerations
func TestAssignmentWithConflictingPreviousGenerations(t *testing.T) {
	multipleGenerationsParams(t, func(e *kafkaEnv, equal bool) {
		for _, n := range []string{tpc, t2, t3} {
			e.topic(n, 4)
		}
		all := topics(tpc, t2, t3)
		c1Topics, c2Topics := topics(tpc), topics(tpc, t2)
		c1Owned := tpl(tp(tpc, 0), tp(tpc, 1), tp(tpc, 2), tp(tpc, 3))
		if equal {
			c1Topics, c2Topics = all, all
			c1Owned = tpl(tp(tpc, 0), tp(tpc, 1), tp(tpc, 2), tp(t2, 2), tp(t2, 3), tp(t3, 0))
		}
		c2Owned := tpl(tp(tpc, 0), tp(tpc, 1), tp(t2, 0), tp(t2, 1), tp(t2, 2), tp(t2, 3))
		c3Owned := tpl(tp(tpc, 2), tp(tpc, 3), tp(t3, 0), tp(t3, 1), tp(t3, 2), tp(t3, 3))
		e.put(e.plain(c1, c1Topics, 0))
		e.put(e.plain(c2, c2Topics, 1))
		e.put(e.plain(c3, all, 2))
		e.put(e.v2(c1, c1Topics, c1Owned, 1, 0))
		e.put(e.v2(c2, c2Topics, c2Owned, 2, 1))
		e.put(e.v2(c3, all, c3Owned, 2, 2))
		a := e.assign()
		if s := sizes(a, c1, c2, c3); !slices.Equal(s, []int{4, 4, 4}) {
			t.Fatalf("sizes %v, want 4 4 4: %v", s, a)
		}
		if !containsAll(c2Owned, a[c2]) || !containsAll(c3Owned, a[c3]) {
			t.Fatalf("generation-2 members got partitions they did not own: %v", a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: StickyAssignorTest.testSchemaBackwardCompatibility
func TestSchemaBackwardCompatibility(t *testing.T) {
	forOne(t, false, func(e *kafkaEnv) {
		e.topic(tpc, 3)
		e.put(e.plain(c1, topics(tpc), 0))
		e.put(e.plain(c2, topics(tpc), 1))
		e.put(e.plain(c3, topics(tpc), 2))
		c1Owned, c2Owned := tpl(tp(tpc, 0), tp(tpc, 2)), tpl(tp(tpc, 1))
		e.put(e.v2(c1, topics(tpc), c1Owned, 1, 0))
		// The V0 user data schema has the partitions and no generation.
		e.put(Member{ID: c2, Subscription: topics(tpc), Generation: model.NoEpoch, Assigned: c2Owned, AssignedGeneration: model.NoEpoch, RackID: e.rackOf(1)})
		a := e.assign()
		if s := sizes(a, c1, c2, c3); !slices.Equal(s, []int{1, 1, 1}) || !containsAll(c1Owned, a[c1]) || !containsAll(c2Owned, a[c2]) {
			t.Fatalf("want one each, c1 and c2 from what they owned: %v", a)
		}
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: StickyAssignorTest.testMemberDataWithInconsistentData
// Kafka: StickyAssignorTest.testMemberDataWillHonorUserData
//
// The eager sticky assignor takes a member's claim from its user data (its
// last assignment and that generation), not from the subscription's owned
// partitions and generation.
func TestStickyMemberDataHonorsUserData(t *testing.T) {
	m := Member{Owned: tpl(tp(tpc, 0)), Generation: model.NoEpoch, Assigned: tpl(tp(tpc, 1)), AssignedGeneration: generationID}
	if d := stickyMemberData(m); !slices.Equal(d.partitions, tpl(tp(tpc, 1))) || d.generation != generationID {
		t.Fatalf("inconsistent data: %v gen %d, want the user data's", d.partitions, d.generation)
	}
	owned := tpl(tp(t1, 0), tp(t2, 1))
	m = Member{Owned: nil, Generation: generationID, Assigned: owned, AssignedGeneration: generationID - 1}
	if d := stickyMemberData(m); !slices.Equal(d.partitions, owned) || d.generation != generationID-1 {
		t.Fatalf("user data: %v gen %d, want %v gen %d", d.partitions, d.generation, owned, generationID-1)
	}
}

// Kafka: StickyAssignorTest.testAssignorWithOldVersionSubscriptions
// Kafka: CooperativeStickyAssignorTest.testAssignorWithOldVersionSubscriptions
func TestAssignorWithOldVersionSubscriptions(t *testing.T) {
	forBoth(t, func(e *kafkaEnv) {
		e.topic(t1, 3)
		sub := topics(t1)
		if e.coop {
			e.put(e.v1(c1, sub, tpl(tp(t1, 0)), generationID))
		} else {
			e.put(e.v0(c1, sub, tpl(tp(t1, 0)), generationID, 0))
		}
		e.put(e.v1(c2, sub, tpl(tp(t1, 1)), generationID))
		e.put(e.v2(c3, sub, nil, generationID, 2))
		a := e.assign()
		want(t, a, c1, tp(t1, 0))
		want(t, a, c2, tp(t1, 1))
		want(t, a, c3, tp(t1, 2))
		a = e.verify(a)
		fullyBalanced(t, a)
	})
}

// Kafka: CooperativeStickyAssignorTest.testEncodeAndDecodeGeneration
// Kafka: CooperativeStickyAssignorTest.testDecodeGeneration
//
// The cooperative assignor's user data carries the generation of its last
// assignment, -1 before any, and an old subscription's claim takes its
// generation from there. Kafka tells a -1 written in the user data from no
// user data at all (present or absent); the assignor treats both alike,
// and so does kafkasim, which has only the -1.
func TestCooperativeUserDataGeneration(t *testing.T) {
	m := Member{Generation: model.NoEpoch, AssignedGeneration: model.NoEpoch}
	if d := cooperativeMemberData(m); d.generation != model.NoEpoch {
		t.Fatalf("fresh assignor: generation %d, want -1", d.generation)
	}
	m.AssignedGeneration = 10
	if d := cooperativeMemberData(m); d.generation != 10 {
		t.Fatalf("after onAssignment(10): generation %d, want 10", d.generation)
	}
}

// Kafka: CooperativeStickyAssignorTest.testMemberDataWithInconsistentData
// Kafka: CooperativeStickyAssignorTest.testMemberDataWithEmptyPartitionsAndEqualGeneration
// Kafka: CooperativeStickyAssignorTest.testMemberDataWithEmptyPartitionsAndHigherGeneration
//
// The cooperative assignor takes the partitions from the subscription's
// owned partitions, and the generation from the subscription when it has
// one (v2+), else from the user data.
func TestCooperativeMemberDataUsesSubscription(t *testing.T) {
	m := Member{Owned: tpl(tp(tpc, 0)), Generation: model.NoEpoch, AssignedGeneration: generationID}
	if d := cooperativeMemberData(m); !slices.Equal(d.partitions, tpl(tp(tpc, 0))) || d.generation != generationID {
		t.Fatalf("inconsistent data: %v gen %d, want the owned partitions with the user data's generation", d.partitions, d.generation)
	}
	for _, userGen := range []model.Epoch{generationID, generationID - 1} {
		m := Member{Owned: tpl(), Generation: generationID, Assigned: tpl(tp(t1, 0), tp(t2, 1)), AssignedGeneration: userGen}
		if d := cooperativeMemberData(m); len(d.partitions) != 0 || d.generation != generationID {
			t.Fatalf("user data gen %d: %v gen %d, want no partitions and the subscription's generation", userGen, d.partitions, d.generation)
		}
	}
}

// Kafka: CooperativeStickyAssignorTest.testUniformSubscriptionTransferOwnershipListIsRight
func TestUniformSubscriptionTransferOwnershipListIsRight(t *testing.T) {
	e := newEnv(t, true)
	e.rf, e.brokerRacks, e.consumerRack = 1, 2, true
	e.topic(t1, 4)
	e.put(e.v2("c0", topics(t1), tpl(tp(t1, 0), tp(t1, 1)), generationID, 0))
	e.put(e.v2("c1", topics(t1), tpl(tp(t1, 2), tp(t1, 3)), generationID, 1))
	e.assign()
	if n := len(e.last.transferring); n != 2 || e.last.general {
		t.Fatalf("transferring %v, want 2 partitions", e.last.transferring)
	}
}
