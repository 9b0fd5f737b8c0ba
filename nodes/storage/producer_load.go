package storage

import (
	"slices"

	"kafkasim/model"
)

// rebuildProducerState brings the producer state to the log's end at
// lastOffset, as Kafka's UnifiedLog.rebuildProducerState does on every load
// and truncation:
//
//   - after a clean shutdown with no snapshot at all (Kafka's upgrade
//     path: a broker that never wrote one), nothing is replayed: empty
//     snapshots are written at the last two segment bases and at
//     lastOffset, and the state starts empty;
//   - otherwise the snapshots outside (log start, lastOffset] go, the state
//     starts from the newest snapshot left that reads whole (damaged ones
//     are deleted) without the producers that expired, and the batches
//     after it are replayed, with a snapshot taken on the way at each of
//     the last two segment bases; a state that was empty up to lastOffset
//     stays so without a replay;
//   - a snapshot is then taken at lastOffset, synced.
//
// It returns the damaged snapshots it deleted.
func (l *Log) rebuildProducerState(lastOffset model.Offset, reloadFromCleanShutdown bool) []error {
	p := l.producers
	n := len(l.segs)
	var toSnapshot []model.Offset
	if n > 1 {
		toSnapshot = append(toSnapshot, l.segs[n-2].base)
	}
	toSnapshot = append(toSnapshot, l.segs[n-1].base, lastOffset)

	if _, ok := p.LatestSnapshotOffset(); !ok && reloadFromCleanShutdown {
		for _, off := range toSnapshot {
			p.mapEnd = off
			p.takeSnapshot(true)
		}
		return nil
	}
	emptyBefore := p.Len() == 0 && p.mapEnd >= lastOffset
	errs := p.truncateAndReload(l.logStart, lastOffset, l.clock)
	if lastOffset > p.mapEnd && !emptyBefore {
		for si := l.segIndex(p.mapEnd); si < n && l.segs[si].base < lastOffset; si++ {
			s := l.segs[si]
			start := max(s.base, p.mapEnd, l.logStart)
			p.mapEnd = start
			if slices.Contains(toSnapshot, s.base) {
				p.takeSnapshot(true)
			}
			for i := s.find(start); i < s.count() && s.at(i).BaseOffset < lastOffset; i++ {
				p.update(s.at(i))
			}
		}
	}
	p.mapEnd = lastOffset
	p.takeSnapshot(true)
	return errs
}

// Close is the log's part of a clean shutdown (UnifiedLog.close): a synced
// snapshot of the producer state at the log end, so that the next load
// starts there and replays nothing. The broker flushes the log first and
// writes its clean-shutdown marker after, which also syncs the directory
// and so the snapshot's name.
func (l *Log) Close() {
	l.foldProducers()
	l.producers.takeSnapshot(true)
}
