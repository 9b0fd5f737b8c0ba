package storage

import (
	"fmt"
	"strconv"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// segment is one segment file, Kafka's LogSegment, and the page cache's
// view of it: the decoded batches and where each ends in the file, so that
// a read never decodes and a truncation knows where to cut.
//
// The segment holds pointers to batch headers that never change once
// appended. A leader's headers live in its log's slab (headers); a
// follower keeps a pointer to the very header its leader's fetch answer
// carried, as the bytes it stores are the leader's bytes: three replicas
// of a batch cost one header and three pointers, not three headers, for
// the whole run.
type segment struct {
	base model.Offset
	name string
	// batches holds the batches in fixed-size chunks rather than one
	// slice: a segment of a long run holds tens of thousands of batches,
	// and a single slice would be copied whole every time it grew. A slot
	// of a chunk's backing array is never written twice (keep copies the
	// chunk it cuts), so a read can hand out a slice of a chunk rather
	// than a copy. ends[c][j] is the file position just after
	// batches[c][j].
	batches [][]*model.Batch
	ends    [][]int64
	n       int   // number of batches
	size    int64 // the file's length: the last batch's end, or 0
	// maxTime is the largest record timestamp of the first timed
	// batches (valid when hasTime), what time-based retention compares.
	// largestTimestamp folds the rest in when retention asks, every
	// log.retention.check.interval.ms, rather than add on every append:
	// that walked every record of every batch once more per replica.
	maxTime time.Duration
	hasTime bool
	timed   int
	// modified is when the segment last changed: Kafka falls back to the
	// file's last-modified time when a segment has no record timestamp.
	modified time.Duration
	// cut says the file was shortened and not synced since (see flush).
	cut bool
	// ref resolves name on the disk for every append without a lookup.
	ref sim.FileRef
}

// chunkEntries is how many batches one chunk of a segment holds.
const chunkEntries = 256

// headers gives batch headers a home that never moves or changes: slots
// of fixed-size chunks, each written once, so that segments can point at
// them without a heap object per batch.
type headers struct{ cur []model.Batch }

// put stores a copy of b and returns where it lives.
func (h *headers) put(b *model.Batch) *model.Batch {
	if len(h.cur) == cap(h.cur) {
		h.cur = make([]model.Batch, 0, chunkEntries)
	}
	h.cur = append(h.cur, *b)
	return &h.cur[len(h.cur)-1]
}

// records gives the records of a leader's batches a home that never moves
// or changes, as headers does for their headers: a batch's records take
// the next slots of a fixed-size chunk, written once, instead of an
// allocation of their own.
type records struct{ cur []model.Record }

// recordChunk is how many records one chunk of records holds.
const recordChunk = 512

// take returns n fresh slots, to be filled once. Their capacity ends with
// them, so that appending to the slice copies rather than overwriting the
// next batch's records.
func (r *records) take(n int) []model.Record {
	if cap(r.cur)-len(r.cur) < n {
		r.cur = make([]model.Record, 0, max(recordChunk, n))
	}
	i := len(r.cur)
	r.cur = r.cur[:i+n]
	return r.cur[i : i+n : i+n]
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
	return parseOffsetName(dir, name, segmentSuffix)
}

// parseOffsetName reads a file name of dir made of a zero-padded 20-digit
// offset and suffix, as Kafka names segments and producer snapshots
// (LogFileUtils.filenamePrefixFromOffset); false for any other name.
func parseOffsetName(dir, name, suffix string) (model.Offset, bool) {
	if len(name) != len(dir)+20+len(suffix) || name[:len(dir)] != dir || name[len(name)-len(suffix):] != suffix {
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

// count is the number of batches in the segment.
func (s *segment) count() int { return s.n }

// at is batch i, shared with the segment: it must not be changed.
func (s *segment) at(i int) *model.Batch { return s.batches[i/chunkEntries][i%chunkEntries] }

// end is the file position just after batch i.
func (s *segment) end(i int) int64 { return s.ends[i/chunkEntries][i%chunkEntries] }

// span returns batches i to j-1 (i < j <= count()) as one slice, shared
// with the segment when they lie in one chunk, which is nearly always.
// The slice's capacity ends at j, so appending to it copies; its elements
// must not be changed.
func (s *segment) span(i, j int) []*model.Batch {
	c := i / chunkEntries
	if (j-1)/chunkEntries == c {
		return s.batches[c][i%chunkEntries : j-c*chunkEntries : j-c*chunkEntries]
	}
	out := make([]*model.Batch, 0, j-i)
	for k := i; k < j; k++ {
		out = append(out, s.at(k))
	}
	return out
}

// AppendItems appends the encoding of batches from to to-1, making the
// segment the source of its file's bytes on the simulated disk (sim.Lazy):
// the disk asks for them only when something reads the file. A batch
// keeps its index until a truncation cuts it, and a truncation cuts the
// file first, which makes the disk produce what it had deferred while the
// segment still holds it.
func (s *segment) AppendItems(dst []byte, from, to int) []byte {
	for i := from; i < to; i++ {
		dst = s.at(i).AppendTo(dst)
	}
	return dst
}

// next is the offset after the segment's last batch: its base when empty.
func (s *segment) next() model.Offset {
	if s.n == 0 {
		return s.base
	}
	return s.at(s.n - 1).NextOffset()
}

// pos is the file position where batch i starts.
func (s *segment) pos(i int) int64 {
	if i == 0 {
		return 0
	}
	return s.end(i - 1)
}

// batchBytes is the encoded size of batch i.
func (s *segment) batchBytes(i int) int64 { return s.end(i) - s.pos(i) }

// add records a batch of n encoded bytes written at the end of the file.
// The batch must never change afterwards.
func (s *segment) add(b *model.Batch, n int64, now time.Duration) {
	c := s.n / chunkEntries
	if c == len(s.batches) {
		s.batches = append(s.batches, make([]*model.Batch, 0, chunkEntries))
		s.ends = append(s.ends, make([]int64, 0, chunkEntries))
	}
	s.size += n
	s.batches[c] = append(s.batches[c], b)
	s.ends[c] = append(s.ends[c], s.size)
	s.n++
	s.modified = now
}

// noteTime folds a batch's record timestamps into maxTime.
func (s *segment) noteTime(b *model.Batch) {
	if len(b.Records) == 0 {
		return
	}
	if ts := maxTimestamp(b); !s.hasTime || ts > s.maxTime {
		s.maxTime, s.hasTime = ts, true
	}
}

// find is the index of the first batch whose last offset is at or after
// off, count() if none: the batch that holds off, or the next one.
func (s *segment) find(off model.Offset) int {
	// Fetches read at or near the end: a follower at the log end, a
	// consumer at the high watermark or some way behind it. So the search
	// gallops back from the end, doubling its step, until it passes a
	// batch that ends before off, and then searches between the two last
	// probes: a few probes for a read near the end, twice a binary
	// search's for one at the start. Last offsets increase along the
	// segment.
	lo, hi := 0, s.n // the answer is in [lo, hi]
	for step := 1; ; step *= 2 {
		i := hi - step
		if i < 0 {
			break
		}
		if s.at(i).LastOffset() < off {
			lo = i + 1
			break
		}
		hi = i
	}
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if s.at(h).LastOffset() < off {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// keep cuts the in-memory view to the first k batches; the caller cuts the
// file to pos(k).
func (s *segment) keep(k int, now time.Duration) {
	s.size = s.pos(k)
	c := (k + chunkEntries - 1) / chunkEntries
	clear(s.batches[c:])
	s.batches = s.batches[:c]
	clear(s.ends[c:])
	s.ends = s.ends[:c]
	if c > 0 {
		kept := k - (c-1)*chunkEntries
		if kept < len(s.batches[c-1]) {
			// A fresh chunk: slices handed out by reads keep the old one
			// as it was, and later appends must not overwrite it.
			s.batches[c-1] = append(make([]*model.Batch, 0, chunkEntries), s.batches[c-1][:kept]...)
			s.ends[c-1] = s.ends[c-1][:kept]
		}
	}
	s.n = k
	if k < s.timed {
		// A batch folded into maxTime may be gone: fold again from the
		// start when asked.
		s.maxTime, s.hasTime, s.timed = 0, false, 0
	}
	s.modified = now
}

// largestTimestamp is what time-based retention compares with now, as
// Kafka's LogSegment.largestTimestamp: the largest record timestamp, or the
// last change when the segment holds no record.
func (s *segment) largestTimestamp() time.Duration {
	for ; s.timed < s.n; s.timed++ {
		s.noteTime(s.at(s.timed))
	}
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
