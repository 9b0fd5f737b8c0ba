package fetchsession

import (
	"time"

	"kafkasim/model"
)

// Kind is which of Kafka's FetchContext classes a fetch got.
type Kind uint8

const (
	// Sessionless: a full fetch that neither has nor gets a session
	// (SessionlessFetchContext): epoch FinalEpoch, or an incremental fetch
	// that forgot its last partition.
	Sessionless Kind = iota
	// Full: a full fetch that gets a new session if the cache has room
	// (FullFetchContext).
	Full
	// Incremental: a fetch in a session (IncrementalFetchContext).
	Incremental
	// SessionError: a fetch naming a session the broker has not got, or
	// with the wrong epoch (SessionErrorContext): answered at once with
	// the error and nothing else.
	SessionError
)

// Context is how a broker serves one fetch (Kafka's FetchContext).
type Context struct {
	Kind Kind
	// Error is FETCH_SESSION_ID_NOT_FOUND or INVALID_FETCH_SESSION_EPOCH
	// for SessionError.
	Error      model.ErrorCode
	session    *Session // Incremental
	reqEpoch   int32    // Incremental
	privileged bool     // Full
}

// Session is the session of an incremental context, nil for the others.
func (ctx Context) Session() *Session { return ctx.session }

// Tracked reports whether ctx is an incremental context whose session is
// still cached and still at the epoch after the fetch's: its answer is
// read from the session's dirty partitions only (Session.Dirty). Any other
// incremental context reads the whole view it was given.
func (ctx Context) Tracked() bool {
	s := ctx.session
	return ctx.Kind == Incremental && s.cachedSize >= 0 && s.Epoch == NextEpoch(ctx.reqEpoch)
}

// NewContext decides how to serve m (FetchManager.newContext), updating
// the session an incremental fetch names, and returns the partitions to
// read: the fetch's own for a full or sessionless fetch, the whole
// session's for an incremental one, none after a session error. A full
// fetch naming a session closes it. follower marks the fetch privileged.
func (c *Cache) NewContext(m *model.FetchRequest, follower bool, now time.Duration) (Context, []model.FetchPartition) {
	md := Metadata{SessionID: m.SessionID, Epoch: m.SessionEpoch}
	if md.IsFull() {
		if md.SessionID != InvalidSessionID {
			c.Remove(md.SessionID)
		}
		if md.Epoch == FinalEpoch {
			return Context{Kind: Sessionless}, m.Partitions
		}
		return Context{Kind: Full, privileged: follower}, m.Partitions
	}
	s := c.sessions[md.SessionID]
	switch {
	case s == nil:
		return Context{Kind: SessionError, Error: model.FetchSessionIDNotFound}, nil
	case s.Epoch != md.Epoch:
		return Context{Kind: SessionError, Error: model.InvalidFetchSessionEpoch}, nil
	}
	s.update(c, m.Partitions, m.Forgotten)
	if s.Size() == 0 {
		c.remove(s)
		return Context{Kind: Sessionless}, m.Partitions
	}
	c.touch(s, now)
	s.Epoch = NextEpoch(s.Epoch)
	return Context{Kind: Incremental, session: s, reqEpoch: md.Epoch}, s.Partitions()
}

// Respond turns resp, the answer read for every partition of the context
// (parts, what NewContext returned; for a tracked context the partitions
// Session.Dirty listed, at the places pos), into the answer to send
// (FetchContext.updateAndGenerateResponseData): a full fetch's answer
// carries the new session's id, if the cache made one; an incremental
// answer keeps only the partitions with something new, or is
// INVALID_FETCH_SESSION_EPOCH alone if another fetch in the session came
// in meanwhile; a session error is the error alone.
func (c *Cache) Respond(ctx Context, parts []model.FetchPartition, pos []int, resp *model.FetchResponse, now time.Duration) {
	switch ctx.Kind {
	case SessionError:
		clear(resp.Partitions)
		resp.Error, resp.SessionID, resp.Partitions = ctx.Error, InvalidSessionID, resp.Partitions[:0]
	case Sessionless:
		resp.SessionID = InvalidSessionID
	case Full:
		resp.SessionID = c.maybeCreate(now, ctx.privileged, parts, resp.Partitions)
	case Incremental:
		s := ctx.session
		resp.SessionID = s.ID
		if s.Epoch != NextEpoch(ctx.reqEpoch) {
			clear(resp.Partitions)
			resp.Error, resp.Partitions = model.InvalidFetchSessionEpoch, resp.Partitions[:0]
			return
		}
		k := 0
		for i := range resp.Partitions {
			at := i
			if pos != nil {
				at = pos[i]
			}
			if s.mustRespond(at, &resp.Partitions[i]) {
				resp.Partitions[k] = resp.Partitions[i]
				k++
			}
		}
		clear(resp.Partitions[k:])
		resp.Partitions = resp.Partitions[:k]
	}
}
