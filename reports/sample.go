package reports

import (
	"slices"
	"time"
)

// sampleCap bounds the values a Sample holds. Up to it a Sample is exact
// (every quantile a failover had); past it, it is a uniform reservoir of
// that many values, so a sweep of any length summarises in bounded
// memory. At 8 bytes a value, one metric of one group costs at most
// 80 kB.
const sampleCap = 10000

// Sample is the values of one metric over a group's failovers, kept
// exactly while they are few and as a bounded uniform reservoir
// (Vitter's algorithm R) once they are many; the count and the maximum
// stay exact. The reservoir draws from its own fixed generator, so the
// same values in the same order give the same sample and the same report.
type Sample struct {
	n      int
	max    time.Duration
	values []time.Duration
	sorted bool
	rng    uint64
}

// Add records one value.
func (s *Sample) Add(d time.Duration) {
	s.n++
	if s.n == 1 || d > s.max {
		s.max = d
	}
	s.sorted = false
	if len(s.values) < sampleCap {
		s.values = append(s.values, d)
		return
	}
	if j := s.next() % uint64(s.n); j < sampleCap {
		s.values[j] = d
	}
}

// next is splitmix64: a fixed stream, the same for every sample.
func (s *Sample) next() uint64 {
	s.rng += 0x9e3779b97f4a7c15
	z := s.rng
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// N is how many values were added (not how many are kept).
func (s *Sample) N() int { return s.n }

// Exact says every value added is kept.
func (s *Sample) Exact() bool { return s.n <= sampleCap }

// Sorted returns the kept values in order; the caller must not change
// them.
func (s *Sample) Sorted() []time.Duration {
	if !s.sorted {
		slices.Sort(s.values)
		s.sorted = true
	}
	return s.values
}

// Quantiles are the nearest-rank quantiles of the kept values, with the
// exact count and maximum.
func (s *Sample) Quantiles() Quantiles {
	vs := s.Sorted()
	q := Quantiles{N: s.n, P50: Quantile(vs, 0.5), P90: Quantile(vs, 0.9), P99: Quantile(vs, 0.99), Max: -1}
	if s.n > 0 {
		q.Max = s.max
	}
	return q
}
