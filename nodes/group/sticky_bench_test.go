package group

import (
	"flag"
	"fmt"
	"testing"
)

// The large cases of Kafka's AbstractStickyAssignorTest, as benchmarks:
// Kafka's tests only require them to finish within a JUnit timeout (30 s
// for the uniform one, 90 s for the other), so what they state is a
// running time, which only a benchmark measures. Each iteration is the
// whole Kafka case: a first assignment of a fresh group, then a second one
// in which every member but the first claims what it got.
//
//	go test ./nodes/group -run '^$' -bench 'LargeAssignment' -benchtime 1x
//
// The full-size tests, which check the result instead, run with
// -sticky.large.

var largeSticky = flag.Bool("sticky.large", false, "run Kafka's large sticky assignment cases (1M partitions, 2,000 members) as tests")

// largeCase builds Kafka's setup: topicCount topics of 2,000 partitions,
// 2,000 members; with nonEqual the last member subscribes to the first
// topic only.
func largeCase(e *kafkaEnv, topicCount int, nonEqual bool) (subOf func(int) []string, ids []string) {
	const partitionCount, consumerCount = 2000, 2000
	var all []string
	for i := range topicCount {
		all = append(all, canonical("t", i, topicCount))
		e.topic(all[i], partitionCount)
	}
	subOf = func(i int) []string {
		if nonEqual && i == consumerCount-1 {
			return all[:1]
		}
		return all
	}
	for i := range consumerCount {
		ids = append(ids, canonical("c", i, consumerCount))
	}
	return subOf, ids
}

// runLarge is one run of the Kafka case; it returns the second assignment.
func runLarge(e *kafkaEnv, subOf func(int) []string, ids []string) Assignment {
	e.members = e.members[:0]
	for i, id := range ids {
		e.put(e.plain(id, subOf(i), i))
	}
	a := e.assign()
	for i := 1; i < len(ids); i++ {
		e.put(e.v2(ids[i], subOf(i), a[ids[i]], generationID, i))
	}
	return e.assign()
}

// largeEnv is the environment of Kafka's large cases: without consumer
// racks 500 topics (1,000,000 partitions); with them, as Kafka shrinks the
// rack-aware variant, 50 topics.
func largeEnv(t *testing.T, coop, racks bool) (*kafkaEnv, int) {
	e := newEnv(t, coop)
	if racks {
		e.initializeRacks(brokerAndConsumerRack)
		return e, 50
	}
	e.initializeRacks(noConsumerRack)
	return e, 500
}

func benchLarge(b *testing.B, nonEqual bool) {
	for _, racks := range []bool{false, true} {
		for _, coop := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/rack=%v", assignorName(coop), racks), func(b *testing.B) {
				e, topicCount := largeEnv(nil, coop, racks)
				subOf, ids := largeCase(e, topicCount, nonEqual)
				for b.Loop() {
					runLarge(e, subOf, ids)
				}
				b.ReportMetric(float64(topicCount*2000), "partitions")
				b.ReportMetric(float64(len(ids)), "members")
			})
		}
	}
}

// Kafka: AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription
func BenchmarkLargeAssignmentAndGroupWithUniformSubscription(b *testing.B) { benchLarge(b, false) }

// Kafka: AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithNonEqualSubscription
func BenchmarkLargeAssignmentAndGroupWithNonEqualSubscription(b *testing.B) { benchLarge(b, true) }

// TestLargeAssignment runs both large cases at full size and checks the
// second assignment is valid and balanced (behind -sticky.large: about a
// minute on two cores).
//
// Kafka: AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithUniformSubscription
// Kafka: AbstractStickyAssignorTest.testLargeAssignmentAndGroupWithNonEqualSubscription
func TestLargeAssignment(t *testing.T) {
	if !*largeSticky {
		t.Skip("needs -sticky.large")
	}
	for _, nonEqual := range []bool{false, true} {
		for _, racks := range []bool{false, true} {
			for _, coop := range []bool{false, true} {
				t.Run(fmt.Sprintf("nonEqual=%v/%s/rack=%v", nonEqual, assignorName(coop), racks), func(t *testing.T) {
					e, topicCount := largeEnv(t, coop, racks)
					subOf, ids := largeCase(e, topicCount, nonEqual)
					checkValidityAndBalance(t, e.members, e.verify(runLarge(e, subOf, ids)))
				})
			}
		}
	}
}
