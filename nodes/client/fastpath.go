package client

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
)

// producerFastPath is the producer's state that only saves work: caches,
// skip flags, scratch buffers and a free list. None of it decides what the
// producer sends or when: a cache answers what the metadata or the
// accumulator would, a skip is taken only when the pass it skips would
// change nothing, and a buffer is written over before it is read. So a
// producer that ran a full pass after every event (runEveryEvent) makes
// the same run, which sender_test.go's quiet-run comparison checks. Each
// field says what it speeds up and what invalidates it.
type producerFastPath struct {
	// topic saves Send the lookups by topic name for the last record's
	// topic (see topicCache); a record for another topic empties it, and
	// a new metadata version invalidates its partition count.
	topic topicCache
	// lead caches md.leader for each accumulator queue, by position: run
	// looks leaders up several times per queue after every event. It is
	// invalid once the metadata version is no longer leadVer, or a queue
	// was added.
	lead    []queueLeader
	leadVer uint64
	// expireAt is a lower bound of the earliest delivery.timeout.ms
	// deadline of a batch waiting or in flight: before it, expire has
	// nothing to find and skips the walk over every batch. Every append
	// lowers it to the new batch's deadline; expire's walk sets it anew.
	expireAt time.Duration

	// What the last sender pass (run) left, for appendQuiet and
	// answerQuiet, which skip the pass after an append or an answer that
	// cannot have given it anything to do: nextAt is the deadline it
	// computed (nothing is due before it), settled that a pass before
	// nextAt would change nothing unless an event came in between (see
	// isSettled), leaderless that drain found a batch without a leader,
	// and blocked that some queue's head was ready but could not leave, or
	// waits behind a muted partition. The next pass sets them all anew;
	// an append that makes a metadata refresh due clears settled, and a
	// skipped append moves nextAt to its batch's deadlines.
	nextAt     time.Duration
	settled    bool
	leaderless bool
	blocked    bool
	// answered says completeBatch found its answer quiet (answerQuiet):
	// Receive skips the pass, and clears it.
	answered bool
	// runEveryEvent turns appendQuiet and answerQuiet off, so that a test
	// can compare a run with a sender pass after every event against one
	// without; passesSkipped and answersSkipped count the passes the two
	// skipped, for tests.
	runEveryEvent                 bool
	passesSkipped, answersSkipped int

	// byLeader groups the queues by their leader (lead), leaders in
	// increasing order, each with its queue indexes ascending (see
	// queuesOf).
	byLeader []leaderQueues

	// Scratch slices drain and drainNode reuse on every pass: each pass
	// empties them before it writes.
	leadersBuf []model.BrokerID
	heldBuf    []int
	// sealBuf is the buffer every wire batch is encoded into to compute
	// its CRC (see batch.wire), written over by each.
	sealBuf []byte
	// reqPool holds produce requests whose answers came back and were
	// handled, for the next attempts to reuse (see produceAnswered).
	reqPool []*model.ProduceRequest
}

// topicCache is what Send looks up by name for the topic of the last
// record it handled: the partition count as metadata version ver gave it
// (known false when it gave none), the sticky partitioner's state (nil
// until a keyless record asked), and whether the topic is known to be
// one of interest (a producer's topics never stop being). A producer
// sends to one topic or a few, and hashing the name or comparing it with
// others three times per record shows in profiles. Each entry holds only
// while name is the record's topic.
type topicCache struct {
	name     string
	set      bool // count and known were read at ver
	ver      uint64
	count    int32
	known    bool
	sticky   *sticky
	interest bool
}

// cached returns the cache, emptied first unless it is topic's.
func (p *Producer) cached(topic string) *topicCache {
	c := &p.fast.topic
	if c.name != topic {
		*c = topicCache{name: topic}
	}
	return c
}

// partitions is p.md.partitions(topic), from the cache while the metadata
// is the version it was read from.
func (p *Producer) partitions(topic string) (int32, bool) {
	c := p.cached(topic)
	if !c.set || c.ver != p.md.ver {
		c.count, c.known = p.md.partitions(topic)
		c.set, c.ver = true, p.md.ver
	}
	return c.count, c.known
}

// stickyFor returns the topic's sticky partitioner state, creating it.
func (p *Producer) stickyFor(topic string) *sticky {
	c := p.cached(topic)
	if c.sticky == nil {
		c.sticky = p.sticky[topic]
		if c.sticky == nil {
			c.sticky = &sticky{part: -1}
			p.sticky[topic] = c.sticky
		}
	}
	return c.sticky
}

// addTopic is p.md.addTopic(topic), skipped for a topic the cache knows
// to be one of interest already.
func (p *Producer) addTopic(topic string) bool {
	c := p.cached(topic)
	if c.interest {
		return false
	}
	c.interest = true
	return p.md.addTopic(topic)
}

// queueLeader is the leader and leader epoch of one accumulator queue.
type queueLeader struct {
	broker model.BrokerID
	epoch  model.Epoch
}

// queueLeader returns md.leader(p.acc.tps[i]), from the cache while the
// metadata and the queues are unchanged.
func (p *Producer) queueLeader(i int) (model.BrokerID, model.Epoch) {
	p.refreshQueueLeaders()
	return p.fast.lead[i].broker, p.fast.lead[i].epoch
}

// leaderQueues is the accumulator's queues one broker leads.
type leaderQueues struct {
	broker model.BrokerID
	queues []int // indexes into p.acc.tps and p.acc.queues, ascending
}

// queuesOf returns the indexes of the queues leader leads, ascending: what
// a walk of every queue comparing its leader finds, from the cache while
// the metadata and the queues are unchanged. The caller must not change
// it, and a new metadata version or queue replaces it.
func (p *Producer) queuesOf(leader model.BrokerID) []int {
	p.refreshQueueLeaders()
	g := p.fast.byLeader
	i, _ := slices.BinarySearchFunc(g, leader, func(q leaderQueues, b model.BrokerID) int { return cmp.Compare(q.broker, b) })
	if i < len(g) && g[i].broker == leader {
		return g[i].queues
	}
	return nil
}

// refreshQueueLeaders reads every queue's leader again, and groups the
// queues by it, when the metadata or the queues changed since.
func (p *Producer) refreshQueueLeaders() {
	f := &p.fast
	if f.leadVer == p.md.ver && len(f.lead) == len(p.acc.tps) {
		if CheckIncremental {
			p.checkQueueLeaders()
		}
		return
	}
	f.lead = f.lead[:0]
	for _, tp := range p.acc.tps {
		l, e := p.md.leader(tp)
		f.lead = append(f.lead, queueLeader{broker: l, epoch: e})
	}
	f.leadVer = p.md.ver
	var groups []leaderQueues
	for i, q := range f.lead {
		at, found := slices.BinarySearchFunc(groups, q.broker, func(g leaderQueues, b model.BrokerID) int { return cmp.Compare(g.broker, b) })
		if !found {
			groups = slices.Insert(groups, at, leaderQueues{broker: q.broker})
		}
		groups[at].queues = append(groups[at].queues, i)
	}
	f.byLeader = groups
}

// checkQueueLeaders is CheckIncremental's check of the leader cache, when
// it is taken as valid, against the metadata.
func (p *Producer) checkQueueLeaders() {
	for i, tp := range p.acc.tps {
		l, e := p.md.leader(tp)
		if c := p.fast.lead[i]; c.broker != l || c.epoch != e {
			panic(fmt.Sprintf("producer: queue %d (%v) cached as led by %v at epoch %d, the metadata says %v at %d", i, tp, c.broker, c.epoch, l, e))
		}
	}
}

// forgetProducer empties the caches that describe one producer's
// accumulator and partitioners, for the producer made anew (reopen).
func (f *producerFastPath) forgetProducer() {
	f.topic = topicCache{}
	f.lead, f.leadVer, f.byLeader = f.lead[:0], 0, nil
	f.expireAt = 0
	f.settled = false
}
