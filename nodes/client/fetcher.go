package client

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
	"kafkasim/sim"
)

// sendFetches sends one FetchRequest per leader covering the partitions it
// leads that can be fetched (fetchWanted), after Kafka's
// AbstractFetch.prepareFetchRequests: a leader gets a new fetch only when
// none is in flight to it, its connection is not in reconnect backoff and
// it is not waiting out an empty answer. Leaders go in increasing order,
// each fetch with its partitions in assignment order, as a walk over the
// assignment sorted stably by leader would give. The request carries the
// leader epoch the consumer believes in (KIP-320), so a stale or too new
// leader fences it, and asks the leader to hold it fetch.max.wait.ms when
// nothing is available. An incremental fetch is built from the partitions
// that changed since the last one (fetch_changes.go), a full one from all.
func (c *Consumer) sendFetches(env *sim.Env) {
	now := env.Now()
	x := c.byLeader()
	c.markFetchesInFlight(x)
	for i, leader := range x.leaders {
		if x.inFlight[i] || !c.net.ready(leader, now) || c.fetchWaitUntil(leader) > now {
			continue
		}
		h := c.session(leader)
		if x.whole[i] || !h.CanDelta() {
			c.sendWholeFetch(env, i, h)
		} else {
			c.sendChangedFetch(env, i, h)
		}
	}
}

// markFetchesInFlight sets x.inFlight from the requests in flight, in one
// walk of them rather than one per leader.
func (c *Consumer) markFetchesInFlight(x *fetchLeaders) {
	clear(x.inFlight)
	for _, r := range c.net.reqs {
		if r.kind != reqFetch {
			continue
		}
		if i := leaderSlot(x.leaders, r.broker); i < len(x.leaders) && x.leaders[i] == r.broker {
			x.inFlight[i] = true
		}
	}
}

// sendWholeFetch sends x.leaders[i] a fetch built from all the partitions
// it leads, if any can be fetched; without a fetch sent, the next one is
// built from all of them again.
func (c *Consumer) sendWholeFetch(env *sim.Env, i int, h *fetchsession.Handler) {
	x := &c.leaders
	want := c.fetchWant[:0]
	for _, ps := range x.parts[i] {
		if fp, ok := c.fetchWanted(ps); ok {
			want = append(want, fp)
		}
	}
	c.fetchWant = want
	if len(want) == 0 {
		return
	}
	// The fetch session (AbstractFetch.prepareFetchRequests through the
	// broker's FetchSessionHandler): a full fetch names every partition,
	// an incremental one what changed, and forgets what is not wanted.
	m := c.fetchRequest(len(want))
	var md fetchsession.Metadata
	md, m.Partitions, m.Forgotten = h.Build(want, m.Partitions, m.Forgotten)
	c.fetchChangesTaken(i)
	c.sendFetch(env, x.leaders[i], m, md)
}

// sendChangedFetch sends x.leaders[i] an incremental fetch built from the
// partitions that changed since its last one, if its session then holds
// any: the request Build would make from all of them.
func (c *Consumer) sendChangedFetch(env *sim.Env, i int, h *fetchsession.Handler) {
	changes, n := c.fetchChanges(i, h)
	if n == 0 {
		return // nothing to fetch: the changes wait for the next fetch
	}
	var before *fetchsession.Handler
	if CheckIncremental {
		before = h.Clone()
	}
	m := c.fetchRequest(len(changes))
	var md fetchsession.Metadata
	md, m.Partitions, m.Forgotten = h.BuildDelta(changes, m.Partitions, m.Forgotten)
	if CheckIncremental {
		c.checkDelta(i, before, h, m.Partitions, m.Forgotten)
	}
	c.fetchChangesTaken(i)
	c.sendFetch(env, c.leaders.leaders[i], m, md)
}

// sendFetch sends one FetchRequest, its partitions built, to a leader. The
// request and its record come from earlier fetches when they can be
// reused (see fetchAnswered).
func (c *Consumer) sendFetch(env *sim.Env, broker model.BrokerID, m *model.FetchRequest, md fetchsession.Metadata) {
	r := c.fetchRecord()
	m.SessionID, m.SessionEpoch = md.SessionID, md.Epoch
	c.net.open(env, broker)
	// A long poll may be held fetch.max.wait.ms before the broker
	// answers, so the wait is not held against the request timeout.
	corr := c.net.track(env, r, broker, reqFetch, satAdd(c.cl.RequestTimeout, c.cfg.FetchMaxWait))
	r.fetchMsg = m
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

// fetchRecord returns a request record for a fetch: an earlier one's
// when there is one.
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
		*r = request{}
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
	// The session holds each partition with the offset the request asked:
	// only one fetch to a leader is in flight, the answer of one given up
	// on is dropped before this, and HandleResponse refused an answer
	// naming a partition outside the session.
	h := c.session(req.broker)
	for i := range r.Partitions {
		pr := &r.Partitions[i]
		asked, ok := h.Holds(pr.TP)
		if !ok {
			continue
		}
		ps := c.parts[pr.TP]
		if ps == nil || ps.state != stateFetching || ps.position != asked.FetchOffset || len(ps.buf) > 0 {
			continue
		}
		c.fetchChanged(ps)
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
