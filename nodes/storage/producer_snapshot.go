package storage

import (
	"fmt"
	"hash/crc32"
	"sort"
	"strconv"
	"strings"
	"time"

	"kafkasim/model"
)

// A producer-state snapshot is Kafka's "<offset>.snapshot" file
// (ProducerStateManager.writeSnapshot, LogFileUtils.producerSnapshotFile):
// every producer's state as of the offset in its name, so that a restart
// loads the latest snapshot and replays only the batches after it instead
// of the whole log.
//
// Kafka's keeps of each producer its epoch and its last batch only
// (ProducerSnapshot's lastSequence, lastOffset, offsetDelta, timestamp).
// By default kafkasim's keeps every batch the live state retains, up to
// five, one line each: with Kafka's format a reload forgets the four older
// batches, a retry of one of them still in flight gets
// OUT_OF_ORDER_SEQUENCE_NUMBER, and the producer's epoch bump (KIP-360,
// TransactionManager.canRetry) appends it again, which broke the
// idempotence promise of the catalog's failover scenarios. Kafka's format
// is the switch producer.snapshot.last.batch.only. The transactional
// fields (coordinatorEpoch, currentTxnFirstOffset) are not kept, as
// transactions are not modelled.
//
// The format is kafkasim's own text, not Kafka's binary schema, with the
// same protection: a CRC-32C over the entries, so that a torn, emptied or
// damaged file reads as corrupt and is deleted, and the next older
// snapshot is tried (ProducerStateManager.loadFromSnapshot). Lines are
// sorted by producer id, then oldest batch first.
//
//	kafkasim-producer-snapshot 1
//	<crc32c of what follows, in hex>
//	<producer id> <epoch> <last sequence> <last offset> <offset delta> <timestamp ns>
//	...
const (
	snapshotSuffix = ".snapshot"
	snapshotHeader = "kafkasim-producer-snapshot 1"
)

var snapshotCRC = crc32.MakeTable(crc32.Castagnoli)

// snapshotName is the snapshot file of dir at offset: Kafka's twenty-digit
// zero-padded offset and ".snapshot".
func snapshotName(dir string, off model.Offset) string {
	return fmt.Sprintf("%s%020d%s", dir, int64(off), snapshotSuffix)
}

// parseSnapshotName returns the offset of a snapshot file of dir, or false
// for any other file.
func parseSnapshotName(dir, name string) (model.Offset, bool) {
	return parseOffsetName(dir, name, snapshotSuffix)
}

// SnapshotEntry is what a snapshot keeps of one producer (Kafka's
// ProducerSnapshot.ProducerEntry without its transactional fields).
type SnapshotEntry struct {
	ProducerID    model.ProducerID
	ProducerEpoch model.Epoch
	LastSeq       int32
	LastOffset    model.Offset
	// OffsetDelta is LastOffset less the batch's first offset, which is
	// also its last sequence less its first, modulo the wrap.
	OffsetDelta int32
	Timestamp   time.Duration
}

// encodeSnapshot is the file content of entries, which must be sorted by
// producer id.
func encodeSnapshot(entries []SnapshotEntry) []byte {
	var body []byte
	for _, e := range entries {
		body = strconv.AppendInt(body, int64(e.ProducerID), 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, int64(e.ProducerEpoch), 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, int64(e.LastSeq), 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, int64(e.LastOffset), 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, int64(e.OffsetDelta), 10)
		body = append(body, ' ')
		body = strconv.AppendInt(body, int64(e.Timestamp), 10)
		body = append(body, '\n')
	}
	out := append([]byte(snapshotHeader), '\n')
	out = strconv.AppendUint(out, uint64(crc32.Checksum(body, snapshotCRC)), 16)
	out = append(out, '\n')
	return append(out, body...)
}

// decodeSnapshot reads a snapshot file's content; any damage is an error
// (Kafka's CorruptSnapshotException), never a panic.
func decodeSnapshot(data []byte) ([]SnapshotEntry, error) {
	text := string(data)
	header, rest, ok := strings.Cut(text, "\n")
	if !ok || header != snapshotHeader {
		return nil, fmt.Errorf("%w: not a producer snapshot (header %q)", model.ErrCorrupt, header)
	}
	crcLine, body, ok := strings.Cut(rest, "\n")
	if !ok {
		return nil, fmt.Errorf("%w: snapshot ends before its CRC line", model.ErrCorrupt)
	}
	crc, err := strconv.ParseUint(crcLine, 16, 32)
	if err != nil {
		return nil, fmt.Errorf("%w: snapshot CRC %q is not hexadecimal", model.ErrCorrupt, crcLine)
	}
	if got := crc32.Checksum([]byte(body), snapshotCRC); uint64(got) != crc {
		return nil, fmt.Errorf("%w: snapshot CRC is %x, its entries give %x", model.ErrCorrupt, crc, got)
	}
	var out []SnapshotEntry
	for i, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if l == "" && body == "" {
			break
		}
		f := strings.Fields(l)
		if len(f) != 6 {
			return nil, fmt.Errorf("%w: snapshot entry %d: %q has %d fields, want 6", model.ErrCorrupt, i+1, l, len(f))
		}
		var v [6]int64
		for k := range f {
			if v[k], err = strconv.ParseInt(f[k], 10, 64); err != nil {
				return nil, fmt.Errorf("%w: snapshot entry %d: field %d %q is not an integer", model.ErrCorrupt, i+1, k+1, f[k])
			}
		}
		out = append(out, SnapshotEntry{
			ProducerID: model.ProducerID(v[0]), ProducerEpoch: model.Epoch(v[1]), LastSeq: int32(v[2]),
			LastOffset: model.Offset(v[3]), OffsetDelta: int32(v[4]), Timestamp: time.Duration(v[5]),
		})
	}
	return out, nil
}

// snapshotEntries is what a snapshot of the state keeps, sorted by
// producer id so that the file never depends on map order.
func (p *ProducerState) snapshotEntries() []SnapshotEntry {
	out := make([]SnapshotEntry, 0, len(p.producers))
	for _, id := range p.IDs() {
		e := p.producers[id]
		if e.n == 0 {
			// A producer a marker left with its epoch and no batch of it
			// is kept, as Kafka's writeSnapshot keeps every entry: a
			// replica that reloads it must still refuse the older
			// epoch's late batches (INVALID_PRODUCER_EPOCH).
			out = append(out, SnapshotEntry{ProducerID: id, ProducerEpoch: e.epoch, LastSeq: model.NoSequence,
				LastOffset: model.NoOffset, Timestamp: e.markerTS})
			continue
		}
		from := 0
		if p.lastBatchOnly {
			from = e.n - 1
		}
		for i := from; i < e.n; i++ {
			m := e.at(i)
			out = append(out, SnapshotEntry{
				ProducerID: id, ProducerEpoch: e.epoch, LastSeq: m.LastSeq, LastOffset: m.LastOffset,
				OffsetDelta: int32(m.LastOffset - m.FirstOffset), Timestamp: m.Timestamp,
			})
		}
	}
	return out
}

// loadEntry puts a batch of a producer read from a snapshot into the state
// (ProducerStateManager.loadProducerEntry): a producer's first line starts
// its entry, with its epoch, and the others follow.
func (p *ProducerState) loadEntry(s SnapshotEntry) {
	e := p.producers[s.ProducerID]
	if e == nil || e.epoch != s.ProducerEpoch {
		e = &producerEntry{epoch: s.ProducerEpoch}
	}
	if s.LastSeq == model.NoSequence && s.LastOffset == model.NoOffset {
		// An epoch without a batch (snapshotEntries).
		e.markerTS = s.Timestamp
		p.producers[s.ProducerID] = e
		p.lastID, p.last = s.ProducerID, e
		return
	}
	e.add(BatchMeta{
		FirstSeq: model.DecrementSequence(s.LastSeq, s.OffsetDelta), LastSeq: s.LastSeq,
		FirstOffset: s.LastOffset - model.Offset(s.OffsetDelta), LastOffset: s.LastOffset,
		Timestamp: s.Timestamp,
	})
	p.producers[s.ProducerID] = e
	p.lastID, p.last = s.ProducerID, e
}

// loadSnapshotList finds the snapshot files of the log folder
// (ProducerStateManager.loadSnapshots).
func (p *ProducerState) loadSnapshotList() {
	p.snapshots = p.snapshots[:0]
	for _, n := range p.disk.List(p.dir) {
		if off, ok := parseSnapshotName(p.dir, n); ok {
			p.snapshots = append(p.snapshots, off)
		}
	}
	// List is sorted by name, and the names sort by offset.
}

// SnapshotOffsets lists the offsets of the snapshot files the state
// knows, oldest first.
func (p *ProducerState) SnapshotOffsets() []model.Offset {
	return append([]model.Offset(nil), p.snapshots...)
}

// LatestSnapshotOffset is the offset of the newest snapshot, false if there
// is none (ProducerStateManager.latestSnapshotOffset).
func (p *ProducerState) LatestSnapshotOffset() (model.Offset, bool) {
	if len(p.snapshots) == 0 {
		return model.NoOffset, false
	}
	return p.snapshots[len(p.snapshots)-1], true
}

// OldestSnapshotOffset is the offset of the oldest snapshot, false if there
// is none (ProducerStateManager.oldestSnapshotOffset).
func (p *ProducerState) OldestSnapshotOffset() (model.Offset, bool) {
	if len(p.snapshots) == 0 {
		return model.NoOffset, false
	}
	return p.snapshots[0], true
}

// MapEndOffset is the offset up to which the state has recorded the log
// (ProducerStateManager.mapEndOffset).
func (p *ProducerState) MapEndOffset() model.Offset { return p.mapEnd }

// takeSnapshot writes a snapshot at the map end offset unless the latest
// one is already there or later (ProducerStateManager.takeSnapshot), and
// reports whether it wrote one. With sync the file is synced, as at a
// clean shutdown and after a load; a roll's snapshot is synced with the
// roll's flush (UnifiedLog.roll). Neither syncs the directory, as Kafka
// does not: until the next directory sync a power loss may lose the new
// file's name, and the load then falls back on an older snapshot.
func (p *ProducerState) takeSnapshot(sync bool) bool {
	if p.mapEnd <= p.lastSnap {
		return false
	}
	name := snapshotName(p.dir, p.mapEnd)
	p.disk.Create(name)
	p.disk.Append(name, encodeSnapshot(p.snapshotEntries()))
	if sync {
		p.disk.Sync(name)
	}
	i := sort.Search(len(p.snapshots), func(i int) bool { return p.snapshots[i] >= p.mapEnd })
	if i == len(p.snapshots) || p.snapshots[i] != p.mapEnd {
		p.snapshots = append(p.snapshots, 0)
		copy(p.snapshots[i+1:], p.snapshots[i:])
		p.snapshots[i] = p.mapEnd
	}
	p.lastSnap = p.mapEnd
	return true
}

// removeSnapshot forgets the snapshot at off and deletes its file
// (ProducerStateManager.removeAndDeleteSnapshot). The removal is not
// synced to the directory: a power loss may bring the file back, which
// the next load's rules deal with (removeStraySnapshots, truncateAndReload).
func (p *ProducerState) removeSnapshot(off model.Offset) {
	for i, s := range p.snapshots {
		if s == off {
			p.snapshots = append(p.snapshots[:i], p.snapshots[i+1:]...)
			break
		}
	}
	if name := snapshotName(p.dir, off); p.disk.Exists(name) {
		p.disk.Remove(name)
	}
}

// DeleteSnapshotsBefore deletes the snapshots below off
// (ProducerStateManager.deleteSnapshotsBefore).
func (p *ProducerState) DeleteSnapshotsBefore(off model.Offset) {
	for len(p.snapshots) > 0 && p.snapshots[0] < off {
		p.removeSnapshot(p.snapshots[0])
	}
}

// removeStraySnapshots deletes the snapshots that belong to no segment,
// keeping the newest of them only if it lies past every segment's base:
// the snapshot a clean shutdown wrote at the log end
// (ProducerStateManager.removeStraySnapshots). bases is ascending.
func (p *ProducerState) removeStraySnapshots(bases []model.Offset) {
	p.loadSnapshotList()
	isBase := func(off model.Offset) bool {
		i := sort.Search(len(bases), func(i int) bool { return bases[i] >= off })
		return i < len(bases) && bases[i] == off
	}
	stray := model.NoOffset
	for _, off := range append([]model.Offset(nil), p.snapshots...) {
		if isBase(off) {
			continue
		}
		if stray != model.NoOffset {
			p.removeSnapshot(stray)
		}
		stray = off
	}
	if stray != model.NoOffset && len(bases) > 0 && stray < bases[len(bases)-1] {
		p.removeSnapshot(stray)
	}
}

// loadFromSnapshot loads the newest snapshot that reads whole, deleting
// any newer one that does not, and leaves out the producers that expired
// by now (ProducerStateManager.loadFromSnapshot). Without one the state
// starts empty at logStart. It reports the damaged snapshots it deleted.
func (p *ProducerState) loadFromSnapshot(logStart model.Offset, now time.Duration) []error {
	var errs []error
	for {
		off, ok := p.LatestSnapshotOffset()
		if !ok {
			p.lastSnap, p.mapEnd = logStart, logStart
			return errs
		}
		name := snapshotName(p.dir, off)
		var entries []SnapshotEntry
		err := fmt.Errorf("%w: snapshot file is missing", model.ErrCorrupt)
		if p.disk.Exists(name) {
			entries, err = decodeSnapshot(p.disk.Read(name))
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			p.removeSnapshot(off)
			continue
		}
		for i := 0; i < len(entries); {
			// A producer's lines are together, its newest batch last:
			// that one's timestamp says whether it expired.
			j := i + 1
			for j < len(entries) && entries[j].ProducerID == entries[i].ProducerID {
				j++
			}
			if !p.expired(now, entries[j-1].Timestamp) {
				for _, e := range entries[i:j] {
					p.loadEntry(e)
				}
			}
			i = j
		}
		p.lastSnap, p.mapEnd = off, off
		return errs
	}
}

// truncateAndReload brings the state to the log [logStart, logEnd): the
// snapshots past logEnd or at or below logStart go, and unless the state
// already ends at logEnd it starts over from the newest snapshot left
// (ProducerStateManager.truncateAndReload). The caller replays the log
// from MapEndOffset.
func (p *ProducerState) truncateAndReload(logStart, logEnd model.Offset, now time.Duration) []error {
	for _, off := range append([]model.Offset(nil), p.snapshots...) {
		if off > logEnd || off <= logStart {
			p.removeSnapshot(off)
		}
	}
	if logEnd == p.mapEnd {
		p.onLogStartOffsetIncremented(logStart)
		return nil
	}
	p.reset()
	return p.loadFromSnapshot(logStart, now)
}

// onLogStartOffsetIncremented moves the map end up to a new log start
// (ProducerStateManager.onLogStartOffsetIncremented).
func (p *ProducerState) onLogStartOffsetIncremented(logStart model.Offset) {
	if p.mapEnd < logStart {
		p.mapEnd = logStart
	}
	if off, ok := p.LatestSnapshotOffset(); ok {
		p.lastSnap = off
	} else {
		p.lastSnap = logStart
	}
}

// truncateFullyAndStartAt forgets every producer and deletes every
// snapshot, for a log that starts over at off
// (ProducerStateManager.truncateFullyAndStartAt).
func (p *ProducerState) truncateFullyAndStartAt(off model.Offset) {
	p.reset()
	for len(p.snapshots) > 0 {
		p.removeSnapshot(p.snapshots[0])
	}
	p.lastSnap, p.mapEnd = 0, off
}

// truncateFullyAndReloadSnapshots starts over at offset 0, deleting the
// snapshots it knows, and lists the snapshot files left in the folder
// (ProducerStateManager.truncateFullyAndReloadSnapshots).
func (p *ProducerState) truncateFullyAndReloadSnapshots() {
	p.truncateFullyAndStartAt(0)
	p.loadSnapshotList()
}
