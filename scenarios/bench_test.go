package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// BenchmarkScenario runs each catalog scenario once per iteration, with a
// new seed each time and the checkers included, and reports virtual
// seconds per wall second and seeds per minute (on one core: a sweep runs
// one such loop per worker).
func BenchmarkScenario(b *testing.B) {
	for _, sc := range Catalog() {
		b.Run(sc.Name, func(b *testing.B) {
			var virtual float64
			seed := uint64(1)
			for b.Loop() {
				res, err := Run(sc, seed, Options{LinearizabilityBudget: 5 * time.Second})
				if err != nil {
					b.Fatal(err)
				}
				virtual += res.Stats.VirtualSeconds
				seed++
			}
			wall := b.Elapsed().Seconds()
			b.ReportMetric(virtual/wall, "sim-s/s")
			b.ReportMetric(float64(b.N)/wall*60, "seeds/min")
		})
	}
}

// BenchmarkGroup is issue #7's group benchmark: one group of 10 consumers
// over 30 partitions (rf 3, a producer at 50 records per virtual second)
// in which a member crashes every virtual minute and restarts 20 s later.
// Each iteration plays 10 virtual minutes; it reports the rebalances the
// coordinator completed per wall second and virtual seconds per wall
// second. The checkers are not run: this measures the protocol.
func BenchmarkGroup(b *testing.B) {
	const minutes = 10
	var virtual float64
	var rebalances int
	seed := uint64(1)
	for b.Loop() {
		kc := groupConfig()
		s, err := NewScripted(fixture.Options{Seed: seed, Config: kc, Spec: fixture.Spec{Partitions: 30, Groups: []fixture.GroupSpec{{Name: "g", Members: 10}}}})
		if err != nil {
			b.Fatal(err)
		}
		r := s.Sim.Rand("bench/group")
		members := s.MembersOf("g")
		var text strings.Builder
		for m := 1; m < minutes; m++ {
			at := s.ready + time.Duration(m)*time.Minute
			fmt.Fprintf(&text, "from %v to %v crash %d\n", at, at+20*time.Second, int(members[r.IntN(len(members))]))
		}
		if _, err := faults.Apply(world{s}, faults.MustParse("bench", text.String())); err != nil {
			b.Fatal(err)
		}
		start := s.Sim.Now()
		s.Sim.Run(start + minutes*time.Minute)
		virtual += (s.Sim.Now() - start).Seconds()
		rebalances += len(s.Observed.Generations)
		seed++
	}
	wall := b.Elapsed().Seconds()
	b.ReportMetric(float64(rebalances)/wall, "rebalances/s")
	b.ReportMetric(virtual/wall, "sim-s/s")
	b.ReportMetric(float64(rebalances)/float64(b.N), "rebalances/run")
}
