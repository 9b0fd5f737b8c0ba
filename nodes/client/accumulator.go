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
	// ops[i] is the history op of recs[i]. The batch owns both arrays:
	// only an open batch, never sent, appends to them (and may move them
	// when they grow). Once the batch is drained (full) they never
	// change, and every attempt's wire batch shares recs; they are
	// written again only after release hands them on (see release).
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
	// transactional: the batch belongs to a transaction (the
	// transactional attribute, set when it is drained).
	transactional bool
	// sentPID, sentEpoch and sentSeq are the identity the attempt in
	// flight carried: an epoch bump may rewrite epoch and seq while it
	// flies, and its answer still completes the batch
	// (Sender.completeBatch), at the place the broker gave it under the
	// old identity.
	sentPID   model.ProducerID
	sentEpoch model.Epoch
	sentSeq   int32

	// attempt is the network's record of the attempt in flight (see
	// network.track).
	attempt request
}

func (b *batch) count() int32 { return int32(len(b.recs)) }

func (b *batch) lastSeq() int32 {
	if b.seq == model.NoSequence {
		return model.NoSequence
	}
	// As Kafka's ProducerBatch.lastSequence, without the wrap at
	// 2147483647 that the next sequence has (and so are the comparisons
	// with the last acknowledged sequence, TxnPartitionEntry's): a
	// producer would need 2^31 records to one partition to tell.
	return b.seq + b.count() - 1
}

// wire builds the batch as sent: sealed, offsets from 0. A new value per
// attempt, because a sent model.Batch is shared and immutable while the
// producer's batch may get a new sequence after an epoch bump; the records
// themselves are closed to appends once drained, so every attempt shares
// them with the producer's batch. The seal encodes the batch into *buf, a
// buffer the producer keeps for it (see model.Batch.SealInto): nothing
// reads the bytes afterwards, so one buffer serves every batch.
func (b *batch) wire(buf *[]byte) model.Batch {
	// The records are numbered from 0 as they are appended (see append),
	// as model.NewBatchOf would number them.
	w := model.Batch{
		LeaderEpoch:   model.NoEpoch,
		ProducerID:    model.NoProducerID,
		ProducerEpoch: model.NoEpoch,
		BaseSequence:  model.NoSequence,
	}
	if b.seq != model.NoSequence {
		w.ProducerID, w.ProducerEpoch, w.BaseSequence = b.pid, b.epoch, b.seq
	}
	if b.transactional {
		w.Attributes |= model.AttrTransactional
	}
	if len(b.recs) > 0 {
		w.Records = b.recs[:len(b.recs):len(b.recs)]
	}
	*buf = w.SealInto(*buf)
	if cap(*buf) > sealKeepMax {
		*buf = nil // one huge record: do not keep its room for the rest of the run
	}
	return w
}

// sealKeepMax bounds the seal buffer a producer keeps between batches:
// batch.size bounds a batch, except one record larger than it, which goes
// alone in a batch of its own size (as in Kafka).
const sealKeepMax = 64 << 10

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
	drainIdx  map[model.BrokerID]int // per-broker round-robin start (lookup only)
	// busy and inBusy list the queues that may hold batches (see
	// accumulator_busy.go).
	busy   []int
	inBusy []bool
	// last is the position index found last: a producer's records come
	// in runs for one partition (sticky, or a burst to one key), so it is
	// checked before a search.
	last int
	// free holds batches that ended and that nothing refers to any more
	// (see release), for append to reuse, with their record arrays when
	// nothing can read those either: a busy producer then allocates
	// neither batches nor records.
	free []*batch
	// recsReused counts the batches that took a released batch's record
	// arrays (for tests).
	recsReused int
	// completing says a transaction is being committed or aborted: every
	// batch is ready at once, linger or not (RecordAccumulator.ready's
	// transactionCompleting, which Sender sets from
	// TransactionManager.isCompleting).
	completing bool
}

// freeMax bounds the batches kept for reuse, so that a burst does not
// hold its peak of batches for the rest of the run.
const freeMax = 64

// recsCap is the room a batch without reusable arrays starts with. An open
// batch that outgrows it moves to arrays twice as large, as Kafka's
// growing ByteBufferOutputStream does; arrays handed on by release keep
// their size, so a busy producer soon stops growing them. Small, so that
// a run whose batches can rarely hand their arrays on (retries, a
// duplicating network) pays little more than their records.
const recsCap = 4

// recsKeepMax bounds the records a released batch's arrays may hold to be
// kept for reuse, so that one huge batch does not keep its arrays, up to
// freeMax times, for the rest of the run.
const recsKeepMax = 1024

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
	if i := a.last; i < len(a.tps) && a.tps[i] == tp {
		return i
	}
	i, found := slices.BinarySearchFunc(a.tps, tp, model.TopicPartition.Compare)
	if !found {
		a.tps = slices.Insert(a.tps, i, tp)
		a.queues = slices.Insert(a.queues, i, &[]*batch{})
		a.queueAdded(i)
	}
	a.last = i
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
	q := a.queues[i]
	size := recordBytes(r.key, r.value)
	if n := len(*q); n > 0 {
		last := (*q)[n-1]
		if !last.full && last.seq == model.NoSequence && last.attempts == 0 {
			if last.bytes+size <= a.batchSize {
				last.recs = append(last.recs, model.Record{Offset: model.Offset(len(last.recs)), Timestamp: r.ts, Key: r.key, Value: r.value})
				last.ops = append(last.ops, r.op)
				last.bytes += size
				return appendedOpen
			}
			last.full = true // closeForRecordAppends
		}
	}
	b := a.newBatch()
	recs, ops := b.recs, b.ops // empty, with room when reused (see release)
	if recs == nil {
		recs, ops = make([]model.Record, 0, recsCap), make([]int, 0, recsCap)
	} else {
		a.recsReused++
	}
	*b = batch{
		tp: tp, bytes: batchOverhead + size, created: now,
		retryEpoch: model.NoEpoch, pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence,
		recs: append(recs, model.Record{Timestamp: r.ts, Key: r.key, Value: r.value}),
		ops:  append(ops, r.op),
	}
	b.full = b.bytes >= a.batchSize
	*q = append(*q, b)
	a.markBusy(i)
	if b.full || len(*q) > 1 {
		return appendedOther
	}
	return appendedFirst
}

// newBatch returns a batch to fill in: a released one, or a new one.
func (a *accumulator) newBatch() *batch {
	if b := popFree(&a.free); b != nil {
		return b
	}
	return new(batch)
}

// release hands back a batch that ended, for a later append to reuse. The
// caller guarantees nothing refers to it any more: no queue, no request in
// flight (its own attempt included), no idempotent partition's list of
// batches in flight. Its records are another matter: every attempt's
// request carries them, and a request may be read after the producer is
// done with it (a duplicate still on its way, an attempt that timed out
// but may yet arrive). recsFree says none can be read any more; only then
// does the batch keep its arrays, for its next use to write over.
// Otherwise they stay untouched, for the messages that may still carry
// them, and the batch's next use takes new ones.
func (a *accumulator) release(b *batch, recsFree bool) {
	recs, ops := b.recs[:0], b.ops[:0]
	*b = batch{}
	if recsFree && cap(recs) <= recsKeepMax {
		// The old records' strings stay referenced until overwritten: the
		// history keeps every value to the end of the run anyway.
		b.recs, b.ops = recs, ops
	}
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
	at := a.index(b.tp)
	q := a.queues[at]
	a.markBusy(at)
	i := 0
	if inSequenceOrder && b.seq != model.NoSequence {
		for i < len(*q) && (*q)[i].seq != model.NoSequence && (*q)[i].seq < b.seq {
			i++
		}
	}
	*q = slices.Insert(*q, i, b)
}

// empty reports whether no batch waits.
func (a *accumulator) empty() bool { return len(a.busyQueues()) == 0 }

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
	if b.full || len(q) > 1 || a.completing {
		return 0
	}
	return b.created + a.linger
}

// expired removes and returns, in queue order, the waiting batches that
// reached delivery.timeout.ms (RecordAccumulator.expiredBatches).
func (a *accumulator) expired(now, deliveryTimeout time.Duration) []*batch {
	var out []*batch
	for _, i := range a.busyQueues() {
		q := a.queues[i]
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
