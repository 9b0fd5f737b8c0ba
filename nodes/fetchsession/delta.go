package fetchsession

import (
	"cmp"
	"slices"

	"kafkasim/model"
)

// Change is one partition a fetcher looks at again for BuildDelta: whether
// it would fetch it now and with which parameters, and its rank, its place
// in the order the fetcher's want would list it (Build's want order).
type Change struct {
	Want bool
	Rank int
	Data model.FetchPartition
}

// deltaAt is a partition BuildDelta sends, forgets or alters, with the key
// it is listed in order of: its rank for an added one, its place in the
// session for the others.
type deltaAt struct {
	key  int
	data model.FetchPartition
}

// CanDelta reports whether the next fetch may be built by BuildDelta: it
// is incremental (a full fetch names every wanted partition, so it needs
// them all) and the session was built before.
func (h *Handler) CanDelta() bool { return !h.next.IsFull() && h.index != nil }

// BuildDelta is Build for a fetcher that knows which partitions changed
// since its last Build or BuildDelta: changes holds each of them once, and
// every partition it would fetch that changes leaves out is one the
// session holds with the same parameters, as every one it would not fetch
// is one the session does not hold. It builds the request Build would
// build from the whole want, and leaves the session as Build would, with
// work that follows the changes rather than the session's size:
// FetchSessionHandler.Builder.build's added partitions (in want's order),
// then its altered ones (in the session's order) to send, and its removed
// ones (in the session's order) to forget. A dropped partition leaves a
// hole in place, so that no other moves (see closeHoles). The caller
// checks CanDelta first.
func (h *Handler) BuildDelta(changes []Change, send []model.FetchPartition, forget []model.TopicPartition) (Metadata, []model.FetchPartition, []model.TopicPartition) {
	if !h.CanDelta() {
		panic("fetchsession.Handler.BuildDelta: the next fetch is a full one (check CanDelta)")
	}
	added, altered, removed := h.added[:0], h.altered[:0], h.removed[:0]
	for i := range changes {
		ch := &changes[i]
		k, in := h.index[ch.Data.TP]
		switch {
		case in && !ch.Want:
			removed = append(removed, deltaAt{key: k, data: h.session[k]})
		case in && ch.Data != h.session[k]:
			altered = append(altered, deltaAt{key: k, data: ch.Data})
		case !in && ch.Want:
			added = append(added, deltaAt{key: ch.Rank, data: ch.Data})
		}
	}
	byKey := func(a, b deltaAt) int { return cmp.Compare(a.key, b.key) }
	slices.SortFunc(added, byKey)
	slices.SortFunc(altered, byKey)
	slices.SortFunc(removed, byKey)
	for _, a := range added {
		send = append(send, a.data)
	}
	for _, a := range altered {
		send = append(send, a.data)
		h.session[a.key] = a.data
	}
	for _, r := range removed {
		forget = append(forget, r.data.TP)
		delete(h.index, r.data.TP)
		h.session[r.key] = model.FetchPartition{}
		h.holes++
	}
	for _, a := range added {
		h.index[a.data.TP] = len(h.session)
		h.session = append(h.session, a.data)
	}
	h.added, h.altered, h.removed = added[:0], altered[:0], removed[:0]
	h.inOrder = false
	if h.holes > 64 && 2*h.holes > len(h.session) {
		h.closeHoles()
	}
	return h.next, send, forget
}

// isHole reports whether a session entry is a place BuildDelta emptied: no
// partition has an empty topic name.
func isHole(fp *model.FetchPartition) bool { return fp.TP.Topic == "" }

// closeHoles closes up the session's holes, keeping the order of the
// partitions it holds. BuildDelta calls it once the holes outnumber them,
// so that its cost spreads over the drops that made them.
func (h *Handler) closeHoles() {
	if h.holes == 0 {
		return
	}
	k := 0
	for i := range h.session {
		if isHole(&h.session[i]) {
			continue
		}
		h.session[k] = h.session[i]
		h.index[h.session[k].TP] = k
		k++
	}
	clear(h.session[k:])
	h.session = h.session[:k]
	h.holes = 0
}
