package storage

import (
	"time"
)

// expired reports whether a producer whose last batch has timestamp last
// is expired at now: idle for producer.id.expiration.ms or more
// (ProducerStateManager.isProducerExpired; a producer with an open
// transaction never expires, and there are none here).
func (p *ProducerState) expired(now, last time.Duration) bool {
	return p.expiration > 0 && now-last >= p.expiration
}

// RemoveExpiredProducers forgets every producer idle for
// producer.id.expiration.ms or more at now, the node's clock
// (ProducerStateManager.removeExpiredProducers). Its next batch is then
// accepted at any sequence, as a new producer's is. A broker calls it
// every producer.id.expiration.check.interval.ms through the log, which
// first records its latest batches.
func (p *ProducerState) RemoveExpiredProducers(now time.Duration) {
	for _, id := range p.IDs() { // sorted: deletions in a fixed order
		e := p.producers[id]
		last := e.markerTS // a producer a marker left without batches
		if e.n > 0 {
			last = e.at(e.n - 1).Timestamp
		}
		if p.expired(now, last) {
			delete(p.producers, id)
			if p.lastID == id {
				p.lastID, p.last = 0, nil
			}
		}
	}
}

// RemoveExpiredProducers is the log's periodic expiration check
// (UnifiedLog.removeExpiredProducers): the state first records the
// batches appended since it was last read.
func (l *Log) RemoveExpiredProducers(now time.Duration) {
	l.clock = now
	l.foldProducers()
	l.producers.RemoveExpiredProducers(now)
	l.changed()
}
