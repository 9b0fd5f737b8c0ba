package storage

import (
	"fmt"
	"math"
	"sort"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Config is a partition log's storage settings, named after Kafka's.
// Start from DefaultConfig (or ConfigFrom) and change what a scenario
// needs: a zero field is not "Kafka's default" (a zero RetentionBytes keeps
// nothing below the high watermark, as in Kafka).
type Config struct {
	// SegmentBytes is log.segment.bytes: an append that would take the
	// active segment past it rolls a new one. It must be positive.
	SegmentBytes int64
	// RetentionTime is retention.ms: a segment whose newest record is
	// older than this is deleted. Zero or less keeps segments forever
	// (Kafka's -1).
	RetentionTime time.Duration
	// RetentionBytes is retention.bytes: whole old segments are deleted
	// while the log is larger than this. Less than zero is no limit
	// (Kafka's default -1).
	RetentionBytes int64
	// FlushIntervalMessages is log.flush.interval.messages: once this many
	// messages are unflushed, the append syncs them. Zero or less, or
	// math.MaxInt64 (Kafka's default), never syncs on count.
	FlushIntervalMessages int64
	// FlushInterval is log.flush.interval.ms: MaybeFlush syncs when the
	// last flush is at least this old. Zero or less, or model.Never
	// (Kafka's default, unset), never syncs on time.
	FlushInterval time.Duration
	// ProducerIDExpiration is producer.id.expiration.ms: a producer idle
	// this long (by its last batch's timestamp) is forgotten, at the
	// broker's periodic check and when a snapshot is loaded. Zero or less
	// never expires one.
	ProducerIDExpiration time.Duration
	// SnapshotLastBatchOnly writes producer-state snapshots in Kafka's
	// format, one batch per producer, rather than kafkasim's default of
	// every retained batch (model.BrokerConfig.ProducerSnapshotLastBatchOnly).
	SnapshotLastBatchOnly bool

	_ struct{} // keeps literals keyed
}

// DefaultConfig is Kafka's defaults: 1 GiB segments, 7 days of retention,
// no size limit, no fsync at all, and producers forgotten after a day idle.
func DefaultConfig() Config {
	return Config{
		SegmentBytes:          1 << 30,
		RetentionTime:         7 * 24 * time.Hour,
		RetentionBytes:        -1,
		FlushIntervalMessages: math.MaxInt64,
		FlushInterval:         model.Never,
		ProducerIDExpiration:  24 * time.Hour,
	}
}

// ConfigFrom takes the storage settings from a cluster configuration.
func ConfigFrom(b model.BrokerConfig, t model.TopicConfig) Config {
	return Config{
		SegmentBytes:          b.LogSegmentBytes,
		RetentionTime:         t.Retention,
		RetentionBytes:        t.RetentionBytes,
		FlushIntervalMessages: b.LogFlushIntervalMessages,
		FlushInterval:         b.LogFlushInterval,
		ProducerIDExpiration:  b.ProducerIDExpiration,
		SnapshotLastBatchOnly: b.ProducerSnapshotLastBatchOnly,
	}
}

func (c Config) flushOnCount() bool {
	return c.FlushIntervalMessages > 0 && c.FlushIntervalMessages != math.MaxInt64
}

func (c Config) flushOnTime() bool {
	return c.FlushInterval > 0 && c.FlushInterval != model.Never
}

// Log is one partition replica's log in a folder of a node's disk, Kafka's
// UnifiedLog with its LocalLog: segment files of encoded batches, the
// leader-epoch cache, the producer state, and the offsets that bound them.
//
// Offsets: the log start offset (the first offset a reader may ask for),
// the log end offset LEO (the offset the next append gets), and the
// recovery point (the first offset not known to be synced: what a power
// loss may take). A Log is used by one node and is not safe for use by
// several goroutines, which the simulation never has.
type Log struct {
	disk *sim.Disk
	dir  string
	cfg  Config

	segs          []*segment // ascending, contiguous, never empty; the last is active
	leo           model.Offset
	logStart      model.Offset
	recoveryPoint model.Offset
	lastFlush     time.Duration // when a flush last advanced the recovery point
	clock         time.Duration // the latest time a caller passed

	epochs *EpochCache
	// producers is the producer state; its map end offset is where it
	// stops: the batches from there to the log end are still to be
	// recorded in it (see foldProducers).
	producers *ProducerState
	buf       []byte // encoding scratch, reused across appends
	// checked is the batch Valid last found valid while buf still holds
	// its frame, and checkedAs that batch's fields then: AppendAsLeader
	// restamps that frame rather than encode the batch again (see
	// framesChecked). Whatever else writes buf clears checked, and only
	// checked: checkedAs means nothing without it, and zeroing a whole
	// batch header on every follower append cost more than the append's
	// own bookkeeping.
	checked   *model.Batch
	checkedAs model.Batch
	hdrs      headers  // where Append keeps the headers of its batches
	txns      txnIndex // the transactions in the log (txnindex.go)
	recs      records  // where AppendAsLeader keeps the records of its batches
	// OnChange, when set, is called after anything that can change what a
	// read of the log returns (an append, a truncation, a new log start, a
	// deletion, a producer expiry): the broker's fetch sessions re-read a
	// partition only once it has changed (see nodes/fetchsession).
	OnChange func()
}

// changed tells OnChange.
func (l *Log) changed() {
	if l.OnChange != nil {
		l.OnChange()
	}
}

// Dir is the log's folder on the disk, ending in "/".
func (l *Log) Dir() string { return l.dir }

// LEO is the log end offset: the offset the next appended batch must have.
func (l *Log) LEO() model.Offset { return l.leo }

// LogStartOffset is the first offset a fetch may ask for.
func (l *Log) LogStartOffset() model.Offset { return l.logStart }

// RecoveryPoint is the first offset that has not been flushed: everything
// below it survives a power loss, everything from it may not.
func (l *Log) RecoveryPoint() model.Offset { return l.recoveryPoint }

// Epochs is the log's leader-epoch cache.
func (l *Log) Epochs() *EpochCache { return l.epochs }

// Producers is the log's idempotent-producer state, up to the log end; a
// leader calls its CheckAppend before appending a produce batch. It is the
// state of the moment: appends after the call are not in it until the
// next call.
func (l *Log) Producers() *ProducerState {
	l.foldProducers()
	return l.producers
}

// foldAfter is how many offsets an append leaves out of the producer
// state before it records them all (see foldProducers).
const foldAfter = 512

// foldProducers records the batches from the producer state's map end
// offset to the log end in the
// producer state. Appends leave it to this, for a run of batches at a
// time: recording each batch as it comes (Kafka's
// ProducerStateManager.update on every append) touched the producer's
// entry, cold by the next append of the partition, once per batch per
// replica. Whatever reads the state folds first (Producers), and so does
// retention before it deletes batches, so that nothing can tell.
//
// A long run is read from its newest batch back (ProducerState.noteOlder):
// the state keeps a producer's last few batches only, so most of such a
// run needs no more than a look at each batch's producer. A short one (a
// leader folds the batch or two appended since the last produce request
// of an idempotent producer) or one with too many producers for that goes
// forward, batch by batch; both ways give the same state.
func (l *Log) foldProducers() {
	if l.producers.mapEnd >= l.leo {
		return
	}
	from := max(l.producers.mapEnd, l.logStart)
	l.producers.mapEnd = l.leo
	first := l.segIndex(from)
	if s := l.segs[first]; first == len(l.segs)-1 {
		if i := s.find(from); s.count()-i <= BatchesRetained {
			for ; i < s.count(); i++ {
				l.producers.update(s.at(i))
			}
			return
		}
	}
	if l.foldBack(first, from) {
		l.producers.endFold()
		return
	}
	l.producers.abortFold()
	for si := first; si < len(l.segs); si++ {
		s := l.segs[si]
		for i := s.find(from); i < s.count(); i++ {
			l.producers.update(s.at(i))
		}
	}
}

// foldBack hands the batches from the one holding from (in segment first)
// to the log end to noteOlder, newest first, and reports whether it took
// them all.
func (l *Log) foldBack(first int, from model.Offset) bool {
	for si := len(l.segs) - 1; si >= first; si-- {
		s := l.segs[si]
		for i, lo := s.count()-1, s.find(from); i >= lo; i-- {
			if !l.producers.noteOlder(s.at(i)) {
				return false
			}
		}
	}
	return true
}

// EndOffsetFor is the leader-epoch cache's EndOffsetFor with this log's end
// offset: where epoch ends in this log.
func (l *Log) EndOffsetFor(epoch model.Epoch) (model.Epoch, model.Offset) {
	return l.epochs.EndOffsetFor(epoch, l.leo)
}

// InRange reports whether a fetch at off is within the log: from the log
// start offset up to and including the log end offset (a fetch at the end
// is valid and returns nothing yet). Outside it a broker answers
// OFFSET_OUT_OF_RANGE.
func (l *Log) InRange(off model.Offset) bool { return off >= l.logStart && off <= l.leo }

// Size is the total length of the segment files.
func (l *Log) Size() int64 {
	var n int64
	for _, s := range l.segs {
		n += s.size
	}
	return n
}

// SegmentInfo describes one segment, for tests, traces and reports.
type SegmentInfo struct {
	Name       string
	Base, Next model.Offset
	Bytes      int64
	Batches    int
}

// Segments describes the segments, oldest first; the last is the active one.
func (l *Log) Segments() []SegmentInfo {
	out := make([]SegmentInfo, len(l.segs))
	for i, s := range l.segs {
		out[i] = SegmentInfo{Name: s.name, Base: s.base, Next: s.next(), Bytes: s.size, Batches: s.count()}
	}
	return out
}

func (l *Log) active() *segment { return l.segs[len(l.segs)-1] }

// Append writes a batch at the end of the log. The batch carries its final
// offsets and leader epoch: a leader has checked it (Producers().CheckAppend)
// and stamped it with Rebase, a follower appends what it fetched as it is.
// A batch that does not start at LEO, is empty, has no leader epoch or fails
// its CRC is a programmer error and panics.
//
// As Kafka's UnifiedLog.append: the batch's epoch goes to the epoch cache
// (so a follower learns the leader's epochs from the data), the active
// segment rolls first if the batch would take it past SegmentBytes, the
// bytes go to the page cache, the producer state records the batch, and the
// count-based flush policy runs. now is the node's clock.
func (l *Log) Append(b model.Batch, now time.Duration) {
	// The log keeps its own copy, in its headers: the caller's batch
	// is a value it may reuse.
	l.append(l.hdrs.put(&b), now)
}

// AppendShared is Append of a batch read from another replica's log (a
// follower's fetch answer carries the leader's own batches, see Read),
// which this log then shares rather than copies: b must never change.
func (l *Log) AppendShared(b *model.Batch, now time.Duration) {
	l.append(b, now)
}

// Valid is b.Valid() computed over the log's encoding buffer: a leader
// checks every produce batch before anything else (Kafka's LogValidator,
// CORRUPT_MESSAGE when it fails), and the buffer, unlike the stack copy
// Valid encodes into, can be handed to the hardware CRC.
func (l *Log) Valid(b *model.Batch) bool {
	var ok bool
	l.buf, ok = model.AppendValidBatch(l.buf[:0], b)
	l.checked = nil
	if ok {
		l.checked, l.checkedAs = b, *b
	}
	return ok
}

// framesChecked reports whether buf holds the frame of b as it is now:
// Valid encoded it last, and b still has the fields it had then. Its
// records are not compared: once sent a batch's records never change
// (model.Batch), and the check could not see a record changed in place
// without encoding them again. The batch's CRC covers them all the same,
// so a batch changed that way and sealed again does not pass; one changed
// without sealing gets the CRC of what Valid checked, and fails the next
// check of its bytes (a follower's append) rather than getting a fresh
// CRC over corrupted content.
func (l *Log) framesChecked(b *model.Batch) bool {
	if l.checked != b {
		return false
	}
	c := &l.checkedAs
	return c.BaseOffset == b.BaseOffset && c.LeaderEpoch == b.LeaderEpoch && c.CRC == b.CRC &&
		c.ProducerID == b.ProducerID && c.ProducerEpoch == b.ProducerEpoch && c.BaseSequence == b.BaseSequence &&
		c.Attributes == b.Attributes &&
		len(c.Records) == len(b.Records) && (len(b.Records) == 0 || &c.Records[0] == &b.Records[0])
}

// AppendAsLeader stamps a producer's batch and appends it, as a leader
// does (UnifiedLog.appendAsLeader): the batch goes at the log end under
// leaderEpoch, each record gets its offset, and the CRC covers the new
// offsets and epoch (what model.Batch.Rebase does, without its copy of the
// records). The log keeps the stamped batch in its own storage, which
// grows in chunks rather than by an allocation per batch, and returns it:
// it is shared with the log and must not be changed. b is left as it is
// (a producer may send it again). The caller has checked b (Valid,
// Producers().CheckAppend); an empty batch or a negative epoch panics.
func (l *Log) AppendAsLeader(b *model.Batch, leaderEpoch model.Epoch, now time.Duration) *model.Batch {
	if len(b.Records) == 0 {
		panic(fmt.Sprintf("storage: %s: append of an empty batch at %d", l.dir, l.leo))
	}
	if leaderEpoch < 0 {
		panic(fmt.Sprintf("storage: %s: append of %s under no leader epoch", l.dir, b.String()))
	}
	restamp := l.framesChecked(b)
	l.checked = nil
	h := l.hdrs.put(b)
	h.BaseOffset, h.LeaderEpoch = l.leo, leaderEpoch
	h.Records = l.recs.take(len(b.Records))
	for i, r := range b.Records {
		r.Offset = l.leo + model.Offset(i)
		h.Records[i] = r
	}
	// Sealed as it is encoded: its CRC is computed from the very bytes
	// the disk is told about, so there is nothing to check again. The
	// leader has nearly always just checked b (Valid), and the frame
	// that left in buf differs from the stamped batch's only in the
	// base offset and the epoch.
	if restamp {
		h.CRC = model.RestampFrame(l.buf, h.BaseOffset, h.LeaderEpoch)
	} else {
		l.buf = h.AppendSealed(l.buf[:0])
	}
	l.write(h, now)
	return h
}

// append is Append and AppendShared, for a batch that never changes.
func (l *Log) append(b *model.Batch, now time.Duration) {
	if b.BaseOffset != l.leo {
		panic(fmt.Sprintf("storage: %s: append of %v at log end offset %d", l.dir, b, l.leo))
	}
	if len(b.Records) == 0 {
		panic(fmt.Sprintf("storage: %s: append of an empty batch at %d", l.dir, l.leo))
	}
	if b.LeaderEpoch < 0 {
		panic(fmt.Sprintf("storage: %s: append of %v without a leader epoch (a leader must Rebase)", l.dir, b))
	}
	var valid bool
	l.checked = nil
	l.buf, valid = model.AppendValidBatch(l.buf[:0], b)
	if !valid {
		panic(fmt.Sprintf("storage: %s: append of %v, which fails its CRC or offset check", l.dir, b))
	}
	l.write(b, now)
}

// write is the part of an append after the checks: b is at the log end,
// and l.buf holds its encoding.
func (l *Log) write(b *model.Batch, now time.Duration) {
	l.clock = now
	if !l.epochs.holds(b.LeaderEpoch, b.BaseOffset) {
		l.epochs.Assign(b.LeaderEpoch, b.BaseOffset)
	}
	n := int64(len(l.buf))
	s := l.active()
	// Kafka's shouldRoll: the batch would overflow the segment. An empty
	// segment takes a batch of any size, as rolling could not help.
	if s.size > 0 && s.size+n > l.cfg.SegmentBytes {
		s = l.roll(now)
	}
	s.add(b, n, now)
	// The segment's batches never change in place, so the disk can keep
	// the segment as the source of this batch's bytes and encode them
	// again only if they are ever needed (see segment.AppendItems).
	l.disk.AppendLazyRef(&s.ref, s.name, int(n), s, s.count()-1)
	l.leo = b.NextOffset()
	if b.Attributes != 0 {
		l.txns.note(b)
	}
	if l.leo-l.producers.mapEnd >= foldAfter {
		l.foldProducers()
	}
	if l.cfg.flushOnCount() && int64(l.leo-l.recoveryPoint) >= l.cfg.FlushIntervalMessages {
		l.flush(l.leo, false)
	}
	l.changed()
}

// roll starts a new active segment at LEO. As Kafka's UnifiedLog.roll it
// snapshots the producer state there, then flushes everything before the
// new segment: Kafka schedules that
// flush at once on a background thread, modelled here as done in place.
// The new file's name is not synced to the directory yet; unless the flush
// syncs the directory, a power loss before the next one loses the file.
func (l *Log) roll(now time.Duration) *segment {
	s := &segment{base: l.leo, name: segmentName(l.dir, l.leo), modified: now}
	// A snapshot of the producer state at the new segment's base, so that
	// a load can start there (UnifiedLog.roll). Kafka writes it unsynced
	// and syncs it in the roll's scheduled flush, just before the
	// segments; that flush is done in place here, so the snapshot is
	// synced at once.
	l.foldProducers()
	l.producers.takeSnapshot(true)
	l.disk.Create(s.name)
	l.segs = append(l.segs, s)
	l.flush(s.base, false)
	return s
}

// segIndex is the index of the segment that holds off: the last one based
// at or before it (0 if off precedes them all).
func (l *Log) segIndex(off model.Offset) int {
	// Nearly every read and every fold of the producer state is in the
	// active segment: asked first, it spares the search's calls.
	if n := len(l.segs); l.segs[n-1].base <= off {
		return n - 1
	}
	i := sort.Search(len(l.segs), func(i int) bool { return l.segs[i].base > off }) - 1
	if i < 0 {
		return 0
	}
	return i
}

// Read returns whole batches from the one holding offset from: the first
// batch always, even if it is larger than maxBytes (Kafka's minOneMessage,
// so that a consumer can never be stuck behind a large batch), then the
// following ones while the total stays within maxBytes. It returns nil when
// from is the log end offset or outside the log (the caller checks InRange
// first and answers OFFSET_OUT_OF_RANGE). As Kafka's LocalLog.read, one read
// never crosses a segment boundary. The slice is usually the log's own
// storage, not a copy: neither it nor its batches may be changed.
func (l *Log) Read(from model.Offset, maxBytes int) []*model.Batch {
	return l.ReadUpTo(from, maxBytes, l.leo)
}

// ReadUpTo is Read limited to batches that end at or before end, the high
// watermark for a consumer's fetch (Kafka's maxOffsetMetadata). It returns
// nil when from is at or after end.
func (l *Log) ReadUpTo(from model.Offset, maxBytes int, end model.Offset) []*model.Batch {
	batches, _ := l.ReadUpToSized(from, maxBytes, end)
	return batches
}

// ReadUpToSized is ReadUpTo that also says how many bytes the batches
// take in the log, what a leader compares with a fetch's min bytes.
func (l *Log) ReadUpToSized(from model.Offset, maxBytes int, end model.Offset) ([]*model.Batch, int64) {
	if end > l.leo {
		end = l.leo
	}
	if from < l.logStart || from >= end {
		return nil, 0
	}
	for si := l.segIndex(from); si < len(l.segs); si++ {
		s := l.segs[si]
		i := s.find(from)
		if i == s.count() {
			continue // nothing at or after from here: Kafka moves to the next segment
		}
		var bytes int64
		j := i
		for ; j < s.count(); j++ {
			b := s.at(j)
			if b.NextOffset() > end {
				break
			}
			n := s.batchBytes(j)
			if j > i && bytes+n > int64(maxBytes) {
				break
			}
			bytes += n
		}
		if j == i {
			return nil, 0
		}
		return s.span(i, j), bytes
	}
	return nil, 0
}

// BatchAt returns the batch that holds offset off, if off is in the log
// (at or after the log start offset, before the end).
func (l *Log) BatchAt(off model.Offset) (model.Batch, bool) {
	if off < l.logStart || off >= l.leo {
		return model.Batch{}, false
	}
	s := l.segs[l.segIndex(off)]
	i := s.find(off)
	if i == s.count() || s.at(i).BaseOffset > off {
		return model.Batch{}, false
	}
	return *s.at(i), true
}
