package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// candidateOrders makes one empty instance of each ordering compared.
var candidateOrders = []struct {
	name string
	make func() keyOrder
}{
	{"binary", func() keyOrder { return new(binaryHeap) }},
	{"quaternary", func() keyOrder { return new(quaternaryHeap) }},
	{"calendar", func() keyOrder { return new(calendarQueue) }},
}

// referenceOrder pops by scanning for the least (time, sequence) pair, with
// its own comparison, so that a tie broken wrongly in key.less shows too.
type referenceOrder []key

func (r *referenceOrder) len() int   { return len(*r) }
func (r *referenceOrder) push(k key) { *r = append(*r, k) }
func (r *referenceOrder) pop() key {
	a := *r
	least := 0
	for i, k := range a {
		if k.at < a[least].at || k.at == a[least].at && k.seq < a[least].seq {
			least = i
		}
	}
	k := a[least]
	a[least] = a[len(a)-1]
	*r = a[:len(a)-1]
	return k
}

// TestQueueOrdersAgree drives every ordering with the same pushes and pops
// and checks each pops exactly what the reference pops. Delays are whole
// milliseconds, zero included, so that most keys tie in time with others;
// the queue grows to thousands and drains, so the calendar resizes.
func TestQueueOrdersAgree(t *testing.T) {
	for _, c := range candidateOrders {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 24))
			q, ref := c.make(), new(referenceOrder)
			var now time.Duration
			var seq uint64
			for step := range 60_000 {
				pushBias := 55 // grow, then drain, then grow again
				if step/15_000%2 == 1 {
					pushBias = 45
				}
				if ref.len() == 0 || r.IntN(100) < pushBias {
					seq++
					var d time.Duration
					switch r.IntN(10) {
					case 0:
						d = time.Duration(r.IntN(1000)) * time.Millisecond
					case 1:
						d = time.Duration(r.IntN(1000)) * time.Nanosecond
					default:
						d = time.Duration(r.IntN(4)) * time.Millisecond
					}
					k := key{at: now + d, seq: seq, idx: int32(step)}
					q.push(k)
					ref.push(k)
					continue
				}
				want, got := ref.pop(), q.pop()
				if got != want {
					t.Fatalf("step %d: popped %+v, want %+v", step, got, want)
				}
				now = want.at
				if q.len() != ref.len() {
					t.Fatalf("step %d: %d keys, want %d", step, q.len(), ref.len())
				}
			}
		})
	}
}

// delays draws event delays in the proportions a cluster run has them:
// timers re-arming within a millisecond (as BenchmarkKernel's do), network
// deliveries of 0.5 to 5 ms, events for the same instant, and long timers
// (sessions, metadata refresh, retention) of 0.1 to 30 s.
type delays struct{ r *rand.Rand }

func (d delays) next() time.Duration {
	switch p := d.r.IntN(100); {
	case p < 40:
		return time.Duration(1+d.r.IntN(1000)) * time.Microsecond
	case p < 85:
		return 500*time.Microsecond + time.Duration(d.r.IntN(4500))*time.Microsecond
	case p < 95:
		return 0
	default:
		return 100*time.Millisecond + time.Duration(d.r.Int64N(int64(30*time.Second)))
	}
}

// BenchmarkQueueOrder measures each ordering in the hold model: with a
// fixed number of keys pending, pop the earliest and push one a random
// delay later. One op is one pop and one push.
func BenchmarkQueueOrder(b *testing.B) {
	for _, pending := range []int{1_000, 100_000, 1_000_000} {
		for _, c := range candidateOrders {
			b.Run(fmt.Sprintf("%s/%d", c.name, pending), func(b *testing.B) {
				d := delays{rand.New(rand.NewPCG(1, 2))}
				q := c.make()
				var seq uint64
				for range pending {
					seq++
					q.push(key{at: d.next(), seq: seq})
				}
				for b.Loop() {
					k := q.pop()
					seq++
					q.push(key{at: k.at + d.next(), seq: seq, idx: k.idx})
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// BenchmarkBareHeap is the yardstick for BenchmarkKernel: the same 1,000
// pending timers re-arming with the same random delays, in a binary heap of
// keys, with no work per event: no slab, dispatch, trace or hash.
func BenchmarkBareHeap(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var h binaryHeap
	var seq uint64
	for range 1000 {
		seq++
		h.push(key{at: time.Duration(1+r.IntN(1000)) * time.Microsecond, seq: seq})
	}
	for b.Loop() {
		k := h.pop()
		seq++
		h.push(key{at: k.at + time.Duration(1+r.IntN(1000))*time.Microsecond, seq: seq, idx: k.idx})
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
