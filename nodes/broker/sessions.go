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
	}
	return b.sessions
}

// fetchContext is how the broker serves m (FetchManager.newContext), and
// the request to read: m itself for a full fetch, or for an incremental
// one a request like m over every partition of its session.
func (b *Broker) fetchContext(m *model.FetchRequest) (fetchsession.Context, *model.FetchRequest) {
	if s := b.fetchSessions().Get(m.SessionID); s != nil && !fetchsession.IsFullEpoch(m.SessionEpoch) && b.parkedIn(s) {
		// An earlier fetch in the session is still parked, reading the
		// session's partitions: the update must not change them under it.
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

// parkedIn reports whether a fetch in session s is parked.
func (b *Broker) parkedIn(s *fetchsession.Session) bool {
	for _, df := range b.fetches {
		if !df.done && df.ctx.Session() == s {
			return true
		}
	}
	return false
}

// answerFetch is the answer to req, served under ctx, from what the last
// readFetch of req read (FetchContext.updateAndGenerateResponseData).
func (b *Broker) answerFetch(ctx fetchsession.Context, req *model.FetchRequest) *model.FetchResponse {
	resp := b.fetchAnswer(req)
	b.fetchSessions().Respond(ctx, req.Partitions, resp, b.now())
	return resp
}

// sessionError answers a fetch whose session the broker has not got, or
// whose epoch is wrong, at once and with nothing else (SessionErrorContext).
func (b *Broker) sessionError(from model.BrokerID, m *model.FetchRequest, ctx fetchsession.Context) {
	resp := model.NewFetchResponseFor(m, 0)
	resp.CorrelationID = m.CorrelationID
	b.fetchSessions().Respond(ctx, nil, resp, b.now())
	b.send(from, resp)
}

// FetchSessionCache is the broker's fetch session cache, for tests and
// observers that look at sessions (or drop them, as an eviction would).
func (b *Broker) FetchSessionCache() *fetchsession.Cache { return b.fetchSessions() }
