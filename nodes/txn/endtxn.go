package txn

import (
	"time"

	"kafkasim/model"
)

// endDone answers an end: the error, and under transaction version 2 the
// producer id and epoch the producer continues with.
type endDone func(code model.ErrorCode, pid model.ProducerID, epoch model.Epoch)

// HandleEndTxn is TransactionCoordinator.handleEndTransaction: commit or
// abort the ongoing transaction. The PrepareCommit or PrepareAbort
// record is written first; once it is committed the client is answered
// and the markers go out; once every marker is written the
// CompleteCommit or CompleteAbort record follows.
func (c *Coordinator) HandleEndTxn(now time.Duration, from model.BrokerID, req model.EndTxnRequest) Effects {
	c.begin(now)
	c.endTransaction(req.TransactionalID, req.ProducerID, req.ProducerEpoch, req.Committed, true, c.cfg.tv2(),
		func(code model.ErrorCode, pid model.ProducerID, epoch model.Epoch) {
			c.reply(from, model.EndTxnResponse{CorrelationID: req.CorrelationID, Error: code, ProducerID: pid, ProducerEpoch: epoch})
		})
	return c.end()
}

// endTransaction is TransactionCoordinator.endTransaction (and
// endTransactionWithTV1): from a client, or from the coordinator itself
// to abort a fenced or timed-out transaction (fromClient false, with the
// fence's epoch).
func (c *Coordinator) endTransaction(id string, pid model.ProducerID, epoch model.Epoch, commit, fromClient, tv2 bool, done endDone) {
	if id == "" {
		done(model.InvalidRequest, model.NoProducerID, model.NoEpoch)
		return
	}
	m, code := c.state(id)
	if code == model.NoError && m == nil {
		code = model.InvalidProducerIDMapping
	}
	var to Snapshot
	var fence bool
	if code == model.NoError {
		if tv2 {
			to, fence, code = c.prepareEndTV2(m, pid, epoch, commit, fromClient)
		} else {
			to, fence, code = c.prepareEndTV1(m, pid, epoch, commit, fromClient)
		}
	}
	switch {
	case code == errNothingToDo:
		// A retry of an end already completed: NONE, with the current
		// producer id and epoch under version 2.
		if tv2 {
			done(model.NoError, m.ProducerID, m.ProducerEpoch)
		} else {
			done(model.NoError, model.NoProducerID, model.NoEpoch)
		}
		return
	case code != model.NoError:
		done(code, model.NoProducerID, model.NoEpoch)
		return
	}
	c.appendTransactionToLog(id, to, func(code model.ErrorCode) {
		if code != model.NoError {
			if fence {
				// The fence's bump stays in memory without its record:
				// the next fence must not bump again.
				if m := c.txns[id]; m != nil && !c.closed {
					m.hasFailedEpochFence = true
				}
			}
			done(code, model.NoProducerID, model.NoEpoch)
			return
		}
		c.afterPrepareWritten(id, pid, epoch, commit, tv2, done)
	}, model.NoError)
}

// errNothingToDo stands for Kafka's Left(Errors.NONE): the request is
// answered NONE without a write.
const errNothingToDo model.ErrorCode = -1000

// prepareEndTV1 is endTransactionWithTV1's checks before the write.
func (c *Coordinator) prepareEndTV1(m *Metadata, pid model.ProducerID, epoch model.Epoch, commit, fromClient bool) (Snapshot, bool, model.ErrorCode) {
	switch {
	case m.ProducerID != pid:
		return Snapshot{}, false, model.InvalidProducerIDMapping
	case (fromClient && epoch != m.ProducerEpoch) || epoch < m.ProducerEpoch:
		return Snapshot{}, false, model.ProducerFenced
	case m.Pending() && *m.pending != PrepareEpochFence:
		return Snapshot{}, false, model.ConcurrentTransactions
	}
	switch m.State {
	case Ongoing:
		fence := !commit && m.pending != nil && *m.pending == PrepareEpochFence
		if fence {
			m.pending, m.ProducerEpoch, m.LastProducerEpoch = nil, epoch, model.NoEpoch
		}
		return c.prepareEnd(m, commit, false, false, model.NoProducerID, fence)
	case CompleteCommit, CompleteAbort:
		if commit == (m.State == CompleteCommit) {
			return Snapshot{}, false, errNothingToDo
		}
	case PrepareCommit, PrepareAbort:
		if commit == (m.State == PrepareCommit) {
			return Snapshot{}, false, model.ConcurrentTransactions
		}
	case Empty:
	default:
		panic("txn: EndTxn found " + m.ID + " in state " + m.State.String())
	}
	return Snapshot{}, false, model.InvalidTxnState
}

// prepareEndTV2 is endTransaction's checks before the write under
// transaction version 2 (KIP-890 part 2), where a retry is recognised by
// its epoch being one below the bumped one, and an abort is accepted
// from Empty and after a completed transaction:
//
//	                 Abort              Commit
//	                 retry  current     retry  current
//	Empty            FENCED bump        FENCED INVALID_TXN_STATE
//	CompleteAbort    NONE   bump        INVALID_TXN_STATE (both)
//	CompleteCommit   INVALID_TXN_STATE  bump   NONE    INVALID_TXN_STATE
func (c *Coordinator) prepareEndTV2(m *Metadata, pid model.ProducerID, epoch model.Epoch, commit, fromClient bool) (Snapshot, bool, model.ErrorCode) {
	fence := m.pending != nil && *m.pending == PrepareEpochFence
	retryOnOverflow := !fence && m.PrevProducerID == pid && epoch == maxEpoch-1 && m.ProducerEpoch == 0
	retryOnBump := !fence && m.ProducerEpoch == epoch+1
	retry := retryOnBump || retryOnOverflow
	var validEpoch bool
	switch {
	case fence:
		validEpoch = (!fromClient || epoch == m.ProducerEpoch) && epoch >= m.ProducerEpoch
	case m.State == PrepareCommit || m.State == PrepareAbort:
		validEpoch = retryOnBump
	case m.State == CompleteCommit || m.State == CompleteAbort:
		validEpoch = retry || epoch == m.ProducerEpoch
	default:
		validEpoch = epoch == m.ProducerEpoch
	}
	switch {
	case m.ProducerID != pid && !retryOnOverflow:
		return Snapshot{}, false, model.InvalidProducerIDMapping
	case !validEpoch:
		return Snapshot{}, false, model.ProducerFenced
	case m.Pending() && !fence:
		return Snapshot{}, false, model.ConcurrentTransactions
	}
	switch m.State {
	case Ongoing:
		if fence && !commit {
			m.pending, m.ProducerEpoch, m.LastProducerEpoch = nil, epoch, model.NoEpoch
		}
		return c.prepareEnd(m, commit, true, false, c.nextIDIfExhausted(m, fence), fence && !commit)
	case CompleteCommit:
		switch {
		case commit && retry:
			return Snapshot{}, false, errNothingToDo
		case !commit && !retry:
			return c.prepareEnd(m, false, true, true, c.nextIDIfExhausted(m, fence), false)
		}
	case CompleteAbort:
		switch {
		case !commit && retry:
			return Snapshot{}, false, errNothingToDo
		case !commit:
			return c.prepareEnd(m, false, true, true, c.nextIDIfExhausted(m, fence), false)
		}
	case PrepareCommit, PrepareAbort:
		if commit == (m.State == PrepareCommit) {
			return Snapshot{}, false, model.ConcurrentTransactions
		}
	case Empty:
		if !commit {
			return c.prepareEnd(m, false, true, true, c.nextIDIfExhausted(m, fence), false)
		}
	default:
		panic("txn: EndTxn found " + m.ID + " in state " + m.State.String())
	}
	return Snapshot{}, false, model.InvalidTxnState
}

// nextIDIfExhausted allocates the producer id a version 2 end moves to
// when the bump would exhaust the epochs (not for a fence, which bumps
// differently).
func (c *Coordinator) nextIDIfExhausted(m *Metadata, fence bool) model.ProducerID {
	if !fence && epochExhausted(m.ProducerEpoch) {
		return c.host.NewProducerID()
	}
	return model.NoProducerID
}

func (c *Coordinator) prepareEnd(m *Metadata, commit, tv2, noPartitionAdded bool, next model.ProducerID, fence bool) (Snapshot, bool, model.ErrorCode) {
	s := PrepareAbort
	if commit {
		s = PrepareCommit
	}
	to, err := m.PrepareAbortOrCommit(s, tv2, next, c.now, noPartitionAdded)
	if err != nil {
		panic("txn: EndTxn: " + err.Error())
	}
	return to, fence, model.NoError
}

// afterPrepareWritten is endTransaction's sendTxnMarkersCallback: the
// Prepare record is committed, so the client is answered (with the
// bumped producer id and epoch under version 2) and the markers are
// queued with the completion to write after them.
func (c *Coordinator) afterPrepareWritten(id string, pid model.ProducerID, epoch model.Epoch, commit, tv2 bool, done endDone) {
	m, code := c.state(id)
	switch {
	case code != model.NoError:
	case m == nil:
		panic("txn: the coordinator owns " + id + " but has no metadata for it")
	case m.ProducerID != pid:
		code = model.InvalidProducerIDMapping
	case m.ProducerEpoch != epoch && !(tv2 && m.ProducerEpoch == epoch+1):
		code = model.ProducerFenced
	case m.Pending():
		code = model.ConcurrentTransactions
	case m.State != PrepareCommit && m.State != PrepareAbort, commit != (m.State == PrepareCommit):
		code = model.InvalidTxnState
	}
	if code != model.NoError {
		done(code, model.NoProducerID, model.NoEpoch)
		return
	}
	complete, err := m.PrepareComplete(c.now)
	if err != nil {
		panic("txn: EndTxn: " + err.Error())
	}
	if tv2 {
		done(model.NoError, m.ProducerID, m.ProducerEpoch)
	} else {
		done(model.NoError, model.NoProducerID, model.NoEpoch)
	}
	c.addTxnMarkersToSend(id, commit, complete)
}
