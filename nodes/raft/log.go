package raft

import (
	"encoding/binary"
	"hash/crc32"
	"sort"

	"kafkasim/model"
	"kafkasim/sim"
)

// raftLog is the replicated log: the batches after the snapshot, in
// memory and in one file on the host's disk. Every change is synced before
// the caller returns, which is what lets the leader count its own append and
// a follower fetch past one.
//
// The file is a sequence of frames, one per batch:
//
//	payload length  uint32, big-endian
//	CRC-32C         uint32 of the payload
//	payload         base offset (uvarint), epoch (varint), control (byte),
//	                entry count (uvarint), entries (length-prefixed bytes)
//
// A batch is appended with one write, so a torn write can only damage the
// last frame, which recovery drops whole: a batch is atomic on disk as it
// is in the protocol.
type raftLog struct {
	disk *sim.Disk
	name string
	// batches are the log after the snapshot; pos[i] is where batches[i]
	// starts in the file and size the file's length.
	batches []model.QuorumBatch
	pos     []int64
	size    int64
	// snapOffset and snapEpoch are the last offset the snapshot covers and
	// its epoch (0 and 0 when there is no snapshot): the log starts right
	// after it.
	snapOffset int64
	snapEpoch  model.Epoch
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const frameHeader = 8

// openLog reads the log file, dropping batches the snapshot already covers
// and a torn or broken tail, and leaves the file holding exactly the
// batches it kept, synced.
func openLog(disk *sim.Disk, name string, snapOffset int64, snapEpoch model.Epoch) *raftLog {
	l := &raftLog{disk: disk, name: name, snapOffset: snapOffset, snapEpoch: snapEpoch}
	if !disk.Exists(name) {
		disk.Create(name)
		disk.Sync(name)
		disk.SyncDir()
		return l
	}
	data := disk.Read(name)
	var kept []model.QuorumBatch
	pos := 0
	clean := true // the file holds exactly the kept batches, from its start
	for pos < len(data) {
		b, n, ok := decodeFrame(data[pos:])
		if !ok {
			break
		}
		pos += n
		switch {
		case b.LastOffset() <= snapOffset:
			// Covered by the snapshot: a crash came between writing the
			// snapshot and rewriting the log.
			clean = false
		case len(kept) == 0 && b.BaseOffset != snapOffset+1,
			len(kept) > 0 && b.BaseOffset != kept[len(kept)-1].LastOffset()+1:
			// A gap or an overlap: nothing after it can be trusted.
			pos = len(data) + 1
		default:
			kept = append(kept, b)
		}
	}
	if !clean || pos != len(data) {
		l.rewrite(kept)
		return l
	}
	for _, b := range kept {
		l.pos = append(l.pos, l.size)
		l.size += int64(len(encodeFrame(&b)))
		l.batches = append(l.batches, b)
	}
	return l
}

// rewrite replaces the file with the given batches: written beside it,
// synced, renamed into place, directory synced.
func (l *raftLog) rewrite(batches []model.QuorumBatch) {
	tmp := l.name + ".tmp"
	l.disk.Create(tmp)
	l.batches, l.pos, l.size = nil, nil, 0
	for i := range batches {
		f := encodeFrame(&batches[i])
		l.disk.Append(tmp, f)
		l.pos = append(l.pos, l.size)
		l.size += int64(len(f))
		l.batches = append(l.batches, batches[i])
	}
	l.disk.Sync(tmp)
	l.disk.Rename(tmp, l.name)
	l.disk.SyncDir()
}

func encodeFrame(b *model.QuorumBatch) []byte {
	p := binary.AppendUvarint(nil, uint64(b.BaseOffset))
	p = binary.AppendVarint(p, int64(b.Epoch))
	if b.Control {
		p = append(p, 1)
	} else {
		p = append(p, 0)
	}
	p = binary.AppendUvarint(p, uint64(len(b.Entries)))
	for _, e := range b.Entries {
		p = binary.AppendUvarint(p, uint64(len(e)))
		p = append(p, e...)
	}
	f := make([]byte, frameHeader, frameHeader+len(p))
	binary.BigEndian.PutUint32(f, uint32(len(p)))
	binary.BigEndian.PutUint32(f[4:], crc32.Checksum(p, castagnoli))
	return append(f, p...)
}

func decodeFrame(b []byte) (model.QuorumBatch, int, bool) {
	var out model.QuorumBatch
	if len(b) < frameHeader {
		return out, 0, false
	}
	n := int(binary.BigEndian.Uint32(b))
	if n > len(b)-frameHeader {
		return out, 0, false
	}
	p := b[frameHeader : frameHeader+n]
	if crc32.Checksum(p, castagnoli) != binary.BigEndian.Uint32(b[4:]) {
		return out, 0, false
	}
	r := reader{b: p}
	out.BaseOffset = int64(r.uvarint())
	out.Epoch = model.Epoch(r.varint())
	out.Control = r.byte() == 1
	count := r.uvarint()
	if r.bad || count == 0 || count > uint64(len(r.b)) {
		return out, 0, false
	}
	for i := uint64(0); i < count && !r.bad; i++ {
		out.Entries = append(out.Entries, r.bytes())
	}
	if r.bad || len(r.b) != 0 || out.BaseOffset < 1 {
		return out, 0, false
	}
	return out, frameHeader + n, true
}

// reader decodes fields in order and remembers the first failure.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return nil
	}
	out := append([]byte(nil), r.b[:n]...)
	r.b = r.b[n:]
	return out
}

// startOffset is the first offset the log (not the snapshot) holds.
func (l *raftLog) startOffset() int64 { return l.snapOffset + 1 }

// lastOffset is the offset of the last entry, in the log or the snapshot.
func (l *raftLog) lastOffset() int64 {
	if n := len(l.batches); n > 0 {
		return l.batches[n-1].LastOffset()
	}
	return l.snapOffset
}

// lastEpoch is the epoch of the last entry.
func (l *raftLog) lastEpoch() model.Epoch {
	if n := len(l.batches); n > 0 {
		return l.batches[n-1].Epoch
	}
	return l.snapEpoch
}

// append writes one batch and syncs it.
func (l *raftLog) append(b model.QuorumBatch) {
	if b.BaseOffset != l.lastOffset()+1 || len(b.Entries) == 0 {
		panic("raft: appending a batch that does not follow the log")
	}
	f := encodeFrame(&b)
	l.disk.Append(l.name, f)
	l.disk.Sync(l.name)
	l.pos = append(l.pos, l.size)
	l.size += int64(len(f))
	l.batches = append(l.batches, b)
}

// find returns the index of the batch holding off, or -1.
func (l *raftLog) find(off int64) int {
	i := sort.Search(len(l.batches), func(i int) bool { return l.batches[i].LastOffset() >= off })
	if i < len(l.batches) && l.batches[i].BaseOffset <= off {
		return i
	}
	return -1
}

// entry returns the entry at off and its batch's epoch and control flag.
func (l *raftLog) entry(off int64) ([]byte, model.Epoch, bool) {
	i := l.find(off)
	if i < 0 {
		panic("raft: no entry at an offset the log should hold")
	}
	b := &l.batches[i]
	return b.Entries[off-b.BaseOffset], b.Epoch, b.Control
}

// epochAt is the epoch of the entry at off (the snapshot's at its offset,
// 0 at offset 0).
func (l *raftLog) epochAt(off int64) model.Epoch {
	if off == l.snapOffset {
		return l.snapEpoch
	}
	if off == 0 {
		return 0
	}
	if i := l.find(off); i >= 0 {
		return l.batches[i].Epoch
	}
	return model.NoEpoch
}

// isBatchEnd reports whether off ends a batch (or is where the log starts),
// the only places a snapshot may end.
func (l *raftLog) isBatchEnd(off int64) bool {
	if off == l.snapOffset {
		return true
	}
	i := l.find(off)
	return i >= 0 && l.batches[i].LastOffset() == off
}

// endOffsetFor answers "where does epoch e end on this log?": the largest
// epoch at or below e and the last offset of that epoch (Kafka's
// LeaderEpochFileCache.endOffsetFor, with inclusive offsets). ok is false
// when the answer lies inside the snapshot, which only a snapshot can
// settle.
func (l *raftLog) endOffsetFor(e model.Epoch) (model.Epoch, int64, bool) {
	for i := len(l.batches) - 1; i >= 0; i-- {
		if l.batches[i].Epoch <= e {
			return l.batches[i].Epoch, l.batches[i].LastOffset(), true
		}
	}
	if l.snapOffset == 0 {
		return 0, 0, true
	}
	if l.snapEpoch <= e {
		return l.snapEpoch, l.snapOffset, true
	}
	return 0, 0, false
}

// truncateAfter drops every entry after off (off at or above the
// snapshot), cutting a batch in two if off falls inside one, and syncs.
func (l *raftLog) truncateAfter(off int64) {
	if off >= l.lastOffset() {
		return
	}
	if off < l.snapOffset {
		off = l.snapOffset
	}
	i := sort.Search(len(l.batches), func(i int) bool { return l.batches[i].LastOffset() > off })
	var partial *model.QuorumBatch
	if i < len(l.batches) && l.batches[i].BaseOffset <= off {
		b := l.batches[i]
		b.Entries = b.Entries[:off-b.BaseOffset+1]
		partial = &b
	}
	cut := l.size
	if i < len(l.batches) {
		cut = l.pos[i]
	}
	l.batches, l.pos, l.size = l.batches[:i], l.pos[:i], cut
	l.disk.Truncate(l.name, cut)
	if partial != nil {
		l.append(*partial)
		return
	}
	l.disk.Sync(l.name)
}

// batchesFrom returns the batches from off up to about maxEntries
// entries, at least one when there is one, in a new slice: a message
// shares them, and the log's own slice is cut and regrown by truncation. An
// offset inside a batch (a fetcher whose copy of the batch was cut) gets
// the rest of that batch as a batch of its own.
func (l *raftLog) batchesFrom(off int64, maxEntries int) []model.QuorumBatch {
	i := l.find(off)
	if i < 0 {
		return nil
	}
	var out []model.QuorumBatch
	n := 0
	if b := l.batches[i]; b.BaseOffset != off {
		b.Entries = b.Entries[off-b.BaseOffset:]
		b.BaseOffset = off
		out = append(out, b)
		n = len(b.Entries)
		i++
	}
	for ; i < len(l.batches) && (len(out) == 0 || n+len(l.batches[i].Entries) <= maxEntries); i++ {
		out = append(out, l.batches[i])
		n += len(l.batches[i].Entries)
	}
	return out
}

// dropBefore makes the log start after off, which a snapshot now covers,
// and rewrites the file without the batches before it.
func (l *raftLog) dropBefore(off int64, epoch model.Epoch) {
	i := sort.Search(len(l.batches), func(i int) bool { return l.batches[i].BaseOffset > off })
	rest := append([]model.QuorumBatch(nil), l.batches[i:]...)
	l.snapOffset, l.snapEpoch = off, epoch
	l.rewrite(rest)
}

// resetTo empties the log and starts it after a snapshot that replaces
// everything it held.
func (l *raftLog) resetTo(off int64, epoch model.Epoch) {
	l.snapOffset, l.snapEpoch = off, epoch
	l.rewrite(nil)
}
