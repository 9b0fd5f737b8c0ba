package client

import (
	"cmp"
	"slices"

	"kafkasim/model"
)

// buffer takes a partition's fetched batches into its buffer, after
// Kafka's CompletedFetch.nextFetchedRecord: records before the position
// (the start of a batch that straddles it) are skipped; control batches
// (transaction markers) are never returned, under either isolation level;
// and under read_committed the batches of aborted transactions are
// dropped, using the answer's aborted-transaction list as
// consumeAbortedTransactionsUpTo, isBatchAborted and containsAbortMarker
// do. A batch skipped after the last buffered record still moves the
// position (skipTo), as FetchCollector moves it to nextFetchOffset; with
// nothing buffered it moves at once. It reports whether it skipped any
// batch past the position.
func (c *Consumer) buffer(ps *partState, pr *model.FetchPartitionResponse) bool {
	committed := c.cfg.IsolationLevel == model.ReadCommitted
	var aborted []model.AbortedTransaction // by first offset, not yet reached
	var abortedPIDs []model.ProducerID     // producers whose aborted transaction is open here
	if committed && pr.Txn != nil && len(pr.Txn.Aborted) > 0 {
		aborted = slices.Clone(pr.Txn.Aborted)
		slices.SortStableFunc(aborted, func(a, b model.AbortedTransaction) int { return cmp.Compare(a.FirstOffset, b.FirstOffset) })
	}
	skipTo, skipEpoch := model.NoOffset, model.NoEpoch
	for j := range pr.Batches {
		b := pr.Batches[j]
		skip := b.IsControl()
		if committed && b.ProducerID != model.NoProducerID {
			// consumeAbortedTransactionsUpTo(batch.lastOffset())
			for len(aborted) > 0 && aborted[0].FirstOffset <= b.LastOffset() {
				abortedPIDs = append(abortedPIDs, aborted[0].ProducerID)
				aborted = aborted[1:]
			}
			if commit, _, ok := model.EndTxnMarker(b); ok && !commit && b.IsControl() {
				// The abort marker closes the producer's aborted
				// transaction: its later batches are its next one's.
				if i := slices.Index(abortedPIDs, b.ProducerID); i >= 0 {
					abortedPIDs = slices.Delete(abortedPIDs, i, i+1)
				}
			} else if b.IsTransactional() && slices.Contains(abortedPIDs, b.ProducerID) {
				skip = true
			}
		}
		if skip {
			if b.NextOffset() > ps.position {
				skipTo, skipEpoch = b.NextOffset(), b.LeaderEpoch
			}
			continue
		}
		for _, rec := range b.Records {
			if rec.Offset < ps.position {
				continue
			}
			ps.buf = append(ps.buf, bufRecord{offset: rec.Offset, value: rec.Value, epoch: b.LeaderEpoch})
		}
		if b.NextOffset() > ps.position {
			skipTo = model.NoOffset // a record after the skipped batches moves the position past them
		}
	}
	ps.skipTo, ps.skipEpoch = skipTo, skipEpoch
	if len(ps.buf) == 0 {
		ps.skipPast()
	}
	c.noteBuffered(ps)
	return skipTo != model.NoOffset
}

// skipPast moves the position past the batches skipped after the last
// record returned.
func (ps *partState) skipPast() {
	if ps.skipTo > ps.position {
		ps.position = ps.skipTo
		if ps.skipEpoch != model.NoEpoch {
			ps.positionEpoch = ps.skipEpoch
		}
	}
	ps.skipTo = model.NoOffset
}
