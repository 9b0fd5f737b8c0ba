package client

import (
	"time"

	"kafkasim/model"
)

// HeldBehindAcknowledged names the partitions (sorted) on which this
// idempotent producer retries a batch that a leader answered
// OUT_OF_ORDER_SEQUENCE_NUMBER although its sequence is behind the last one
// acknowledged on the partition, under the same producer id and epoch, or
// did so at some time from since on (true virtual time): the records that
// waited behind a hold that ended just now are acknowledged, but not yet
// read.
//
// Such a batch is one whose records a leader already has (an old leader's
// answer was lost, or came back NOT_LEADER_OR_FOLLOWER after the records
// had been replicated) while later batches went to a new leader and were
// acknowledged: once it is out of the leader's window of recent batches
// (ProducerStateEntry keeps five), the retry is neither a duplicate nor in
// sequence (ProducerAppendInfo.checkSequence). Kafka's
// TransactionManager.canRetry retries it as it is, since it is not "the
// next batch", and RecordAccumulator.shouldStopDrainBatchesForPartition
// keeps every batch behind it waiting: the partition takes no write from
// this producer until the batch reaches delivery.timeout.ms. The liveness
// check reads this to allow that time (scenarios/liveness_sequences.go).
//
// The hold is judged under the partition's own identity (its
// TxnPartitionEntry's producer id and epoch, with which lastAcked goes),
// not the producer's current one: an epoch bump for another partition
// leaves this partition's entry and in-flight batches on the old epoch
// until they complete (TransactionManager.hasStaleProducerIdAndEpoch), and
// the retry is held all the same (reassign-under-chaos seed 99506733).
func (p *Producer) HeldBehindAcknowledged(since time.Duration) []model.TopicPartition {
	if !p.idem.on || !p.idem.ready() {
		return nil
	}
	var out []model.TopicPartition
	for _, tp := range p.acc.tps {
		st := p.idem.find(tp)
		if st != nil && (st.held || st.released && st.releasedAt >= since) {
			out = append(out, tp)
			continue
		}
		if st == nil || st.lastAcked == model.NoSequence {
			continue
		}
		for _, b := range st.inflight {
			if b.heldBehind(st.lastAcked, st.pid, st.epoch) {
				out = append(out, tp)
				break
			}
		}
	}
	return out
}

// heldBehind says whether b is a retry the leader refused as out of order
// while its last record's sequence is at or below lastAcked (the
// difference taken in int32, as sequences wrap from 2147483647 to 0).
func (b *batch) heldBehind(lastAcked int32, pid model.ProducerID, epoch model.Epoch) bool {
	return !b.done && b.attempts > 0 && !b.seqReset &&
		b.lastError == model.OutOfOrderSequenceNumber &&
		b.pid == pid && b.epoch == epoch && b.seq != model.NoSequence &&
		b.lastSeq()-lastAcked <= 0
}
