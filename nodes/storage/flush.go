package storage

import (
	"time"

	"kafkasim/model"
)

// Flushing follows Kafka's LocalLog.flush: sync every segment that holds
// offsets from the recovery point up to the flush offset, then, if any of
// them was created since the last flush, sync the directory, because a new
// file's name survives a power loss only once its directory is synced.
// Kafka syncs the directory there and nowhere else on the append path:
// neither LogSegment.open nor FileRecords.open syncs it when a segment is
// created, so until the next flush a power loss can lose a whole new
// segment, and the log with it from that offset on.

// MaybeFlush applies the time-based flush policy (log.flush.interval.ms):
// if the last flush is at least FlushInterval old and something is
// unflushed, sync it. A broker calls it from a timer, as Kafka's log
// manager checks every log.flush.scheduler.interval.ms. It reports whether
// it synced.
func (l *Log) MaybeFlush(now time.Duration) bool {
	l.clock = now
	if !l.cfg.flushOnTime() || now-l.lastFlush < l.cfg.FlushInterval {
		return false
	}
	return l.flush(l.leo, false)
}

// Flush syncs everything, the active segment and the directory included:
// Kafka's flush on a clean shutdown (forceFlushActiveSegment), which makes
// even an empty active segment's file durable. After it, a power loss loses
// nothing of this log.
func (l *Log) Flush() {
	l.flush(l.leo, true)
}

// flush is Kafka's UnifiedLog.flush(offset, includingOffset): sync the
// segments holding [recovery point, upTo), or up to and including upTo,
// and move the recovery point to upTo. It reports whether it synced.
//
// It also syncs any segment shortened by a truncation since its last sync,
// even below the recovery point. Kafka never syncs those explicitly: after
// a truncation and a roll at the new end, the shortened segment lies below
// every later flush. On a journaling file system the size change is
// committed by the next fsync of any file; the simulated disk keeps it
// pending until that file is synced, and a power loss would then bring the
// cut batches back in front of the new segment, overlapping its offsets.
func (l *Log) flush(upTo model.Offset, inclusive bool) bool {
	to := upTo
	if inclusive {
		to++
	}
	rp := l.recoveryPoint
	if to <= rp {
		return false
	}
	dirty := false
	first := l.segIndex(rp)
	for i, s := range l.segs {
		inRange := i >= first && s.base < to
		if !inRange && !s.cut {
			continue
		}
		l.disk.Sync(s.name)
		s.cut = false
		if inRange && s.base >= rp {
			dirty = true // created since the last flush: its name is not durable yet
		}
	}
	if dirty {
		l.disk.SyncDir()
	}
	if upTo > rp {
		l.recoveryPoint = upTo
		l.lastFlush = l.clock
	}
	return true
}
