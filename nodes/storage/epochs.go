package storage

import (
	"fmt"
	"strconv"
	"strings"

	"kafkasim/model"
	"kafkasim/sim"
)

// EpochEntry is one leader epoch and the offset of the first batch written
// under it.
type EpochEntry struct {
	Epoch       model.Epoch
	StartOffset model.Offset
}

func (e EpochEntry) String() string {
	return strconv.FormatInt(int64(e.Epoch), 10) + "@" + strconv.FormatInt(int64(e.StartOffset), 10)
}

// epochCheckpointName is the cache's file in a log folder, Kafka's name.
const epochCheckpointName = "leader-epoch-checkpoint"

// EpochCache is a replica's leader-epoch cache, Kafka's LeaderEpochFileCache:
// for each leader epoch that wrote to this log, the offset of its first
// batch. It is what epoch-based truncation (KIP-101, KIP-279) compares: a
// follower asks the leader where its last epoch ends (EndOffsetFor) and
// truncates there instead of at its high watermark.
//
// Entries grow strictly in both epoch and start offset. Every change is
// written to the log folder's leader-epoch-checkpoint with WriteCheckpoint
// before the call returns. Kafka writes an Assign synchronously and a
// truncation asynchronously, soon after; here both are synchronous, which
// only closes a window Kafka also closes on load (the cache is truncated to
// the recovered log end).
type EpochCache struct {
	disk    *sim.Disk
	name    string
	entries []EpochEntry // ascending in epoch and in start offset
}

// loadEpochCache reads the checkpoint file name. A missing file gives an
// empty cache; a malformed one gives an empty cache and the error, and the
// log rebuilds what it can from its batches.
func loadEpochCache(disk *sim.Disk, name string) (*EpochCache, error) {
	c := &EpochCache{disk: disk, name: name}
	lines, ok, err := ReadCheckpoint(disk, name)
	if !ok {
		return c, err
	}
	entries := make([]EpochEntry, 0, len(lines))
	for i, l := range lines {
		e, err := parseEpochEntry(l)
		if err != nil {
			return c, fmt.Errorf("checkpoint %s: entry %d: %v", name, i+1, err)
		}
		entries = append(entries, e)
	}
	// Kafka's constructor assigns each entry in turn, so a file that is not
	// monotonic (it never is when this package wrote it) still loads as a
	// monotonic cache.
	for _, e := range entries {
		c.assign(e)
	}
	return c, nil
}

// parseEpochEntry reads Kafka's "epoch offset" entry line.
func parseEpochEntry(l string) (EpochEntry, error) {
	f := strings.Fields(l)
	if len(f) != 2 {
		return EpochEntry{}, fmt.Errorf("%q: want \"epoch offset\"", l)
	}
	ep, err1 := strconv.ParseInt(f[0], 10, 32)
	off, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || ep < 0 || off < 0 {
		return EpochEntry{}, fmt.Errorf("%q: want two non-negative integers", l)
	}
	return EpochEntry{Epoch: model.Epoch(ep), StartOffset: model.Offset(off)}, nil
}

// Assign records that epoch starts at offset start, and writes the
// checkpoint if that changed anything. As in Kafka:
//
//   - the same epoch as the latest entry at the same or a later offset
//     changes nothing (every batch of an epoch calls Assign; only the first
//     one counts);
//   - otherwise any entry that would break monotonicity (an epoch at or
//     above epoch, or a start at or after start) is removed from the end
//     first, so that a lower epoch or an earlier start replaces the entries
//     it conflicts with.
//
// A new leader calls it with (its epoch, its log end offset) before it
// appends anything; a follower's appends call it through Log.Append. A
// negative epoch or offset is a programmer error.
func (c *EpochCache) Assign(epoch model.Epoch, start model.Offset) {
	if epoch < 0 || start < 0 {
		panic(fmt.Sprintf("storage: epoch cache %s: invalid entry %d@%d", c.name, epoch, start))
	}
	if c.assign(EpochEntry{Epoch: epoch, StartOffset: start}) {
		c.write()
	}
}

// holds reports whether the latest entry already covers a batch of epoch
// at start, so that Assign would change nothing: the answer for every
// batch of an epoch but the first, which an append can ask for without
// a call (Assign, with its checks, does not inline).
func (c *EpochCache) holds(epoch model.Epoch, start model.Offset) bool {
	n := len(c.entries)
	return n > 0 && epoch == c.entries[n-1].Epoch && start >= c.entries[n-1].StartOffset
}

// assign is Assign without the write; it reports whether the cache changed.
func (c *EpochCache) assign(e EpochEntry) bool {
	if n := len(c.entries); n > 0 {
		last := c.entries[n-1]
		if e.Epoch == last.Epoch && e.StartOffset >= last.StartOffset {
			return false
		}
	}
	k := len(c.entries)
	for k > 0 && (c.entries[k-1].Epoch >= e.Epoch || c.entries[k-1].StartOffset >= e.StartOffset) {
		k--
	}
	c.entries = append(c.entries[:k], e)
	return true
}

// Latest is the latest epoch and its start offset, or (NoEpoch, NoOffset)
// for an empty cache.
func (c *EpochCache) Latest() (model.Epoch, model.Offset) {
	if len(c.entries) == 0 {
		return model.NoEpoch, model.NoOffset
	}
	e := c.entries[len(c.entries)-1]
	return e.Epoch, e.StartOffset
}

// LatestEntry is the latest entry, false for an empty cache
// (LeaderEpochFileCache.latestEntry).
func (c *EpochCache) LatestEntry() (EpochEntry, bool) {
	if len(c.entries) == 0 {
		return EpochEntry{}, false
	}
	return c.entries[len(c.entries)-1], true
}

// EarliestEntry is the oldest entry, false for an empty cache
// (LeaderEpochFileCache.earliestEntry).
func (c *EpochCache) EarliestEntry() (EpochEntry, bool) {
	if len(c.entries) == 0 {
		return EpochEntry{}, false
	}
	return c.entries[0], true
}

// PreviousEpoch is the epoch of the entry before the latest one, false if
// the cache holds fewer than two (LeaderEpochFileCache.previousEpoch()).
func (c *EpochCache) PreviousEpoch() (model.Epoch, bool) {
	if len(c.entries) < 2 {
		return model.NoEpoch, false
	}
	return c.entries[len(c.entries)-2].Epoch, true
}

// EntryBefore is the entry of the largest epoch below epoch, whether or not
// epoch itself has one (LeaderEpochFileCache.previousEntry, a TreeMap's
// lowerEntry).
func (c *EpochCache) EntryBefore(epoch model.Epoch) (EpochEntry, bool) {
	i := c.search(epoch) // the first entry at or above epoch
	if i == 0 {
		return EpochEntry{}, false
	}
	return c.entries[i-1], true
}

// EpochBefore is EntryBefore's epoch (LeaderEpochFileCache.previousEpoch(int)).
func (c *EpochCache) EpochBefore(epoch model.Epoch) (model.Epoch, bool) {
	e, ok := c.EntryBefore(epoch)
	if !ok {
		return model.NoEpoch, false
	}
	return e.Epoch, true
}

// EpochAfter is the smallest epoch above epoch that has an entry
// (LeaderEpochFileCache.nextEpoch, a TreeMap's higherKey).
func (c *EpochCache) EpochAfter(epoch model.Epoch) (model.Epoch, bool) {
	i := c.search(epoch)
	if i < len(c.entries) && c.entries[i].Epoch == epoch {
		i++
	}
	if i == len(c.entries) {
		return model.NoEpoch, false
	}
	return c.entries[i].Epoch, true
}

// Entry is epoch's own entry, false if it has none
// (LeaderEpochFileCache.epochEntry).
func (c *EpochCache) Entry(epoch model.Epoch) (EpochEntry, bool) {
	i := c.search(epoch)
	if i < len(c.entries) && c.entries[i].Epoch == epoch {
		return c.entries[i], true
	}
	return EpochEntry{}, false
}

// EpochForOffset is the epoch that wrote offset: that of the last entry
// starting at or before it; false if offset precedes every entry
// (LeaderEpochFileCache.epochForOffset). Offsets past the log end get the
// latest epoch, as in Kafka, which does not know the log end here.
func (c *EpochCache) EpochForOffset(offset model.Offset) (model.Epoch, bool) {
	i := len(c.entries)
	for i > 0 && c.entries[i-1].StartOffset > offset {
		i--
	}
	if i == 0 {
		return model.NoEpoch, false
	}
	return c.entries[i-1].Epoch, true
}

// search is the index of the first entry whose epoch is at or above
// epoch, len(entries) if none is. The cache has a few entries, one per
// leader change, so a scan is all it needs.
func (c *EpochCache) search(epoch model.Epoch) int {
	i := 0
	for i < len(c.entries) && c.entries[i].Epoch < epoch {
		i++
	}
	return i
}

// EndOffsetFor answers an OffsetsForLeaderEpoch question: where does epoch
// end in this log? Following LeaderEpochFileCache.endOffsetFor:
//
//   - NoEpoch: (NoEpoch, NoOffset);
//   - the latest epoch: (epoch, leo), the log end offset the caller passes;
//   - an epoch above every entry (or an empty cache): (NoEpoch, NoOffset);
//   - an epoch below every entry: (epoch itself, the first entry's start),
//     because the data before it was deleted and the follower should start
//     where this log does;
//   - otherwise the largest epoch at or below the requested one, and the
//     start offset of the first epoch above the requested one.
func (c *EpochCache) EndOffsetFor(epoch model.Epoch, leo model.Offset) (model.Epoch, model.Offset) {
	if epoch == model.NoEpoch {
		return model.NoEpoch, model.NoOffset
	}
	n := len(c.entries)
	if n > 0 && c.entries[n-1].Epoch == epoch {
		return epoch, leo
	}
	higher := 0 // index of the first entry above epoch
	for higher < n && c.entries[higher].Epoch <= epoch {
		higher++
	}
	if higher == n {
		return model.NoEpoch, model.NoOffset
	}
	if higher == 0 {
		return epoch, c.entries[0].StartOffset
	}
	return c.entries[higher-1].Epoch, c.entries[higher].StartOffset
}

// TruncateFromEnd removes the entries that start at or after end: the
// log was truncated to end, so those epochs wrote nothing that remains.
func (c *EpochCache) TruncateFromEnd(end model.Offset) {
	if c.truncateFromEnd(end) {
		c.write()
	}
}

// truncateFromEnd is TruncateFromEnd without the write; it reports whether
// the cache changed.
func (c *EpochCache) truncateFromEnd(end model.Offset) bool {
	n := len(c.entries)
	if end < 0 || n == 0 || c.entries[n-1].StartOffset < end {
		return false
	}
	k := n
	for k > 0 && c.entries[k-1].StartOffset >= end {
		k--
	}
	c.entries = c.entries[:k]
	return true
}

// TruncateFromStart drops the epochs that ended before start, the new log
// start offset, and moves the start of the epoch that covers start up to
// it, so that every entry points into the log. As in Kafka, an entry
// starting exactly at start is kept.
func (c *EpochCache) TruncateFromStart(start model.Offset) {
	if c.truncateFromStart(start) {
		c.write()
	}
}

// truncateFromStart is TruncateFromStart without the write; it reports
// whether the cache changed.
func (c *EpochCache) truncateFromStart(start model.Offset) bool {
	k := 0
	for k < len(c.entries) && c.entries[k].StartOffset <= start {
		k++
	}
	if k == 0 {
		return false
	}
	first := EpochEntry{Epoch: c.entries[k-1].Epoch, StartOffset: start}
	changed := k > 1 || c.entries[0] != first
	c.entries = append([]EpochEntry{first}, c.entries[k:]...)
	return changed
}

// Clear empties the cache and writes the empty checkpoint, for a log that
// starts over at a new offset (LeaderEpochFileCache.clearAndFlush).
func (c *EpochCache) Clear() {
	c.entries = nil
	c.write()
}

// Entries returns a copy of the entries, oldest first.
func (c *EpochCache) Entries() []EpochEntry {
	return append([]EpochEntry(nil), c.entries...)
}

// String lists the entries as "[0@0 3@17]".
func (c *EpochCache) String() string {
	parts := make([]string, len(c.entries))
	for i, e := range c.entries {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// write saves the entries to the checkpoint file.
func (c *EpochCache) write() {
	lines := make([]string, len(c.entries))
	for i, e := range c.entries {
		lines[i] = strconv.FormatInt(int64(e.Epoch), 10) + " " + strconv.FormatInt(int64(e.StartOffset), 10)
	}
	WriteCheckpoint(c.disk, c.name, lines)
}
