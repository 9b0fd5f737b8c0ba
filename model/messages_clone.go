package model

import "slices"

// The produce and fetch messages carry memory their senders reuse: a
// producer's request and a fetcher's request go back on a free list once
// their answer is handled (ReuseProduceRequest, ReuseFetchRequest), the
// answer lives in the request's room, and a batch's records array passes
// to a later batch. A network that delivers a message twice (datagram
// chaos) would show the second receiver memory its sender had written over
// since. So these messages are sim.Cloners: the network delivers each
// duplicate as a Clone made when the message was sent, and no node needs
// to know which links duplicated. A clone owns everything its sender may
// write over; what nobody changes once sent (a fetch answer's batches,
// the log's own) it shares. A clone has no room: an answer to it is
// allocated anew.

// Clone returns a copy of m with records of its own.
func (m *ProduceRequest) Clone() any {
	c := *m
	c.room = nil
	c.Batch.Records = slices.Clone(m.Batch.Records)
	return &c
}

// Clone returns a copy of m outside its request's room.
func (m *ProduceResponse) Clone() any {
	c := *m
	return &c
}

// Clone returns a copy of m with partitions of its own.
func (m *FetchRequest) Clone() any {
	c := *m
	c.room = nil
	c.Partitions = slices.Clone(m.Partitions)
	c.Forgotten = slices.Clone(m.Forgotten)
	return &c
}

// Clone returns a copy of m with partitions of its own, outside its
// request's room; the batches are the leader log's, which nobody changes.
func (m *FetchResponse) Clone() any {
	c := *m
	c.Partitions = slices.Clone(m.Partitions)
	return &c
}
