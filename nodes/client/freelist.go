package client

// popFree takes the most recently freed object off a free list, or returns
// nil when the list is empty. The slot is cleared, so that the list keeps
// no reference to an object back in use. Each list's owner decides what may
// go on it (the answer came back and was handled, the bound) and pushes
// with append.
func popFree[T any](free *[]*T) *T {
	n := len(*free)
	if n == 0 {
		return nil
	}
	x := (*free)[n-1]
	(*free)[n-1] = nil
	*free = (*free)[:n-1]
	return x
}
