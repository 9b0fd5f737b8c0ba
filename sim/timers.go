package sim

// timerTable tracks a node's armed timers without maps: a TimerID packs a
// slot and the slot's generation, and a timer is live while its slot is in
// use with the same generation. Arming, firing and cancelling are array
// operations, and a stale id (fired, cancelled, or from before a crash) can
// never match because every arm bumps the generation.
type timerTable struct {
	gen  []uint32
	used []bool
	free []int32
}

func (t *timerTable) arm() TimerID {
	var slot int32
	if n := len(t.free); n > 0 {
		slot = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		slot = int32(len(t.gen))
		t.gen = append(t.gen, 0)
		t.used = append(t.used, false)
	}
	t.gen[slot]++
	t.used[slot] = true
	return TimerID(uint64(slot)<<32 | uint64(t.gen[slot]))
}

func (t *timerTable) live(id TimerID) bool {
	slot := int(id >> 32)
	return slot < len(t.gen) && t.used[slot] && t.gen[slot] == uint32(id)
}

// release frees a live timer's slot; it does nothing for a stale id.
func (t *timerTable) release(id TimerID) {
	if !t.live(id) {
		return
	}
	slot := int32(id >> 32)
	t.used[slot] = false
	t.free = append(t.free, slot)
}

// clear kills every armed timer (a crash).
func (t *timerTable) clear() {
	for slot, u := range t.used {
		if u {
			t.used[slot] = false
			t.free = append(t.free, int32(slot))
		}
	}
}
