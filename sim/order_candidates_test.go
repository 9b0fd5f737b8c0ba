package sim

// The orderings the kernel's queue was chosen from (BenchmarkQueueOrder,
// TestQueueOrdersAgree): the binary heap it used before, the quaternary heap
// it uses now (heap.go), and a calendar queue (order_calendar_test.go). The
// binary heap stays as the yardstick BenchmarkBareHeap measures the kernel
// against.

// keyOrder is what the comparison drives; the kernel uses its ordering's
// concrete type, not this interface.
type keyOrder interface {
	push(k key)
	pop() key
	len() int
}

// binaryHeap is a binary min-heap of keys.
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
