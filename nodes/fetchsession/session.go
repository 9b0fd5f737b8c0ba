package fetchsession

import (
	"slices"
	"time"

	"kafkasim/model"
)

// Session is one fetcher's session on a broker (Kafka's FetchSession):
// the partitions it fetches with their last fetch parameters, and what the
// broker last answered for each (CachedPartition's highWatermark and
// localLogStartOffset), against which the next answer decides what to
// leave out.
type Session struct {
	ID int32
	// Privileged says a follower made it: a consumer's session never
	// evicts a follower's younger than the eviction time.
	Privileged bool
	// Epoch is the epoch the next incremental fetch must carry.
	Epoch    int32
	creation time.Duration
	lastUsed time.Duration
	// cachedSize is the size the cache last filed the session under, -1
	// while it is in no cache (FetchSession.cachedSize); byPrivileged and
	// byAll are the two evictable sets of FetchSessionCache.touch.
	cachedSize          int
	byPrivileged, byAll bool

	// parts are the session's fetch parameters in the session's order.
	// An update changes them in place. A fetch parked on them (its wait
	// not run out) is nearly always answered before its fetcher sends
	// the next fetch in the session (a fetcher that gives up on a fetch
	// starts over with a full one, which closes the session); when one is
	// not, the broker detaches it first (Detach).
	parts []model.FetchPartition
	sent  []answered // what was last answered, by the index in parts
	index map[model.TopicPartition]int
	// dirty lists the places in parts whose answer may differ from the
	// last: the broker reads only these (see Dirty). It may hold a place
	// twice or one since settled; answered.dirty says which are.
	dirty []int
	// visit lists, for a follower's session, the places the broker's
	// next fetch must visit to record the follower's fetch state (see
	// NextVisit): every place changed since its last visit, and those
	// the broker keeps (KeepVisiting). Like dirty it may hold a place
	// twice or one no longer marked (answered.visit); visitSorted is
	// how much of it is sorted and deduplicated.
	visit       []int
	visitSorted int
}

// answered is what a session last answered for one partition, and whether
// it must be read again: dirty is false only while a read of it would
// find nothing to answer (no records, error or divergence, and the high
// watermark and log start last answered), until the partition changes
// (Cache.Changed) or its fetch parameters do.
type answered struct {
	hw, logStart model.Offset
	dirty, visit bool
	gone         bool // forgotten by the update under way (see forget)
}

// Partitions are the session's fetch parameters, in the session's order:
// what an incremental fetch reads (IncrementalFetchContext.foreachPartition).
// The caller must not change them.
func (s *Session) Partitions() []model.FetchPartition { return s.parts }

// Detach gives the session a copy of its partitions, leaving the ones
// Partitions returned so far to whoever reads them (a fetch still parked
// on them) unchanged by later updates.
func (s *Session) Detach() {
	s.parts = append(make([]model.FetchPartition, 0, cap(s.parts)), s.parts...)
}

// Size is the number of partitions in the session.
func (s *Session) Size() int { return len(s.parts) }

// newSession is a session over parts, with the answer resp gave them
// (the CachedPartition(part, reqData, respData) of FullFetchContext).
func newSession(id int32, privileged bool, now time.Duration, parts []model.FetchPartition, resp []model.FetchPartitionResponse) *Session {
	s := &Session{ID: id, Privileged: privileged, Epoch: NextEpoch(InitialEpoch), creation: now, lastUsed: now, cachedSize: -1,
		index: make(map[model.TopicPartition]int, len(parts))}
	s.parts = append(make([]model.FetchPartition, 0, len(parts)), parts...)
	s.sent = make([]answered, len(parts))
	for i := range parts {
		s.index[parts[i].TP] = i
		s.sent[i] = answered{hw: model.NoOffset, logStart: model.NoOffset, dirty: true}
	}
	for i := range resp {
		if k, ok := s.index[resp[i].TP]; ok {
			s.sent[k].hw, s.sent[k].logStart = resp[i].HighWatermark, resp[i].LogStartOffset
			s.settle(k, &resp[i])
		}
	}
	// The full answer was read in the same event that makes the session:
	// only the partitions it found something for are dirty. A follower's
	// next fetch visits every partition once.
	for k := range s.sent {
		if s.sent[k].dirty {
			s.dirty = append(s.dirty, k)
		}
		if privileged {
			s.sent[k].visit = true
			s.visit = append(s.visit, k)
		}
	}
	s.visitSorted = len(s.visit)
	return s
}

// markDirty notes that the partition at place k must be read again, and
// in a follower's session visited again.
func (s *Session) markDirty(k int) {
	if !s.sent[k].dirty {
		s.sent[k].dirty = true
		s.dirty = append(s.dirty, k)
	}
	if s.Privileged && !s.sent[k].visit {
		s.sent[k].visit = true
		s.visit = append(s.visit, k)
	}
}

// NextVisit is the first place after place after that the next fetch of a
// follower's session must visit, and false when there is none. A place
// marked while the fetch visits (a change its visits cause) is visited
// in this fetch when it lies ahead, as a walk of every place in order
// would reach it; one behind waits for the next fetch.
func (s *Session) NextVisit(after int) (int, bool) {
	if s.visitSorted < len(s.visit) {
		slices.Sort(s.visit)
		s.visit = slices.Compact(s.visit)
		s.visitSorted = len(s.visit)
	}
	i, _ := slices.BinarySearch(s.visit, after+1)
	for ; i < len(s.visit); i++ {
		if k := s.visit[i]; s.sent[k].visit {
			return k, true
		}
	}
	return 0, false
}

// KeepVisiting records the visit of place k: keep says the next fetch must
// visit it again even if it does not change; otherwise it is left alone
// until it changes.
func (s *Session) KeepVisiting(k int, keep bool) {
	if !keep {
		s.sent[k].visit = false
	}
}

// Visits reports whether the next fetch must visit place k.
func (s *Session) Visits(k int) bool { return s.sent[k].visit }

// Pos is the place of tp in the session, and false if the session does not
// hold it.
func (s *Session) Pos(tp model.TopicPartition) (int, bool) {
	k, ok := s.index[tp]
	return k, ok
}

// BeginVisits starts a fetch's visits: the places visited and left alone
// since the last fetch leave the list, which so stays as long as what
// changed.
func (s *Session) BeginVisits() {
	k := 0
	for _, i := range s.visit {
		if s.sent[i].visit {
			s.visit[k] = i
			k++
		}
	}
	s.visit = s.visit[:k]
	s.visitSorted = 0
}

// settle marks the partition at place k clean when pr, what was just read
// for it, has nothing an incremental answer would carry: a read of it finds
// the same until it changes.
func (s *Session) settle(k int, pr *model.FetchPartitionResponse) {
	a := &s.sent[k]
	if pr.Error == model.NoError && !pr.HasDiverging && len(pr.Batches) == 0 && a.hw == pr.HighWatermark && a.logStart == pr.LogStartOffset {
		a.dirty = false
	}
}

// IsDirty reports whether the partition at place k must be read again.
func (s *Session) IsDirty(k int) bool { return s.sent[k].dirty }

// Answers reports whether an incremental answer would carry pr, a read of
// the partition at place k, without recording anything: what a partition
// not dirty must never do (see the broker's CheckTrackedReads).
func (s *Session) Answers(k int, pr *model.FetchPartitionResponse) bool {
	a := s.sent[k]
	return pr.Error != model.NoError || pr.HasDiverging || len(pr.Batches) > 0 || a.hw != pr.HighWatermark || a.logStart != pr.LogStartOffset
}

// Settle records a read of the session that is not answered yet (a fetch
// that stays parked): resp[i] is what was read at place pos[i].
func (s *Session) Settle(pos []int, resp []model.FetchPartitionResponse) {
	for i := range resp {
		s.settle(pos[i], &resp[i])
	}
}

// Dirty appends to parts the fetch parameters of every partition that must
// be read (those not settled since they last changed), in the session's
// order, and to pos their places: what an incremental fetch reads. Every
// other partition of the session would read as it read last, with nothing
// to answer, so the answer is the one a read of the whole session makes.
func (s *Session) Dirty(parts []model.FetchPartition, pos []int) ([]model.FetchPartition, []int) {
	slices.Sort(s.dirty)
	k, last := 0, -1
	for _, i := range s.dirty {
		if i == last || !s.sent[i].dirty {
			continue
		}
		last = i
		s.dirty[k] = i
		k++
		parts, pos = append(parts, s.parts[i]), append(pos, i)
	}
	s.dirty = s.dirty[:k]
	return parts, pos
}

// update applies an incremental fetch (FetchSession.update): a partition
// it names is added, or has its parameters replaced (its last answer kept:
// CachedPartition.updateRequestParams); a forgotten one leaves the session.
// c, the cache holding s, learns which partitions s takes and drops.
func (s *Session) update(c *Cache, parts []model.FetchPartition, forgotten []model.TopicPartition) {
	for i := range parts {
		if k, ok := s.index[parts[i].TP]; ok {
			s.parts[k] = parts[i]
			s.markDirty(k)
			continue
		}
		s.index[parts[i].TP] = len(s.parts)
		s.parts = append(s.parts, parts[i])
		s.sent = append(s.sent, answered{hw: model.NoOffset, logStart: model.NoOffset})
		s.markDirty(len(s.parts) - 1)
		c.hold(parts[i].TP, s)
	}
	if removed := s.forget(c, forgotten); removed {
		k := 0
		s.dirty, s.visit = s.dirty[:0], s.visit[:0]
		for i := range s.parts {
			if !s.sent[i].gone {
				if k != i {
					s.parts[k], s.sent[k] = s.parts[i], s.sent[i]
					s.index[s.parts[k].TP] = k
				}
				if s.sent[k].dirty {
					s.dirty = append(s.dirty, k)
				}
				if s.sent[k].visit {
					s.visit = append(s.visit, k)
				}
				k++
			}
		}
		s.visitSorted = len(s.visit)
		clear(s.parts[k:])
		s.parts, s.sent = s.parts[:k], s.sent[:k]
	}
}

// forget drops the forgotten partitions from the index, marks their
// places gone, and reports whether any was in the session. The update
// then closes the places up with no lookup of the partitions it keeps, and
// moves the index only of those that move: a consumer's fetch forgets a
// partition and takes it back nearly every time it reads records from it.
func (s *Session) forget(c *Cache, forgotten []model.TopicPartition) bool {
	removed := false
	for _, tp := range forgotten {
		if k, ok := s.index[tp]; ok {
			s.sent[k].gone = true
			delete(s.index, tp)
			c.release(tp, s)
			removed = true
		}
	}
	return removed
}

// mustRespond decides whether an incremental answer includes a partition,
// and records what it answers (CachedPartition.maybeUpdateResponseData):
// records, a high watermark or log start offset other than the last
// answered, an error (which also forgets the high watermark, so that the
// partition is answered again once the error clears) or a diverging epoch.
//
// k is the partition's place in the session: an answer lists the
// partitions read in the order read, which is the session's.
func (s *Session) mustRespond(k int, pr *model.FetchPartitionResponse) bool {
	if k >= len(s.parts) || s.parts[k].TP != pr.TP {
		var ok bool
		if k, ok = s.index[pr.TP]; !ok {
			return true
		}
	}
	a := &s.sent[k]
	must := len(pr.Batches) > 0 || pr.HasDiverging
	if a.hw != pr.HighWatermark {
		a.hw, must = pr.HighWatermark, true
	}
	if a.logStart != pr.LogStartOffset {
		a.logStart, must = pr.LogStartOffset, true
	}
	if pr.Error != model.NoError {
		a.hw, must = model.NoOffset, true
	}
	s.settle(k, pr)
	return must
}
