package fetchsession

import (
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
}

// answered is what a session last answered for one partition.
type answered struct {
	hw, logStart model.Offset
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
		s.sent[i] = answered{hw: model.NoOffset, logStart: model.NoOffset}
	}
	for i := range resp {
		if k, ok := s.index[resp[i].TP]; ok {
			s.sent[k] = answered{hw: resp[i].HighWatermark, logStart: resp[i].LogStartOffset}
		}
	}
	return s
}

// update applies an incremental fetch (FetchSession.update): a partition
// it names is added, or has its parameters replaced (its last answer kept:
// CachedPartition.updateRequestParams); a forgotten one leaves the session.
func (s *Session) update(parts []model.FetchPartition, forgotten []model.TopicPartition) {
	for i := range parts {
		if k, ok := s.index[parts[i].TP]; ok {
			s.parts[k] = parts[i]
			continue
		}
		s.index[parts[i].TP] = len(s.parts)
		s.parts = append(s.parts, parts[i])
		s.sent = append(s.sent, answered{hw: model.NoOffset, logStart: model.NoOffset})
	}
	if removed := s.forget(forgotten); removed {
		k := 0
		for i := range s.parts {
			if _, ok := s.index[s.parts[i].TP]; ok {
				s.parts[k], s.sent[k] = s.parts[i], s.sent[i]
				s.index[s.parts[k].TP] = k
				k++
			}
		}
		clear(s.parts[k:])
		s.parts, s.sent = s.parts[:k], s.sent[:k]
	}
}

// forget drops the forgotten partitions from the index, and reports
// whether any was in the session.
func (s *Session) forget(forgotten []model.TopicPartition) bool {
	removed := false
	for _, tp := range forgotten {
		if _, ok := s.index[tp]; ok {
			delete(s.index, tp)
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
	return must
}
