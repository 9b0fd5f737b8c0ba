package storage

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"pgregory.net/rapid"

	"kafkasim/model"
)

// refLog is the property test's model of a log: plain slices, no files.
type refLog struct {
	batches []model.Batch // the log, from the log start
	start   model.Offset
	leo     model.Offset
	// synced is the log as a power loss would leave it: with a flush on
	// every message, the log as of the last append or flush. A truncation
	// since then is not synced, so a power loss may undo it.
	synced []model.Batch
	epochs []EpochEntry
}

func (m *refLog) latestEpoch() model.Epoch {
	if len(m.epochs) == 0 {
		return model.NoEpoch
	}
	return m.epochs[len(m.epochs)-1].Epoch
}

// The epoch rules, written from the specification (LeaderEpochFileCache)
// rather than copied from the implementation's loops.

func (m *refLog) assign(e model.Epoch, start model.Offset) {
	if n := len(m.epochs); n > 0 && m.epochs[n-1].Epoch == e && start >= m.epochs[n-1].StartOffset {
		return
	}
	var keep []EpochEntry
	for _, x := range m.epochs {
		if x.Epoch < e && x.StartOffset < start {
			keep = append(keep, x)
		}
	}
	m.epochs = append(keep, EpochEntry{e, start})
}

func (m *refLog) truncEnd(end model.Offset) {
	var keep []EpochEntry
	for _, x := range m.epochs {
		if x.StartOffset < end {
			keep = append(keep, x)
		}
	}
	m.epochs = keep
}

func (m *refLog) truncStart(start model.Offset) {
	var keep []EpochEntry
	for _, x := range m.epochs {
		if x.StartOffset > start {
			keep = append(keep, x)
		} else {
			keep = []EpochEntry{{x.Epoch, start}}
		}
	}
	m.epochs = keep
}

// endOffsetFor is the definition of Kafka's LeaderEpochFileCache.endOffsetFor.
func (m *refLog) endOffsetFor(e model.Epoch) (model.Epoch, model.Offset) {
	if e == model.NoEpoch || len(m.epochs) == 0 || e > m.latestEpoch() {
		return model.NoEpoch, model.NoOffset
	}
	if e == m.latestEpoch() {
		return e, m.leo
	}
	floor := model.NoEpoch
	for i, x := range m.epochs {
		if x.Epoch > e {
			if floor == model.NoEpoch {
				return e, x.StartOffset
			}
			return floor, m.epochs[i].StartOffset
		}
		floor = x.Epoch
	}
	panic("unreachable: e is below the latest epoch")
}

// dropBelow removes the batches below off from a slice of batches.
func dropBelow(bs []model.Batch, off model.Offset) []model.Batch {
	for len(bs) > 0 && bs[0].BaseOffset < off {
		bs = bs[1:]
	}
	return append([]model.Batch(nil), bs...)
}

// keepBelow keeps the batches that lie wholly below off.
func keepBelow(bs []model.Batch, off model.Offset) []model.Batch {
	var out []model.Batch
	for _, b := range bs {
		if b.LastOffset() < off {
			out = append(out, b)
		}
	}
	return out
}

func end(start model.Offset, bs []model.Batch) model.Offset {
	if len(bs) == 0 {
		return start
	}
	return bs[len(bs)-1].NextOffset()
}

// readAll reads every batch of the log from its start.
func readAll(l *Log) []model.Batch {
	var out []model.Batch
	for off := l.LogStartOffset(); off < l.LEO(); {
		bs := l.Read(off, 1<<20)
		if len(bs) == 0 {
			panic(fmt.Sprintf("read at %d below LEO %d returned nothing", off, l.LEO()))
		}
		for _, b := range bs {
			out = append(out, *b)
		}
		off = bs[len(bs)-1].NextOffset()
	}
	return out
}

// TestLogMatchesModel drives a log with random appends, truncations,
// leader changes, retention, flushes, process crashes and power losses
// (with a flush on every message), and compares it after every step with
// the model: its bounds, its batches, its epoch cache and every
// EndOffsetFor answer.
func TestLogMatchesModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		seed := rapid.Uint64Range(1, 1<<20).Draw(rt, "seed")
		w := newWorld(rt, seed)
		oneBatch := int64(len(model.AppendBatch(nil, plain(0, 0, 2))))
		cfg := smallSegments(3 * oneBatch)
		cfg.FlushIntervalMessages = 1
		l, _ := Open(w.disk, dir, cfg, 0)
		m := &refLog{}
		appended := 0 // stamps each batch, so that old and new data differ
		reopen := func() {
			var rec Recovery
			l, rec = Open(w.disk, dir, cfg, 0)
			if rec.TornTail || rec.Corrupt {
				rt.Fatalf("recovery with a flush on every message cut the log: %v", rec)
			}
		}

		rt.Repeat(map[string]func(*rapid.T){
			"append": func(rt *rapid.T) {
				// Mostly the same epoch: a new epoch writes the epoch
				// checkpoint, whose directory sync would hide missing
				// directory syncs elsewhere.
				e := max(m.latestEpoch(), 0)
				if rapid.IntRange(0, 4).Draw(rt, "epoch step") == 0 {
					e++
				}
				appended++
				n := rapid.IntRange(1, 3).Draw(rt, "records")
				b := batch(m.leo, e, model.NoProducerID, model.NoEpoch, model.NoSequence, n, time.Duration(appended))
				l.Append(b, 0)
				m.batches = append(m.batches, b)
				m.leo = b.NextOffset()
				m.assign(e, b.BaseOffset)
				m.synced = append([]model.Batch(nil), m.batches...)
			},
			"lead": func(rt *rapid.T) {
				e := m.latestEpoch() + 1 + model.Epoch(rapid.IntRange(0, 1).Draw(rt, "epoch step"))
				l.Epochs().Assign(e, l.LEO())
				m.assign(e, m.leo)
			},
			"truncate": func(rt *rapid.T) {
				off := model.Offset(rapid.IntRange(int(max(m.start-2, 0)), int(m.leo+2)).Draw(rt, "offset"))
				first := l.Segments()[0].Base
				got := l.TruncateTo(off)
				switch {
				case off >= m.leo:
					m.truncEnd(m.leo)
				case off < first:
					m.batches, m.synced, m.epochs = nil, nil, nil
					m.start, m.leo = off, off
				default:
					m.batches = keepBelow(m.batches, off)
					m.leo = end(m.start, m.batches)
					m.start = min(m.start, m.leo)
					m.truncEnd(m.leo)
				}
				if got != m.leo {
					rt.Fatalf("TruncateTo(%d) returned %d, want %d", off, got, m.leo)
				}
			},
			"retention": func(rt *rapid.T) {
				hw := model.Offset(rapid.IntRange(int(m.start), int(m.leo)).Draw(rt, "high watermark"))
				byTime := rapid.Bool().Draw(rt, "by time")
				l.cfg.RetentionTime, l.cfg.RetentionBytes = 0, -1
				if byTime {
					l.cfg.RetentionTime = time.Second // every record is nanoseconds old
				} else {
					l.cfg.RetentionBytes = int64(rapid.IntRange(-1, int(4*cfg.SegmentBytes)).Draw(rt, "retention bytes"))
				}
				before := l.Segments()
				size := l.Size()
				n := l.ApplyRetention(time.Hour, hw)
				var freed int64
				for _, s := range before[:n] {
					freed += s.Bytes
					if s.Next > hw {
						rt.Fatalf("deleted segment %v above the high watermark %d", s, hw)
					}
				}
				if !byTime && n > 0 && size-freed < l.cfg.RetentionBytes {
					rt.Fatalf("deleted %d bytes of %d, leaving less than retention.bytes %d", freed, size, l.cfg.RetentionBytes)
				}
				if byTime {
					// Everything is expired: every segment wholly below hw
					// goes, except an empty active one.
					wantN := 0
					for wantN < len(before) && before[wantN].Next <= hw && !(wantN == len(before)-1 && before[wantN].Bytes == 0) {
						wantN++
					}
					if n != wantN {
						rt.Fatalf("time retention deleted %d segments of %v below hw %d, want %d", n, before, hw, wantN)
					}
				}
				if n > 0 {
					newStart := m.leo
					if n < len(before) {
						newStart = before[n].Base
					}
					m.batches = dropBelow(m.batches, newStart)
					m.synced = dropBelow(m.synced, newStart)
					if newStart > m.start {
						m.start = newStart
						m.truncStart(newStart)
					}
				}
			},
			"flush": func(rt *rapid.T) {
				l.Flush()
				m.synced = append([]model.Batch(nil), m.batches...)
			},
			"crash": func(rt *rapid.T) {
				w.crash()
				reopen()
				m.truncEnd(m.leo) // an epoch without data at the end is dropped on load
			},
			"power loss": func(rt *rapid.T) {
				w.powerLoss()
				reopen()
				// Nothing appended is lost; an unsynced truncation may be
				// undone: the log is the synced one cut somewhere at or
				// after the current end.
				syncedEnd := end(m.start, m.synced)
				if l.LEO() < m.leo || l.LEO() > syncedEnd {
					rt.Fatalf("after power loss LEO %d, want within [%d, %d]", l.LEO(), m.leo, syncedEnd)
				}
				m.batches = keepBelow(m.synced, l.LEO())
				m.leo = l.LEO()
				m.synced = append([]model.Batch(nil), m.batches...)
				// Kafka's load: learn newer epochs from the batches, then
				// cut the cache to the log.
				for _, b := range m.batches {
					if b.LeaderEpoch > m.latestEpoch() {
						m.assign(b.LeaderEpoch, b.BaseOffset)
					}
				}
				m.truncEnd(m.leo)
				m.truncStart(m.start)
			},
			"": func(rt *rapid.T) {
				if l.LEO() != m.leo || l.LogStartOffset() != m.start {
					rt.Fatalf("log [%d, %d), model [%d, %d)", l.LogStartOffset(), l.LEO(), m.start, m.leo)
				}
				if got := readAll(l); !reflect.DeepEqual(normalize(got), normalize(m.batches)) {
					rt.Fatalf("log holds\n%v\nmodel\n%v", got, m.batches)
				}
				if got := l.Epochs().Entries(); !reflect.DeepEqual(got, m.epochs) && (len(got) != 0 || len(m.epochs) != 0) {
					rt.Fatalf("epoch cache %v, model %v", got, m.epochs)
				}
				for e := model.NoEpoch; e <= m.latestEpoch()+1; e++ {
					ge, go_ := l.EndOffsetFor(e)
					we, wo := m.endOffsetFor(e)
					if ge != we || go_ != wo {
						rt.Fatalf("EndOffsetFor(%d) = (%d, %d), model (%d, %d); cache %v", e, ge, go_, we, wo, l.Epochs())
					}
				}
				checkInvariants(rt, l)
			},
		})
	})
}
