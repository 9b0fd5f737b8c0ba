package sim

// binaryHeap is the kernel's event order: a binary min-heap of keys. It was
// kept after measuring a quaternary heap and a calendar queue against it
// (BenchmarkQueueOrder, TestQueueOrdersAgree; order_candidates_test.go):
// on BenchmarkKernel, with a thousand timers pending, the binary heap was
// the fastest of the three (docs/performance.md). The kernel handles the
// earliest event while it is still the root and lets the handler's first
// push replace it (replaceTop): one sift-down instead of two passes.
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
		a.siftDown(last)
	}
	*h = a
	return top
}

// replaceTop removes the earliest key and adds k in one pass: k takes the
// root and sinks to its place, which costs one sift-down where a pop and a
// push cost a sift-down and a sift-up.
func (h binaryHeap) replaceTop(k key) { h.siftDown(k) }

// siftDown places k, which is to fill the root, where the heap order wants
// it, moving the smaller child up at each level.
func (h binaryHeap) siftDown(k key) {
	n := len(h)
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].less(h[c]) {
			c = r
		}
		if !h[c].less(k) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = k
}
