package checkers

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
)

// The re-sequenced batch: which duplicates Kafka's idempotent producer
// itself writes.
//
// A producer without a transactional id that finds a gap in its sequences
// (OUT_OF_ORDER_SEQUENCE_NUMBER for the next expected batch, or an
// unresolved partition once an expired batch's successors are all back)
// bumps its epoch locally and restarts the sequences of the partition's
// in-flight batches at 0 (TransactionManager.canRetry,
// maybeResolveSequences, bumpIdempotentProducerEpoch;
// TxnPartitionEntry.startSequencesAtBeginning). A broker takes sequence 0
// of a newer epoch as a new producer epoch
// (ProducerAppendInfo.checkSequence). If it had already appended one of
// those batches under the old epoch, and no longer holds it among the
// producer's last five (ProducerStateEntry.NUM_BATCHES_TO_RETAIN), it
// appends the batch again: the batch's first attempt, whose answer never
// came, and its rewrite are both in the log. With requests capped per
// connection (InFlightRequests.canSendMore) and not per partition, five
// batches waiting on an old leader and five more sent to the new one are
// enough for that.
//
// kafkasim's producer writes each such rewrite into the history
// (model.Resequence on the send). A duplicate is the producer's own doing,
// and allowed, only when the history shows it: the value's send was
// re-sequenced while unacknowledged, the value is at no more offsets than
// one plus its rewrites, and, when the send was acknowledged, its offset
// is the last copy (the answer is the rewrite's; the earlier copy is the
// first attempt's). Anything else, including every duplicate in a history
// from elsewhere, which never carries rewrites, stays an error.

// PromiseResequence is what allows a duplicate that an idempotent
// producer's epoch bump wrote.
const PromiseResequence = "Kafka's idempotent producer re-sequences its unacknowledged batches from 0 when it bumps its epoch (TransactionManager.bumpIdempotentProducerEpoch, TxnPartitionEntry.startSequencesAtBeginning), and a broker that no longer holds the first attempt among the producer's last five batches (ProducerStateEntry.NUM_BATCHES_TO_RETAIN) appends it again as a new epoch's (ProducerAppendInfo.checkSequence): the batch is in the log twice"

// PromiseResequenceOrder is what allows a nonmonotonic-send between two
// sends that one epoch bump found both unacknowledged (staleAckInversion).
const PromiseResequenceOrder = "Kafka's idempotent producer re-sequences its unacknowledged batches from 0 when it bumps its epoch (TransactionManager.bumpIdempotentProducerEpoch, TxnPartitionEntry.startSequencesAtBeginning) and completes a batch from whichever attempt's answer comes (Sender.completeBatch): a batch answered by its attempt sent under the old epoch keeps that place, and an earlier batch acknowledged under the new epoch lands after it"

// resequencedCopies reports whether the copies of send's record at offs
// (sorted) are its first attempt and its rewrites, as the send's
// Resequenced shows; the reason is why not, for the report.
func resequencedCopies(send *model.Op, tp model.TopicPartition, offs []model.Offset) (bool, string) {
	switch {
	case send.F != model.FSend || len(send.Resequenced) == 0:
		return false, ""
	case send.TP != tp:
		return false, fmt.Sprintf("; its send (op %d) was re-sequenced on %s, not here", send.Index, send.TP)
	case len(offs) > 1+len(send.Resequenced):
		return false, fmt.Sprintf("; its send (op %d) was re-sequenced %d times, which accounts for %d copies, not %d",
			send.Index, len(send.Resequenced), 1+len(send.Resequenced), len(offs))
	case send.Type == model.OpOK && send.Offset != model.NoOffset && send.Offset != offs[len(offs)-1]:
		return false, fmt.Sprintf("; its send (op %d) was re-sequenced, but was acknowledged at offset %d, not at the last copy %d",
			send.Index, send.Offset, offs[len(offs)-1])
	}
	return true, ""
}

// describeResequence is the allowed finding's explanation.
func describeResequence(send *model.Op) string {
	r := send.Resequenced[len(send.Resequenced)-1]
	return fmt.Sprintf(": process %d's epoch bump at %v re-sequenced it from epoch %d sequence %d to epoch %d sequence %d while its first attempt was unanswered, and the broker appended the rewrite as new, as Kafka's idempotent producer does",
		send.Process, r.At, r.FromEpoch, r.FromSeq, r.ToEpoch, r.ToSeq)
}

// resequencedSends finds, by record, the record's first send (its writer,
// as the duplicate check takes it) where an epoch bump re-sequenced it.
// Only histories with rewrites pay for the lookup.
func resequencedSends(h model.History) map[valueKey]int {
	marked := slices.ContainsFunc(h, func(op model.Op) bool { return len(op.Resequenced) > 0 })
	if !marked {
		return nil
	}
	first := map[valueKey]int{}
	for i := range h {
		if op := &h[i]; op.F == model.FSend && op.TP.Topic != "" {
			if _, ok := first[valueKey{op.TP, op.Value}]; !ok {
				first[valueKey{op.TP, op.Value}] = i
			}
		}
	}
	out := map[valueKey]int{}
	for k, i := range first {
		if len(h[i].Resequenced) > 0 {
			out[k] = i
		}
	}
	return out
}

// lastResequence is when send's record was last re-sequenced, or -1.
func lastResequence(send *model.Op) time.Duration {
	if send.F != model.FSend || len(send.Resequenced) == 0 {
		return -1
	}
	return send.Resequenced[len(send.Resequenced)-1].At
}

// resequencedInversion reports whether the rewrite explains why earlier,
// sent before later by one producer, landed after it: earlier was
// re-sequenced at T, and later had completed by T without being
// re-sequenced then (had it been in flight, the same bump would have
// re-sequenced it after earlier; had it been drained after T, it would
// follow earlier's new sequence).
func resequencedInversion(earlier, later *model.Op) bool {
	at := lastResequence(earlier)
	if at < 0 || !later.Completed() || later.End > at {
		return false
	}
	return lastResequence(later) < at
}

// ackedEpoch is the producer epoch under which the broker placed a
// re-sequenced send's acknowledged copy: the attempt's the answer was to
// (AckedAs), or else the record's last identity.
func ackedEpoch(send *model.Op) model.Epoch {
	if send.AckedAs != nil {
		return send.AckedAs.Epoch
	}
	return send.Resequenced[len(send.Resequenced)-1].ToEpoch
}

// staleAckInversion reports whether the rewrite explains why earlier, sent
// before later by one producer, landed after it although both were still
// unacknowledged when the bump came: later's acknowledgement answered an
// attempt sent before the bump (Op.AckedAs; Kafka's Sender.completeBatch
// takes any attempt's answer, TransactionManager.handleCompletedBatch
// counts it), so the broker placed it under its old epoch, while earlier
// was acknowledged under an epoch an epoch bump re-sequenced it into,
// newer than later's: its acknowledged attempt left after the bump, and so
// after later's. Both acknowledged at known offsets; a copy only a poll
// placed, or earlier acknowledged under an epoch it was first sent with
// (which would mean the producer sent later first), stays an error.
func staleAckInversion(earlier, later *model.Op) bool {
	if later.AckedAs == nil || len(earlier.Resequenced) == 0 || earlier.F != model.FSend ||
		earlier.Type != model.OpOK || earlier.Offset == model.NoOffset || later.Type != model.OpOK || later.Offset == model.NoOffset {
		return false
	}
	e := ackedEpoch(earlier)
	if e <= later.AckedAs.Epoch {
		return false
	}
	return slices.ContainsFunc(earlier.Resequenced, func(r model.Resequence) bool { return r.ToEpoch == e })
}

// describeStaleAck is that allowed finding's explanation.
func describeStaleAck(earlier, later *model.Op) string {
	r := earlier.Resequenced[len(earlier.Resequenced)-1]
	return fmt.Sprintf(": process %d's epoch bump at %v re-sequenced the earlier from epoch %d sequence %d to epoch %d sequence %d while unacknowledged, and it was acknowledged under epoch %d, while the later was acknowledged by its attempt sent as epoch %d sequence %d before a bump rewrote it, as Kafka's idempotent producer does",
		earlier.Process, r.At, r.FromEpoch, r.FromSeq, r.ToEpoch, r.ToSeq, ackedEpoch(earlier), later.AckedAs.Epoch, later.AckedAs.Seq)
}
