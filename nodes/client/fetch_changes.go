package client

import (
	"fmt"
	"slices"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// CheckIncremental checks the work the clients save by following changes
// against the walks it saves them, and panics where they differ: every
// consumer fetch built from the partitions that changed against one built
// from all the leader's partitions (its partitions, its forgotten ones and
// the session left behind: checkDelta); the partitions a poll visits
// against a walk of the whole assignment (checkPollVisits); a producer's
// list of queues holding batches against a walk of every queue
// (accumulator.checkBusy). It is for tests, which set it before any run
// and leave it: a write that forgets to call fetchChanged, noteBuffered or
// markBusy would otherwise change a request or a poll silently.
var CheckIncremental bool

// The consumer builds an incremental fetch from what changed. After a
// fetch to a leader is built, the leader's session (fetchsession.Handler)
// holds exactly the partitions fetched with their parameters; every later
// write that may change whether a partition is fetched, or from where
// (its state, its position, its buffer, staleMeta), calls fetchChanged,
// which lists the partition once under its leader. The next incremental
// fetch to that leader looks at the listed partitions only
// (fetchsession.Handler.BuildDelta), and asks what Kafka's
// AbstractFetch.prepareFetchRequests with FetchSessionHandler.Builder.build
// would ask after walking them all. A new grouping by leader (new
// metadata, a new assignment) and a full fetch walk them all again.

// resetFetchChanges starts the change lists over after byLeader grouped
// the assignment again: every leader's next fetch walks all its
// partitions, and each partition knows its leader's place.
func (c *Consumer) resetFetchChanges() {
	x := &c.leaders
	n := len(x.leaders)
	x.whole = slices.Grow(x.whole[:0], n)[:n]
	x.inFlight = slices.Grow(x.inFlight[:0], n)[:n]
	for len(x.changed) < n {
		x.changed = append(x.changed, nil)
	}
	for i := range n {
		x.whole[i] = true
		clear(x.changed[i])
		x.changed[i] = x.changed[i][:0]
		for _, ps := range x.parts[i] {
			ps.slot = int32(i)
		}
	}
}

// fetchChanged notes that ps may be fetched differently, or not at all, or
// again: its leader's next incremental fetch looks at it.
func (c *Consumer) fetchChanged(ps *partState) {
	x := &c.leaders
	if ps.changed || ps.slot < 0 || int(ps.slot) >= len(x.changed) || x.whole[ps.slot] {
		return
	}
	ps.changed = true
	x.changed[ps.slot] = append(x.changed[ps.slot], ps)
}

// fetchWanted is what a fetch to the partition's leader asks of it, and
// whether it asks it at all: a partition is fetched when it has a
// position, nothing buffered that the application has not polled yet, and
// metadata not known stale (AbstractFetch.fetchablePartitions). The epoch
// is the leader's the consumer believes in (KIP-320).
func (c *Consumer) fetchWanted(ps *partState) (model.FetchPartition, bool) {
	if ps.state != stateFetching || len(ps.buf) > 0 || ps.staleMeta {
		return model.FetchPartition{}, false
	}
	_, epoch := c.leaderOf(ps)
	return model.FetchPartition{
		TP: ps.tp, FetchOffset: ps.position, CurrentLeaderEpoch: epoch,
		LastFetchedEpoch: model.NoEpoch, LogStartOffset: model.NoOffset, MaxBytes: partitionFetchMaxBytes,
	}, true
}

// fetchChanges lists what changed for x.leaders[i] and how many partitions
// its fetch would name after it: those its session holds and that did not
// change, and the changed ones now fetched.
func (c *Consumer) fetchChanges(i int, h *fetchsession.Handler) ([]fetchsession.Change, int) {
	x := &c.leaders
	changes := c.changes[:0]
	n := h.Len()
	for _, ps := range x.changed[i] {
		fp, want := c.fetchWanted(ps)
		if _, held := h.Holds(ps.tp); held {
			n--
		}
		if want {
			n++
		} else {
			fp.TP = ps.tp
		}
		changes = append(changes, fetchsession.Change{Want: want, Rank: ps.rank, Data: fp})
	}
	c.changes = changes
	return changes, n
}

// fetchChangesTaken empties x.leaders[i]'s change list once a fetch was
// built from it.
func (c *Consumer) fetchChangesTaken(i int) {
	x := &c.leaders
	for _, ps := range x.changed[i] {
		ps.changed = false
	}
	clear(x.changed[i])
	x.changed[i] = x.changed[i][:0]
	x.whole[i] = false
}

// checkDelta is CheckIncremental's check of a fetch to x.leaders[i] built
// from its changes: before is the session as it was, after the session
// BuildDelta left with send and forget. The same fetch built from all the
// leader's partitions must agree.
func (c *Consumer) checkDelta(i int, before, after *fetchsession.Handler, send []model.FetchPartition, forget []model.TopicPartition) {
	var want []model.FetchPartition
	for _, ps := range c.leaders.parts[i] {
		if fp, ok := c.fetchWanted(ps); ok {
			want = append(want, fp)
		}
	}
	_, allSend, allForget := before.Build(want, nil, nil)
	if !slices.Equal(send, allSend) || !slices.Equal(forget, allForget) || !slices.Equal(after.Partitions(), before.Partitions()) {
		panic(fmt.Sprintf("consumer: fetch to %d: from its changes it sends %v and forgets %v, from all its partitions %v and %v",
			c.leaders.leaders[i], send, forget, allSend, allForget))
	}
}
