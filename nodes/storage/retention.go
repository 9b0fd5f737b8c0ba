package storage

import (
	"time"

	"kafkasim/model"
)

// ApplyRetention deletes old segments by size (retention.bytes), then by
// time (retention.ms), as Kafka's UnifiedLog.deleteOldSegments, and returns
// how many it deleted. now is the node's clock and hw the partition's high
// watermark.
//
// Only whole segments go, oldest first, and only while every offset of the
// segment is below hw, so the log start offset, which moves to the first
// remaining segment, never passes the high watermark: a record is never
// deleted before it is committed. By size, segments go while the log stays
// at or above RetentionBytes without them; by time, while the segment's
// newest record is more than RetentionTime older than now.
//
// An empty active segment is never deleted. A non-empty one can be, when
// it too is wholly below hw and breaches retention: as Kafka does, a new
// empty active segment is rolled at the log end first, so the log keeps an
// active segment and its end offset. The new log start offset is written
// to a checkpoint so that it survives a restart.
func (l *Log) ApplyRetention(now time.Duration, hw model.Offset) (deleted int) {
	l.clock = now
	// Segments below a log start offset raised by other means (a
	// follower taking its leader's) go first, whatever the retention
	// settings (UnifiedLog.deleteLogStartOffsetBreachedSegments).
	deleted += l.deleteOld(hw, func(s *segment) bool { return s.next() <= l.logStart })
	if l.cfg.RetentionBytes >= 0 {
		if size := l.Size(); size >= l.cfg.RetentionBytes {
			excess := size - l.cfg.RetentionBytes
			deleted += l.deleteOld(hw, func(s *segment) bool {
				if excess-s.size < 0 {
					return false
				}
				excess -= s.size
				return true
			})
		}
	}
	if l.cfg.RetentionTime > 0 {
		deleted += l.deleteOld(hw, func(s *segment) bool {
			return now-s.largestTimestamp() > l.cfg.RetentionTime
		})
	}
	return deleted
}

// deleteOld deletes segments from the oldest while they lie wholly below
// hw and expired says so (Kafka's deletableSegments and deleteSegments).
func (l *Log) deleteOld(hw model.Offset, expired func(*segment) bool) int {
	// The producer state remembers producers whose batches retention
	// deletes (in its snapshots too, until they expire): record them
	// before they go.
	l.foldProducers()
	n := 0
	for n < len(l.segs) {
		s := l.segs[n]
		last := n == len(l.segs)-1
		upper := l.leo
		if !last {
			upper = l.segs[n+1].base
		}
		if hw < upper || !expired(s) || (last && s.size == 0) {
			break
		}
		n++
	}
	if n == 0 {
		return 0
	}
	if n == len(l.segs) {
		l.roll(l.clock)
	}
	drop := make([]string, n)
	for i, s := range l.segs[:n] {
		drop[i] = s.name
		l.producers.removeSnapshot(s.base) // UnifiedLog.deleteProducerSnapshots
	}
	l.removeFiles(drop...)
	l.segs = append([]*segment(nil), l.segs[n:]...)
	l.raiseLogStart(l.segs[0].base)
	l.changed()
	return n
}

// raiseLogStart moves the log start offset up to start, with what follows
// from it (UnifiedLog.maybeIncrementLogStartOffset and updateLogStartOffset):
// the epoch cache and the producer state forget what lies below, and the
// new start is checkpointed. A start at or below the current one does
// nothing.
func (l *Log) raiseLogStart(start model.Offset) {
	if start <= l.logStart {
		return
	}
	l.logStart = start
	if l.recoveryPoint < start {
		l.recoveryPoint = start
	}
	l.epochs.TruncateFromStart(start)
	l.producers.onLogStartOffsetIncremented(start)
	l.writeLogStart()
	l.changed()
}

// MaybeIncrementLogStartOffset raises the log start offset to off, as a
// follower does to follow its leader's (ReplicaFetcherThread.
// processPartitionData hands UnifiedLog.maybeIncrementLogStartOffset the
// leader's log start from each fetch answer), and reports whether it
// moved. It never moves back, nor past hw: Kafka refuses a start above the
// high watermark (OffsetOutOfRangeException), and here such a start is
// left for a later answer, once the high watermark has caught up. The
// segments now wholly below the start are deleted by the next retention
// check, as Kafka's deleteLogStartOffsetBreachedSegments does.
func (l *Log) MaybeIncrementLogStartOffset(off, hw model.Offset) bool {
	if off <= l.logStart || off > hw || off > l.leo {
		return false
	}
	l.raiseLogStart(off)
	return true
}
