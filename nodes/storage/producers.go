package storage

import (
	"math"
	"sort"
	"time"

	"kafkasim/model"
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

// lastSeq is the sequence of the last record appended, or NoSequence.
func (e *ProducerEntry) lastSeq() int32 {
	if len(e.Batches) == 0 {
		return model.NoSequence
	}
	return e.Batches[len(e.Batches)-1].LastSeq
}

// ProducerState is a partition's idempotent-producer state (KIP-98), Kafka's
// ProducerStateManager without transactions: per producer id, its epoch and
// its last five batches.
//
// It is rebuilt from the log (on Open and after every truncation) rather
// than saved in snapshot files as Kafka does: a follower that replays the
// leader's batches arrives at the same state, which is why deduplication
// survives a leader change, and for the log sizes of a simulated run a
// replay costs less than keeping snapshots consistent. One consequence is
// that a producer whose every batch was deleted by retention is forgotten
// at the next rebuild, where Kafka's snapshots would remember it until
// producer.id.expiration.ms; a forgotten producer is accepted at any
// sequence, as Kafka accepts one whose state has expired.
type ProducerState struct {
	producers map[model.ProducerID]*ProducerEntry
}

func newProducerState() *ProducerState {
	return &ProducerState{producers: map[model.ProducerID]*ProducerEntry{}}
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
	if b.ProducerID == model.NoProducerID {
		return nil, model.NoError
	}
	e, known := p.producers[b.ProducerID]
	if !known {
		return nil, model.NoError
	}
	if b.ProducerEpoch == e.ProducerEpoch {
		first, last := b.BaseSequence, b.LastSequence()
		for i := range e.Batches {
			if m := &e.Batches[i]; m.FirstSeq == first && m.LastSeq == last {
				c := *m // a copy: update may shift the entries later
				return &c, model.NoError
			}
		}
	}
	if b.ProducerEpoch < e.ProducerEpoch {
		return nil, model.InvalidProducerEpoch
	}
	if b.ProducerEpoch != e.ProducerEpoch {
		if b.BaseSequence != 0 {
			return nil, model.OutOfOrderSequenceNumber
		}
		return nil, model.NoError
	}
	if !inSequence(e.lastSeq(), b.BaseSequence) {
		return nil, model.OutOfOrderSequenceNumber
	}
	return nil, model.NoError
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
func (p *ProducerState) update(b model.Batch) {
	if b.ProducerID == model.NoProducerID {
		return
	}
	e, ok := p.producers[b.ProducerID]
	if !ok {
		e = &ProducerEntry{ProducerEpoch: b.ProducerEpoch}
		p.producers[b.ProducerID] = e
	}
	if e.ProducerEpoch != b.ProducerEpoch {
		e.ProducerEpoch = b.ProducerEpoch
		e.Batches = e.Batches[:0]
	}
	m := BatchMeta{
		FirstSeq:    b.BaseSequence,
		LastSeq:     b.LastSequence(),
		FirstOffset: b.BaseOffset,
		LastOffset:  b.LastOffset(),
		Timestamp:   maxTimestamp(&b),
	}
	if len(e.Batches) == BatchesRetained {
		copy(e.Batches, e.Batches[1:])
		e.Batches = e.Batches[:BatchesRetained-1]
	}
	e.Batches = append(e.Batches, m)
}

// reset forgets every producer, before a rebuild from the log.
func (p *ProducerState) reset() {
	p.producers = map[model.ProducerID]*ProducerEntry{}
}

// Lookup returns a copy of one producer's state.
func (p *ProducerState) Lookup(pid model.ProducerID) (ProducerEntry, bool) {
	e, ok := p.producers[pid]
	if !ok {
		return ProducerEntry{}, false
	}
	return ProducerEntry{ProducerEpoch: e.ProducerEpoch, Batches: append([]BatchMeta(nil), e.Batches...)}, true
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
