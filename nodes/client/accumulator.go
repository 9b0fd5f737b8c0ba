package client

import (
	"slices"
	"time"

	"kafkasim/model"
)

// Size estimates for batch.size, after Kafka's v2 record format:
// DefaultRecordBatch.RECORD_BATCH_OVERHEAD is 61 bytes, and a record costs
// its key and value plus a few varints (length, attributes, timestamp and
// offset deltas, key and value lengths, header count), about 8 bytes for
// the small records of a test workload.
const (
	batchOverhead  = 61
	recordOverhead = 8
)

func recordBytes(key, value string) int { return recordOverhead + len(key) + len(value) }

// pendingRecord is one record of a batch and the history op of its send.
type pendingRecord struct {
	op    int // -1 when nothing is recorded
	key   string
	value string
	ts    time.Duration
}

// batch is a producer batch for one partition, after Kafka's ProducerBatch:
// the records, when the batch was created (linger and delivery timeout
// count from there), its retry state, and its idempotent identity, which
// it keeps across retries.
type batch struct {
	tp model.TopicPartition
	// recs are the records as they go on the wire, numbered from 0, and
	// ops[i] is the history op of recs[i]; both live in the partition's
	// recArena. Once the batch is drained (full) they never change, and
	// every attempt's wire batch shares them.
	recs    []model.Record
	ops     []int
	bytes   int
	full    bool // closed for appends: the next record did not fit
	created time.Duration

	attempts    int32         // re-enqueues so far (ProducerBatch.attempts)
	lastAttempt time.Duration // when last re-enqueued
	backoff     time.Duration // the wait before the next attempt
	retryEpoch  model.Epoch   // the leader epoch known when re-enqueued (KIP-951)
	lastError   model.ErrorCode
	inFlight    bool
	// maybeAppended says some attempt may have reached a leader and been
	// appended: it timed out, its connection broke, or the leader answered
	// with an error it can give after appending. A batch that fails with
	// this set is reported info, never fail.
	maybeAppended bool
	done          bool

	// Idempotence (KIP-98): NoSequence until the batch is first drained,
	// then fixed for every retry unless an epoch bump rewrites it.
	pid      model.ProducerID
	epoch    model.Epoch
	seq      int32
	seqReset bool // ProducerBatch.sequenceHasBeenReset

	// attempt is the network's record of the attempt in flight (see
	// network.track).
	attempt request
}

func (b *batch) count() int32 { return int32(len(b.recs)) }

func (b *batch) lastSeq() int32 {
	if b.seq == model.NoSequence {
		return model.NoSequence
	}
	return b.seq + b.count() - 1
}

// wire builds the batch as sent: sealed, offsets from 0. A new value per
// attempt, because a sent model.Batch is shared and immutable while the
// producer's batch may get a new sequence after an epoch bump; the records
// themselves are closed to appends once drained, so every attempt shares
// them with the producer's batch.
func (b *batch) wire() model.Batch {
	// NewBatchOf numbers the records from 0, as they already are.
	rs := b.recs[:len(b.recs):len(b.recs)]
	if b.seq == model.NoSequence {
		return model.NewBatchOf(model.NoProducerID, model.NoEpoch, model.NoSequence, rs)
	}
	return model.NewBatchOf(b.pid, b.epoch, b.seq, rs)
}

// accumulator holds the batches waiting to be sent, one queue per
// partition, after Kafka's RecordAccumulator. Partitions are kept in a
// sorted list so that every walk over them has one order; queues[i] is the
// queue of tps[i]. The sender walks every queue after every event, so they
// are found by position rather than by hashing topic names.
type accumulator struct {
	batchSize int
	linger    time.Duration
	tps       []model.TopicPartition // partitions with a queue, sorted
	queues    []*[]*batch            // the queue of each of tps
	arenas    []*recArena            // the records of each of tps
	drainIdx  map[model.BrokerID]int // per-broker round-robin start (lookup only)
	// free holds batches that ended and that nothing refers to any more
	// (see release), for append to reuse: a busy producer then allocates
	// no batch at all.
	free []*batch
}

// freeMax bounds the batches kept for reuse, so that a burst does not
// hold its peak of batches for the rest of the run.
const freeMax = 64

// recArena holds the records of one partition's batches, and their history
// ops, in chunks that batches take in turn, so that a batch costs no
// allocation for its records: Kafka's producer draws its batches' buffers
// from a pool (BufferPool) for the same reason. Only the open last batch
// of a queue takes more records, and its records are always the last ones
// taken from the current chunk, so it grows in place; when the chunk is
// full, they move to the start of a new one (an open batch was never sent,
// so no message shares them). A chunk is never written again once its
// records are taken, and it lives as long as a batch or a message in
// flight refers to it.
type recArena struct {
	recs []model.Record
	ops  []int
}

// arenaChunk is how many records a chunk holds: many batches' worth for a
// workload of small batches, and reallocated every few dozen records.
const arenaChunk = 64

// add appends a record and its op to b, whose records are the last ones
// taken from the arena (none for a new batch), and points b at them.
func (ar *recArena) add(b *batch, rec model.Record, op int) {
	n := len(b.recs)
	if len(ar.recs) == cap(ar.recs) {
		size := max(arenaChunk, 2*(n+1))
		recs, ops := make([]model.Record, n, size), make([]int, n, size)
		copy(recs, b.recs)
		copy(ops, b.ops)
		ar.recs, ar.ops = recs, ops
	}
	ar.recs = append(ar.recs, rec)
	ar.ops = append(ar.ops, op)
	end := len(ar.recs)
	// Capped at the end, so that nothing appending to a batch's slices
	// can write over the next batch's records.
	b.recs = ar.recs[end-n-1 : end : end]
	b.ops = ar.ops[end-n-1 : end : end]
}

func newAccumulator(p model.ProducerConfig) accumulator {
	return accumulator{
		batchSize: int(p.BatchSize),
		linger:    p.Linger,
		drainIdx:  map[model.BrokerID]int{},
	}
}

func (a *accumulator) queue(tp model.TopicPartition) *[]*batch {
	return a.queues[a.index(tp)]
}

// index is the position of tp's queue, which it adds if missing.
func (a *accumulator) index(tp model.TopicPartition) int {
	i, found := slices.BinarySearchFunc(a.tps, tp, model.TopicPartition.Compare)
	if !found {
		a.tps = slices.Insert(a.tps, i, tp)
		a.queues = slices.Insert(a.queues, i, &[]*batch{})
		a.arenas = slices.Insert(a.arenas, i, &recArena{})
	}
	return i
}

// appended says what an append did to its partition's queue: all the
// sender needs to know to tell whether its next pass could find anything
// new (see Producer.appendQuiet).
type appended uint8

const (
	// appendedOpen: the record joined the open last batch, which stays
	// open; no batch's readiness or deadlines changed.
	appendedOpen appended = iota
	// appendedFirst: the record started a batch, open and alone in its
	// queue; its linger and delivery deadlines are new.
	appendedFirst
	// appendedOther: the append closed a batch, or started one that is
	// full or queued behind others: a batch may be ready now.
	appendedOther
)

// append adds a record to the partition's last batch if it has room, or to
// a new batch (Kafka's RecordAccumulator.append and tryAppend). A record
// always fits an empty batch, however large, as in Kafka.
func (a *accumulator) append(tp model.TopicPartition, r pendingRecord, now time.Duration) appended {
	i := a.index(tp)
	q, ar := a.queues[i], a.arenas[i]
	size := recordBytes(r.key, r.value)
	if n := len(*q); n > 0 {
		last := (*q)[n-1]
		if !last.full && last.seq == model.NoSequence && last.attempts == 0 {
			if last.bytes+size <= a.batchSize {
				ar.add(last, model.Record{Offset: model.Offset(len(last.recs)), Timestamp: r.ts, Key: r.key, Value: r.value}, r.op)
				last.bytes += size
				return appendedOpen
			}
			last.full = true // closeForRecordAppends
		}
	}
	b := a.newBatch()
	*b = batch{
		tp: tp, bytes: batchOverhead + size, created: now,
		retryEpoch: model.NoEpoch, pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence,
	}
	ar.add(b, model.Record{Timestamp: r.ts, Key: r.key, Value: r.value}, r.op)
	b.full = b.bytes >= a.batchSize
	*q = append(*q, b)
	if b.full || len(*q) > 1 {
		return appendedOther
	}
	return appendedFirst
}

// newBatch returns a batch to fill in: a released one, or a new one.
func (a *accumulator) newBatch() *batch {
	if n := len(a.free); n > 0 {
		b := a.free[n-1]
		a.free[n-1] = nil
		a.free = a.free[:n-1]
		return b
	}
	return new(batch)
}

// release hands back a batch that ended, for a later append to reuse. The
// caller guarantees nothing refers to it any more: no queue, no request in
// flight (its own attempt included), no idempotent partition's list of
// batches in flight. Its records stay where they are, untouched, for the
// messages that may still carry them.
func (a *accumulator) release(b *batch) {
	*b = batch{}
	if len(a.free) < freeMax {
		a.free = append(a.free, b)
	}
}

// reenqueue puts a batch to retry back at the head of its queue
// (RecordAccumulator.reenqueue). With idempotence it goes where its
// sequence belongs (insertInSequenceOrder), so retries leave in sequence
// order; without, it goes first, which is how a retry overtakes nothing
// but is overtaken by batches already in flight.
func (a *accumulator) reenqueue(b *batch, inSequenceOrder bool) {
	q := a.queue(b.tp)
	i := 0
	if inSequenceOrder && b.seq != model.NoSequence {
		for i < len(*q) && (*q)[i].seq != model.NoSequence && (*q)[i].seq < b.seq {
			i++
		}
	}
	*q = slices.Insert(*q, i, b)
}

// empty reports whether no batch waits.
func (a *accumulator) empty() bool {
	for _, q := range a.queues {
		if len(*q) > 0 {
			return false
		}
	}
	return true
}

// readyAt says when the head batch of a queue may leave: Kafka's
// RecordAccumulator.batchReady. A batch is sendable once it is full (or
// another batch waits behind it) or has lingered linger.ms; a retried
// batch waits out its backoff instead, unless the partition's leader epoch
// moved since it was re-enqueued (KIP-951: a new leader deserves an
// immediate retry). It returns the time (which may be in the past).
func (a *accumulator) readyAt(q []*batch, leaderEpoch model.Epoch) time.Duration {
	b := q[0]
	if b.attempts > 0 {
		if leaderEpoch > b.retryEpoch {
			return 0
		}
		return b.lastAttempt + b.backoff
	}
	if b.full || len(q) > 1 {
		return 0
	}
	return b.created + a.linger
}

// expired removes and returns, in queue order, the waiting batches that
// reached delivery.timeout.ms (RecordAccumulator.expiredBatches).
func (a *accumulator) expired(now, deliveryTimeout time.Duration) []*batch {
	var out []*batch
	for _, q := range a.queues {
		kept := (*q)[:0]
		for _, b := range *q {
			if now-b.created >= deliveryTimeout {
				out = append(out, b)
			} else {
				kept = append(kept, b)
			}
		}
		clear((*q)[len(kept):])
		*q = kept
	}
	return out
}
