package scenarios

import (
	"fmt"

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
			return fmt.Sprintf("%v: last stable offset %d below the high watermark %d (a transaction still open)", tp, lso, v.HW)
		}
	}
	return ""
}

func containsTP(tps []model.TopicPartition, tp model.TopicPartition) bool {
	for _, x := range tps {
		if x == tp {
			return true
		}
	}
	return false
}
