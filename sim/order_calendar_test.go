package sim

import "time"

// calendarQueue is R. Brown's calendar queue (CACM 31(10), 1988): a ring of
// buckets, each a day of width 2^shift nanoseconds, a key going to the
// bucket of its day modulo the ring's length; each bucket is kept sorted.
// Popping walks the ring from the current day and takes the first bucket
// head that falls within its day of the current lap. The ring is rebuilt
// with a new day width, from the gaps between the earliest keys, whenever
// the number of keys doubles or halves. It relies on what the kernel
// guarantees: nothing is pushed earlier than the last key popped.
type calendarQueue struct {
	buckets []calendarBucket
	shift   uint          // a day is 1<<shift nanoseconds
	cur     int           // bucket of the day of the last pop
	top     time.Duration // end of that day
	last    time.Duration // time of the last pop
	size    int
}

// calendarBucket holds keys sorted by (time, sequence) from head on.
type calendarBucket struct {
	keys []key
	head int
}

const calendarMinBuckets = 16

func (c *calendarQueue) len() int { return c.size }

func (c *calendarQueue) push(k key) {
	if c.buckets == nil {
		c.rebuild(calendarMinBuckets, 10)
	}
	c.insert(k)
	if c.size > 2*len(c.buckets) {
		c.resize(2 * len(c.buckets))
	}
}

// insert files k in its bucket; keys mostly arrive later than those
// already there, so the search runs from the back.
func (c *calendarQueue) insert(k key) {
	b := &c.buckets[int(uint64(k.at)>>c.shift)&(len(c.buckets)-1)]
	b.keys = append(b.keys, k)
	i := len(b.keys) - 1
	for i > b.head && k.less(b.keys[i-1]) {
		b.keys[i] = b.keys[i-1]
		i--
	}
	b.keys[i] = k
	c.size++
}

func (c *calendarQueue) pop() key {
	k := c.take()
	if n := len(c.buckets); n > calendarMinBuckets && c.size < n/2 {
		c.resize(n / 2)
	}
	return k
}

func (c *calendarQueue) take() key {
	mask := len(c.buckets) - 1
	day := time.Duration(1) << c.shift
	i, top := c.cur, c.top
	for range c.buckets {
		b := &c.buckets[i]
		if b.head < len(b.keys) && b.keys[b.head].at < top {
			c.cur, c.top = i, top
			return c.takeFrom(b)
		}
		i = (i + 1) & mask
		top += day
	}
	// A whole lap found nothing: jump to the earliest head.
	var best *calendarBucket
	for j := range c.buckets {
		b := &c.buckets[j]
		if b.head < len(b.keys) && (best == nil || b.keys[b.head].less(best.keys[best.head])) {
			best, i = b, j
		}
	}
	at := best.keys[best.head].at
	c.cur, c.top = i, (at>>c.shift+1)<<c.shift
	return c.takeFrom(best)
}

func (c *calendarQueue) takeFrom(b *calendarBucket) key {
	k := b.keys[b.head]
	b.head++
	switch {
	case b.head == len(b.keys):
		b.keys, b.head = b.keys[:0], 0
	case b.head >= 32 && 2*b.head >= len(b.keys):
		b.keys = b.keys[:copy(b.keys, b.keys[b.head:])]
		b.head = 0
	}
	c.size--
	c.last = k.at
	return k
}

// resize rebuilds the ring with n buckets and a day about three times the
// mean gap between the earliest keys, leaving out gaps over twice the mean
// as Brown does.
func (c *calendarQueue) resize(n int) {
	last := c.last // sampling pops; the ring restarts where it was
	sample := make([]key, 0, 25)
	for len(sample) < cap(sample) && c.size > 0 {
		sample = append(sample, c.take())
	}
	shift := c.shift
	if len(sample) > 1 {
		mean := (sample[len(sample)-1].at - sample[0].at) / time.Duration(len(sample)-1)
		var sum time.Duration
		var count int
		for j := 1; j < len(sample); j++ {
			if gap := sample[j].at - sample[j-1].at; gap <= 2*mean {
				sum += gap
				count++
			}
		}
		day := 3 * sum / time.Duration(max(count, 1))
		for shift = 0; time.Duration(1)<<shift < day; shift++ {
		}
	}
	rest := c.buckets
	c.rebuild(n, shift)
	c.last = last
	c.cur, c.top = int(uint64(last)>>shift)&(n-1), (last>>shift+1)<<shift
	for j := range rest {
		b := &rest[j]
		for _, k := range b.keys[b.head:] {
			c.insert(k)
		}
	}
	for _, k := range sample {
		c.insert(k)
	}
}

func (c *calendarQueue) rebuild(n int, shift uint) {
	c.buckets = make([]calendarBucket, n)
	c.shift = shift
	c.size = 0
	c.cur, c.top = int(uint64(c.last)>>shift)&(n-1), (c.last>>shift+1)<<shift
}
