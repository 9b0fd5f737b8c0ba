package checkers

import (
	"math/rand/v2"
	"testing"
)

// A partMap answers as a map does, dense or not, through any sequence of
// puts, deletes and keeps: the order walks use the dense one for few
// partitions and the sparse one for many.
func TestPartMapActsAsAMap(t *testing.T) {
	const parts = 40
	for _, dense := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(7, 1))
		m := newPartMap[int](parts, dense)
		want := map[int32]int{}
		for step := range 5000 {
			k := int32(rng.IntN(parts))
			switch rng.IntN(10) {
			case 0:
				m.del(k)
				delete(want, k)
			case 1:
				odd := rng.IntN(2) == 0
				keep := func(k int32) bool { return (k%2 == 1) == odd }
				m.keep(keep)
				for k := range want {
					if !keep(k) {
						delete(want, k)
					}
				}
			default:
				m.put(k, step)
				want[k] = step
			}
			for k := range int32(parts) {
				got, ok := m.get(k)
				w, wok := want[k]
				if ok != wok || got != w {
					t.Fatalf("dense %v, step %d: get(%d) = %d, %v; want %d, %v", dense, step, k, got, ok, w, wok)
				}
			}
		}
	}
}
