package sim

// The orderings the kernel's queue was chosen from (BenchmarkQueueOrder,
// TestQueueOrdersAgree): the binary heap it uses (heap.go), a quaternary
// heap (below) and a calendar queue (order_calendar_test.go). The binary
// heap is also the yardstick BenchmarkBareHeap measures the kernel
// against.

// keyOrder is what the comparison drives; the kernel uses its ordering's
// concrete type, not this interface.
type keyOrder interface {
	push(k key)
	pop() key
	len() int
}

// quaternaryHeap is a min-heap of keys in which every node has four
// children: half the depth of a binary heap, and the four children of a
// node sit side by side in memory. Measured against the binary heap it was
// faster alone at a thousand pending, slower at a hundred thousand, level
// at a million, and made BenchmarkKernel slower, so the kernel does not
// use it.
type quaternaryHeap []key

func (h *quaternaryHeap) len() int { return len(*h) }

func (h *quaternaryHeap) push(k key) {
	a := append(*h, k)
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !k.less(a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = k
	*h = a
}

func (h *quaternaryHeap) pop() key {
	a := *h
	top := a[0]
	n := len(a) - 1
	last := a[n]
	a = a[:n]
	if n > 0 {
		i := 0
		for {
			c := 4*i + 1
			if c >= n {
				break
			}
			least := c
			for j, end := c+1, min(c+4, n); j < end; j++ {
				if a[j].less(a[least]) {
					least = j
				}
			}
			if !a[least].less(last) {
				break
			}
			a[i] = a[least]
			i = least
		}
		a[i] = last
	}
	*h = a
	return top
}
