package scenarios

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// A partition whose leader lost the producer's state can hold an
// idempotent producer for up to delivery.timeout.ms after the heal, in
// Kafka as here. The path (chaos-config seed 70500214, orders/2):
//
//   - batches with sequences 131..135 are in flight to a leader that
//     pauses; their requests wait for request.timeout.ms;
//   - meanwhile a replica that lost its log to a power loss is elected,
//     and a new batch (sequence 136, never sent, so not held back by
//     RecordAccumulator.shouldStopDrainBatchesForPartition) goes to it. It
//     knows no state for the producer and so accepts any sequence
//     (ProducerAppendInfo.checkSequence: "If there is no current producer
//     epoch ... accept writes with any sequence number"); the producer's
//     last acknowledged sequence becomes 231;
//   - the batches 131..135 time out and are retried; every leader now
//     answers OUT_OF_ORDER_SEQUENCE_NUMBER, and since 131 is not the last
//     acknowledged sequence + 1, TransactionManager.canRetry retries it as
//     it is, without an epoch bump ("We should retry the
//     OutOfOrderSequenceException if the batch is _not_ the next batch");
//     while it is retried, nothing behind it on the partition may leave;
//   - only when the batch reaches delivery.timeout.ms (120 s from its
//     creation, before the heal) does it expire, leave the partition's
//     sequence unresolved, and the epoch bump that follows
//     (TransactionManager.maybeResolveSequences) let the partition move.
//
// Kafka promises no sooner, so on such partitions the liveness check waits
// delivery.timeout.ms more before it calls the run stuck. It does so only
// when every other condition holds: the quorum and every ISR are whole,
// and every partition that kept its data has taken and served writes.
// A leader loses the producer's state only with the partition's data (a
// power loss that took acknowledged writes, an unclean election), which
// is what diskLost names.

// convergeLostSequences is called when the liveness phase did not converge
// within bound: if the producer is idempotent and what is still stuck is
// confined to partitions whose data (and with it the producer's state) was
// lost, converged is given delivery.timeout.ms more. It returns "" or what
// was stuck.
func (s *Scripted) convergeLostSequences(stuck error, bound time.Duration, converged func() (bool, string), acks *ackWatch, progress *partitionProgress) string {
	var se *faults.StuckError
	if !errors.As(stuck, &se) || se.Stop != sim.StopTimeLimit {
		return stuck.Error() // the run stopped: more time cannot help
	}
	lost, ok := s.stuckOnlyOnLost(acks, progress)
	if !ok {
		return stuck.Error()
	}
	more := s.Config.Producer.DeliveryTimeout
	_, err := faults.Converge(world{s}, more, converged)
	if err == nil {
		return ""
	}
	if errors.As(err, &se) {
		names := make([]string, len(lost))
		for i, tp := range lost {
			names[i] = tp.String()
		}
		why := ""
		if se.Stop != sim.StopTimeLimit {
			why = fmt.Sprintf(" (the run stopped after %v more: %s)", se.After, se.Stop)
		}
		return fmt.Sprintf("did not converge within %v of healing, nor in the delivery.timeout.ms=%v more given to the partitions whose data and producer state were lost (%s)%s: %s",
			bound, more, strings.Join(names, ", "), why, se.State)
	}
	return err.Error()
}

// stuckOnlyOnLost reports whether everything but the partitions that lost
// their data has made progress, and names them: the metadata quorum and
// the cluster are whole, and every other partition has taken a write
// since the heal and served one to a reader. (Whether every acknowledged
// record was read is left to the full condition at the end of the extra
// time: at the bound, records acknowledged in the last look may not have
// been fetched yet.) Only an idempotent producer can be held by a lost
// producer state.
func (s *Scripted) stuckOnlyOnLost(acks *ackWatch, progress *partitionProgress) ([]model.TopicPartition, bool) {
	if !s.Config.Producer.Idempotence {
		return nil, false
	}
	if s.quorumStuck() != "" || s.clusterStuck() != "" {
		return nil, false
	}
	lost := s.diskLost()
	if len(lost) == 0 {
		return nil, false
	}
	acks.advance()
	if progress.unacked(lost...) != "" || progress.unread(acks.all.read, lost...) != "" {
		return nil, false
	}
	return lost, true
}
