package client

import (
	"cmp"
	"fmt"
	"slices"
)

// pollOrder lists what a poll may return, so that a poll looks at the
// partitions holding fetched records rather than at every one assigned:
// Kafka's FetchBuffer likewise holds only the completed fetches, and
// KafkaConsumer.poll drains it. buffered holds, once each, every
// partition that took records since a poll last found it empty
// (partState.listed), and errMaybe says some partition may have an error
// for the next poll to raise (partState.errNext is set only with it).
type pollOrder struct {
	buffered []*partState
	errMaybe bool
}

// noteBuffered lists ps for the polls once it holds records.
func (c *Consumer) noteBuffered(ps *partState) {
	if len(ps.buf) > 0 && !ps.listed {
		ps.listed = true
		c.polls.buffered = append(c.polls.buffered, ps)
	}
}

// relistBuffered lists the buffered partitions of a new assignment: those
// it kept that hold records.
func (c *Consumer) relistBuffered() {
	for _, ps := range c.polls.buffered {
		ps.listed = false
	}
	clear(c.polls.buffered)
	c.polls.buffered = c.polls.buffered[:0]
	for _, ps := range c.states {
		c.noteBuffered(ps)
	}
}

// pollVisits returns the partitions a poll visits, in the order it visits
// them: those holding records, in assignment order starting at the
// rotation's place (pollNext), as a walk of the whole assignment from
// there would meet them. Partitions found empty leave the list.
func (c *Consumer) pollVisits() []*partState {
	list := c.polls.buffered[:0]
	for _, ps := range c.polls.buffered {
		if len(ps.buf) == 0 {
			ps.listed = false
			continue
		}
		list = append(list, ps)
	}
	clear(c.polls.buffered[len(list):])
	slices.SortFunc(list, func(a, b *partState) int { return cmp.Compare(a.rank, b.rank) })
	c.polls.buffered = list
	at, _ := slices.BinarySearchFunc(list, c.pollNext, func(ps *partState, rank int) int { return cmp.Compare(ps.rank, rank) })
	order := append(c.pollBuf[:0], list[at:]...)
	c.pollBuf = append(order, list[:at]...)
	if CheckIncremental {
		c.checkPollVisits(c.pollBuf)
	}
	return c.pollBuf
}

// checkPollVisits is CheckIncremental's check of a poll's visits: the
// partitions holding records met by a walk of the whole assignment from
// the rotation's place.
func (c *Consumer) checkPollVisits(visits []*partState) {
	var all []*partState
	for i, n := 0, len(c.states); i < n; i++ {
		if ps := c.states[(c.pollNext+i)%n]; len(ps.buf) > 0 {
			all = append(all, ps)
		}
	}
	if !slices.Equal(all, visits) {
		panic(fmt.Sprintf("consumer: a poll visits %d partitions holding records, a walk of the assignment finds %d", len(visits), len(all)))
	}
}
