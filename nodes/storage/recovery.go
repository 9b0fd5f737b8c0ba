package storage

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Recovery reports what Open found on disk and what it did about it.
type Recovery struct {
	// Segments is how many segment files Open found; Batches how many
	// batches it kept.
	Segments, Batches int
	// TornTail says the log was cut at a batch that runs past the end of
	// its file: the last unsynced write, torn by a power loss.
	TornTail bool
	// Corrupt says the log was cut at a complete batch that fails its CRC
	// or does not parse, or whose offsets do not follow the batch before.
	Corrupt bool
	// Cause is why the log was cut, nil if it was whole.
	Cause error
	// BytesDropped counts the bytes cut: the tail of the file where the
	// cut fell and every later segment file, which Open deletes.
	BytesDropped int64
	// SegmentsDropped counts the segment files deleted: those after a cut,
	// and those wholly below the log start offset.
	SegmentsDropped int
	// CheckpointErrs lists checkpoint files that were malformed and read
	// as absent, and producer snapshots that were damaged and deleted.
	CheckpointErrs []error
	// LogStartOffset and LogEndOffset are the recovered log's bounds.
	LogStartOffset, LogEndOffset model.Offset
}

// Clean reports whether the log was whole: nothing was cut.
func (r Recovery) Clean() bool { return r.Cause == nil }

func (r Recovery) String() string {
	s := fmt.Sprintf("segments=%d batches=%d log=[%d,%d)", r.Segments, r.Batches, r.LogStartOffset, r.LogEndOffset)
	if r.Cause != nil {
		s += fmt.Sprintf(" cut: %v (torn=%v corrupt=%v, %d bytes and %d segments dropped)",
			r.Cause, r.TornTail, r.Corrupt, r.BytesDropped, r.SegmentsDropped)
	} else if r.SegmentsDropped > 0 {
		s += fmt.Sprintf(" %d segments below the log start dropped", r.SegmentsDropped)
	}
	return s
}

// Open loads the log in folder dir of disk (a name prefix such as "t-0/";
// a missing "/" is added), creating it empty if there is none, and returns
// it with a report of the recovery. now is the node's clock.
//
// Recovery is Kafka's after an unclean shutdown (LogLoader.recoverLog and
// LogSegment.recover), applied to every segment because this package keeps
// no recovery-point checkpoint: each segment file, in offset order, is
// decoded batch by batch, and at the first batch that is torn, corrupt, or
// does not continue the offsets before it, the file is truncated there and
// every later segment file deleted. A power loss can only lose a suffix of
// what was written, and later data without the data before it is not a log.
// Then, as Kafka's LogLoader.load:
//
//   - the log start offset is the larger of its checkpoint and the first
//     segment's base; a log that now ends before its checkpointed start is
//     deleted and started again there, and segments wholly below the start
//     are deleted;
//   - the leader-epoch cache is loaded from its checkpoint, learns any epoch
//     newer than its latest from the recovered batches, and is truncated to
//     the recovered end and the log start;
//   - the producer state is loaded from its newest trusted snapshot and
//     the batches after it (rebuildProducerState); damaged snapshots are
//     deleted and reported with the checkpoints.
//
// Everything is treated as unflushed afterwards (the recovery point is the
// log start), so the first flush syncs every segment and the directory.
func Open(disk *sim.Disk, dir string, cfg Config, now time.Duration) (*Log, Recovery) {
	return open(disk, dir, cfg, now, false)
}

// OpenAfterCleanShutdown is Open for a broker that found its clean-shutdown
// marker (LogLoader's hadCleanShutdown). The segments are checked all the
// same (a clean shutdown flushed them, so nothing is cut); what differs is
// the producer state's load: with no snapshot at all, Kafka trusts that
// there is nothing to replay (see rebuildProducerState).
func OpenAfterCleanShutdown(disk *sim.Disk, dir string, cfg Config, now time.Duration) (*Log, Recovery) {
	return open(disk, dir, cfg, now, true)
}

func open(disk *sim.Disk, dir string, cfg Config, now time.Duration, clean bool) (*Log, Recovery) {
	if cfg.SegmentBytes <= 0 {
		panic(fmt.Sprintf("storage: open %s: SegmentBytes %d is not positive (start from DefaultConfig)", dir, cfg.SegmentBytes))
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	l := &Log{disk: disk, dir: dir, cfg: cfg, clock: now, lastFlush: now, producers: newProducerState(disk, dir, cfg.ProducerIDExpiration)}
	l.producers.lastBatchOnly = cfg.SnapshotLastBatchOnly
	var rec Recovery

	startCkpt, err := l.readLogStart()
	if err != nil {
		rec.CheckpointErrs = append(rec.CheckpointErrs, err)
	}
	l.loadSegments(startCkpt, now, &rec)

	startOver := len(l.segs) > 0 && l.leo < startCkpt
	if startOver {
		// Kafka's deleteSegmentsIfLogStartGreaterThanLogEnd: what is left
		// ends before the log is known to start, so none of it is the log.
		drop := make([]string, len(l.segs))
		for i, s := range l.segs {
			drop[i] = s.name
		}
		l.removeFiles(drop...)
		rec.SegmentsDropped += len(drop)
		l.segs = nil
		l.producers.loadSnapshotList()
		l.producers.truncateFullyAndStartAt(startCkpt)
	}
	if len(l.segs) == 0 {
		s := &segment{base: startCkpt, name: segmentName(dir, startCkpt), modified: now}
		disk.Create(s.name)
		l.segs = []*segment{s}
		l.leo = startCkpt
	}
	l.logStart = max(startCkpt, l.segs[0].base)
	l.recoveryPoint = l.logStart

	l.epochs, err = loadEpochCache(disk, dir+epochCheckpointName)
	if err != nil {
		rec.CheckpointErrs = append(rec.CheckpointErrs, err)
	}
	if startOver {
		l.epochs.Clear() // as Kafka: no epoch of the deleted data applies
	}
	l.recoverEpochs()
	// LogLoader.load: the snapshots that belong to no segment go (but the
	// newest, if past every segment's base: a clean shutdown's), then the
	// state is loaded from the newest snapshot left and the log after it.
	bases := make([]model.Offset, len(l.segs))
	for i, s := range l.segs {
		bases[i] = s.base
	}
	l.producers.removeStraySnapshots(bases)
	rec.CheckpointErrs = append(rec.CheckpointErrs, l.rebuildProducerState(l.leo, clean)...)

	l.rebuildTxnIndex()
	for _, s := range l.segs {
		rec.Batches += s.count()
	}
	rec.LogStartOffset, rec.LogEndOffset = l.logStart, l.leo
	return l, rec
}

// loadSegments decodes the segment files into l.segs and l.leo, cutting
// the log at the first bad batch (see Open). Files wholly below start, the
// checkpointed log start offset, are deleted unread (Kafka deletes them at
// its next retention pass): they are what retention or a restart at a new
// offset deleted, back after a power loss, and must not be mistaken for a
// gap in the log.
func (l *Log) loadSegments(start model.Offset, now time.Duration, rec *Recovery) {
	var names []string
	var bases []model.Offset
	for _, n := range l.disk.List(l.dir) {
		if base, ok := parseSegmentName(l.dir, n); ok {
			names = append(names, n)
			bases = append(bases, base)
		}
	}
	rec.Segments = len(names)
	var drop []string
	defer func() { l.removeFiles(drop...) }()
	for len(names) > 1 && bases[1] <= start {
		drop = append(drop, names[0])
		rec.SegmentsDropped++
		names, bases = names[1:], bases[1:]
	}
	cut := false
	for i, name := range names {
		size := l.disk.Size(name)
		if cut {
			drop = append(drop, name)
			rec.BytesDropped += size
			rec.SegmentsDropped++
			continue
		}
		if len(l.segs) > 0 && bases[i] != l.leo {
			// A gap or an overlap between segments: a file that a power
			// loss brought back or lost. The log ends where it stops
			// being contiguous.
			rec.Cause = fmt.Errorf("%w: segment %s starts at %d, the log before it ends at %d", model.ErrCorrupt, name, bases[i], l.leo)
			rec.Corrupt = true
			cut = true
			drop = append(drop, name)
			rec.BytesDropped += size
			rec.SegmentsDropped++
			continue
		}
		s := &segment{base: bases[i], name: name, modified: now}
		data := l.disk.Read(name)
		if at, err := s.decode(data, now, &l.hdrs); err != nil {
			rec.Cause = fmt.Errorf("segment %s at byte %d: %w", name, at, err)
			if errors.Is(err, model.ErrTruncated) {
				rec.TornTail = true
			} else {
				rec.Corrupt = true
			}
			cut = true
			l.disk.Truncate(name, at)
			s.cut = true
			rec.BytesDropped += int64(len(data)) - at
		}
		l.segs = append(l.segs, s)
		l.leo = s.next()
	}
}

// decode fills the segment from its file's bytes and returns where the
// valid part ends and, if that is not the end, why. A batch must be whole,
// pass its CRC, hold records, and start where the one before ends (the
// segment's base for the first), with consecutive record offsets.
func (s *segment) decode(data []byte, now time.Duration, hdrs *headers) (int64, error) {
	var at int64
	for at < int64(len(data)) {
		b, n, err := model.DecodeBatch(data[at:])
		if err == nil {
			err = checkRecovered(b, s.next())
		}
		if err != nil {
			return at, err
		}
		s.add(hdrs.put(&b), int64(n), now)
		at += int64(n)
	}
	return at, nil
}

// checkRecovered checks what the frame's CRC cannot: that a decoded batch
// is where the log needs it.
func checkRecovered(b model.Batch, want model.Offset) error {
	if len(b.Records) == 0 {
		return fmt.Errorf("%w: empty batch at %d", model.ErrCorrupt, b.BaseOffset)
	}
	if b.BaseOffset != want {
		return fmt.Errorf("%w: batch %v where offset %d was expected", model.ErrCorrupt, b, want)
	}
	for i := range b.Records {
		if b.Records[i].Offset != b.BaseOffset+model.Offset(i) {
			return fmt.Errorf("%w: batch %v: record %d has offset %d", model.ErrCorrupt, b, i, b.Records[i].Offset)
		}
	}
	return nil
}

// recoverEpochs brings the loaded epoch cache in line with the recovered
// log, as LogSegment.recover and LogLoader.load do, and saves it if that
// changed it. Epochs newer than the cache's latest are learned from the
// batches: the checkpoint may lag the data when a cut batch came back, or
// when the checkpoint was damaged. Then the entries at or past the log end
// (epochs whose batches a power loss took) and before the log start go.
func (l *Log) recoverEpochs() {
	c := l.epochs
	changed := false
	for _, s := range l.segs {
		for i := 0; i < s.count(); i++ {
			b := s.at(i)
			if latest, _ := c.Latest(); b.LeaderEpoch >= 0 && b.LeaderEpoch > latest {
				changed = c.assign(EpochEntry{Epoch: b.LeaderEpoch, StartOffset: b.BaseOffset}) || changed
			}
		}
	}
	changed = c.truncateFromEnd(l.leo) || changed
	changed = c.truncateFromStart(l.logStart) || changed
	if changed {
		c.write()
	}
}

// readLogStart reads the log start offset checkpoint: 0 if there is none.
func (l *Log) readLogStart() (model.Offset, error) {
	lines, ok, err := ReadCheckpoint(l.disk, l.logStartName())
	if !ok {
		return 0, err
	}
	if len(lines) != 1 {
		return 0, fmt.Errorf("checkpoint %s: %d entries, want 1", l.logStartName(), len(lines))
	}
	v, err := strconv.ParseInt(lines[0], 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("checkpoint %s: entry %q is not a non-negative offset", l.logStartName(), lines[0])
	}
	return model.Offset(v), nil
}
