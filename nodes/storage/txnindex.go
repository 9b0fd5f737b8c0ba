package storage

import (
	"slices"

	"kafkasim/model"
)

// The transaction state of a partition log (KIP-98): the transactions
// under way, each by its first offset (ProducerStateEntry.currentTxnFirstOffset,
// ProducerStateManager.ongoingTxns), the completed ones whose marker may
// not be replicated yet (unreplicatedTxns), and the aborted ones (the
// segments' TransactionIndex of AbortedTxn entries). From it come the
// first unstable offset and the last stable offset
// (UnifiedLog.firstUnstableOffset, lastStableOffset) and the aborted
// transactions a read_committed fetch is told of
// (UnifiedLog.collectAbortedTransactions).
//
// Kafka keeps the first offsets in the producer-state snapshots and the
// aborted transactions in one .txnindex file per segment, and rebuilds
// both from the log on recovery. kafkasim derives all of it from the log
// itself: each transactional batch is noted as it is appended (leader,
// follower and recovery alike), and the whole index is rebuilt from the
// batches whenever the log is opened or truncated, so it survives
// crashes, snapshots and truncation exactly as the log does. A log without
// transactional batches keeps nothing.

// AbortedTxn is one aborted transaction (Kafka's AbortedTxn): the
// producer, its first and last offsets (the last is the abort marker's),
// and the last stable offset when it completed.
type AbortedTxn struct {
	ProducerID       model.ProducerID
	FirstOffset      model.Offset
	LastOffset       model.Offset
	LastStableOffset model.Offset
}

type completedTxn struct {
	first, last model.Offset
}

// txnIndex is the log's transaction state.
type txnIndex struct {
	ongoing   map[model.ProducerID]model.Offset
	completed []completedTxn // by marker offset
	aborted   []AbortedTxn   // by marker offset
	// coordEpochs is each producer's latest marker's coordinator epoch
	// (ProducerStateEntry.coordinatorEpoch).
	coordEpochs map[model.ProducerID]int32
	// seen: a transactional batch was noted, so a truncation must rebuild.
	seen bool
}

// note records an appended batch with attributes
// (ProducerAppendInfo.append for a transactional batch, appendEndTxnMarker
// for a marker, whose CompletedTxn ProducerStateManager.completeTxn
// turns into an AbortedTxn when it aborts).
func (x *txnIndex) note(b *model.Batch) {
	if !b.IsTransactional() {
		return
	}
	x.seen = true
	if !b.IsControl() {
		if x.ongoing == nil {
			x.ongoing = map[model.ProducerID]model.Offset{}
		}
		if _, ok := x.ongoing[b.ProducerID]; !ok {
			x.ongoing[b.ProducerID] = b.BaseOffset
		}
		return
	}
	commit, coordEpoch, ok := model.EndTxnMarker(b)
	if !ok {
		return
	}
	if x.coordEpochs == nil {
		x.coordEpochs = map[model.ProducerID]int32{}
	}
	x.coordEpochs[b.ProducerID] = coordEpoch
	first, open := x.ongoing[b.ProducerID]
	if !open {
		return // a marker of a transaction with nothing in this partition
	}
	delete(x.ongoing, b.ProducerID)
	x.completed = append(x.completed, completedTxn{first: first, last: b.BaseOffset})
	if !commit {
		// ProducerStateManager.lastStableOffset(completedTxn): the first
		// offset of another transaction still under way, else the
		// offset after the marker.
		lso := b.NextOffset()
		for _, f := range x.ongoing {
			lso = min(lso, f)
		}
		x.aborted = append(x.aborted, AbortedTxn{ProducerID: b.ProducerID, FirstOffset: first, LastOffset: b.BaseOffset, LastStableOffset: lso})
	}
}

// maybeRebuildTxnIndex rebuilds the index after a truncation, if the log
// had transactional batches.
func (l *Log) maybeRebuildTxnIndex() {
	if l.txns.seen {
		l.rebuildTxnIndex()
	}
}

// rebuildTxnIndex recomputes the index from the log's batches.
func (l *Log) rebuildTxnIndex() {
	l.txns = txnIndex{}
	for _, s := range l.segs {
		for i := 0; i < s.count(); i++ {
			if b := s.at(i); b.Attributes != 0 {
				l.txns.note(b)
			}
		}
	}
}

// FirstUnstableOffset is UnifiedLog.firstUnstableOffset given the high
// watermark hw: the first offset of a transaction under way or of one
// whose marker hw does not cover yet; ok is false when there is none.
func (l *Log) FirstUnstableOffset(hw model.Offset) (model.Offset, bool) {
	x := &l.txns
	// ProducerStateManager.onHighWatermarkUpdated: completed transactions
	// below the high watermark are stable from now on.
	x.completed = slices.DeleteFunc(x.completed, func(c completedTxn) bool { return c.last < hw })
	first, ok := model.Offset(0), false
	for _, f := range x.ongoing {
		if !ok || f < first {
			first, ok = f, true
		}
	}
	for _, c := range x.completed {
		if !ok || c.first < first {
			first, ok = c.first, true
		}
	}
	return first, ok
}

// LastStableOffset is UnifiedLog.lastStableOffset: the first unstable
// offset if below the high watermark, else the high watermark.
func (l *Log) LastStableOffset(hw model.Offset) model.Offset {
	if f, ok := l.FirstUnstableOffset(hw); ok && f < hw {
		return f
	}
	return hw
}

// HasOngoingTxn is UnifiedLog.hasOngoingTransaction: the producer has a
// transaction under way in this partition (a transactional batch and no
// marker after it yet).
func (l *Log) HasOngoingTxn(pid model.ProducerID) bool {
	_, ok := l.txns.ongoing[pid]
	return ok
}

// CoordinatorEpoch is the coordinator epoch of the producer's latest
// marker in the log, which appendEndTxnMarker's checkCoordinatorEpoch
// compares a new marker's against; ok is false when it has none.
func (l *Log) CoordinatorEpoch(pid model.ProducerID) (int32, bool) {
	e, ok := l.txns.coordEpochs[pid]
	return e, ok
}

// CollectAbortedTransactions is UnifiedLog.collectAbortedTransactions
// (TransactionIndex.collectAbortedTxns over the segments): the aborted
// transactions that overlap [from, upTo), in marker order.
func (l *Log) CollectAbortedTransactions(from, upTo model.Offset) []AbortedTxn {
	var out []AbortedTxn
	for _, a := range l.txns.aborted {
		if a.LastOffset >= from && a.FirstOffset < upTo {
			out = append(out, a)
		}
	}
	return out
}
