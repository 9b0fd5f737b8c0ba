package sim

// binaryHeap is the kernel's event order: a binary min-heap of keys. It was
// kept after measuring a quaternary heap and a calendar queue against it
// (BenchmarkQueueOrder, TestQueueOrdersAgree; order_candidates_test.go):
// on BenchmarkKernel, with a thousand timers pending, the binary heap was
// the fastest of the three (docs/performance.md).
type binaryHeap []key

func (h *binaryHeap) len() int { return len(*h) }

func (h *binaryHeap) push(k key) {
	a := append(*h, k)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !k.less(a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = k
	*h = a
}

func (h *binaryHeap) pop() key {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	if n > 0 {
		i := 0
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			if r := c + 1; r < n && a[r].less(a[c]) {
				c = r
			}
			if !a[c].less(last) {
				break
			}
			a[i] = a[c]
			i = c
		}
		a[i] = last
	}
	*h = a
	return top
}
