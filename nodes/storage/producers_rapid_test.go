package storage

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"kafkasim/model"
)

// idemBatch is what the producer-state model keeps of one appended batch.
type idemBatch struct {
	pid    model.ProducerID
	pepoch model.Epoch
	meta   BatchMeta
}

// producerModel is the idempotent-producer state as a function of the
// log: the batches appended, in order, and the offset of the snapshot the
// state was last loaded from. A producer's state is the epoch of its last
// batch and the last BatchesRetained of its batches that carry that
// epoch, with no batch of another epoch after them (Kafka's
// ProducerStateManager, fed the log in order), where the batches before
// the snapshot count as their producer's last one only: a snapshot keeps
// no more.
type producerModel struct {
	log    []idemBatch
	snapAt model.Offset
	// lastBatchOnly is Kafka's snapshot format; without it a snapshot
	// keeps what the state retained, and the reload changes nothing.
	lastBatchOnly bool
}

func (m *producerModel) entry(pid model.ProducerID) (ProducerEntry, bool) {
	var mine []idemBatch
	var snap []idemBatch
	for _, b := range m.log {
		switch {
		case b.pid != pid:
		case m.lastBatchOnly && b.meta.LastOffset < m.snapAt:
			snap = append(snap[:0], b)
		default:
			mine = append(mine, b)
		}
	}
	mine = append(snap, mine...)
	if len(mine) == 0 {
		return ProducerEntry{}, false
	}
	e := ProducerEntry{ProducerEpoch: mine[len(mine)-1].pepoch}
	i := len(mine)
	for i > 0 && mine[i-1].pepoch == e.ProducerEpoch && len(mine)-i < BatchesRetained {
		i--
	}
	for _, b := range mine[i:] {
		e.Batches = append(e.Batches, b.meta)
	}
	return e, true
}

func (m *producerModel) ids() []model.ProducerID {
	var out []model.ProducerID
	for _, b := range m.log {
		if !slices.Contains(out, b.pid) {
			out = append(out, b.pid)
		}
	}
	slices.Sort(out)
	return out
}

// check is the leader's validation as KIP-98 and KIP-360 state it: what
// a produce batch from pid (epoch, sequences first..last) must get.
func (m *producerModel) check(pid model.ProducerID, pepoch model.Epoch, first, last int32) (*BatchMeta, model.ErrorCode) {
	e, known := m.entry(pid)
	switch {
	case !known:
		return nil, model.NoError // unknown: accepted at any sequence
	case pepoch == e.ProducerEpoch:
		for _, b := range e.Batches {
			if b.FirstSeq == first && b.LastSeq == last {
				return &b, model.NoError // a retry: answered with the original offsets
			}
		}
		if first != e.Batches[len(e.Batches)-1].LastSeq+1 {
			return nil, model.OutOfOrderSequenceNumber
		}
		return nil, model.NoError
	case pepoch < e.ProducerEpoch:
		return nil, model.InvalidProducerEpoch
	case first != 0:
		return nil, model.OutOfOrderSequenceNumber // a new epoch starts at 0
	}
	return nil, model.NoError
}

// TestProducerStateMatchesModel drives a partition log's idempotent
// producer state with two producers: leader appends that it must
// validate (mostly the next sequence, retries of retained and of forgotten
// batches, gaps, fenced and new producer epochs), follower appends that
// it records without validation (one at a time, and in runs longer than
// a producer retains, which the log folds from the newest back),
// truncations to a batch boundary and
// reopens after a crash (both reload the state from the snapshot Kafka's
// rules choose, and replay the log after it), and
// compares every answer of CheckAppend and every producer's state with the
// model.
func TestProducerStateMatchesModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		w := newWorld(rt, rapid.Uint64Range(1, 1<<20).Draw(rt, "seed"))
		cfg := smallSegments(1 << 12) // a few batches per segment
		cfg.SnapshotLastBatchOnly = rapid.Bool().Draw(rt, "Kafka's snapshot format")
		l, _ := Open(w.disk, dir, cfg, 0)
		m := producerModel{lastBatchOnly: cfg.SnapshotLastBatchOnly}
		stamp := 0 // record timestamps, so that every batch's differs
		pids := rapid.SampledFrom([]model.ProducerID{1, 2})

		newBatch := func(pid model.ProducerID, pepoch model.Epoch, seq int32, n int) model.Batch {
			recs := make([]model.Record, n)
			for i := range recs {
				stamp++
				recs[i] = model.Record{Timestamp: time.Duration(stamp) * time.Millisecond, Value: fmt.Sprintf("p%d-e%d-s%d", pid, pepoch, seq+int32(i))}
			}
			return model.NewBatch(pid, pepoch, seq, recs...)
		}
		appendBatch := func(b model.Batch) {
			stamped := b.Rebase(l.LEO(), 0)
			l.Append(stamped, 0)
			m.log = append(m.log, idemBatch{b.ProducerID, b.ProducerEpoch, BatchMeta{
				FirstSeq: b.BaseSequence, LastSeq: b.LastSequence(),
				FirstOffset: stamped.BaseOffset, LastOffset: stamped.LastOffset(),
				Timestamp: stamped.Records[len(stamped.Records)-1].Timestamp,
			}})
		}

		rt.Repeat(map[string]func(*rapid.T){
			"produce": func(rt *rapid.T) {
				pid := pids.Draw(rt, "producer")
				e, known := m.entry(pid)
				pepoch, seq := model.Epoch(0), int32(rapid.IntRange(0, 20).Draw(rt, "sequence"))
				n := rapid.IntRange(1, 3).Draw(rt, "records")
				if known {
					next := e.Batches[len(e.Batches)-1].LastSeq + 1
					pepoch = e.ProducerEpoch
					// Mostly the next batch, so that a producer's retained
					// window fills and slides.
					switch rapid.SampledFrom([]string{"next", "next", "next", "next", "retry", "gap", "new epoch", "fenced epoch", "new epoch mid-sequence", "old retry"}).Draw(rt, "kind") {
					case "next":
						seq = next
					case "retry":
						b := rapid.SampledFrom(e.Batches).Draw(rt, "retried batch")
						seq, n = b.FirstSeq, int(b.LastSeq-b.FirstSeq)+1
					case "gap":
						seq = next + int32(rapid.IntRange(1, 3).Draw(rt, "gap"))
					case "new epoch":
						pepoch, seq = pepoch+1, 0
					case "fenced epoch":
						pepoch = max(pepoch-1, 0)
					case "new epoch mid-sequence":
						pepoch = pepoch + 1
						seq = max(seq, 1)
					case "old retry":
						// A batch retained no more (or never sent): its
						// range matches no retained batch.
						seq = max(e.Batches[0].FirstSeq-int32(n), 0)
					}
				}
				b := newBatch(pid, pepoch, seq, n)
				dup, code := l.Producers().CheckAppend(b)
				wdup, wcode := m.check(pid, pepoch, b.BaseSequence, b.LastSequence())
				if code != wcode || (dup == nil) != (wdup == nil) || (dup != nil && *dup != *wdup) {
					rt.Fatalf("CheckAppend(pid %d epoch %d seq %d..%d) = (%v, %v), model (%v, %v); state %+v", pid, pepoch, b.BaseSequence, b.LastSequence(), dup, code, wdup, wcode, e)
				}
				if code == model.NoError && dup == nil {
					appendBatch(b)
				}
			},
			"replicate": func(rt *rapid.T) {
				// A follower appends what the leader wrote, unvalidated:
				// any epoch, even an older one, and any sequence.
				pid := pids.Draw(rt, "producer")
				pepoch := model.Epoch(rapid.IntRange(0, 3).Draw(rt, "producer epoch"))
				seq := int32(rapid.IntRange(0, 20).Draw(rt, "sequence"))
				if e, ok := m.entry(pid); ok && rapid.Bool().Draw(rt, "in sequence") {
					pepoch, seq = e.ProducerEpoch, e.Batches[len(e.Batches)-1].LastSeq+1
				}
				appendBatch(newBatch(pid, pepoch, seq, rapid.IntRange(1, 3).Draw(rt, "records")))
			},
			"replicate a run": func(rt *rapid.T) {
				// More batches than a producer retains before the state is
				// read again: the log folds them from the newest back.
				for range rapid.IntRange(BatchesRetained+1, 12).Draw(rt, "batches") {
					pid := pids.Draw(rt, "producer")
					pepoch, seq := model.Epoch(rapid.IntRange(0, 1).Draw(rt, "producer epoch")), int32(0)
					if e, ok := m.entry(pid); ok {
						seq = e.Batches[len(e.Batches)-1].LastSeq + 1
						if rapid.IntRange(0, 4).Draw(rt, "same epoch") > 0 {
							pepoch = e.ProducerEpoch
						}
					}
					appendBatch(newBatch(pid, pepoch, seq, rapid.IntRange(1, 3).Draw(rt, "records")))
				}
			},
			"truncate": func(rt *rapid.T) {
				k := rapid.IntRange(0, len(m.log)).Draw(rt, "batches kept")
				off := l.LogStartOffset()
				if k > 0 {
					off = m.log[k-1].meta.LastOffset + 1
				}
				before := l.Producers().SnapshotOffsets()
				if off >= l.LEO() {
					l.TruncateTo(off)
					return // nothing was cut: the state stays
				}
				l.TruncateTo(off)
				m.log = m.log[:k]
				// Kafka's truncateAndReload: the newest snapshot in
				// (log start, new end].
				m.snapAt = 0
				for _, s := range before {
					if s > l.LogStartOffset() && s <= l.LEO() {
						m.snapAt = s
					}
				}
			},
			"crash": func(rt *rapid.T) {
				before := l.Producers().SnapshotOffsets()
				w.crash()
				l, _ = Open(w.disk, dir, cfg, 0)
				// LogLoader.load: removeStraySnapshots keeps the snapshots
				// at segment bases and the newest other one if it lies past
				// them all; truncateAndReload then takes the newest in
				// (log start, log end].
				var bases []model.Offset
				for _, sg := range l.Segments() {
					bases = append(bases, sg.Base)
				}
				var kept []model.Offset
				stray := model.NoOffset
				for _, s := range before {
					if slices.Contains(bases, s) {
						kept = append(kept, s)
					} else {
						stray = s
					}
				}
				if stray > bases[len(bases)-1] {
					kept = append(kept, stray)
				}
				m.snapAt = 0
				for _, s := range kept {
					if s > l.LogStartOffset() && s <= l.LEO() && s > m.snapAt {
						m.snapAt = s
					}
				}
			},
			"": func(rt *rapid.T) {
				if got, want := l.Producers().IDs(), m.ids(); !reflect.DeepEqual(got, want) && (len(got) != 0 || len(want) != 0) {
					rt.Fatalf("producers %v, model %v", got, want)
				}
				for _, pid := range []model.ProducerID{1, 2, 3} { // 3 never produces: it stays unknown
					got, gok := l.Producers().Lookup(pid)
					want, wok := m.entry(pid)
					if gok != wok || !reflect.DeepEqual(got, want) {
						rt.Fatalf("producer %d: state %+v (%v), model %+v (%v)", pid, got, gok, want, wok)
					}
				}
			},
		})
	})
}

// TestFoldingBackMatchesUpdatingForward feeds one producer state a run of
// batches through update, oldest first, as Kafka does, and another the
// same run through noteOlder, newest first, and endFold, as the log folds
// (foldProducers); both start from the same earlier batches. The runs mix
// many producers (past foldRunsMax, where folding back gives up), batches
// without a producer, epoch changes both ways and runs longer than what a
// producer retains, and the two states must agree on every producer.
func TestFoldingBackMatchesUpdatingForward(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		producers := rapid.IntRange(1, foldRunsMax+3).Draw(rt, "producers")
		batch := func(rt *rapid.T, off model.Offset) *model.Batch {
			pid := model.ProducerID(rapid.IntRange(0, producers).Draw(rt, "producer"))
			if pid == 0 {
				pid = model.NoProducerID
			}
			b := model.NewBatch(pid, model.Epoch(rapid.IntRange(0, 2).Draw(rt, "epoch")), int32(rapid.IntRange(0, 50).Draw(rt, "sequence")),
				model.Record{Timestamp: time.Duration(rapid.IntRange(0, 9).Draw(rt, "timestamp"))})
			b = b.Rebase(off, 0)
			return &b
		}
		fwd, back := newProducerState(nil, "", 0), newProducerState(nil, "", 0)
		var off model.Offset
		for range rapid.IntRange(0, 12).Draw(rt, "earlier batches") {
			b := batch(rt, off)
			fwd.update(b)
			back.update(b)
			off = b.NextOffset()
		}
		var run []*model.Batch
		for range rapid.IntRange(0, 40).Draw(rt, "run") {
			run = append(run, batch(rt, off))
			off = run[len(run)-1].NextOffset()
		}
		for _, b := range run {
			fwd.update(b)
		}
		took := true
		for i := len(run) - 1; i >= 0 && took; i-- {
			took = back.noteOlder(run[i])
		}
		if took {
			back.endFold()
		} else {
			back.abortFold()
			for _, b := range run {
				back.update(b)
			}
		}
		if len(back.runs) != 0 {
			rt.Fatalf("%d runs left after the fold", len(back.runs))
		}
		if got, want := back.IDs(), fwd.IDs(); !reflect.DeepEqual(got, want) {
			rt.Fatalf("producers %v folding back, %v forward", got, want)
		}
		for _, pid := range fwd.IDs() {
			got, _ := back.Lookup(pid)
			want, _ := fwd.Lookup(pid)
			if !reflect.DeepEqual(got, want) {
				rt.Fatalf("producer %d: %+v folding back, %+v forward", pid, got, want)
			}
		}
	})
}
