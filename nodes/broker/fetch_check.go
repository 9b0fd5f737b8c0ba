package broker

import (
	"fmt"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// CheckTrackedReads makes every read of a tracked fetch session (see
// readFetch) also read the whole session and panic if a partition the
// session holds clean would have been answered, or if the two reads
// disagree on whether the fetch is ready. It is for tests, which set it
// before any run and leave it: a missed change notification
// (fetchsession.Cache.Changed) would otherwise change answers silently.
var CheckTrackedReads bool

// checkTrackedRead is CheckTrackedReads' check of a read of m in session s
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
