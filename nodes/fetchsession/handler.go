package fetchsession

import (
	"maps"
	"slices"

	"kafkasim/model"
)

// Handler is a fetcher's side of its session with one broker (Kafka's
// FetchSessionHandler): which partitions the broker has in the session
// with which parameters, and the metadata of the next fetch. Followers
// (ReplicaFetcherThread) and consumers (AbstractFetch) keep one per
// broker. The zero value is a fetcher without a session.
type Handler struct {
	next Metadata
	// session is the partitions the session holds, in its order
	// (sessionPartitions), and index where each is.
	session []model.FetchPartition
	index   map[model.TopicPartition]int
	// wanted is scratch: for each session entry, where Build's want has
	// it (-1: not wanted any more).
	wanted []int
	// inOrder says session holds the partitions of the last Build's want
	// in want's order: BuildChanged may then look at the changed ones only.
	inOrder bool
	// holes counts the entries of session that BuildDelta dropped in
	// place (see isHole), so that the others keep their places and their
	// index; Build closes them up before it looks at the session.
	holes int
	// added, altered and removed are BuildDelta's scratch lists.
	added, altered, removed []deltaAt
}

// Next is the metadata the next fetch carries.
func (h *Handler) Next() Metadata { return h.next }

// Build is FetchSessionHandler.Builder.build: given want, every partition
// the fetcher would fetch now with its parameters, it appends to send the
// partitions the request must name and to forget those it drops, and
// returns the request's metadata. A full fetch names every wanted
// partition; an incremental one names the partitions new to the session
// (in want's order) and then those whose parameters changed (in the
// session's order), and forgets the session's partitions not wanted.
func (h *Handler) Build(want []model.FetchPartition, send []model.FetchPartition, forget []model.TopicPartition) (Metadata, []model.FetchPartition, []model.TopicPartition) {
	if h.index == nil {
		h.index = map[model.TopicPartition]int{}
	}
	h.closeHoles()
	if h.next.IsFull() {
		h.session = append(h.session[:0], want...)
		clear(h.index)
		for i := range h.session {
			h.index[h.session[i].TP] = i
		}
		h.inOrder = true
		return h.next, append(send, want...), forget
	}
	if send, ok := h.buildInOrder(want, send); ok {
		h.inOrder = true
		return h.next, send, forget
	}
	defer h.checkOrder(want)
	h.wanted = h.wanted[:0]
	for range h.session {
		h.wanted = append(h.wanted, -1)
	}
	for i := range want {
		if k, ok := h.index[want[i].TP]; ok {
			h.wanted[k] = i
		}
	}
	// New partitions first, as Kafka's 'next' map holds them before the
	// altered ones it moved to its end.
	for i := range want {
		if _, ok := h.index[want[i].TP]; !ok {
			send = append(send, want[i])
		}
	}
	k := 0
	for j := range h.session {
		w := h.wanted[j]
		if w < 0 {
			forget = append(forget, h.session[j].TP)
			delete(h.index, h.session[j].TP)
			continue
		}
		if want[w] != h.session[j] {
			send = append(send, want[w])
		}
		h.session[k] = want[w]
		h.index[want[w].TP] = k
		k++
	}
	h.session = h.session[:k]
	for i := range want {
		if _, ok := h.index[want[i].TP]; !ok {
			h.index[want[i].TP] = len(h.session)
			h.session = append(h.session, want[i])
		}
	}
	return h.next, send, forget
}

// checkOrder records whether the session now holds want in want's order.
func (h *Handler) checkOrder(want []model.FetchPartition) {
	h.inOrder = len(want) == len(h.session)
	for i := 0; h.inOrder && i < len(want); i++ {
		h.inOrder = want[i].TP == h.session[i].TP
	}
}

// BuildChanged is Build for a fetcher that knows what changed: want holds
// the same partitions in the same order as at the last Build, and changed
// lists, ascending, the places whose parameters may differ since. When the
// session holds them in that order (the usual case) it looks at those
// places only, and builds the request Build would; otherwise it is Build.
func (h *Handler) BuildChanged(want []model.FetchPartition, changed []int, send []model.FetchPartition, forget []model.TopicPartition) (Metadata, []model.FetchPartition, []model.TopicPartition) {
	if h.next.IsFull() || !h.inOrder || len(want) != len(h.session) {
		return h.Build(want, send, forget)
	}
	for _, i := range changed {
		if want[i] != h.session[i] {
			h.session[i] = want[i]
			send = append(send, want[i])
		}
	}
	return h.next, send, forget
}

// buildInOrder is Build's incremental case when want names exactly the
// session's partitions in the session's order, the usual case: it lists
// the altered ones without a lookup per partition. It reports false, and
// changes nothing, otherwise.
func (h *Handler) buildInOrder(want []model.FetchPartition, send []model.FetchPartition) ([]model.FetchPartition, bool) {
	if len(want) != len(h.session) {
		return send, false
	}
	for i := range want {
		if want[i].TP != h.session[i].TP {
			return send, false
		}
	}
	for i := range want {
		if want[i] != h.session[i] {
			h.session[i] = want[i]
			send = append(send, want[i])
		}
	}
	return send, true
}

// HandleResponse is FetchSessionHandler.handleResponse: it moves the
// session on by the answer and reports whether the fetcher may use the
// answer's partitions. A top-level error ends the session's incremental
// run: FETCH_SESSION_ID_NOT_FOUND starts over without a session, any
// other closes it with a full fetch. An answer that names partitions
// outside the session, or a full answer that leaves some out, closes it
// too. A full answer with a session id starts incremental fetching.
func (h *Handler) HandleResponse(r *model.FetchResponse) bool {
	if r.Error != model.NoError {
		if r.Error == model.FetchSessionIDNotFound {
			h.next = Initial
		} else {
			h.next = h.next.nextCloseExisting()
		}
		return false
	}
	if !h.verify(r) {
		h.next = h.next.nextCloseExisting()
		return false
	}
	switch {
	case r.SessionID == InvalidSessionID:
		h.next = Initial
	case h.next.IsFull():
		h.next = newIncremental(r.SessionID)
	default:
		h.next = h.next.nextIncremental()
	}
	return true
}

// verify checks an answer's partitions against the session
// (verifyFullFetchResponsePartitions, verifyIncrementalFetchResponsePartitions):
// all inside it, and in a full answer every one of them.
func (h *Handler) verify(r *model.FetchResponse) bool {
	for i := range r.Partitions {
		if _, ok := h.index[r.Partitions[i].TP]; !ok {
			return false
		}
	}
	return !h.next.IsFull() || len(r.Partitions) == h.Len()
}

// Len is the number of partitions the session holds.
func (h *Handler) Len() int { return len(h.session) - h.holes }

// Holds returns the parameters the session holds for tp, as the last
// request built gave them, and whether it holds tp.
func (h *Handler) Holds(tp model.TopicPartition) (model.FetchPartition, bool) {
	k, ok := h.index[tp]
	if !ok {
		return model.FetchPartition{}, false
	}
	return h.session[k], true
}

// HandleError is FetchSessionHandler.handleError: a fetch that failed
// (a timeout, a lost connection) leaves the session's state unknown, so
// the next fetch is a full one that closes it.
func (h *Handler) HandleError() { h.next = h.next.nextCloseExisting() }

// Partitions returns the partitions the session holds, in its order.
func (h *Handler) Partitions() []model.FetchPartition {
	out := make([]model.FetchPartition, 0, h.Len())
	for i := range h.session {
		if !isHole(&h.session[i]) {
			out = append(out, h.session[i])
		}
	}
	return out
}

// Clone returns a copy of h that shares nothing with it, for a check that
// builds the same fetch two ways.
func (h *Handler) Clone() *Handler {
	c := &Handler{next: h.next, inOrder: h.inOrder, holes: h.holes, session: slices.Clone(h.session)}
	if h.index != nil {
		c.index = maps.Clone(h.index)
	}
	return c
}
