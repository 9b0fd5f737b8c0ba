package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/client"
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
// The same hold follows without any lost state (chaos-config seed
// 90001458 t/0, chaos seed 90001701 orders/0): batches 467..475 are in
// flight to a leader that appends them, replicates them and then loses
// leadership, so that it answers NOT_LEADER_OR_FOLLOWER (Kafka's
// DelayedProduce completes with that error once
// Partition.checkEnoughReplicasReachOffset finds the broker no longer
// leader); in the meantime the new leader, which has them, takes and
// acknowledges new batches from 476 on. The retry of 467 is then outside
// the leader's window of five recent batches and behind its last
// sequence, is answered OUT_OF_ORDER_SEQUENCE_NUMBER, and is retried as it
// is, as above, until delivery.timeout.ms. The producer reports such
// partitions itself (client.Producer.HeldBehindAcknowledged).
//
// Kafka promises no sooner, so on such partitions the liveness check waits
// delivery.timeout.ms more before it calls the run stuck. It does so only
// when every other condition holds: the quorum and every ISR are whole,
// and every other partition has taken and served writes. A leader loses
// the producer's state only with the partition's data (a power loss that
// took acknowledged writes, an unclean election), which is what diskLost
// names; a producer holds a partition behind an acknowledged sequence only
// while it retries a batch the leader refused as out of order.

// convergeLostSequences is called when the liveness phase did not converge
// within bound: if the producer is idempotent and what is still stuck is
// confined to partitions whose data (and with it the producer's state) was
// lost or on which a producer retries a batch behind its acknowledged
// sequence, converged is given delivery.timeout.ms more. It returns "" or
// what was stuck.
func (s *Scripted) convergeLostSequences(stuck error, bound time.Duration, converged func() (bool, string), acks *ackWatch, progress *partitionProgress) string {
	var se *faults.StuckError
	if !errors.As(stuck, &se) || se.Stop != sim.StopTimeLimit {
		return stuck.Error() // the run stopped: more time cannot help
	}
	lost, held, ok := s.stuckOnlyWhereHeld(acks, progress)
	if !ok {
		return stuck.Error()
	}
	more := s.Config.Producer.DeliveryTimeout
	_, err := faults.Converge(world{s}, more, converged)
	if err == nil {
		return ""
	}
	if errors.As(err, &se) {
		var given []string
		if len(lost) > 0 {
			given = append(given, "whose data and producer state were lost ("+tpNames(lost)+")")
		}
		if len(held) > 0 {
			given = append(given, "on which an idempotent producer retries a batch behind its acknowledged sequence ("+tpNames(held)+")")
		}
		why := ""
		if se.Stop != sim.StopTimeLimit {
			why = fmt.Sprintf(" (the run stopped after %v more: %s)", se.After, se.Stop)
		}
		return fmt.Sprintf("did not converge within %v of healing, nor in the delivery.timeout.ms=%v more given to the partitions %s%s: %s",
			bound, more, strings.Join(given, " or "), why, se.State)
	}
	return err.Error()
}

// stuckOnlyWhereHeld reports whether everything but the partitions that may
// hold an idempotent producer has made progress, and names them: those
// that lost their data (lost) and those on which a producer retries a
// batch behind its acknowledged sequence (held, not repeating lost). The
// metadata quorum and the cluster must be whole, and every other partition
// must have taken a write since the heal and served one to a reader.
// (Whether every acknowledged record was read is left to the full
// condition at the end of the extra time: at the bound, records
// acknowledged in the last look may not have been fetched yet.) Only an
// idempotent producer can be held this way.
func (s *Scripted) stuckOnlyWhereHeld(acks *ackWatch, progress *partitionProgress) (lost, held []model.TopicPartition, ok bool) {
	if !s.Config.Producer.Idempotence {
		return nil, nil, false
	}
	stranded := s.stranded() // not waited for (stranded.go)
	if s.quorumStuck() != "" || s.clusterStuck(stranded...) != "" {
		return nil, nil, false
	}
	lost = s.diskLost()
	for _, tp := range s.heldBehindAcknowledged(progress.since) {
		if !slices.Contains(lost, tp) {
			held = append(held, tp)
		}
	}
	if len(lost) == 0 && len(held) == 0 {
		return nil, nil, false
	}
	all := append(append(slices.Clone(lost), held...), stranded...)
	acks.advance()
	if progress.unacked(all...) != "" || progress.unread(acks.all.read, all...) != "" {
		return nil, nil, false
	}
	return lost, held, true
}

// heldBehindAcknowledged is the partitions, sorted, on which some running
// producer retries a batch behind its acknowledged sequence
// (client.Producer.HeldBehindAcknowledged).
func (s *Scripted) heldBehindAcknowledged(since time.Duration) []model.TopicPartition {
	var out []model.TopicPartition
	for _, id := range s.Sim.Nodes() {
		p, _ := s.Sim.Node(id).(*client.Producer)
		if p == nil {
			continue
		}
		for _, tp := range p.HeldBehindAcknowledged(since) {
			if i, found := slices.BinarySearchFunc(out, tp, model.TopicPartition.Compare); !found {
				out = slices.Insert(out, i, tp)
			}
		}
	}
	return out
}

// tpNames is the partitions' names joined by commas.
func tpNames(tps []model.TopicPartition) string {
	names := make([]string, len(tps))
	for i, tp := range tps {
		names[i] = tp.String()
	}
	return strings.Join(names, ", ")
}
