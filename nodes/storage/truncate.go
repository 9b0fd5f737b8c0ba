package storage

import (
	"fmt"
	"strconv"

	"kafkasim/model"
)

// TruncateTo removes every batch that holds an offset at or after off and
// returns the new log end offset: a follower cutting the tail where its log
// diverges from the leader's. As Kafka's LogSegment.truncateTo, a batch is
// never split: a cut inside a batch drops the whole batch, so the new end
// can be below off. (Kafka's LocalLog then sets its end offset to off all
// the same; here the end is where the data ends. Truncation points come
// from epoch start offsets and high watermarks, which are batch
// boundaries, so the two agree in practice.)
//
// Whole segments past the cut are deleted (see removeFiles) and the one
// holding it is shortened without a sync, as in Kafka, so until the next
// flush (see flush) a power loss can bring the cut batches of that segment
// back: an older state of the same log, which the next epoch-based
// truncation deals with. The epoch cache loses the epochs that start at or
// after the new end, the recovery point moves back to it, and the producer
// state starts again from the newest snapshot at or below the new end and
// the batches after it (UnifiedLog.truncateTo, rebuildProducerState).
//
// An off at or after the end changes no data but still truncates the epoch
// cache to the end, as Kafka does: a replica that became leader and wrote
// nothing must not keep its epoch's entry. An off before the first segment
// starts the log over (TruncateFullyAndStartAt).
func (l *Log) TruncateTo(off model.Offset) model.Offset {
	if off < 0 {
		panic(fmt.Sprintf("storage: %s: truncate to negative offset %d", l.dir, off))
	}
	if off >= l.leo {
		l.epochs.TruncateFromEnd(l.leo)
		l.changed()
		return l.leo
	}
	if off < l.segs[0].base {
		l.TruncateFullyAndStartAt(off)
		return off
	}
	// The state as of the old log end first, as Kafka's always is.
	l.foldProducers()
	k := len(l.segs)
	var drop []string
	for l.segs[k-1].base > off {
		drop = append(drop, l.segs[k-1].name)
		l.producers.removeSnapshot(l.segs[k-1].base) // deleteProducerSnapshots
		k--
	}
	l.removeFiles(drop...)
	l.segs = l.segs[:k]
	s := l.segs[k-1]
	if i := s.find(off); i < s.count() {
		l.disk.Truncate(s.name, s.pos(i))
		s.keep(i, l.clock)
		s.cut = true
	}
	l.leo = s.next()
	l.epochs.TruncateFromEnd(l.leo)
	if l.recoveryPoint > l.leo {
		l.recoveryPoint = l.leo
	}
	if l.logStart > l.leo {
		l.logStart = l.leo
		l.writeLogStart()
	}
	l.rebuildProducerState(l.leo, false)
	l.maybeRebuildTxnIndex()
	l.changed()
	return l.leo
}

// TruncateFullyAndStartAt deletes the whole log and starts it again, empty,
// at off: a follower whose fetch offset is out of the leader's range (below
// its log start offset). As in Kafka the epoch cache and the producer state
// are cleared, every producer snapshot is deleted, and off becomes the log
// start offset.
func (l *Log) TruncateFullyAndStartAt(off model.Offset) {
	if off < 0 {
		panic(fmt.Sprintf("storage: %s: start at negative offset %d", l.dir, off))
	}
	drop := make([]string, len(l.segs))
	for i, s := range l.segs {
		drop[i] = s.name
	}
	l.removeFiles(drop...)
	s := &segment{base: off, name: segmentName(l.dir, off), modified: l.clock}
	l.disk.Create(s.name)
	l.segs = []*segment{s}
	l.leo, l.logStart, l.recoveryPoint = off, off, off
	l.epochs.Clear()
	l.producers.truncateFullyAndStartAt(off)
	l.writeLogStart()
	l.rebuildProducerState(off, false)
	l.maybeRebuildTxnIndex()
	l.changed()
}

// logStartName is the log-start-offset checkpoint of a log folder.
func (l *Log) logStartName() string { return l.dir + "log-start-offset-checkpoint" }

// writeLogStart saves the log start offset. Kafka derives it on load from
// the first segment and a per-directory log-start-offset-checkpoint written
// every minute; here it is written on each change, because a deleted
// segment whose removal was not yet synced comes back after a power loss,
// and the start offset must not go back with it.
func (l *Log) writeLogStart() {
	WriteCheckpoint(l.disk, l.logStartName(), []string{strconv.FormatInt(int64(l.logStart), 10)})
}
