package storage

import (
	"math"
	"sort"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// BatchesRetained is how many of a producer's latest batches a partition
// remembers for deduplication, Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN.
// It is why an idempotent producer may have at most five requests in
// flight per connection: a retry of anything older is no longer recognised.
const BatchesRetained = 5

// BatchMeta is what a partition remembers of one appended idempotent batch:
// enough to recognise a retry of it and to answer the retry with the
// offsets the original got (Kafka's BatchMetadata).
type BatchMeta struct {
	FirstSeq, LastSeq       int32
	FirstOffset, LastOffset model.Offset
	// Timestamp is the batch's largest record timestamp.
	Timestamp time.Duration
}

// ProducerEntry is one producer's state in one partition: its latest epoch
// and the metadata of its last BatchesRetained batches, oldest first.
type ProducerEntry struct {
	ProducerEpoch model.Epoch
	Batches       []BatchMeta
}

// producerEntry is a ProducerEntry as the state keeps it: the retained
// batches in a ring, so that recording a batch (on every append of every
// replica) overwrites the oldest in place instead of shifting the others.
type producerEntry struct {
	epoch model.Epoch
	ring  [BatchesRetained]BatchMeta
	head  int // the oldest batch's slot
	n     int // retained batches
	// markerTS is the timestamp of the producer's last transaction
	// marker (ProducerStateEntry.lastTimestamp, which appendEndTxnMarker
	// sets): what a snapshot keeps of a producer that a marker left with
	// an epoch and no batch of it.
	markerTS time.Duration
}

// at is the i-th retained batch, oldest first.
func (e *producerEntry) at(i int) *BatchMeta { return &e.ring[(e.head+i)%BatchesRetained] }

// lastSeq is the sequence of the last record appended, or NoSequence.
func (e *producerEntry) lastSeq() int32 {
	if e.n == 0 {
		return model.NoSequence
	}
	return e.at(e.n - 1).LastSeq
}

// add records a batch, dropping the oldest once BatchesRetained are kept.
func (e *producerEntry) add(m BatchMeta) {
	if e.n < BatchesRetained {
		*e.at(e.n) = m
		e.n++
		return
	}
	e.ring[e.head] = m
	e.head = (e.head + 1) % BatchesRetained
}

// ProducerState is a partition's idempotent-producer state (KIP-98), Kafka's
// ProducerStateManager without transactions: per producer id, its epoch and
// its last five batches, and the snapshot files that let a restart or a
// truncation start from a recent state instead of the log start.
//
// As in Kafka, a snapshot is taken at every segment roll (UnifiedLog.roll),
// at a clean shutdown (Log.Close, UnifiedLog.close) and at the end of every
// load or truncation (UnifiedLog.rebuildProducerState); a load starts from
// the newest snapshot it trusts and replays the log after it. So a
// producer stays known after retention deleted all its batches, until
// producer.id.expiration.ms after its last batch. What a snapshot keeps of
// a producer is kafkasim's choice, see producer_snapshot.go.
type ProducerState struct {
	producers map[model.ProducerID]*producerEntry
	// last is the entry of lastID, the producer seen last: a partition
	// has few producers, and every append of every replica looks one up.
	lastID model.ProducerID
	last   *producerEntry
	// runs is what a fold from the newest batch back has gathered so far
	// (see noteOlder), reused from one fold to the next.
	runs []foldRun
	hit  int // the run noteOlder found last

	// disk and dir are where the snapshot files live, the log's folder.
	disk *sim.Disk
	dir  string
	// snapshots are the offsets of the snapshot files, ascending.
	snapshots []model.Offset
	// mapEnd is the offset up to which the state has recorded the log
	// (Kafka's lastMapOffset), lastSnap that of the latest snapshot
	// written or loaded (lastSnapOffset).
	mapEnd, lastSnap model.Offset
	// expiration is producer.id.expiration.ms; zero or less never expires.
	expiration time.Duration
	// lastBatchOnly writes snapshots as Kafka does, with each producer's
	// last batch only (see producer_snapshot.go).
	lastBatchOnly bool
}

func newProducerState(disk *sim.Disk, dir string, expiration time.Duration) *ProducerState {
	return &ProducerState{producers: map[model.ProducerID]*producerEntry{}, disk: disk, dir: dir, expiration: expiration}
}

// entry is the state of producer pid, nil if unknown.
func (p *ProducerState) entry(pid model.ProducerID) *producerEntry {
	if p.last != nil && p.lastID == pid {
		return p.last
	}
	e := p.producers[pid]
	if e != nil {
		p.lastID, p.last = pid, e
	}
	return e
}

// CheckAppend is the leader's validation of a produce batch before it is
// stamped and appended (UnifiedLog.analyzeAndValidateProducerState and
// ProducerAppendInfo.checkSequence, for a client append). In Kafka's order:
//
//   - a batch without a producer id passes: there is nothing to check;
//   - a batch of the producer's current epoch whose sequence range is
//     exactly that of one of the retained batches is a retry: dup is that
//     batch's metadata, and the leader must answer with its offsets and
//     append nothing;
//   - an epoch older than the producer's: INVALID_PRODUCER_EPOCH;
//   - a newer epoch must start at sequence 0: OUT_OF_ORDER_SEQUENCE_NUMBER
//     otherwise;
//   - the current epoch must continue at the last sequence + 1:
//     OUT_OF_ORDER_SEQUENCE_NUMBER otherwise, which is also the answer for
//     a retry of a batch older than the last five (Kafka answered
//     DUPLICATE_SEQUENCE_NUMBER for those only before 1.0);
//   - a producer this partition does not know is accepted at any sequence:
//     since KIP-360 (Kafka 2.5) Kafka no longer answers
//     UNKNOWN_PRODUCER_ID, because the state of a producer whose batches
//     were all deleted by retention is indistinguishable from a new one's.
//
// CheckAppend changes nothing; Log.Append records the batch.
func (p *ProducerState) CheckAppend(b model.Batch) (dup *BatchMeta, err model.ErrorCode) {
	if dup := p.findDuplicate(&b); dup != nil {
		return dup, model.NoError
	}
	return nil, p.checkClientAppend(&b)
}

// findDuplicate is the retained batch whose sequence range a batch of the
// producer's current epoch repeats exactly, nil if none
// (ProducerStateEntry.findDuplicateBatch, which UnifiedLog asks before the
// append checks).
func (p *ProducerState) findDuplicate(b *model.Batch) *BatchMeta {
	if b.ProducerID == model.NoProducerID {
		return nil
	}
	e := p.entry(b.ProducerID)
	if e == nil || b.ProducerEpoch != e.epoch {
		return nil
	}
	first, last := b.BaseSequence, b.LastSequence()
	for i := 0; i < e.n; i++ {
		if m := e.at(i); m.FirstSeq == first && m.LastSeq == last {
			c := *m // a copy: update may overwrite the slot later
			return &c
		}
	}
	return nil
}

// checkClientAppend is ProducerAppendInfo's validation of a batch from a
// client (checkProducerEpoch, then checkSequence); a replica's append
// (AppendOrigin.REPLICATION) skips it. A retry of a retained batch fails
// it as out of order: duplicates are found before (findDuplicate).
func (p *ProducerState) checkClientAppend(b *model.Batch) model.ErrorCode {
	if b.ProducerID == model.NoProducerID {
		return model.NoError
	}
	e := p.entry(b.ProducerID)
	if e == nil {
		return model.NoError
	}
	if b.ProducerEpoch < e.epoch {
		return model.InvalidProducerEpoch
	}
	if b.ProducerEpoch != e.epoch {
		if b.BaseSequence != 0 {
			return model.OutOfOrderSequenceNumber
		}
		return model.NoError
	}
	if !inSequence(e.lastSeq(), b.BaseSequence) {
		return model.OutOfOrderSequenceNumber
	}
	return model.NoError
}

// inSequence reports whether next follows last, with Kafka's wrap from the
// largest int32 back to 0.
func inSequence(last, next int32) bool {
	return int64(next) == int64(last)+1 || (next == 0 && last == math.MaxInt32)
}

// update records an appended batch, without validation, as Kafka does for
// every append through replication and during recovery: a new producer
// epoch forgets the batches of the old one, and only the last five
// batches are kept.
func (p *ProducerState) update(b *model.Batch) {
	if b.ProducerID == model.NoProducerID {
		return
	}
	e := p.entry(b.ProducerID)
	if e == nil {
		e = &producerEntry{epoch: b.ProducerEpoch}
		p.producers[b.ProducerID] = e
		p.lastID, p.last = b.ProducerID, e
	}
	if e.epoch != b.ProducerEpoch {
		e.epoch = b.ProducerEpoch
		e.head, e.n = 0, 0
	}
	if b.IsControl() {
		// A transaction marker (ProducerAppendInfo.appendEndTxnMarker)
		// moves the producer to its epoch (maybeUpdateProducerEpoch: a
		// KIP-890 bumped one forgets the old epoch's batches) but is no
		// batch of sequences to deduplicate against.
		e.markerTS = maxTimestamp(b)
		return
	}
	e.add(batchMeta(b))
}

// batchMeta is what the state retains of an appended batch.
func batchMeta(b *model.Batch) BatchMeta {
	return BatchMeta{
		FirstSeq:    b.BaseSequence,
		LastSeq:     b.LastSequence(),
		FirstOffset: b.BaseOffset,
		LastOffset:  b.LastOffset(),
		Timestamp:   maxTimestamp(b),
	}
}

// foldRun is what a run of batches, read from its newest back, leaves of
// one producer in the state: the epoch of its newest batch, and that
// epoch's newest batches, up to BatchesRetained, newest first.
type foldRun struct {
	pid    model.ProducerID
	epoch  model.Epoch
	newest [BatchesRetained]*model.Batch
	n      int
	// cut says an older batch of the run has another epoch: update
	// starts the producer over there, so nothing older counts.
	cut bool
	// marked says the run has a marker of its epoch, markerTS the
	// newest one's timestamp.
	marked   bool
	markerTS time.Duration
}

// foldRunsMax bounds the producers one fold tracks going back; a run with
// more goes forward through update instead (see noteOlder).
const foldRunsMax = 16

// noteOlder takes the next batch of a run read from its newest batch back
// to its oldest, which endFold then records as update would have, had it
// been given them oldest first. Going back, a producer's batches stop
// mattering once BatchesRetained of them are kept or another epoch shows
// up, so a long run costs a comparison per batch rather than an update.
// It reports false when the run has more than foldRunsMax producers; the
// caller then drops what was gathered (abortFold) and updates forward.
func (p *ProducerState) noteOlder(b *model.Batch) bool {
	if b.ProducerID == model.NoProducerID {
		return true
	}
	if p.hit >= len(p.runs) || p.runs[p.hit].pid != b.ProducerID {
		p.hit = -1
		for i := range p.runs {
			if p.runs[i].pid == b.ProducerID {
				p.hit = i
				break
			}
		}
		if p.hit < 0 {
			if len(p.runs) == foldRunsMax {
				return false
			}
			p.runs = append(p.runs, foldRun{pid: b.ProducerID, epoch: b.ProducerEpoch})
			p.hit = len(p.runs) - 1
		}
	}
	r := &p.runs[p.hit]
	switch {
	case r.cut || r.n == BatchesRetained:
	case b.ProducerEpoch != r.epoch:
		r.cut = true
	case b.IsControl():
		// A marker of the run's epoch: update keeps the epoch's
		// batches and records nothing for it but its time (the newest
		// marker's, which is the first seen going back).
		if !r.marked {
			r.marked, r.markerTS = true, maxTimestamp(b)
		}
	default:
		r.newest[r.n] = b
		r.n++
	}
	return true
}

// endFold records what noteOlder gathered. A producer whose run was cut
// by another epoch, or that has BatchesRetained batches in it, or whose
// state has another epoch, starts over (as update does on an epoch
// change); otherwise the run's batches follow those it retains.
func (p *ProducerState) endFold() {
	for i := range p.runs {
		r := &p.runs[i]
		e := p.entry(r.pid)
		if e == nil {
			e = &producerEntry{epoch: r.epoch}
			p.producers[r.pid] = e
		}
		if r.cut || r.n == BatchesRetained || e.epoch != r.epoch {
			e.epoch, e.head, e.n = r.epoch, 0, 0
		}
		for j := r.n - 1; j >= 0; j-- {
			e.add(batchMeta(r.newest[j]))
		}
		if r.marked {
			e.markerTS = r.markerTS
		}
	}
	p.abortFold()
}

// abortFold drops what noteOlder gathered.
func (p *ProducerState) abortFold() {
	clear(p.runs) // no batch stays reachable from here
	p.runs, p.hit = p.runs[:0], 0
}

// reset forgets every producer, before a reload from a snapshot and the log.
func (p *ProducerState) reset() {
	p.producers = map[model.ProducerID]*producerEntry{}
	p.lastID, p.last = 0, nil
}

// Lookup returns a copy of one producer's state.
func (p *ProducerState) Lookup(pid model.ProducerID) (ProducerEntry, bool) {
	e := p.producers[pid]
	if e == nil {
		return ProducerEntry{}, false
	}
	out := ProducerEntry{ProducerEpoch: e.epoch}
	for i := 0; i < e.n; i++ {
		out.Batches = append(out.Batches, *e.at(i))
	}
	return out, true
}

// IDs returns the known producer ids in increasing order.
func (p *ProducerState) IDs() []model.ProducerID {
	ids := make([]model.ProducerID, 0, len(p.producers))
	for id := range p.producers {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// Len is the number of known producers.
func (p *ProducerState) Len() int { return len(p.producers) }

// maxTimestamp is the largest record timestamp of a batch.
func maxTimestamp(b *model.Batch) time.Duration {
	var ts time.Duration
	for i := range b.Records {
		if i == 0 || b.Records[i].Timestamp > ts {
			ts = b.Records[i].Timestamp
		}
	}
	return ts
}
