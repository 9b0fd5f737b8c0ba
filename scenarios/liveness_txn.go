package scenarios

import (
	"fmt"
	"strings"

	"kafkasim/checkers"
	"kafkasim/model"
)

// hangingTxn is the transactional workload's part of convergence: on
// every partition of its topic, the leader's last stable offset has
// reached its high watermark, so that no transaction is left open there
// (a hanging transaction pins the LSO, and read_committed readers never
// get past it: the problem KIP-890 describes). With the workload's
// producers stopped, every transaction they began has ended or was
// aborted by its coordinator (transaction.timeout.ms). "" when it holds
// or the fixture has no transactional workload.
func (s *Scripted) hangingTxn(skip ...model.TopicPartition) string {
	spec := s.TxnSpec()
	if spec == nil {
		return ""
	}
	for p := int32(0); p < spec.Partitions; p++ {
		tp := model.TP(spec.Topic, p)
		if containsTP(skip, tp) {
			continue
		}
		leader := s.Leader(tp)
		if leader == model.NoBroker {
			return tp.String() + ": no leader"
		}
		b := s.Broker(leader)
		if b == nil {
			return tp.String() + ": leader " + leader.String() + " is down"
		}
		v, ok := b.Partition(tp)
		if !ok || !v.Leader {
			return fmt.Sprintf("%v: %v does not lead it yet", tp, leader)
		}
		if lso := v.Log.LastStableOffset(v.HW); lso < v.HW {
			return fmt.Sprintf("%v: last stable offset %d below the high watermark %d (%s)", tp, lso, v.HW, openTxnFinding)
		}
	}
	return ""
}

// openTxnFinding ends hangingTxn's answer: what hangingViolation looks
// for in a run's liveness outcome.
const openTxnFinding = "a transaction still open"

// hangingViolation is a liveness outcome that hangingTxn gave, as the
// finding checkers.HangingTransaction, so that a scenario can expect it
// as it expects the checkers' anomalies; nil for any other outcome.
func hangingViolation(liveness string) *checkers.Violation {
	if !strings.HasSuffix(liveness, "("+openTxnFinding+")") {
		return nil
	}
	// The outcome ends "...: T/P: last stable offset ..." (faults.StuckError).
	head := liveness[:max(strings.LastIndex(liveness, ": last stable offset"), 0)]
	part, _ := model.ParseTopicPartition(head[strings.LastIndex(head, ": ")+2:])
	return &checkers.Violation{Checker: "liveness", Anomaly: checkers.HangingTransaction, Partition: part, Error: true,
		Promise: "every transaction ends: the last stable offset reaches the high watermark", Detail: liveness}
}

func containsTP(tps []model.TopicPartition, tp model.TopicPartition) bool {
	for _, x := range tps {
		if x == tp {
			return true
		}
	}
	return false
}
