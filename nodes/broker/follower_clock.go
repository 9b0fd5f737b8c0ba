package broker

import (
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// A follower fetches every partition it follows from a leader in one
// fetch session, and the leader records the fetch for each of them
// (Partition.updateFollowerFetchState, from ReplicaManager.fetchMessages'
// updateFollowerFetchState over every partition the fetch reads): where the
// follower is, when it fetched, when it was last caught up, its broker
// epoch. Kafka does this for every partition of the session on every
// fetch. For an idle partition the follower has wholly caught up on (its
// fetch offset is the leader's log end, it is in the ISR, the high
// watermark is at the log end) the record is the same each time but for
// the time and the broker epoch, and nothing else follows from it: the ISR
// cannot grow, the high watermark cannot move. kafkasim's leader skips
// such a partition: its follower state rides the session's fetchClock,
// which the leader moves on at each fetch, and reads its times and epoch
// from it, until the partition changes (partChanged) or the follower's
// fetch of it does; then the state takes the clock's values as its own
// (freeze) and the next fetch visits it again. The fetch state read back
// is the one a visit of every partition would have written.

// fetchClock is the time and broker epoch of a follower's fetches in one
// fetch session: cur, of the latest, and prev, of the one before. While a
// fetch visits the session's partitions (visiting), a partition at or
// after the one visited (at) has not been reached yet, and reads prev, as
// a visit in order of every partition would leave it.
type fetchClock struct {
	session   *fetchsession.Session
	prevTime  time.Duration
	prevEpoch model.Epoch
	curTime   time.Duration
	curEpoch  model.Epoch
	visiting  bool
	at        int
}

// fetchTimes are the follower state's last caught-up time, last fetch time
// and broker epoch, read through its clock while it rides one.
func (fs *followerState) fetchTimes() (caughtUp, fetched time.Duration, epoch model.Epoch) {
	c := fs.clock
	if c == nil {
		return fs.lastCaughtUpTime, fs.lastFetchTime, fs.brokerEpoch
	}
	if c.visiting {
		if k, ok := c.session.Pos(fs.tp); ok && k >= c.at {
			return c.prevTime, c.prevTime, c.prevEpoch
		}
	}
	return c.curTime, c.curTime, c.curEpoch
}

// freeze makes the follower state's times its own: it no longer rides a
// clock.
func (fs *followerState) freeze() {
	if fs.clock != nil {
		fs.lastCaughtUpTime, fs.lastFetchTime, fs.brokerEpoch = fs.fetchTimes()
		fs.clock = nil
	}
}

// freezeFollowers freezes every follower state of p: p changed, and a
// follower's next fetch of it may record something new.
func freezeFollowers(p *partition) {
	for _, fs := range p.followers {
		fs.freeze()
	}
}

// clockFor is the fetch clock of session s, made on first use.
func (b *Broker) clockFor(s *fetchsession.Session) *fetchClock {
	c := b.clocks[s]
	if c == nil {
		c = &fetchClock{session: s, prevEpoch: model.NoEpoch, curEpoch: model.NoEpoch}
		b.clocks[s] = c
	}
	return c
}

// recordFollowerFetches records a follower's fetch in a tracked session for
// the partitions it must visit (fetchsession.Session.NextVisit), in the
// session's order, and moves the session's clock on for the others. view
// is the session's partitions.
func (b *Broker) recordFollowerFetches(s *fetchsession.Session, view []model.FetchPartition, r model.BrokerID, brokerEpoch model.Epoch) {
	for _, tp := range b.fetchForgotten {
		// Left out of this fetch: their state is the last fetch's.
		if p := b.part(tp); p != nil {
			if fs := p.follower(r); fs != nil {
				fs.freeze()
			}
		}
	}
	c := b.clockFor(s)
	c.prevTime, c.prevEpoch = c.curTime, c.curEpoch
	c.curTime, c.curEpoch = b.now(), brokerEpoch
	c.visiting, c.at = true, -1
	s.BeginVisits()
	for k, ok := s.NextVisit(-1); ok; k, ok = s.NextVisit(k) {
		c.at = k
		s.KeepVisiting(k, !b.recordFollowerFetch(&view[k], r, brokerEpoch, c))
	}
	c.visiting = false
	if CheckIncremental {
		b.checkFollowerVisits(s, view, r, c)
	}
}

// recordFollowerFetch records a follower's fetch of one partition
// (Partition.updateFollowerFetchState with the ISR expansion and high
// watermark check that follow it), and reports whether the next fetch may
// skip it while neither the partition nor the fetch of it changes: when
// this one did nothing, or recorded only the time and the epoch (then the
// follower state rides c from now on). c is nil outside a tracked session.
func (b *Broker) recordFollowerFetch(fp *model.FetchPartition, r model.BrokerID, brokerEpoch model.Epoch, c *fetchClock) bool {
	p := b.part(fp.TP)
	if p == nil || !p.isLeader || b.fenceCheck(p, fp.CurrentLeaderEpoch) != model.NoError {
		return true
	}
	if _, diverged := b.divergence(p, fp); diverged {
		return true
	}
	fs := p.follower(r)
	if fs == nil || fp.FetchOffset > p.log.LEO() {
		return true
	}
	fs.updateFetchState(fp.FetchOffset, p.log.LEO(), b.now(), brokerEpoch)
	b.maybeExpandISR(p, r)
	b.maybeIncrementHW(p)
	if c == nil || fs.leo != p.log.LEO() || p.hw < p.log.LEO() || !containsBroker(p.isr, r) || !p.isLeader || p.follower(r) != fs {
		return false
	}
	fs.clock = c
	return true
}
