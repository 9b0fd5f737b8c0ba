package txn

import (
	"errors"
	"time"

	"kafkasim/model"
)

// HandleInitProducerID is TransactionCoordinator.handleInitProducerId.
// Without a transactional id it hands out a new producer id at epoch 0.
// With one it checks the timeout against transaction.max.timeout.ms,
// creates the transactional id's metadata if it is new, and then, by the
// transactional id's state (prepareInitProducerIdTransit): a pending
// transition or a transaction being completed is CONCURRENT_TRANSACTIONS
// (the client retries); an ongoing transaction is fenced (the epoch is
// bumped and the transaction aborted) and the client is told
// CONCURRENT_TRANSACTIONS, so that its retry bumps the epoch again;
// otherwise the epoch is bumped (or, once exhausted, a new producer id
// is given at epoch 0) and answered once written. A request naming
// another producer, or an epoch that is neither the current nor the
// last, is PRODUCER_FENCED.
func (c *Coordinator) HandleInitProducerID(now time.Duration, from model.BrokerID, req model.InitProducerIDRequest) Effects {
	c.begin(now)
	answer := func(code model.ErrorCode, pid model.ProducerID, epoch model.Epoch) {
		c.reply(from, model.InitProducerIDResponse{CorrelationID: req.CorrelationID, Error: code, ProducerID: pid, ProducerEpoch: epoch})
	}
	fail := func(code model.ErrorCode) { answer(code, model.NoProducerID, model.NoEpoch) }
	timeout := req.TransactionTimeout.Truncate(time.Millisecond)
	switch {
	case req.TransactionalID == "":
		answer(model.NoError, c.host.NewProducerID(), 0)
		return c.end()
	case timeout <= 0 || timeout > c.cfg.TransactionMaxTimeout:
		fail(model.InvalidTransactionTimeout)
		return c.end()
	}
	m, code := c.state(req.TransactionalID)
	if code != model.NoError {
		fail(code)
		return c.end()
	}
	if m == nil {
		m = NewMetadata(req.TransactionalID, c.host.NewProducerID(), timeout, c.now)
		c.txns[req.TransactionalID] = m
	}
	to, code := c.prepareInitProducerIDTransit(m, timeout, req)
	switch {
	case code != model.NoError:
		fail(code)
	case to.State == PrepareEpochFence:
		c.endTransaction(m.ID, to.ProducerID, to.ProducerEpoch, false, false, c.cfg.tv2(),
			func(code model.ErrorCode, _ model.ProducerID, _ model.Epoch) {
				if code == model.NoError {
					code = model.ConcurrentTransactions
				}
				fail(code)
			})
	default:
		c.appendTransactionToLog(m.ID, to, func(code model.ErrorCode) {
			if code != model.NoError {
				fail(code)
				return
			}
			answer(model.NoError, to.ProducerID, to.ProducerEpoch)
		}, model.NoError)
	}
	return c.end()
}

// prepareInitProducerIDTransit is TransactionCoordinator's method of that
// name.
func (c *Coordinator) prepareInitProducerIDTransit(m *Metadata, timeout time.Duration, req model.InitProducerIDRequest) (Snapshot, model.ErrorCode) {
	expected := req.ProducerID != model.NoProducerID
	// isValidProducerId: a just-created metadata, the current producer,
	// or the previous one retrying after its epochs ran out.
	valid := m.ProducerEpoch == model.NoEpoch || req.ProducerID == m.ProducerID ||
		(req.ProducerID == m.PrevProducerID && epochExhausted(req.ProducerEpoch))
	switch {
	case m.Pending():
		return Snapshot{}, model.ConcurrentTransactions
	case expected && !valid:
		return Snapshot{}, model.ProducerFenced
	}
	var to Snapshot
	var err error
	switch m.State {
	case PrepareAbort, PrepareCommit:
		return Snapshot{}, model.ConcurrentTransactions
	case CompleteAbort, CompleteCommit, Empty:
		if epochExhausted(m.ProducerEpoch) && (!expected || req.ProducerEpoch == m.ProducerEpoch) {
			to, err = m.PrepareProducerIDRotation(c.host.NewProducerID(), timeout, c.now, expected)
		} else {
			epoch := model.NoEpoch
			if expected {
				epoch = req.ProducerEpoch
			}
			to, err = m.PrepareIncrementProducerEpoch(timeout, epoch, c.now)
		}
	case Ongoing:
		to, err = m.PrepareFenceProducerEpoch()
	default:
		panic("txn: InitProducerId found " + m.ID + " in state " + m.State.String())
	}
	switch {
	case errors.Is(err, ErrProducerFenced):
		return Snapshot{}, model.ProducerFenced
	case err != nil:
		panic("txn: InitProducerId: " + err.Error())
	}
	return to, model.NoError
}
