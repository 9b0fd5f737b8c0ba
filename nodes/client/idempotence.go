package client

import (
	"math"
	"slices"
	"time"

	"kafkasim/model"
)

// idempotence is the idempotent producer's state (KIP-98), after the
// non-transactional half of Kafka's TransactionManager
// (clients/.../producer/internals/TransactionManager.java): the producer id
// and epoch, and per partition the next sequence, the last acknowledged
// sequence and offset, and the batches in flight ordered by sequence.
//
// Sequences count records per partition from 0; a batch takes its sequence
// when first drained and keeps it across retries, so that a leader that
// already appended it (whose answer was lost) recognises the retry and
// answers with the original offset instead of appending it again. While a
// partition has batches being retried, only the lowest-sequence one may be
// in flight (RecordAccumulator.shouldStopDrainBatchesForPartition), which
// is what keeps retries from reordering the log.
//
// Sequence trouble is handled as Kafka 2.5+ does for a producer without a
// transactional id (KIP-360): OUT_OF_ORDER_SEQUENCE_NUMBER for the batch
// right after the last acknowledged one means the broker lost state (for
// instance a leader that never had the earlier batches), and
// UNKNOWN_PRODUCER_ID means the broker has no state for the producer at
// all; either way the producer bumps its epoch locally (no InitProducerId
// request: TransactionManager.bumpIdempotentProducerEpoch), rewrites the
// sequences of the partition's in-flight batches from 0 under the new
// epoch, and retries. A broker must therefore accept a producer epoch
// above the one it knows when the batch's sequence is 0. Other
// OUT_OF_ORDER answers (for a batch behind one still unresolved) are
// retried as they are. A batch that expires after being retried leaves its
// partition "unresolved": no new batch is drained until the in-flight ones
// complete, and if they do not account for the expired one, the epoch is
// bumped then (TransactionManager.maybeResolveSequences).
type idempotence struct {
	on bool
	// txn says the producer is transactional: sequence trouble then fails
	// the batch and makes the transaction abortable, instead of a local
	// epoch bump (TransactionManager.canRetry, handleFailedBatch).
	txn   bool
	state idemState
	pid   model.ProducerID
	epoch model.Epoch

	initAt       time.Duration // next InitProducerId may go (node clock)
	initFailures int
	fatal        model.ErrorCode // the error that made the state idemFatal

	parts map[model.TopicPartition]*seqState // lookup only, never iterated
	// lastTP and last are the partition looked up last and its state (nil
	// when none): the sender asks about one partition several times in a
	// row for every batch, and hashing its topic name each time shows.
	lastTP       model.TopicPartition
	last         *seqState
	bumpRequired bool
	rewrite      []model.TopicPartition         // partitions whose sequences the bump rewrites, sorted
	unresolved   map[model.TopicPartition]int32 // next sequence after an expired batch
	unresolvedTP []model.TopicPartition         // keys of unresolved, sorted

	// rewritten are the in-flight batches the last epoch bump re-sequenced,
	// with the identity they had before: the producer writes them into the
	// history (takeRewritten), because a broker that appended a batch
	// under its old sequence and no longer remembers it appends it again.
	rewritten []rewrite
}

// rewrite is one batch an epoch bump re-sequenced: its epoch and base
// sequence before the bump.
type rewrite struct {
	b     *batch
	epoch model.Epoch
	seq   int32
}

type idemState uint8

const (
	idemNeedID idemState = iota // no producer id: send InitProducerId
	idemInitializing
	idemReady
	idemFatal // a non-retriable InitProducerId error: nothing more is sent
)

// seqState is TransactionManager.TopicPartitionEntry.
type seqState struct {
	pid          model.ProducerID
	epoch        model.Epoch
	nextSeq      int32
	lastAcked    int32 // NoSequence: none yet
	lastAckedOff model.Offset
	inflight     []*batch // by sequence
	// held says a retry behind lastAcked was refused as out of order
	// (batch.heldBehind): the partition takes no write from this producer
	// until an acknowledgement follows, which clears it. The hold does not
	// end when the held batch expires at delivery.timeout.ms: the epoch
	// bump and the resend of what waited behind it come after.
	held bool
	// released says a hold ended, releasedAt when (true virtual time): the
	// acknowledgement that cleared held (Producer.acknowledged).
	released   bool
	releasedAt time.Duration
}

func newIdempotence(on bool) idempotence {
	return idempotence{
		on: on, pid: model.NoProducerID, epoch: model.NoEpoch,
		parts: map[model.TopicPartition]*seqState{}, unresolved: map[model.TopicPartition]int32{},
	}
}

func (s *idempotence) part(tp model.TopicPartition) *seqState {
	p := s.find(tp)
	if p == nil {
		p = &seqState{pid: model.NoProducerID, epoch: model.NoEpoch, lastAcked: model.NoSequence, lastAckedOff: model.NoOffset}
		s.parts[tp] = p
		s.lastTP, s.last = tp, p
	}
	return p
}

// find returns tp's state, or nil if it has none.
func (s *idempotence) find(tp model.TopicPartition) *seqState {
	if s.last != nil && s.lastTP == tp {
		return s.last
	}
	p := s.parts[tp]
	if p != nil {
		s.lastTP, s.last = tp, p
	}
	return p
}

func (s *idempotence) ready() bool { return s.state == idemReady }

func (s *idempotence) fatalReason() string { return s.fatal.String() }

func (s *idempotence) hasInflight(tp model.TopicPartition) bool {
	p := s.find(tp)
	return p != nil && len(p.inflight) > 0
}

func (s *idempotence) stale(tp model.TopicPartition) bool {
	p := s.part(tp)
	return p.pid != s.pid || p.epoch != s.epoch
}

// setID installs the identity an InitProducerId answer gave.
func (s *idempotence) setID(pid model.ProducerID, epoch model.Epoch) {
	s.pid, s.epoch, s.state = pid, epoch, idemReady
	s.initFailures = 0
}

// stopDrain is RecordAccumulator.shouldStopDrainBatchesForPartition: may
// the head batch b of its partition's queue not leave now?
func (s *idempotence) stopDrain(b *batch) bool {
	if !s.ready() {
		return true // no producer id yet
	}
	if b.seq == model.NoSequence {
		// A new batch under a new epoch must not overtake batches still in
		// flight under the old one, nor follow a batch whose fate is
		// unknown.
		if s.hasInflight(b.tp) && s.stale(b.tp) {
			return true
		}
		if _, ok := s.unresolved[b.tp]; ok {
			return true
		}
	}
	// A retried batch waits until it is the lowest sequence in flight:
	// while retrying, a partition has one request in flight.
	first := s.firstInflightSeq(b.tp)
	return first != model.NoSequence && b.seq != model.NoSequence && b.seq != first
}

func (s *idempotence) firstInflightSeq(tp model.TopicPartition) int32 {
	p := s.find(tp)
	if p == nil || len(p.inflight) == 0 {
		return model.NoSequence
	}
	return p.inflight[0].seq
}

// assign gives a batch leaving for the first time its identity and
// sequence (the drain step of RecordAccumulator.drainBatchesForOneNode).
func (s *idempotence) assign(b *batch) {
	p := s.part(b.tp)
	if s.stale(b.tp) && len(p.inflight) == 0 {
		s.startAtZero(b.tp) // maybeUpdateProducerIdAndEpoch
	}
	b.pid, b.epoch, b.seq = s.pid, s.epoch, p.nextSeq
	// TxnPartitionEntry.incrementSequence: after 2147483647 comes 0.
	p.nextSeq = model.IncrementSequence(p.nextSeq, b.count())
	s.addInflight(p, b)
}

func (s *idempotence) addInflight(p *seqState, b *batch) {
	i, _ := slices.BinarySearchFunc(p.inflight, b, func(x, y *batch) int { return int(x.seq) - int(y.seq) })
	p.inflight = slices.Insert(p.inflight, i, b)
}

func (s *idempotence) removeInflight(b *batch) {
	p := s.find(b.tp)
	if p == nil {
		return
	}
	if i := slices.Index(p.inflight, b); i >= 0 {
		p.inflight = slices.Delete(p.inflight, i, i+1)
	}
}

// completed is handleCompletedBatch: the broker has the batch at base.
func (s *idempotence) completed(b *batch, base model.Offset) {
	p := s.part(b.tp)
	p.lastAcked = max(p.lastAcked, b.lastSeq())
	p.held = false
	if base >= 0 {
		p.lastAckedOff = max(p.lastAckedOff, base+model.Offset(b.count())-1)
	}
	s.removeInflight(b)
}

// failed is handleFailedBatch: the batch is given up. adjust says its fate
// on the broker is known (it failed with a non-retriable error before its
// retries ran out), so later sequences must not count it: a producer
// without transactions bumps its epoch for that.
func (s *idempotence) failed(b *batch, err model.ErrorCode, adjust bool) {
	s.removeInflight(b)
	if s.txn {
		// handleFailedBatch for a transactional producer: the abort that
		// follows bumps the epoch and starts every sequence over, so only
		// UNKNOWN_PRODUCER_ID's reset is done here. (Kafka also lowers the
		// later sequences of a batch refused definitely,
		// adjustSequencesDueToFailedBatch, which matters only when the
		// epoch cannot be bumped.)
		if err == model.UnknownProducerID {
			delete(s.parts, b.tp)
			s.last = nil
			s.resolve(b.tp)
		}
		return
	}
	switch {
	case err == model.OutOfOrderSequenceNumber:
		s.requestBump(b.tp)
	case err == model.UnknownProducerID:
		delete(s.parts, b.tp) // resetSequenceForPartition
		s.last = nil
		s.resolve(b.tp)
	case adjust:
		s.requestBump(b.tp)
	}
}

// markUnresolved records that a batch expired after being sent at least
// once: its sequence may or may not be on the broker.
func (s *idempotence) markUnresolved(b *batch) {
	next := b.lastSeq() + 1
	if v, ok := s.unresolved[b.tp]; ok {
		s.unresolved[b.tp] = max(v, next)
		return
	}
	s.unresolved[b.tp] = next
	i, _ := slices.BinarySearchFunc(s.unresolvedTP, b.tp, model.TopicPartition.Compare)
	s.unresolvedTP = slices.Insert(s.unresolvedTP, i, b.tp)
}

func (s *idempotence) resolve(tp model.TopicPartition) {
	delete(s.unresolved, tp)
	if i, ok := slices.BinarySearchFunc(s.unresolvedTP, tp, model.TopicPartition.Compare); ok {
		s.unresolvedTP = slices.Delete(s.unresolvedTP, i, i+1)
	}
}

// resolveSequences is maybeResolveSequences: once an unresolved
// partition has nothing in flight, either the acknowledged sequences caught
// up with the next one (the expired batch did make it) or the epoch is
// bumped to start over.
func (s *idempotence) resolveSequences() {
	for _, tp := range slices.Clone(s.unresolvedTP) {
		if s.hasInflight(tp) {
			continue
		}
		p := s.part(tp)
		if p.nextSeq != model.IncrementSequence(p.lastAcked, 1) {
			s.requestBump(tp)
		}
		s.resolve(tp)
	}
}

// resolveUnknown is maybeResolveSequences for a transactional producer:
// it settles the unresolved partitions that have nothing in flight, and
// reports whether one of them lost a sequence (its expired batches were
// not acknowledged after all), which makes the transaction abortable.
func (s *idempotence) resolveUnknown() bool {
	lost := false
	for _, tp := range slices.Clone(s.unresolvedTP) {
		if s.hasInflight(tp) {
			continue
		}
		p := s.part(tp)
		if p.nextSeq != model.IncrementSequence(p.lastAcked, 1) {
			lost = true
		}
		s.resolve(tp)
	}
	return lost
}

// resetSequences is resetSequenceNumbers: a new identity (an epoch bump,
// or the one an EndTxn answer gave) starts every partition's sequences
// from 0.
func (s *idempotence) resetSequences() {
	clear(s.parts)
	s.last = nil
	clear(s.unresolved)
	s.unresolvedTP, s.rewrite, s.bumpRequired = nil, nil, false
}

// resolvable says whether a pass would settle a sequence now: some
// partition left unresolved by an expired batch has nothing in flight any
// more, so resolveSequences decides it without waiting for an answer.
func (s *idempotence) resolvable() bool {
	for _, tp := range s.unresolvedTP {
		if !s.hasInflight(tp) {
			return true
		}
	}
	return false
}

func (s *idempotence) requestBump(tp model.TopicPartition) {
	s.bumpRequired = true
	if i, ok := slices.BinarySearchFunc(s.rewrite, tp, model.TopicPartition.Compare); !ok {
		s.rewrite = slices.Insert(s.rewrite, i, tp)
	}
}

// bumpIfNeeded is bumpIdempotentEpochAndResetIdIfNeeded, run at the start
// of every sender pass: bump the epoch locally and restart the sequences of
// the partitions that asked for it. An exhausted epoch (Kafka's is a
// short) asks for a new producer id instead.
func (s *idempotence) bumpIfNeeded() {
	if !s.bumpRequired || s.state != idemReady {
		return
	}
	if s.epoch >= math.MaxInt16 {
		s.pid, s.epoch, s.state = model.NoProducerID, model.NoEpoch, idemNeedID
	} else {
		s.epoch++
	}
	for _, tp := range s.rewrite {
		if p := s.find(tp); p != nil && s.state == idemReady {
			for _, b := range p.inflight {
				s.rewritten = append(s.rewritten, rewrite{b: b, epoch: b.epoch, seq: b.seq})
			}
		}
		s.startAtZero(tp)
		s.resolve(tp)
	}
	s.rewrite = nil
	s.bumpRequired = false
}

// takeRewritten returns the batches re-sequenced since the last call, in
// partition and then sequence order, and forgets them.
func (s *idempotence) takeRewritten() []rewrite {
	out := s.rewritten
	s.rewritten = nil
	return out
}

// startAtZero is startSequencesAtBeginning: the partition's in-flight
// batches get the current identity and sequences from 0 in their order.
func (s *idempotence) startAtZero(tp model.TopicPartition) {
	p := s.part(tp)
	seq := int32(0)
	for _, b := range p.inflight {
		b.pid, b.epoch, b.seq, b.seqReset = s.pid, s.epoch, seq, true
		seq += b.count()
	}
	p.pid, p.epoch, p.nextSeq, p.lastAcked = s.pid, s.epoch, seq, model.NoSequence
}

// canRetry is TransactionManager.canRetry for a producer without a
// transactional id: whether an error answer may be retried, requesting an
// epoch bump where the broker's state says it must.
func (s *idempotence) canRetry(b *batch, err model.ErrorCode, logStart model.Offset) bool {
	_, unresolved := s.unresolved[b.tp]
	p := s.part(b.tp)
	switch err {
	case model.UnknownProducerID:
		if logStart < 0 || b.seqReset {
			return true
		}
		if s.txn {
			// Retention removed the producer's state: start the
			// partition's sequences over, so that the transaction need
			// not be aborted; otherwise the batch fails.
			if p.lastAckedOff < logStart {
				s.startAtZero(b.tp)
				return true
			}
			return false
		}
		s.requestBump(b.tp) // retention removed our state, or it was lost
		return true
	case model.OutOfOrderSequenceNumber:
		isNext := b.seq-p.lastAcked == 1
		if !unresolved && (b.seqReset || !isNext) {
			// An earlier batch is still being retried, or this one is
			// behind what was acknowledged and holds the partition.
			// lastAcked is the partition's own (TxnPartitionEntry's), under
			// the partition's identity, which stays stale while batches of
			// the old epoch are in flight after a bump for another
			// partition: the hold is judged against that identity.
			p.held = p.held || b.heldBehind(p.lastAcked, p.pid, p.epoch)
			return true
		}
		if s.txn {
			return false // a real gap: the transaction must be aborted
		}
		if !unresolved || s.unresolved[b.tp] == b.seq {
			s.requestBump(b.tp) // a real gap
		}
		return true
	}
	return err.Retriable()
}
