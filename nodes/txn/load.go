package txn

import (
	"time"

	"kafkasim/model"
)

// Replay applies one record of the coordinator's partition, in log order,
// while it loads (TransactionStateManager.loadTransactionMetadata with
// TransactionLog.readTxnRecordValue): a state replaces the transactional
// id's metadata, a tombstone removes it. The record does not hold the
// last producer epoch, so a loaded transactional id has none, as in
// Kafka. An unreadable record is an error for the host to report.
func (c *Coordinator) Replay(r model.Record) error {
	id, v, err := model.ReadTransactionLogRecord(r)
	if err != nil {
		return err
	}
	if v == nil {
		delete(c.txns, id)
		return nil
	}
	c.txns[id] = &Metadata{ID: id, Snapshot: snapshotOf(v)}
	return nil
}

// snapshotOf is a record's state as metadata.
func snapshotOf(v *model.TransactionLogValue) Snapshot {
	s := Snapshot{ProducerID: v.ProducerID, PrevProducerID: v.PreviousProducerID, NextProducerID: v.NextProducerID,
		ProducerEpoch: v.ProducerEpoch, LastProducerEpoch: model.NoEpoch,
		Timeout:    time.Duration(v.TransactionTimeoutMs) * time.Millisecond,
		State:      State(v.TransactionStatus),
		LastUpdate: time.Duration(v.TransactionLastUpdateTimestampMs) * time.Millisecond,
		StartTime:  -1, TV2: v.ClientTransactionVersion >= 2}
	if s.State != Empty {
		s.Partitions = v.TransactionPartitions
	}
	if v.TransactionStartTimestampMs != -1 {
		s.StartTime = time.Duration(v.TransactionStartTimestampMs) * time.Millisecond
	}
	return s
}

// Loaded ends the load (loadTransactionsForTxnTopicPartition after the
// read): the coordinator answers requests from now on, a transaction the
// log leaves in PrepareCommit or PrepareAbort is completed (its markers
// are sent again and its completion written after them), and the
// periodic tasks start.
func (c *Coordinator) Loaded(now time.Duration) Effects {
	c.begin(now)
	if c.closed || c.loaded {
		return c.end()
	}
	c.loaded = true
	c.nextAbortCheck = c.now + c.cfg.AbortTimedOutTransactionsInterval
	c.nextExpireCheck = c.now + c.cfg.RemoveExpiredTransactionalIDsInterval
	for _, id := range c.TransactionalIDs() {
		m := c.txns[id]
		if m.State != PrepareCommit && m.State != PrepareAbort {
			continue
		}
		complete, err := m.PrepareComplete(c.now)
		if err != nil {
			panic("txn: loading " + id + ": " + err.Error())
		}
		c.addTxnMarkersToSend(id, m.State == PrepareCommit, complete)
	}
	return c.end()
}
