package broker

import (
	"math"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// fetchSessions is the broker's fetch session cache (KIP-227: Kafka's
// FetchManager over a FetchSessionCache of
// max.incremental.fetch.session.cache.slots), made on first use. It lives
// in memory only: a restarted broker has none, and its fetchers' next
// incremental fetches get FETCH_SESSION_ID_NOT_FOUND.
func (b *Broker) fetchSessions() *fetchsession.Cache {
	if b.sessions == nil {
		b.sessions = fetchsession.NewCache(int(b.cfg.Kafka.Broker.MaxIncrementalFetchSessionCacheSlots), func() int32 {
			// FetchSessionCache.newSessionId: uniform in [1, MaxInt32).
			return b.env.Rand().Int32N(math.MaxInt32-1) + 1
		})
		b.sessions.OnRemove = b.sessionRemoved
		b.parked = map[int32]*delayedFetch{}
		b.clocks = map[*fetchsession.Session]*fetchClock{}
	}
	return b.sessions
}

// fetchContext is how the broker serves m (FetchManager.newContext), and
// the request to read: m itself for a full fetch, or for an incremental
// one a request like m over every partition of its session.
func (b *Broker) fetchContext(m *model.FetchRequest) (fetchsession.Context, *model.FetchRequest) {
	if s := b.fetchSessions().Get(m.SessionID); s != nil && !fetchsession.IsFullEpoch(m.SessionEpoch) && b.parked[s.ID] != nil {
		// An earlier fetch in the session is still parked, reading the
		// session's partitions: the update must not change them under it,
		// and once the session moves on it reads them all, as parked on
		// each one's list.
		b.parkOnLists(b.parked[s.ID])
		s.Detach()
	}
	ctx, parts := b.fetchSessions().NewContext(m, m.ReplicaID != model.NoBroker, b.now())
	if ctx.Kind != fetchsession.Incremental {
		return ctx, m
	}
	// The isolation level is the request's, not the session's: an
	// incremental read_committed fetch reads to the last stable offset too.
	return ctx, &model.FetchRequest{CorrelationID: m.CorrelationID, ReplicaID: m.ReplicaID, BrokerEpoch: m.BrokerEpoch,
		IsolationLevel: m.IsolationLevel, MaxWait: m.MaxWait, MinBytes: m.MinBytes, MaxBytes: m.MaxBytes, Partitions: parts}
}

// parkOnLists moves a fetch parked in its session to the delayed lists of
// the partitions it reads: its session no longer tracks it (it moved on,
// or left the cache).
func (b *Broker) parkOnLists(df *delayedFetch) {
	b.unpark(df)
	b.linkFetch(df)
}

// unpark takes df out of its session's parking place, if it is there.
func (b *Broker) unpark(df *delayedFetch) {
	if s := df.ctx.Session(); s != nil && b.parked[s.ID] == df {
		delete(b.parked, s.ID)
	}
}

// sessionRemoved is the cache's OnRemove: a fetch parked in s is parked on
// its partitions' lists from now on.
func (b *Broker) sessionRemoved(s *fetchsession.Session) {
	delete(b.clocks, s) // a follower state riding it keeps it
	if df := b.parked[s.ID]; df != nil && df.ctx.Session() == s {
		b.parkOnLists(df)
	}
}

// answerFetch is the answer to req, served under ctx, from what the last
// readFetch of req read (FetchContext.updateAndGenerateResponseData).
func (b *Broker) answerFetch(ctx fetchsession.Context, req *model.FetchRequest) *model.FetchResponse {
	var pos []int
	if b.fetchTracked {
		pos = b.fetchPos
	}
	resp := b.fetchAnswer(req)
	b.fetchSessions().Respond(ctx, req.Partitions, pos, resp, b.now())
	return resp
}

// sessionError answers a fetch whose session the broker has not got, or
// whose epoch is wrong, at once and with nothing else (SessionErrorContext).
func (b *Broker) sessionError(from model.BrokerID, m *model.FetchRequest, ctx fetchsession.Context) {
	resp := model.NewFetchResponseFor(m, 0)
	resp.CorrelationID = m.CorrelationID
	b.fetchSessions().Respond(ctx, nil, nil, resp, b.now())
	b.send(from, resp)
}

// FetchSessionCache is the broker's fetch session cache, for tests and
// observers that look at sessions (or drop them, as an eviction would).
func (b *Broker) FetchSessionCache() *fetchsession.Cache { return b.fetchSessions() }
