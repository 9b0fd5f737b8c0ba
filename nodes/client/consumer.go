package client

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
	"kafkasim/sim"
)

// Consumer is a simulated Kafka consumer node with manual assignment: the
// application side of KafkaConsumer (assign, seek, a poll loop) over its
// SubscriptionState, Fetcher and OffsetFetcher. It records assign and seek
// ops, one poll op per poll that returned records, and a reset op each time
// it moved a position on its own: auto.offset.reset for a partition without
// a position or whose position left the log (OFFSET_OUT_OF_RANGE), or
// truncation detected after a leader change (KIP-320).
//
// With a GroupID it is a group member instead: a member (group.go) owns
// the group protocol and the Consumer calls it, as KafkaConsumer calls its
// ConsumerCoordinator. It records a
// subscribe op, the group assigns it partitions through setAssignment
// (each change of ownership a rebalance op), a newly assigned partition
// starts from the group's committed offset before auto.offset.reset is
// consulted (initPosition), and every OffsetCommit is a commit op.
type Consumer struct {
	opts    ConsumerOptions
	cfg     model.ConsumerConfig
	cl      model.ClientConfig
	rec     *model.Recorder
	process int
	env     *sim.Env

	net   network
	md    metadata
	parts map[model.TopicPartition]*partState // lookup only, never iterated
	order []model.TopicPartition              // the assignment, sorted
	// states[i] is parts[order[i]]: every pass walks the assignment, and
	// hashing each partition's topic name to find its state showed.
	states []*partState
	// fetchWait holds, per broker, the earliest time of its next fetch
	// after an empty answer (see handleFetch).
	fetchWait []brokerTime
	pollNext  int // rotation of the partition polls start from
	// fetchFree and recFree hold the fetch requests and request records
	// of answered fetches, for the next ones to reuse (see fetchAnswered).
	// leaders is the assignment by leader (see fetchLeaders); assignGen
	// counts the assignments installed.
	leaders   fetchLeaders
	assignGen uint64
	fetchFree []*model.FetchRequest
	recFree   []*request
	// sessions are the consumer's fetch sessions, one per broker
	// (AbstractFetch's sessionHandlers), and fetchWant sendFetch's
	// scratch list of the partitions it would fetch.
	sessions  map[model.BrokerID]*fetchsession.Handler // lookup only, never iterated
	fetchWant []model.FetchPartition
	changes   []fetchsession.Change // sendChangedFetch's scratch list
	// polls lists the partitions a poll may return records of, and
	// pollBuf is pollVisits' scratch list.
	polls   pollOrder
	pollBuf []*partState

	wake   wake
	pollID sim.TimerID

	grp *member // nil without a GroupID

	settled settledPositions // whether run may skip its pass over the assignment
}

// partState is one assigned partition's position and fetch state, after
// Kafka's SubscriptionState.TopicPartitionState.
type partState struct {
	tp    model.TopicPartition
	state posState
	// position is the next offset to return; positionEpoch the leader epoch
	// of the record before it (FetchPosition.offsetEpoch), NoEpoch when
	// unknown (after a seek), which is what KIP-320 validates.
	position      model.Offset
	positionEpoch model.Epoch
	// leader and leaderEpoch are the leader the position was last
	// validated against (FetchPosition.currentLeader).
	leader      model.BrokerID
	leaderEpoch model.Epoch
	// gen counts position changes; an answer to a request sent under an
	// older generation is stale and dropped.
	gen uint64
	// md caches what the metadata says of the partition's leader (see
	// Consumer.leaderOf).
	md partLeader
	// rank is the partition's place in the assignment, slot its leader's
	// in the grouping by leader (-1: none), and changed says it waits in
	// its leader's change list (fetch_changes.go).
	rank    int
	slot    int32
	changed bool
	listed  bool // in the consumer's list of buffered partitions (pollOrder)

	reqPending  bool          // a ListOffsets or OffsetsForLeaderEpoch is in flight
	retryAt     time.Duration // no request before (node clock)
	failures    int
	resetReason string
	resetFrom   model.Offset
	staleMeta   bool // not fetched until the next metadata answer

	buf []bufRecord // fetched, not yet returned by poll
	// skipTo is where the position goes once buf is returned: past the
	// batches the fetch held after its last record that poll does not
	// return (control batches, and aborted transactions' batches under
	// read_committed), as FetchCollector moves the position to
	// CompletedFetch.nextFetchOffset. NoOffset: none. skipEpoch is the
	// leader epoch of the last such batch.
	skipTo    model.Offset
	skipEpoch model.Epoch
	errNext   string // an error the next poll raises (auto.offset.reset=none)
}

// partLeader is md.leader of a partition as metadata version ver gave it;
// set says it was read.
type partLeader struct {
	set    bool
	ver    uint64
	leader model.BrokerID
	epoch  model.Epoch
}

// leaderOf is c.md.leader(ps.tp), from ps's cache while the metadata is
// the version it was read from (md.ver bumps with every answer applied).
// run looks up every partition's leader twice after every event the
// consumer handles, and a lookup is a binary search comparing topic names.
func (c *Consumer) leaderOf(ps *partState) (model.BrokerID, model.Epoch) {
	if m := &ps.md; !m.set || m.ver != c.md.ver {
		m.leader, m.epoch = c.md.leader(ps.tp)
		m.set, m.ver = true, c.md.ver
	}
	return ps.md.leader, ps.md.epoch
}

type posState uint8

const (
	stateInit       posState = iota // no position: initPosition decides
	stateResetting                  // auto.offset.reset via ListOffsets (AWAIT_RESET)
	stateValidating                 // KIP-320 validation (AWAIT_VALIDATION)
	stateFetching                   // FETCHING
	stateFailed                     // waits for a seek: auto.offset.reset=none
)

type bufRecord struct {
	offset model.Offset
	value  string
	epoch  model.Epoch
}

type brokerTime struct {
	broker model.BrokerID
	at     time.Duration
}

// Reset reasons, written in the reset op's Error field.
const (
	ResetNoOffset   = "no-offset"    // a partition without a position
	ResetRetention  = "retention"    // OFFSET_OUT_OF_RANGE below the log start
	ResetOutOfRange = "out-of-range" // OFFSET_OUT_OF_RANGE anywhere else (past the end)
	ResetTruncation = "truncation"   // KIP-320: the log was truncated below the position
)

const timerPoll = "poll"

// NewConsumer builds a consumer. Use it inside the node's factory.
func NewConsumer(opts ConsumerOptions) *Consumer {
	checkConsumer(&opts)
	if opts.PollInterval <= 0 {
		opts.PollInterval = defaultPollInterval
	}
	c := &Consumer{
		opts:  opts,
		cfg:   opts.Config.Consumer,
		cl:    opts.Config.Client,
		rec:   opts.Recorder,
		parts: map[model.TopicPartition]*partState{},
	}
	c.md = newMetadata(opts.Bootstrap, c.cl)
	if opts.GroupID != "" {
		c.grp = newMember(&c.opts, &c.net, &c.md, c)
	}
	return c
}

// Start boots the consumer: a fresh process with no positions. It assigns
// ConsumerOptions.Assignment, if any, or, for a group member, subscribes
// to ConsumerOptions.Topics (a restarted member joins its group again),
// and starts the poll loop.
func (c *Consumer) Start(env *sim.Env) {
	c.env = env
	c.net = newNetwork(env, c.cl)
	c.process = c.opts.Process
	if c.process == 0 {
		c.process = int(env.ID())
	}
	if len(c.opts.Assignment) > 0 {
		c.Assign(env, c.opts.Assignment)
	}
	if c.grp != nil {
		c.grp.process = c.process
		c.Subscribe(env, c.opts.Topics)
	}
	if !c.opts.ManualPoll {
		c.pollID = env.After(c.opts.PollInterval, timerPoll, 0)
	}
	c.run(env)
}

// Assign replaces the consumer's partitions (KafkaConsumer.assign) and
// records an assign op. Partitions that stay keep their positions, as in
// Kafka; new ones have none until auto.offset.reset gives them one. env may
// be nil from harness code outside the node's events.
func (c *Consumer) Assign(env *sim.Env, tps []model.TopicPartition) {
	env = c.envOr(env)
	if c.grp != nil {
		panic("client.Consumer.Assign: a group member subscribes (KafkaConsumer throws IllegalStateException)")
	}
	tps = slices.Clone(tps)
	slices.SortFunc(tps, model.TopicPartition.Compare)
	tps = slices.Compact(tps)
	if c.rec != nil {
		c.rec.Event(model.Op{Process: c.process, F: model.FAssign, Time: env.ObserverNow(), Partitions: slices.Clone(tps)})
	}
	c.setAssignment(env, tps)
	c.run(env)
}

// setAssignment installs an assignment without recording it: a group
// rebalance uses it and records its own rebalance op.
func (c *Consumer) setAssignment(env *sim.Env, tps []model.TopicPartition) {
	for _, tp := range c.order {
		if _, keep := slices.BinarySearchFunc(tps, tp, model.TopicPartition.Compare); !keep {
			delete(c.parts, tp)
		}
	}
	for _, tp := range tps {
		if c.parts[tp] == nil {
			c.parts[tp] = &partState{
				tp: tp, state: stateInit, position: model.NoOffset, positionEpoch: model.NoEpoch,
				leader: model.NoBroker, leaderEpoch: model.NoEpoch, resetFrom: model.NoOffset, skipTo: model.NoOffset,
			}
		}
	}
	c.order = tps
	c.assignGen++
	// A new array, as order is: a walk over the old one is left as it was.
	c.states = make([]*partState, len(tps))
	for i, tp := range tps {
		c.states[i] = c.parts[tp]
		c.states[i].rank = i
	}
	c.relistBuffered()
	c.setInterest()
}

// setInterest gives the metadata cache the topics the consumer needs:
// its assignment and, for a group member, its subscription, whose
// partition counts a group leader assigns from.
func (c *Consumer) setInterest() {
	topics := make([]string, 0, len(c.order))
	for _, tp := range c.order {
		topics = append(topics, tp.Topic)
	}
	if c.grp != nil {
		topics = c.grp.interest(topics)
	}
	c.md.setTopics(topics)
}

// Seek moves a partition's position (KafkaConsumer.seek) and records a seek
// op. The new position has no epoch, so, as in Kafka, it is not validated
// until a record read from it gives it one. Buffered records are dropped.
// env may be nil from harness code outside the node's events.
func (c *Consumer) Seek(env *sim.Env, tp model.TopicPartition, offset model.Offset) {
	env = c.envOr(env)
	ps := c.parts[tp]
	if ps == nil {
		panic(fmt.Sprintf("client.Consumer.Seek: %v is not assigned", tp))
	}
	if offset < 0 {
		panic(fmt.Sprintf("client.Consumer.Seek: negative offset %d", offset))
	}
	if c.rec != nil {
		c.rec.Event(model.Op{
			Process: c.process, F: model.FSeek, Time: env.ObserverNow(),
			Offsets: []model.PartitionOffset{{TP: tp, Offset: offset, From: model.NoOffset}},
		})
	}
	leader, epoch := c.md.leader(tp)
	c.setPosition(ps, offset, model.NoEpoch, leader, epoch)
	c.run(env)
}

// Position returns a partition's position, or NoOffset when it has none.
func (c *Consumer) Position(tp model.TopicPartition) model.Offset {
	if ps := c.parts[tp]; ps != nil && ps.state == stateFetching {
		return ps.position
	}
	return model.NoOffset
}

// Assignment returns the assigned partitions, sorted.
func (c *Consumer) Assignment() []model.TopicPartition { return slices.Clone(c.order) }

func (c *Consumer) envOr(env *sim.Env) *sim.Env {
	if env == nil {
		env = c.env
	}
	if env == nil {
		panic("client.Consumer used before Start")
	}
	return env
}

// setPosition installs a position and starts fetching from it.
func (c *Consumer) setPosition(ps *partState, offset model.Offset, epoch model.Epoch, leader model.BrokerID, leaderEpoch model.Epoch) {
	c.unsettle()
	c.fetchChanged(ps)
	ps.position, ps.positionEpoch = offset, epoch
	ps.leader, ps.leaderEpoch = leader, leaderEpoch
	ps.state = stateFetching
	ps.gen++
	ps.buf, ps.skipTo = nil, model.NoOffset
	ps.reqPending = false
	ps.errNext = ""
	ps.failures = 0
}

// poll is one turn of the application's poll loop (KafkaConsumer.poll):
// raise a pending error, or return up to max.poll.records buffered
// records, advancing the positions past them. A poll that returns records
// is recorded as a poll op invoked and completed at this instant; an empty
// poll is not recorded, and a poll that raises an error is recorded as
// fail with the error.
func (c *Consumer) poll(env *sim.Env) {
	at := env.ObserverNow()
	if m := c.grp; m != nil {
		// A member whose session may have expired must not hand out
		// another record first: after a pause its poll timer and its
		// self-fencing deadline come due at the same instant.
		m.maybeSelfFence(env)
		if err := m.raiseFatal(); err != "" {
			if c.rec != nil {
				i := c.rec.Invoke(model.Op{Process: c.process, F: model.FPoll, Time: at})
				c.rec.Fail(i, at, err)
			}
			return
		}
		if m.pollsPaused() {
			return
		}
	}
	if c.polls.errMaybe && c.raiseError(at) {
		return
	}
	out := c.takeRecords()
	if len(out) > 0 && c.rec != nil {
		i := c.rec.Invoke(model.Op{Process: c.process, F: model.FPoll, Time: at})
		c.rec.PollOK(i, at, out)
	}
}

// takeRecords returns up to max.poll.records buffered records, advancing
// the positions past them (Fetcher.collectFetch).
func (c *Consumer) takeRecords() []model.PartitionRecords {
	// Count first what the poll returns, so that its records (which the
	// history keeps) take one array, and the list of partitions another,
	// whatever the number of partitions.
	n := len(c.states)
	visits := c.pollVisits()
	parts, total := 0, 0
	for i, budget := 0, int(c.cfg.MaxPollRecords); i < len(visits) && budget > 0; i++ {
		if take := visits[i].pollable(budget); take > 0 {
			parts, total, budget = parts+1, total+take, budget-take
		}
	}
	var out []model.PartitionRecords
	if parts > 0 {
		out = make([]model.PartitionRecords, 0, parts)
		all := make([]model.OffsetValue, total)
		for i := 0; i < len(visits) && len(all) > 0; i++ {
			ps := visits[i]
			take := ps.pollable(len(all))
			if take == 0 {
				continue
			}
			// Capped, so that nothing appending to one partition's
			// records can write over the next one's.
			recs := all[:take:take]
			all = all[take:]
			for j, r := range ps.buf[:take] {
				recs[j] = model.OffsetValue{Offset: r.offset, Value: r.value}
			}
			c.fetchChanged(ps)
			last := ps.buf[take-1]
			ps.position, ps.positionEpoch = last.offset+1, last.epoch
			ps.buf = slices.Delete(ps.buf, 0, take)
			if len(ps.buf) == 0 {
				ps.skipPast()
			}
			out = append(out, model.PartitionRecords{TP: ps.tp, Records: recs})
		}
	}
	if n > 0 {
		c.pollNext = (c.pollNext + 1) % n
	}
	clear(visits)
	return out
}

// raiseError records the poll that raises the first partition's pending
// error, in assignment order, and reports whether there was one; finding
// none, it clears errMaybe.
func (c *Consumer) raiseError(at time.Duration) bool {
	for _, ps := range c.states {
		if ps.errNext == "" {
			continue
		}
		// Kafka throws the first such exception from poll and returns
		// nothing else.
		if c.rec != nil {
			i := c.rec.Invoke(model.Op{Process: c.process, F: model.FPoll, Time: at})
			c.rec.Fail(i, at, ps.errNext+" "+ps.tp.String())
		}
		ps.errNext = ""
		return true
	}
	c.polls.errMaybe = false
	return false
}

// pollable is how many of the partition's buffered records a poll with
// room for budget more returns.
func (ps *partState) pollable(budget int) int {
	if ps.state != stateFetching {
		return 0
	}
	return min(budget, len(ps.buf))
}

// Receive handles a broker's answer.
func (c *Consumer) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	broker := model.BrokerID(from)
	if c.net.heard(broker, m) {
		c.run(env)
		return
	}
	switch r := m.(type) {
	case model.MetadataResponse:
		if req := c.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqMetadata {
			c.md.apply(r, env.Now())
			for _, ps := range c.states {
				ps.staleMeta = false
			}
		}
	case *model.FetchResponse:
		if req := c.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqFetch {
			c.fetchAnswer(env, req, r)
		}
	case model.FetchResponse:
		if req := c.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqFetch {
			c.fetchAnswer(env, req, &r)
		}
	case model.ListOffsetsResponse:
		if req := c.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqListOffsets {
			c.handleListOffsets(env, req, r)
		}
	case model.OffsetsForLeaderEpochResponse:
		if req := c.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqOffsetsForEpoch {
			c.handleEpochAnswer(env, req, r)
		}
	default:
		// Only a member sends group requests, so only a member gets
		// their answers.
		if c.grp != nil {
			c.grp.receive(env, broker, m)
		}
	}
	c.run(env)
}

// Fire handles the consumer's timers.
func (c *Consumer) Fire(env *sim.Env, t sim.Timer) {
	switch t.Kind {
	case timerWake:
		c.wake.fired(t)
	case timerPoll:
		c.pollID = env.After(c.opts.PollInterval, timerPoll, 0)
		c.poll(env)
	}
	c.run(env)
}

// Disconnected fails the requests in flight to the peer and refreshes
// metadata.
func (c *Consumer) Disconnected(env *sim.Env, peer sim.NodeID) {
	c.brokerFailed(env, model.BrokerID(peer))
	c.run(env)
}

// run is one pass of the consumer's background work, made after every
// event: time out requests, give positions to partitions without one,
// validate positions after leader changes, send fetches, refresh metadata,
// and arm the wake timer.
func (c *Consumer) run(env *sim.Env) {
	now := env.Now()
	for {
		b, ok := c.net.timedOut(now)
		if !ok {
			break
		}
		c.brokerFailed(env, b)
	}
	if c.grp != nil {
		c.grp.run(env)
	}
	if !c.positionsSettled() {
		for _, ps := range c.states {
			c.updatePosition(env, ps)
		}
		c.settle()
	}
	c.sendFetches(env)
	c.md.maybeSend(env, &c.net)
	c.schedule(env, c.nextDeadline(now))
}

// brokerFailed closes the connection to a broker: its requests fail and
// will be sent again, and metadata is refreshed.
func (c *Consumer) brokerFailed(env *sim.Env, broker model.BrokerID) {
	now := env.Now()
	c.md.requestUpdate()
	for _, r := range c.net.disconnect(env, broker) {
		switch r.kind {
		case reqMetadata:
			c.md.failed(now)
		case reqListOffsets, reqOffsetsForEpoch:
			if ps := c.parts[r.tp]; ps != nil && ps.gen == r.gen {
				c.requestFailed(env, ps)
			}
		case reqFetch:
			// FetchSessionHandler.handleError: the next fetch to this
			// broker is a full one.
			c.session(broker).HandleError()
		default:
			if c.grp != nil && isGroupRequest(r.kind) {
				c.grp.requestFailed(env, r)
			}
		}
	}
	if c.grp != nil {
		c.grp.disconnected(env, broker)
	}
}

// requestFailed backs a partition's reset or validation off before it is
// tried again.
func (c *Consumer) requestFailed(env *sim.Env, ps *partState) {
	c.unsettle()
	ps.reqPending = false
	ps.failures++
	ps.retryAt = env.Now() + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, ps.failures-1))
}

func (c *Consumer) nextDeadline(now time.Duration) time.Duration {
	d := model.Never
	later := func(t time.Duration) {
		if t > now && t < d {
			d = t
		}
	}
	later(c.net.nextDeadline())
	later(c.md.dueAt())
	later(c.net.nextUnblock(now))
	if c.retriesDue(now) {
		for _, ps := range c.states {
			later(ps.retryAt)
		}
	}
	for _, w := range c.fetchWait {
		later(w.at)
	}
	if c.grp != nil {
		later(c.grp.deadline(now))
	}
	return d
}

func (c *Consumer) schedule(env *sim.Env, next time.Duration) { c.wake.arm(env, next) }
