package broker

import (
	"fmt"
	"slices"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// CheckIncremental checks the work the broker saves by following changes
// against the work it saves it from, and panics where they differ: every
// read of a tracked fetch session (see readFetch) also reads the whole
// session, and a partition the session holds clean must have nothing to
// answer, and both reads must agree on whether the fetch is ready; every
// fetch a follower builds from its changed partitions (refreshWant) is
// compared with one built from all of them. It is for tests, which set it
// before any run and leave it: a change the broker forgets to pass on
// (partChanged, followChanged) would otherwise change answers silently.
var CheckIncremental bool

// checkWant is CheckIncremental's check of a fetcher's want.
func (b *Broker) checkWant(f *fetcher) {
	var all []model.FetchPartition
	for _, tp := range f.tps {
		if fp, in := b.wantEntry(f, tp); in {
			all = append(all, fp)
		}
	}
	if !slices.Equal(all, f.want) {
		panic(fmt.Sprintf("broker %d: fetcher for %d: the fetch from its changes asks %v, from all its partitions %v", b.cfg.ID, f.leader, f.want, all))
	}
}

// checkTrackedRead is CheckIncremental' check of a read of m in session s
// that found ready.
func (b *Broker) checkTrackedRead(s *fetchsession.Session, m *model.FetchRequest, ready bool) {
	saved, pos := b.fetchRead, b.fetchPos
	b.fetchRead = nil
	allReady := b.readParts(m, m.Partitions)
	all := b.fetchRead
	b.fetchRead, b.fetchPos = saved, pos
	if allReady != ready {
		panic(fmt.Sprintf("broker %d: session %d: a read of its dirty partitions is ready=%v, of all of them ready=%v", b.cfg.ID, s.ID, ready, allReady))
	}
	for k := range all {
		if !s.IsDirty(k) && s.Answers(k, &all[k]) {
			panic(fmt.Sprintf("broker %d: session %d: %s is clean but a read answers it: %+v", b.cfg.ID, s.ID, all[k].TP, all[k]))
		}
	}
}

// checkFollowerVisits is CheckIncremental's check of a follower's fetch in
// a tracked session: every partition the fetch left alone must be one a
// visit would have done nothing for, or whose state rides the session's
// clock with nothing but the time and the epoch to record.
func (b *Broker) checkFollowerVisits(s *fetchsession.Session, view []model.FetchPartition, r model.BrokerID, c *fetchClock) {
	for k := range view {
		if s.Visits(k) {
			continue
		}
		fp := &view[k]
		p := b.part(fp.TP)
		if p == nil || !p.isLeader || b.fenceCheck(p, fp.CurrentLeaderEpoch) != model.NoError {
			continue
		}
		if _, diverged := b.divergence(p, fp); diverged {
			continue
		}
		fs := p.follower(r)
		if fs == nil || fp.FetchOffset > p.log.LEO() {
			continue
		}
		if fs.clock != c || fs.leo != fp.FetchOffset || fp.FetchOffset != p.log.LEO() || p.hw < p.log.LEO() || !containsBroker(p.isr, r) {
			panic(fmt.Sprintf("broker %d: session %d of follower %d: %s was left alone, but a visit would record more than its time (leo %d, fetch %d, log end %d, hw %d, isr %v, riding %v)",
				b.cfg.ID, s.ID, r, fp.TP, fs.leo, fp.FetchOffset, p.log.LEO(), p.hw, p.isr, fs.clock == c))
		}
	}
}
