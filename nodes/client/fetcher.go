package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
	"kafkasim/sim"
)

// sendFetches sends one FetchRequest per leader covering the partitions it
// leads that can be fetched, after Kafka's AbstractFetch.prepareFetchRequests:
// a partition is fetched when it has a position, nothing buffered that the
// application has not polled yet, and a known leader; a leader gets a new
// fetch only when none is in flight to it. The request carries the leader
// epoch the consumer believes in (KIP-320), so a stale or too new leader
// fences it, and asks the leader to hold it fetch.max.wait.ms when nothing
// is available.
func (c *Consumer) sendFetches(env *sim.Env) {
	now := env.Now()
	targets := c.fetchBuf[:0]
	// Leaders in increasing order, each with its partitions in assignment
	// order: one request per leader, as a walk over the assignment
	// sorted stably by leader would give. A leader is judged at the first
	// of its partitions that could be fetched, and one that cannot take a
	// fetch now (the usual case: its long poll is in flight) costs no more.
	x := c.byLeader()
	for i, leader := range x.leaders {
		judged := false
		for _, ps := range x.parts[i] {
			if ps.state != stateFetching || len(ps.buf) > 0 || ps.staleMeta {
				continue
			}
			if !judged {
				judged = true
				if !c.leaderFetchable(leader, now) {
					break
				}
			}
			_, epoch := c.leaderOf(ps)
			targets = append(targets, fetchTarget{broker: leader, epoch: epoch, ps: ps})
		}
	}
	c.fetchBuf = targets
	for len(targets) > 0 {
		n := 1
		for n < len(targets) && targets[n].broker == targets[0].broker {
			n++
		}
		c.sendFetch(env, targets[0].broker, targets[:n])
		targets = targets[n:]
	}
	clear(c.fetchBuf) // it holds partition states
}

// leaderFetchable reports whether a fetch may go to leader now: none is in
// flight to it, its connection is not in reconnect backoff and it is not
// waiting out an empty answer.
func (c *Consumer) leaderFetchable(leader model.BrokerID, now time.Duration) bool {
	return !c.net.inFlightKind(leader, reqFetch) && c.net.ready(leader, now) && c.fetchWaitUntil(leader) <= now
}

// fetchTarget is one partition sendFetches will fetch, from its leader.
type fetchTarget struct {
	broker model.BrokerID
	epoch  model.Epoch
	ps     *partState
}

// sendFetch sends one FetchRequest to a leader for the targets it leads.
// The request and its record come from earlier fetches when they can be
// reused (see fetchAnswered).
func (c *Consumer) sendFetch(env *sim.Env, broker model.BrokerID, targets []fetchTarget) {
	r := c.fetchRecord()
	asked := r.fetch[:0]
	want := c.fetchWant[:0]
	for _, t := range targets {
		asked = append(asked, fetchedAt{tp: t.ps.tp, offset: t.ps.position})
		want = append(want, model.FetchPartition{
			TP: t.ps.tp, FetchOffset: t.ps.position, CurrentLeaderEpoch: t.epoch,
			LastFetchedEpoch: model.NoEpoch, LogStartOffset: model.NoOffset, MaxBytes: partitionFetchMaxBytes,
		})
	}
	c.fetchWant = want
	// The fetch session (AbstractFetch.prepareFetchRequests through the
	// broker's FetchSessionHandler): a full fetch names every partition,
	// an incremental one what changed, and forgets what is not wanted.
	m := c.fetchRequest(len(want))
	var md fetchsession.Metadata
	md, m.Partitions, m.Forgotten = c.session(broker).Build(want, m.Partitions, m.Forgotten)
	m.SessionID, m.SessionEpoch = md.SessionID, md.Epoch
	c.net.open(env, broker)
	// A long poll may be held fetch.max.wait.ms before the broker
	// answers, so the wait is not held against the request timeout.
	corr := c.net.track(env, r, broker, reqFetch, satAdd(c.cl.RequestTimeout, c.cfg.FetchMaxWait))
	r.fetch, r.fetchMsg = asked, m
	m.CorrelationID, m.ReplicaID, m.BrokerEpoch = corr, model.NoBroker, model.NoEpoch
	m.MaxWait, m.MinBytes, m.MaxBytes = c.cfg.FetchMaxWait, c.cfg.FetchMinBytes, fetchMaxBytes
	m.IsolationLevel = c.cfg.IsolationLevel
	env.Send(sim.NodeID(broker), m)
}

// session is the consumer's fetch session handler for broker.
func (c *Consumer) session(broker model.BrokerID) *fetchsession.Handler {
	h := c.sessions[broker]
	if h == nil {
		if c.sessions == nil {
			c.sessions = map[model.BrokerID]*fetchsession.Handler{}
		}
		h = &fetchsession.Handler{}
		c.sessions[broker] = h
	}
	return h
}

// fetchAnswer handles a fetch's answer: through the broker's fetch
// session first, which may refuse it (AbstractFetch.handleFetchSuccess
// returns without using an answer the FetchSessionHandler refused; the
// next fetch to the broker, a full one, may go at once).
func (c *Consumer) fetchAnswer(env *sim.Env, req *request, r *model.FetchResponse) {
	if c.session(req.broker).HandleResponse(r) {
		c.handleFetch(env, req, r)
	}
	c.fetchAnswered(req)
}

// fetchPoolMax bounds the fetch requests and records kept for reuse: a
// consumer has at most one fetch in flight per broker.
const fetchPoolMax = 8

// fetchRequest returns a fetch request with room for n partitions: one
// whose answer came back (fetchAnswered), or a new one.
func (c *Consumer) fetchRequest(n int) *model.FetchRequest {
	if m := popFree(&c.fetchFree); m != nil {
		return model.ReuseFetchRequest(m, n)
	}
	return model.NewFetchRequest(n)
}

// fetchRecord returns a request record for a fetch, with the offsets-asked
// array of an earlier one when there is one.
func (c *Consumer) fetchRecord() *request {
	if r := popFree(&c.recFree); r != nil {
		return r
	}
	return &request{}
}

// fetchAnswered hands back the memory of a fetch whose answer was just
// handled: its record, which the network no longer holds and nothing else
// refers to, and its request (which holds the answer too). A leader keeps
// nothing of a request it has answered, and a link that duplicates
// delivers its own clone the second time (sim.Cloner). A fetch that failed
// (a timeout, a disconnect) keeps both: its request may still reach the
// leader.
func (c *Consumer) fetchAnswered(r *request) {
	m := r.fetchMsg
	if m != nil && len(c.fetchFree) < fetchPoolMax {
		c.fetchFree = append(c.fetchFree, m)
	}
	if len(c.recFree) < fetchPoolMax {
		*r = request{fetch: r.fetch[:0]}
		c.recFree = append(c.recFree, r)
	}
}

// handleFetch buffers what a fetch returned for the application's next
// polls and handles partition errors, after Kafka's FetchCollector:
// records before the position (the start of a batch that straddles it) are
// skipped; data for a partition whose position moved since the request
// (seek, reset, validation) is dropped; OFFSET_OUT_OF_RANGE applies
// auto.offset.reset; the "invalid metadata" errors (NOT_LEADER_OR_FOLLOWER,
// FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, ...) refresh metadata, and the
// partition is not fetched again until the refresh is answered, which is
// where a new leader epoch leads to validation.
func (c *Consumer) handleFetch(env *sim.Env, req *request, r *model.FetchResponse) {
	data, errs := false, r.Error != model.NoError
	next := 0 // where the next answered partition is looked for first
	for i := range r.Partitions {
		pr := &r.Partitions[i]
		k := askedIndex(req.fetch, next, pr.TP)
		if k < 0 {
			continue
		}
		next = k + 1
		ps := c.parts[pr.TP]
		if ps == nil || ps.state != stateFetching || ps.position != req.fetch[k].offset || len(ps.buf) > 0 {
			continue
		}
		err := pr.Error
		if err == model.NoError {
			err = r.Error
		}
		switch {
		case err == model.NoError && pr.HasDiverging:
			// Consumers do not send a last fetched epoch, so a leader
			// should not answer this; if it does, it is a validation answer.
			errs = true
			c.unsettle()
			ps.state = stateValidating
			c.completeValidation(env, ps, pr.DivergingEpoch.EndOffset, true, pr.DivergingEpoch.Epoch)
		case err == model.NoError:
			skipped := c.buffer(ps, pr)
			data = data || len(ps.buf) > 0 || skipped
		case err == model.OffsetOutOfRange:
			errs = true
			reason := ResetOutOfRange
			if pr.LogStartOffset >= 0 && ps.position < pr.LogStartOffset {
				reason = ResetRetention
			}
			c.startReset(env, ps, reason, err.String())
		default:
			errs = true
			ps.staleMeta = true
			c.md.requestUpdate()
		}
	}
	if r.Error != model.NoError {
		c.md.requestUpdate()
	}
	if !data && !errs {
		// An empty answer without errors means the leader held the fetch
		// for fetch.max.wait.ms and nothing came. A leader that answers
		// empty at once (a broken or fake one) would otherwise be asked
		// again at once, forever, in zero virtual time: wait what a long
		// poll would have waited.
		c.setFetchWait(req.broker, req.sent+c.cfg.FetchMaxWait)
	}
}

// askedIndex is where tp is in asked (-1 if absent). A leader answers the
// partitions in the order they were asked (Kafka's FetchResponse keeps the
// request's order), or in an incremental fetch a subsequence of its
// session's order, which is mostly the order asked: so tp is looked for
// at from, just after the last partition found, and on from there first;
// a request asks each partition once, so that is the only match.
func askedIndex(asked []fetchedAt, from int, tp model.TopicPartition) int {
	if from < len(asked) && asked[from].tp == tp {
		return from
	}
	from = min(from, len(asked))
	if k := slices.IndexFunc(asked[from:], func(f fetchedAt) bool { return f.tp == tp }); k >= 0 {
		return from + k
	}
	return slices.IndexFunc(asked[:from], func(f fetchedAt) bool { return f.tp == tp })
}

func (c *Consumer) fetchWaitUntil(b model.BrokerID) time.Duration {
	for _, w := range c.fetchWait {
		if w.broker == b {
			return w.at
		}
	}
	return 0
}

func (c *Consumer) setFetchWait(b model.BrokerID, at time.Duration) {
	for i := range c.fetchWait {
		if c.fetchWait[i].broker == b {
			c.fetchWait[i].at = at
			return
		}
	}
	c.fetchWait = append(c.fetchWait, brokerTime{broker: b, at: at})
}
