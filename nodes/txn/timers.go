package txn

import (
	"time"

	"kafkasim/model"
)

// The coordinator's scheduled work (TransactionCoordinator.startup's
// "transaction-abort" task, TransactionStateManager's
// "transactionalId-expiration" task, and the marker retries) runs at
// deadlines the host arms one kernel timer for: NextDeadline, then
// Expire when it fires. At one instant retries go first, then the abort
// of timed-out transactions, then the expiration of transactional ids.

// NextDeadline is when Expire next has work to do; none before Loaded or
// after Close.
func (c *Coordinator) NextDeadline() (time.Duration, bool) {
	if !c.loaded || c.closed {
		return 0, false
	}
	at := min(c.nextAbortCheck, c.nextExpireCheck)
	for _, r := range c.retries {
		at = min(at, r.at)
	}
	return at, true
}

// Expire does the work due by now, each task at its own time.
func (c *Coordinator) Expire(now time.Duration) Effects {
	c.begin(now)
	for c.loaded && !c.closed {
		at, _ := c.NextDeadline()
		if at > now {
			break
		}
		c.now = at.Truncate(time.Millisecond)
		switch {
		case c.dueRetry(at):
			c.fireRetries(at)
		case c.nextAbortCheck == at:
			c.nextAbortCheck += c.cfg.AbortTimedOutTransactionsInterval
			c.abortTimedOutTransactions()
		default:
			c.nextExpireCheck += c.cfg.RemoveExpiredTransactionalIDsInterval
			c.removeExpiredTransactionalIDs()
		}
	}
	return c.end()
}

func (c *Coordinator) dueRetry(at time.Duration) bool {
	for _, r := range c.retries {
		if r.at <= at {
			return true
		}
	}
	return false
}

// abortTimedOutTransactions is TransactionCoordinator's method of that
// name with TransactionStateManager.timedOutTransactions: an Ongoing
// transaction with no pending transition, started more than its
// transaction.timeout.ms ago, is fenced (its epoch bumped, so that the
// producer's next request is fenced) and aborted.
func (c *Coordinator) abortTimedOutTransactions() {
	for _, id := range c.TransactionalIDs() {
		m := c.txns[id]
		if m.Pending() || m.State != Ongoing || m.StartTime+m.Timeout >= c.now {
			continue
		}
		to, err := m.PrepareFenceProducerEpoch()
		if err != nil {
			panic("txn: timing out " + id + ": " + err.Error())
		}
		c.endTransaction(id, to.ProducerID, to.ProducerEpoch, false, false, c.cfg.tv2(),
			func(model.ErrorCode, model.ProducerID, model.Epoch) {})
	}
}

// removeExpiredTransactionalIDs is TransactionStateManager's method of
// that name: a transactional id with no transaction in flight, no
// pending transition and no update for transactional.id.expiration.ms
// becomes Dead and its tombstone is written; once that is committed the
// id is forgotten (a later InitProducerId starts afresh with a new
// producer id). A failed write keeps it.
func (c *Coordinator) removeExpiredTransactionalIDs() {
	type expiring struct {
		id    string
		epoch model.Epoch
	}
	var expired []expiring
	var records []model.Record
	for _, id := range c.TransactionalIDs() {
		m := c.txns[id]
		if m.Pending() || !m.State.expirationAllowed() || m.LastUpdate > c.now-c.cfg.TransactionalIDExpiration {
			continue
		}
		if _, err := m.PrepareDead(); err != nil {
			panic("txn: expiring " + id + ": " + err.Error())
		}
		r := model.TransactionLogRecord(id, nil, c.cfg.logValueVersion())
		r.Timestamp = c.now
		records = append(records, r)
		expired = append(expired, expiring{id, m.ProducerEpoch})
	}
	if len(records) == 0 {
		return
	}
	c.write(records, func(code model.ErrorCode) {
		for _, e := range expired {
			m := c.txns[e.id]
			if m == nil {
				continue
			}
			if code == model.NoError && m.pending != nil && *m.pending == Dead && m.ProducerEpoch == e.epoch {
				delete(c.txns, e.id)
			} else {
				m.Abandon()
			}
		}
	})
}
