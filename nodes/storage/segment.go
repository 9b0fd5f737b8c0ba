package storage

import (
	"fmt"
	"sort"
	"strconv"
	"time"

	"kafkasim/model"
)

// segment is one segment file, Kafka's LogSegment, and the page cache's
// view of it: the decoded batches and where each ends in the file, so that
// a read never decodes and a truncation knows where to cut.
type segment struct {
	base    model.Offset
	name    string
	batches []model.Batch
	ends    []int64 // ends[i] is the file position just after batches[i]
	size    int64   // the file's length: ends[len-1], or 0
	// maxTime is the largest record timestamp in the segment, what
	// time-based retention compares (valid when hasTime).
	maxTime time.Duration
	hasTime bool
	// modified is when the segment last changed: Kafka falls back to the
	// file's last-modified time when a segment has no record timestamp.
	modified time.Duration
	// cut says the file was shortened and not synced since (see flush).
	cut bool
}

// segmentSuffix ends every segment file name, as Kafka's ".log".
const segmentSuffix = ".log"

// segmentName is the file of the segment based at base in folder dir:
// Kafka's twenty-digit zero-padded base offset, so that names sort in
// offset order.
func segmentName(dir string, base model.Offset) string {
	return fmt.Sprintf("%s%020d%s", dir, int64(base), segmentSuffix)
}

// parseSegmentName returns the base offset of a segment file of dir, or
// false for any other file (checkpoints, temporary files, other folders).
func parseSegmentName(dir, name string) (model.Offset, bool) {
	if len(name) != len(dir)+20+len(segmentSuffix) || name[:len(dir)] != dir || name[len(name)-len(segmentSuffix):] != segmentSuffix {
		return 0, false
	}
	digits := name[len(dir) : len(dir)+20]
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseInt(digits, 10, 64)
	if err != nil {
		return 0, false
	}
	return model.Offset(v), true
}

// next is the offset after the segment's last batch: its base when empty.
func (s *segment) next() model.Offset {
	if len(s.batches) == 0 {
		return s.base
	}
	return s.batches[len(s.batches)-1].NextOffset()
}

// pos is the file position where batch i starts.
func (s *segment) pos(i int) int64 {
	if i == 0 {
		return 0
	}
	return s.ends[i-1]
}

// batchBytes is the encoded size of batch i.
func (s *segment) batchBytes(i int) int64 { return s.ends[i] - s.pos(i) }

// add records a batch of n encoded bytes written at the end of the file.
func (s *segment) add(b model.Batch, n int64, now time.Duration) {
	s.batches = append(s.batches, b)
	s.size += n
	s.ends = append(s.ends, s.size)
	s.noteTime(b)
	s.modified = now
}

// noteTime folds a batch's record timestamps into maxTime.
func (s *segment) noteTime(b model.Batch) {
	if len(b.Records) == 0 {
		return
	}
	if ts := maxTimestamp(b); !s.hasTime || ts > s.maxTime {
		s.maxTime, s.hasTime = ts, true
	}
}

// find is the index of the first batch whose last offset is at or after
// off, len(batches) if none: the batch that holds off, or the next one.
func (s *segment) find(off model.Offset) int {
	return sort.Search(len(s.batches), func(i int) bool { return s.batches[i].LastOffset() >= off })
}

// keep cuts the in-memory view to the first k batches; the caller cuts the
// file to pos(k).
func (s *segment) keep(k int, now time.Duration) {
	s.size = s.pos(k)
	s.batches = s.batches[:k:k]
	s.ends = s.ends[:k:k]
	s.maxTime, s.hasTime = 0, false
	for _, b := range s.batches {
		s.noteTime(b)
	}
	s.modified = now
}

// largestTimestamp is what time-based retention compares with now, as
// Kafka's LogSegment.largestTimestamp: the largest record timestamp, or the
// last change when the segment holds no record.
func (s *segment) largestTimestamp() time.Duration {
	if s.hasTime {
		return s.maxTime
	}
	return s.modified
}

// removeFiles deletes segment files and syncs the directory at once.
//
// Kafka does not sync the directory here: it renames a deleted segment's
// files to .deleted and removes them a minute later. On a journaling file
// system that is still safe, because the next fsync of any file commits
// the journal and the namespace changes with it. The simulated disk makes
// a name change durable only on SyncDir, so without this a segment deleted
// by a truncation could come back after a power loss behind data written
// since over the same offsets, splicing two histories into one log, which
// no real file system produces. The truncated bytes of a segment that is
// shortened rather than deleted can still come back (Kafka does not sync
// them either); that only restores an older state of the same log.
func (l *Log) removeFiles(names ...string) {
	for _, n := range names {
		l.disk.Remove(n)
	}
	if len(names) > 0 {
		l.disk.SyncDir()
	}
}
