package txn

import (
	"errors"
	"fmt"
	"time"

	"kafkasim/model"
)

// maxEpoch is Short.MAX_VALUE: producer epochs are int16 in Kafka.
const maxEpoch model.Epoch = 1<<15 - 1

// epochExhausted is TransactionMetadata.isEpochExhausted: the last epoch
// is kept back so that the coordinator can always fence a producer.
func epochExhausted(e model.Epoch) bool { return e >= maxEpoch-1 }

// ErrProducerFenced is prepareIncrementProducerEpoch's PRODUCER_FENCED:
// the expected epoch is neither the current nor the last one.
var ErrProducerFenced = errors.New("txn: " + model.ProducerFenced.String())

// ErrIllegalTransition is Kafka's IllegalStateException from
// prepareTransitionTo and completeTransitionTo: a coordinator bug, never a
// client's error.
var ErrIllegalTransition = errors.New("txn: illegal state transition")

// Snapshot is one value of a transactional.id's metadata: the current
// one, or a transition's target (Kafka's TxnTransitMetadata).
type Snapshot struct {
	ProducerID, PrevProducerID, NextProducerID model.ProducerID
	ProducerEpoch, LastProducerEpoch           model.Epoch
	Timeout                                    time.Duration
	State                                      State
	Partitions                                 []model.TopicPartition // sorted
	StartTime, LastUpdate                      time.Duration          // StartTime -1 when none
	TV2                                        bool                   // the client's transaction version is 2 (KIP-890 part 2)
}

// Metadata is one transactional.id's state (Kafka's TransactionMetadata):
// the current snapshot and at most one pending transition, prepared
// before its record is appended and completed once it is committed.
type Metadata struct {
	ID string
	Snapshot
	pending             *State
	hasFailedEpochFence bool
}

// NewMetadata is a transactional.id seen for the first time:
// Empty, with a producer id and no epoch yet.
func NewMetadata(id string, pid model.ProducerID, timeout, now time.Duration) *Metadata {
	return &Metadata{ID: id, Snapshot: Snapshot{ProducerID: pid, PrevProducerID: model.NoProducerID,
		NextProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch, LastProducerEpoch: model.NoEpoch,
		Timeout: timeout, State: Empty, StartTime: -1, LastUpdate: now}}
}

// Pending says whether a transition waits for its write.
func (m *Metadata) Pending() bool { return m.pending != nil }

// prepare is prepareTransitionTo: it checks the target and marks it
// pending. The target starts as a copy of the current snapshot.
func (m *Metadata) prepare(to Snapshot) (Snapshot, error) {
	if m.pending != nil {
		return Snapshot{}, fmt.Errorf("%w: %s to %s while %s is pending", ErrIllegalTransition, m.State, to.State, *m.pending)
	}
	if to.ProducerID < 0 || (to.State != Dead && to.ProducerEpoch < 0) {
		return Snapshot{}, fmt.Errorf("%w: producer %d epoch %d", ErrIllegalTransition, to.ProducerID, to.ProducerEpoch)
	}
	if !to.State.canFollow(m.State) {
		return Snapshot{}, fmt.Errorf("%w: %s cannot follow %s", ErrIllegalTransition, to.State, m.State)
	}
	to.PrevProducerID = m.ProducerID
	s := to.State
	m.pending = &s
	return to, nil
}

// PrepareFenceProducerEpoch is prepareFenceProducerEpoch: bump the epoch
// (unless an earlier fence failed to be written, or it is at the maximum)
// to fence a zombie before aborting its transaction.
func (m *Metadata) PrepareFenceProducerEpoch() (Snapshot, error) {
	to := m.Snapshot
	to.State = PrepareEpochFence
	if !m.hasFailedEpochFence && m.ProducerEpoch != maxEpoch {
		to.ProducerEpoch++
	}
	return m.prepare(to)
}

// PrepareIncrementProducerEpoch is prepareIncrementProducerEpoch, for
// InitProducerId: expected is the epoch the producer says it has, or
// NoEpoch for a new producer.
func (m *Metadata) PrepareIncrementProducerEpoch(timeout time.Duration, expected model.Epoch, now time.Duration) (Snapshot, error) {
	if epochExhausted(m.ProducerEpoch) {
		return Snapshot{}, fmt.Errorf("%w: epochs of producer %d exhausted", ErrIllegalTransition, m.ProducerID)
	}
	to := m.Snapshot
	to.State = Empty
	switch {
	case expected == model.NoEpoch:
		to.ProducerEpoch, to.LastProducerEpoch = m.ProducerEpoch+1, model.NoEpoch
	case m.ProducerEpoch == model.NoEpoch || expected == m.ProducerEpoch:
		to.ProducerEpoch, to.LastProducerEpoch = m.ProducerEpoch+1, m.ProducerEpoch
	case expected == m.LastProducerEpoch:
		// a retry of a bump whose answer was lost: the same epoch again
	default:
		return Snapshot{}, ErrProducerFenced
	}
	to.Timeout, to.Partitions, to.StartTime, to.LastUpdate = timeout, nil, -1, now
	return m.prepare(to)
}

// PrepareProducerIDRotation is prepareProducerIdRotation: a new producer
// id at epoch 0 once the old id's epochs are exhausted. keepLastEpoch
// records the old epoch so that a retry is recognised.
func (m *Metadata) PrepareProducerIDRotation(pid model.ProducerID, timeout, now time.Duration, keepLastEpoch bool) (Snapshot, error) {
	if m.State == Ongoing || m.State == PrepareAbort || m.State == PrepareCommit {
		return Snapshot{}, fmt.Errorf("%w: rotating producer ids while a transaction is pending", ErrIllegalTransition)
	}
	to := m.Snapshot
	to.State, to.ProducerID, to.ProducerEpoch, to.LastProducerEpoch = Empty, pid, 0, model.NoEpoch
	if keepLastEpoch {
		to.LastProducerEpoch = m.ProducerEpoch
	}
	to.Timeout, to.Partitions, to.StartTime, to.LastUpdate = timeout, nil, -1, now
	return m.prepare(to)
}

// PrepareAddPartitions is prepareAddPartitions: the transaction is
// Ongoing with the partitions added; it starts now if it was not running.
func (m *Metadata) PrepareAddPartitions(add []model.TopicPartition, now time.Duration, tv2 bool) (Snapshot, error) {
	to := m.Snapshot
	to.State = Ongoing
	if m.State == Empty || m.State == CompleteAbort || m.State == CompleteCommit {
		to.StartTime = now
	}
	to.Partitions = unionSorted(m.Partitions, add)
	to.LastUpdate, to.TV2 = now, tv2
	return m.prepare(to)
}

// PrepareAbortOrCommit is prepareAbortOrCommit. With transaction version
// 2 (KIP-890 part 2) every end bumps the epoch, so that a late request
// of the ended transaction is fenced; an abort at the maximum epoch goes
// through without the bump so that a broken producer can recover.
func (m *Metadata) PrepareAbortOrCommit(s State, tv2 bool, next model.ProducerID, now time.Duration, noPartitionAdded bool) (Snapshot, error) {
	to := m.Snapshot
	to.State = s
	if tv2 {
		if !(m.ProducerEpoch == maxEpoch && s == PrepareAbort) {
			to.ProducerEpoch = m.ProducerEpoch + 1
		}
		to.LastProducerEpoch = m.ProducerEpoch
	}
	if noPartitionAdded {
		to.StartTime = now
	}
	to.NextProducerID, to.LastUpdate, to.TV2 = next, now, tv2
	return m.prepare(to)
}

// PrepareComplete is prepareComplete, once every marker is written: the
// transaction is CompleteCommit or CompleteAbort, and after an epoch
// overflow under version 2 the producer continues as NextProducerID at 0.
func (m *Metadata) PrepareComplete(now time.Duration) (Snapshot, error) {
	m.hasFailedEpochFence = false
	to := m.Snapshot
	to.State = CompleteAbort
	if m.State == PrepareCommit {
		to.State = CompleteCommit
	}
	if m.TV2 && m.NextProducerID != model.NoProducerID {
		to.ProducerID, to.ProducerEpoch = m.NextProducerID, 0
	}
	to.NextProducerID, to.Partitions, to.LastUpdate = model.NoProducerID, nil, now
	return m.prepare(to)
}

// PrepareDead is prepareDead, for transactional.id expiration.
func (m *Metadata) PrepareDead() (Snapshot, error) {
	to := m.Snapshot
	to.State, to.Partitions = Dead, nil
	return m.prepare(to)
}

// Abandon drops the pending transition after its write failed (the
// pending state is reset as appendTransactionToLog does).
func (m *Metadata) Abandon() { m.pending = nil }

// CompleteTransitionTo is completeTransitionTo: once the record of to is
// committed, the metadata becomes to, if to is the pending state and
// keeps Kafka's invariants for it.
func (m *Metadata) CompleteTransitionTo(to Snapshot) error {
	if m.pending == nil || *m.pending != to.State {
		return fmt.Errorf("%w: completing %s without it pending", ErrIllegalTransition, to.State)
	}
	ok := true
	switch to.State {
	case Empty:
		ok = (to.ProducerEpoch == m.ProducerEpoch || m.validEpochBump(to)) && len(to.Partitions) == 0 && to.StartTime == -1
	case Ongoing:
		ok = m.validEpoch(to) && containsAll(to.Partitions, m.Partitions) && to.Timeout == m.Timeout
	case PrepareAbort, PrepareCommit:
		emptyAbort := to.State == PrepareAbort && to.TV2 && m.State.expirationAllowed()
		ok = m.validEpoch(to) && equalSorted(m.Partitions, to.Partitions) && to.Timeout == m.Timeout &&
			(to.StartTime == m.StartTime || emptyAbort)
	case CompleteAbort, CompleteCommit:
		ok = m.validEpoch(to) && to.Timeout == m.Timeout && to.StartTime != -1
	case PrepareEpochFence, Dead:
		ok = false
	}
	if !ok {
		return fmt.Errorf("%w: %s to %+v", ErrIllegalTransition, m.State, to)
	}
	// Only a new producer (Empty, from InitProducerId) and a version 2
	// completion take the transition's previous producer id; the other
	// transitions keep the one the metadata has.
	prev := m.PrevProducerID
	m.Snapshot, m.pending = to, nil
	if to.State != Empty && !(to.TV2 && (to.State == CompleteCommit || to.State == CompleteAbort)) {
		m.PrevProducerID = prev
	}
	return nil
}

// validEpoch is validProducerEpoch: under version 2 a Prepare state has
// bumped the epoch and an overflowed completion has a new producer id.
func (m *Metadata) validEpoch(to Snapshot) bool {
	complete := to.State == CompleteCommit || to.State == CompleteAbort
	prepare := to.State == PrepareCommit || to.State == PrepareAbort
	switch {
	case to.TV2 && complete && to.ProducerEpoch == 0:
		return to.LastProducerEpoch == m.LastProducerEpoch && to.PrevProducerID == m.ProducerID
	case to.TV2 && prepare:
		return to.LastProducerEpoch == m.ProducerEpoch && to.ProducerID == m.ProducerID
	}
	return to.ProducerEpoch == m.ProducerEpoch && to.ProducerID == m.ProducerID
}

// validEpochBump is validProducerEpochBump.
func (m *Metadata) validEpochBump(to Snapshot) bool {
	return to.ProducerEpoch == m.ProducerEpoch+1 || (to.ProducerEpoch == 0 && to.ProducerID != m.ProducerID)
}
