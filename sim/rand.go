package sim

import "math/rand/v2"

// Streams hands out independent random streams derived from one seed and a
// name. Each stream's state depends only on (seed, name), so adding a stream,
// or drawing more from one, never changes what any other stream draws: a new
// fault kind does not reshuffle the workload.
type Streams struct {
	seed uint64
}

// NewStreams returns the stream source of a run with the given seed.
func NewStreams(seed uint64) Streams { return Streams{seed: seed} }

// Seed is the run's seed.
func (s Streams) Seed() uint64 { return s.seed }

// Stream returns a new random stream for name. Two calls with the same name
// return streams that draw the same values; callers keep the stream they got.
func (s Streams) Stream(name string) *rand.Rand {
	h := fnv64(name)
	return rand.New(rand.NewPCG(splitmix64(s.seed^h), splitmix64(h+0x9e3779b97f4a7c15*(s.seed|1))))
}

// splitmix64 is Vigna's SplitMix64 finaliser: a bijective mixer that turns
// nearby inputs (seeds 1, 2, 3, ...) into unrelated outputs.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// fnv64 is FNV-1a over a string, without allocating.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
