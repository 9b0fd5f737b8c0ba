package fetchsession

import (
	"slices"
	"time"

	"kafkasim/model"
)

// EvictionTime is how long a session must go unused to be stale, and how
// old it must be before a larger one may evict it: Kafka's fixed
// MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, two minutes.
const EvictionTime = 120 * time.Second

// Cache is a broker's fetch sessions (Kafka's FetchSessionCache, one shard
// of it: see docs/kafka.md). The zero value is not usable; see NewCache.
type Cache struct {
	maxEntries int
	sessions   map[int32]*Session
	// newID draws a session id: positive, and the cache redraws one in
	// use (FetchSessionCache.newSessionId draws from ThreadLocalRandom).
	newID func() int32
	// holders are the sessions that hold each partition, in the order
	// they took it: whom Changed tells, and whose parked fetches a change
	// may answer (see Holders).
	holders map[model.TopicPartition][]*Session
	// Evictions counts the sessions evicted to make room.
	Evictions int
	// OnRemove, when set, is called with each session that leaves the
	// cache (evicted, closed, or emptied), after it has left: a fetch
	// still parked in it no longer learns of its partitions' changes.
	OnRemove func(*Session)
}

// NewCache is a cache of at most slots sessions
// (max.incremental.fetch.session.cache.slots; 0 keeps none) drawing
// session ids from newID.
func NewCache(slots int, newID func() int32) *Cache {
	return &Cache{maxEntries: slots, sessions: map[int32]*Session{}, newID: newID,
		holders: map[model.TopicPartition][]*Session{}}
}

// Changed tells every session holding tp that the partition changed:
// each reads it again at its next read. The broker calls it for anything
// that can change what a fetch of tp reads (see Session.Dirty).
func (c *Cache) Changed(tp model.TopicPartition) {
	for _, s := range c.holders[tp] {
		s.markDirty(s.index[tp])
	}
}

// Holders are the cached sessions holding tp, in the order they took it.
// The caller must not change the list.
func (c *Cache) Holders(tp model.TopicPartition) []*Session { return c.holders[tp] }

// hold and release keep holders up to date as s takes and drops tp.
func (c *Cache) hold(tp model.TopicPartition, s *Session) {
	c.holders[tp] = append(c.holders[tp], s)
}

func (c *Cache) release(tp model.TopicPartition, s *Session) {
	hs := c.holders[tp]
	for i, h := range hs {
		if h == s {
			hs = slices.Delete(hs, i, i+1)
			break
		}
	}
	if len(hs) == 0 {
		delete(c.holders, tp)
		return
	}
	c.holders[tp] = hs
}

// Len is the number of sessions cached.
func (c *Cache) Len() int { return len(c.sessions) }

// IDs are the cached sessions' ids, in increasing order.
func (c *Cache) IDs() []int32 {
	ids := make([]int32, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Get is the session with id, or nil.
func (c *Cache) Get(id int32) *Session { return c.sessions[id] }

// Remove drops the session with id, reporting whether there was one.
func (c *Cache) Remove(id int32) bool {
	s := c.sessions[id]
	if s == nil {
		return false
	}
	c.remove(s)
	return true
}

func (c *Cache) remove(s *Session) {
	delete(c.sessions, s.ID)
	s.cachedSize, s.byPrivileged, s.byAll = -1, false, false
	for i := range s.parts {
		c.release(s.parts[i].TP, s)
	}
	if c.OnRemove != nil {
		c.OnRemove(s)
	}
}

// maybeCreate makes a session over parts, answered with resp, when there
// is room or an entry can be evicted (FetchSessionCache.maybeCreateSession),
// and returns its id, or InvalidSessionID.
func (c *Cache) maybeCreate(now time.Duration, privileged bool, parts []model.FetchPartition, resp []model.FetchPartitionResponse) int32 {
	if len(c.sessions) >= c.maxEntries && !c.tryEvict(privileged, len(parts), now) {
		return InvalidSessionID
	}
	id := c.newID()
	for id == InvalidSessionID || c.sessions[id] != nil {
		id = c.newID()
	}
	s := newSession(id, privileged, now, parts, resp)
	c.sessions[id] = s
	for i := range s.parts {
		c.hold(s.parts[i].TP, s)
	}
	c.touch(s, now)
	return id
}

// touch marks s used now and files it again under its size
// (FetchSessionCache.touch). A follower's session becomes evictable by
// another follower's, and anybody's session by a consumer's, only once it
// is older than EvictionTime; a consumer's is evictable by a follower's at
// once. The sets are decided here, at the last use, as Kafka decides them.
func (c *Cache) touch(s *Session, now time.Duration) {
	s.lastUsed = now
	s.cachedSize = s.Size()
	old := now-s.creation > EvictionTime
	s.byPrivileged = !s.Privileged || old
	s.byAll = old
}

// tryEvict makes room for a new session of size partitions
// (FetchSessionCache.tryEvict): the least recently used session goes if
// it is stale (unused for over EvictionTime); otherwise the least valuable
// session the new one may evict, ordered by (privileged, size, id), goes
// unless the new one is less valuable still.
func (c *Cache) tryEvict(privileged bool, size int, now time.Duration) bool {
	var lru, least *Session
	for _, s := range c.sessions {
		if lru == nil || s.lastUsed < lru.lastUsed || (s.lastUsed == lru.lastUsed && s.ID < lru.ID) {
			lru = s
		}
		if (privileged && s.byPrivileged) || (!privileged && s.byAll) {
			if least == nil || lessValuable(s, least) {
				least = s
			}
		}
	}
	switch {
	case lru == nil:
		return false
	case now-lru.lastUsed > EvictionTime:
		c.remove(lru)
	case least == nil:
		return false
	case keyLess(privileged, size, 0, least.Privileged, least.cachedSize, least.ID):
		return false
	default:
		c.remove(least)
	}
	c.Evictions++
	return true
}

// lessValuable orders sessions by Kafka's EvictableKey.
func lessValuable(a, b *Session) bool {
	return keyLess(a.Privileged, a.cachedSize, a.ID, b.Privileged, b.cachedSize, b.ID)
}

// keyLess compares two EvictableKeys (privileged, size, id): unprivileged
// first, then smaller, then the lower id.
func keyLess(ap bool, as int, aid int32, bp bool, bs int, bid int32) bool {
	switch {
	case ap != bp:
		return !ap
	case as != bs:
		return as < bs
	}
	return aid < bid
}
