package group

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestRangeAssignRacksWithoutRacks: with no rack information, or with
// racks on partitions but none on members, AssignRacks is Assign.
func TestRangeAssignRacksWithoutRacks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ms := genMembers(t, rapid.Bool().Draw(t, "identical"))
		parts := genPartitions(t)
		want := Range{}.Assign(ms, parts)
		if got := (Range{}).AssignRacks(ms, parts, nil); !reflect.DeepEqual(got, want) {
			t.Fatalf("AssignRacks without racks %v, Assign %v", got, want)
		}
		racks := replicaRacks(topicNames, parts, 1, rackList(3))
		if got := (Range{}).AssignRacks(ms, parts, racks); !reflect.DeepEqual(got, want) {
			t.Fatalf("AssignRacks with partition racks only %v, Assign %v", got, want)
		}
	})
}

// TestRangeAssignRacks checks the rack-aware cases of Kafka's
// RangeAssignorTest (testRackAwareAssignmentWithUniformSubscription,
// ...WithNonEqualSubscription, ...WithUniformPartitions and
// ...WithUniformPartitionsNonEqualSubscription): consumers consumer0..2 on
// racks a, b, c, topics laid out as AbstractPartitionAssignorTest lays them
// out, Kafka's expected assignments and counts of partitions off their
// consumer's rack.
//
// Kafka: RangeAssignorTest.testRackAwareAssignmentWithUniformSubscription
// Kafka: RangeAssignorTest.testRackAwareAssignmentWithNonEqualSubscription
// Kafka: RangeAssignorTest.testRackAwareAssignmentWithUniformPartitions
// Kafka: RangeAssignorTest.testRackAwareAssignmentWithUniformPartitionsNonEqualSubscription
func TestRangeAssignRacks(t *testing.T) {
	all := []string{"t1", "t2", "t3"}
	mixed := [][]string{all, all, {"t1", "t3"}}
	uniform := [][]string{all, all, all}
	odd := map[string]int32{"t1": 6, "t2": 7, "t3": 2}
	even := map[string]int32{"t1": 5, "t2": 5, "t3": 5}
	cases := []struct {
		parts      map[string]int32
		subs       [][]string
		rf         int
		brokers    []string
		want       []string
		mismatched int
	}{
		{odd, uniform, 1, rackList(3), []string{"t1-0, t1-3, t2-0, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t3-0", "t1-2, t1-5, t2-2, t2-5, t3-1"}, 0},
		{odd, uniform, 2, rackList(3), []string{"t1-0, t1-2, t2-0, t2-2, t2-3, t3-1", "t1-1, t1-3, t2-1, t2-4, t3-0", "t1-4, t1-5, t2-5, t2-6"}, 1},
		{odd, uniform, 3, rackList(2), []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0", "t1-2, t1-3, t2-3, t2-4, t3-1", "t1-4, t1-5, t2-5, t2-6"}, 4},
		{odd, mixed, 1, rackList(3), []string{"t1-0, t1-3, t2-0, t2-2, t2-3, t2-6", "t1-1, t1-4, t2-1, t2-4, t2-5, t3-0", "t1-2, t1-5, t3-1"}, 2},
		{odd, mixed, 2, rackList(3), []string{"t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1", "t1-1, t1-3, t2-1, t2-4, t2-6, t3-0", "t1-4, t1-5"}, 0},
		{odd, mixed, 3, rackList(2), []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0", "t1-2, t1-3, t2-4, t2-5, t2-6, t3-1", "t1-4, t1-5"}, 2},
		{even, uniform, 1, rackList(3), []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}, 10},
		{even, uniform, 2, rackList(3), []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}, 5},
		{even, uniform, 3, rackList(2), []string{"t1-0, t1-1, t2-0, t2-1, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t2-4, t3-4"}, 3},
		{even, mixed, 1, rackList(3), []string{"t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1", "t1-2, t1-3, t2-2, t2-3, t3-2, t3-3", "t1-4, t3-4"}, 9},
		{even, mixed, 2, rackList(3), []string{"t1-2, t2-0, t2-1, t2-3, t3-2", "t1-0, t1-3, t2-2, t2-4, t3-0, t3-3", "t1-1, t1-4, t3-1, t3-4"}, 0},
		{even, mixed, 3, rackList(2), []string{"t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1", "t1-2, t1-3, t2-3, t2-4, t3-2, t3-3", "t1-4, t3-4"}, 2},
	}
	for i, c := range cases {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			racks := replicaRacks(all, c.parts, c.rf, c.brokers)
			var ms []Member
			for j, sub := range c.subs {
				ms = append(ms, Member{ID: fmt.Sprintf("consumer%d", j), Subscription: sub, RackID: allRacks[j]})
			}
			a := Range{}.AssignRacks(ms, c.parts, racks)
			n := 0
			for j, m := range ms {
				if w := parseTPs(t, c.want[j]); !slices.Equal(a[m.ID], w) {
					t.Fatalf("%s got %v, want %v (all %v)", m.ID, a[m.ID], w, a)
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
		})
	}
}
