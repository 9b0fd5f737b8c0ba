package checkers

import "hash/maphash"

// recordIDs finds one partition's records by value: the id of each value
// sent or polled there, an index into analysis.vals. It stands in for a
// map[string]int32, which analyze used to probe twice for every new value
// (once to look it up, once to insert it), hashing it each time: on a
// history of a million operations that was a tenth of all the checking.
// This table hashes a value once, looks up and inserts in one probe, and
// its slots hold no pointers, so the garbage collector skips them; the
// values themselves are the history's strings, named by id in
// analysis.names.
//
// It is open addressing with linear probing, a power of two slots, kept
// at most half full. The seed is random per analysis, which changes where
// a value sits in the table and nothing else: ids are handed out in the
// order values are first met.
type recordIDs struct {
	seed  maphash.Seed
	slots []idSlot
	count int
}

// idSlot is one slot: id+1 (0 for an empty slot) and the high half of the
// value's hash, compared before the value itself.
type idSlot struct {
	tag uint32
	id1 int32
}

// newRecordIDs makes a table for about n values.
func newRecordIDs(seed maphash.Seed, n int) recordIDs {
	size := 8
	for size < 2*n {
		size *= 2
	}
	return recordIDs{seed: seed, slots: make([]idSlot, size)}
}

// hash is v's hash, what getOrAdd takes.
func (t *recordIDs) hash(v string) uint64 { return maphash.String(t.seed, v) }

// touch reads the slot a value of hash h is looked for first, so that
// it is in the cache when getOrAdd looks; what it returns means nothing.
func (t *recordIDs) touch(h uint64) uint32 {
	if len(t.slots) == 0 {
		return 0
	}
	return t.slots[int(h)&(len(t.slots)-1)].tag
}

// find is v's id, or where to put it: the slot index and the tag; h is
// v's hash.
func (t *recordIDs) find(v string, h uint64, names []string) (id int32, slot int, tag uint32, ok bool) {
	tag, mask := uint32(h>>32), len(t.slots)-1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s.id1 == 0 {
			return 0, i, tag, false
		}
		if s.tag == tag && names[s.id1-1] == v {
			return s.id1 - 1, i, tag, true
		}
	}
}

// get is v's id, if v has one.
func (t *recordIDs) get(v string, names []string) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	id, _, _, ok := t.find(v, t.hash(v), names)
	return id, ok
}

// getOrAdd is v's id; when v has none, it gets next, and added says so.
// h is v's hash. names must already name next as v when the table grows.
func (t *recordIDs) getOrAdd(v string, h uint64, next int32, names []string) (id int32, added bool) {
	if len(t.slots) == 0 {
		*t = newRecordIDs(t.seed, 8)
	}
	id, slot, tag, ok := t.find(v, h, names)
	if ok {
		return id, false
	}
	t.slots[slot] = idSlot{tag: tag, id1: next + 1}
	t.count++
	if 2*t.count > len(t.slots) {
		t.grow(names)
	}
	return next, true
}

// grow doubles the slots, placing every id again by its value's hash.
func (t *recordIDs) grow(names []string) {
	old := t.slots
	t.slots = make([]idSlot, 2*len(old))
	mask := len(t.slots) - 1
	for _, s := range old {
		if s.id1 == 0 {
			continue
		}
		h := maphash.String(t.seed, names[s.id1-1])
		i := int(h) & mask
		for t.slots[i].id1 != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}
