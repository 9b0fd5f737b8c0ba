package scenarios

import (
	"fmt"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// largeCluster is issue 24's cluster at scale: 30 brokers, 3,000
// partitions over three topics (and the fixture's "t"), a keyless producer, the assigning consumer reading every partition and a
// group of two. Its faults are rolling crashes (one broker after another,
// each down 3 s, 6 s apart, from a rotation drawn from the seed) and, in
// the middle, a crash of the active controller: what a KRaft cluster of
// that size sees in an unplanned rolling restart. It is outside the safe
// sweep: a run takes far longer than the safe scenarios' (see
// docs/scenarios.md).
func largeCluster() Scenario {
	return Scenario{
		Name:        "large-cluster",
		Description: "30 brokers and 3,000 partitions over three topics: brokers crash one after another, and the active controller once, while a producer writes and a group reads",
		Config:      shaped,
		Spec: fixture.Spec{
			Brokers: 30,
			Shape: &fixture.Shape{
				Topics: []fixture.TopicShape{{Name: "orders", Partitions: 1500}, {Name: "events", Partitions: 1000}, {Name: "clicks", Partitions: 499}},
				Producers: []fixture.ProducerShape{
					{Name: "keyless", Topics: []string{"orders", "events", "clicks"}},
				},
			},
			Groups: readersGroup,
		},
		Schedule:      largeClusterSchedule,
		Safety:        40 * time.Second,
		LivenessBound: 120 * time.Second,
	}
}

// largeClusterSchedule crashes the brokers in turn, starting at a broker
// drawn from the seed, each for 3 s and 6 s apart, and the active
// controller once, halfway through the safety phase.
func largeClusterSchedule(s *Scripted) faults.Schedule {
	r := s.Sim.Rand("scenario/large-cluster")
	var b strings.Builder
	first := r.IntN(len(s.Brokers))
	mid := s.ready + (s.safety-s.ready)/2
	controller := false
	for i, t := 0, s.ready+5*time.Second; t+3*time.Second <= s.safety && i < len(s.Brokers); i, t = i+1, t+6*time.Second {
		if !controller && t >= mid {
			fmt.Fprintf(&b, "from %v to %v crash controller\n", mid, mid+5*time.Second)
			controller = true
		}
		fmt.Fprintf(&b, "from %v to %v crash %v\n", t, t+3*time.Second, s.Brokers[(first+i)%len(s.Brokers)])
	}
	return faults.MustParse("large-cluster", b.String())
}
