package storage

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"kafkasim/model"
)

// epochModel is the leader-epoch cache as the specification states it
// (Kafka's LeaderEpochFileCache), written as filters over a list rather
// than as the cache's loops from the end.
type epochModel []EpochEntry

func (m epochModel) latest() (EpochEntry, bool) {
	if len(m) == 0 {
		return EpochEntry{}, false
	}
	return m[len(m)-1], true
}

// assign: the latest epoch again at the same or a later offset changes
// nothing; otherwise every entry that is not below the new one in both
// epoch and offset goes, and the new one is appended.
func (m epochModel) assign(e model.Epoch, start model.Offset) epochModel {
	if l, ok := m.latest(); ok && l.Epoch == e && start >= l.StartOffset {
		return m
	}
	var out epochModel
	for _, x := range m {
		if x.Epoch < e && x.StartOffset < start {
			out = append(out, x)
		}
	}
	return append(out, EpochEntry{e, start})
}

// truncEnd keeps the epochs that started below end.
func (m epochModel) truncEnd(end model.Offset) epochModel {
	var out epochModel
	for _, x := range m {
		if x.StartOffset < end {
			out = append(out, x)
		}
	}
	return out
}

// truncStart drops the epochs that ended at or before start; the one
// that covers start now starts there.
func (m epochModel) truncStart(start model.Offset) epochModel {
	covering := -1
	for i, x := range m {
		if x.StartOffset <= start {
			covering = i
		}
	}
	if covering < 0 {
		return m
	}
	out := epochModel{{m[covering].Epoch, start}}
	return append(out, m[covering+1:]...)
}

// endOffsetFor answers OffsetsForLeaderEpoch for a log ending at leo.
func (m epochModel) endOffsetFor(e model.Epoch, leo model.Offset) (model.Epoch, model.Offset) {
	l, ok := m.latest()
	switch {
	case e == model.NoEpoch || !ok || e > l.Epoch:
		return model.NoEpoch, model.NoOffset
	case e == l.Epoch:
		return e, leo
	}
	// Some entry has an epoch above e: the first one ends e's span.
	floor := model.NoEpoch
	for _, x := range m {
		if x.Epoch > e {
			if floor == model.NoEpoch {
				return e, x.StartOffset // e predates the log: start where it starts
			}
			return floor, x.StartOffset
		}
		floor = x.Epoch
	}
	panic("unreachable: an entry is above e")
}

// TestEpochCacheMatchesModel drives a leader-epoch cache on its own with
// assignments in any order (lower epochs and earlier offsets that
// conflict with the entries, as a follower's truncation and re-fetch
// bring), truncations from either end, and reloads from its checkpoint
// after a process crash or a power loss, and compares it after every step
// with the model: its entries (strictly increasing in epoch and offset),
// Latest, and EndOffsetFor for every epoch around the entries and a drawn
// log end. The partition log's own model test (TestLogMatchesModel) only
// assigns growing epochs at the log end; this one reaches the cache's
// conflict rules and its persistence.
func TestEpochCacheMatchesModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(rt, rapid.Uint64Range(1, 1<<20).Draw(rt, "seed"))
		name := dir + epochCheckpointName
		c, err := loadEpochCache(w.disk, name)
		if err != nil {
			rt.Fatalf("empty disk: %v", err)
		}
		var m epochModel
		offset := rapid.IntRange(0, 40)
		reload := func(rt *rapid.T) {
			var err error
			c, err = loadEpochCache(w.disk, name)
			if err != nil {
				rt.Fatalf("reload: %v", err)
			}
		}
		rt.Repeat(map[string]func(*rapid.T){
			"assign": func(rt *rapid.T) {
				e := model.Epoch(rapid.IntRange(0, 8).Draw(rt, "epoch"))
				start := model.Offset(offset.Draw(rt, "start"))
				c.Assign(e, start)
				m = m.assign(e, start)
			},
			"assign next": func(rt *rapid.T) {
				// What a new leader does: a higher epoch at the end.
				l, _ := m.latest()
				e := l.Epoch + 1 + model.Epoch(rapid.IntRange(0, 2).Draw(rt, "epoch step"))
				start := l.StartOffset + model.Offset(rapid.IntRange(0, 5).Draw(rt, "offset step"))
				c.Assign(e, start)
				m = m.assign(e, start)
			},
			"truncate from end": func(rt *rapid.T) {
				end := model.Offset(offset.Draw(rt, "end"))
				c.TruncateFromEnd(end)
				m = m.truncEnd(end)
			},
			"truncate from start": func(rt *rapid.T) {
				start := model.Offset(offset.Draw(rt, "start"))
				c.TruncateFromStart(start)
				m = m.truncStart(start)
			},
			"crash": func(rt *rapid.T) {
				w.crash()
				reload(rt)
			},
			"power loss": func(rt *rapid.T) {
				// Every change was checkpointed (synced, renamed, the
				// directory synced) before its call returned.
				w.powerLoss()
				reload(rt)
			},
			"": func(rt *rapid.T) {
				got := c.Entries()
				if !reflect.DeepEqual(got, []EpochEntry(m)) && (len(got) != 0 || len(m) != 0) {
					rt.Fatalf("cache %v, model %v", got, m)
				}
				for i := 1; i < len(got); i++ {
					if got[i].Epoch <= got[i-1].Epoch || got[i].StartOffset <= got[i-1].StartOffset {
						rt.Fatalf("cache %v is not strictly increasing at %d", got, i)
					}
				}
				le, lo := c.Latest()
				if l, ok := m.latest(); (ok && (le != l.Epoch || lo != l.StartOffset)) || (!ok && (le != model.NoEpoch || lo != model.NoOffset)) {
					rt.Fatalf("Latest() = %d@%d, model %v", le, lo, m)
				}
				// holds, which lets an append skip Assign, must say
				// "nothing would change" exactly when nothing would.
				for e := model.Epoch(0); e <= 10; e++ {
					for start := model.Offset(0); start <= 42; start++ {
						if same := reflect.DeepEqual(m.assign(e, start), m); c.holds(e, start) != same {
							rt.Fatalf("holds(%d, %d) = %v, want %v; cache %v", e, start, !same, same, c)
						}
					}
				}
				leo := model.Offset(40)
				if l, ok := m.latest(); ok {
					leo = l.StartOffset + model.Offset(rapid.IntRange(0, 5).Draw(rt, "log end past the latest start"))
				}
				for e := model.NoEpoch; e <= 10; e++ {
					ge, gend := c.EndOffsetFor(e, leo)
					we, wend := m.endOffsetFor(e, leo)
					if ge != we || gend != wend {
						rt.Fatalf("EndOffsetFor(%d, leo %d) = (%d, %d), model (%d, %d); cache %v", e, leo, ge, gend, we, wend, c)
					}
				}
			},
		})
	})
}
