package scenarios

import (
	"testing"
	"time"
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
