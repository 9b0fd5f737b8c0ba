package scenarios

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// liveness runs after every fault healed, until the cluster converges or
// the bound passes; it returns "" or what was stuck. Converged means: one controller is active in the metadata quorum
// and every broker is registered with it and unfenced (liveness_quorum.go;
// a decommissioned broker is no longer one, and its decommission must have
// finished: decommission.go),
// every partition has a leader and every one of its replicas in its ISR
// (so that replica agreement is judged among all of them), on every
// partition a send made after the heal succeeded
// (liveness_partitions.go), and (the producer then stopped) the consumer
// has read every acknowledged record, among them one written after the
// heal on every partition, and no send of a running producer is still in
// flight. A partition that lost its producer state, or
// on which an idempotent producer retries a batch behind its acknowledged
// sequence, may take delivery.timeout.ms longer (liveness_sequences.go).
func (s *Scripted) liveness(bound time.Duration) string {
	healedAt := s.Sim.Now()
	stopped := false
	retired := s.RetiredTPs()
	live := slices.DeleteFunc(s.liveTPs(), func(tp model.TopicPartition) bool { return slices.Contains(retired, tp) })
	progress := newPartitionProgress(healedAt, live, s.ProducedTPs())
	if stuck := progress.unproduced(); stuck != "" {
		return stuck
	}
	s.CoverEveryPartition()
	acks := newAckWatch(s.History, s.ReadGroups(), s.Members)
	acks.progress = progress
	converged := func() (bool, string) {
		if stuck := s.quorumStuck(); stuck != "" {
			return false, stuck
		}
		if stuck := s.decommissionStuck(); stuck != "" {
			return false, stuck
		}
		if stuck := s.rollingStuck(); stuck != "" {
			return false, stuck
		}
		// A partition Kafka's controller itself left without an electable
		// leader (stranded.go) is not waited for.
		stranded := s.stranded()
		if stuck := s.clusterStuck(stranded...); stuck != "" {
			return false, stuck
		}
		acks.advance()
		// A deletion the controller committed only after the heal (a
		// delete-topic just before it) takes its partitions out of the
		// per-partition condition from then on, as liveTPs does for
		// those deleted before.
		deleted := s.deletedTPs()
		gone := s.absent(deleted)
		// Neither a partition gone with its topic nor a stranded one
		// can take a write or be read.
		skip := append(slices.Clone(gone), stranded...)
		if !stopped {
			if stuck := progress.unacked(skip...); stuck != "" {
				return false, stuck
			}
			s.StopProducing()
			stopped = true
		}
		// Which partitions lost their data is read from the active
		// controller's replica sets, so it is asked now that the
		// cluster is whole again: right after the heal a restarted
		// quorum may not have elected yet, and would name none.
		lost := s.diskLost()
		// A deleted topic's records are asked of readers only while
		// they are still in a leader's log, as a lost partition's are:
		// once deleted, they are not.
		lost = append(lost, deleted...)
		acks.inLog = s.inLeaderLog(lost)
		// A stranded partition has no leader to read from: nothing of it
		// is in a leader's log, so every send on it is excused.
		unreadable := append(slices.Clone(lost), stranded...)
		acks.watchDeleted(s.Observed.Deletions)
		if stuck := acks.unreadAcked(unreadable); stuck != "" {
			return false, stuck
		}
		if stuck := acks.unreadByGroups(unreadable); stuck != "" {
			return false, stuck
		}
		if stuck := progress.unread(acks.all.read, skip...); stuck != "" {
			return false, stuck
		}
		// A send acknowledged after this look would otherwise go
		// unread: the run stops soon after (power-loss seed 91001795:
		// 95 batches in flight were acknowledged 0.4 s after the phase
		// ended, while the group was rebalancing, and were judged
		// unseen).
		if stuck := acks.inFlight(s.processUp, skip...); stuck != "" {
			return false, stuck
		}
		if stuck := s.hangingTxn(skip...); stuck != "" {
			return false, stuck
		}
		if stuck := s.eosStuck(unreadable...); stuck != "" {
			return false, stuck
		}
		return true, ""
	}
	_, err := faults.Converge(world{s}, bound, converged)
	if err != nil {
		return s.convergeLostSequences(err, bound, converged, acks, progress)
	}
	return ""
}

// processUp says whether a client process is running.
func (s *Scripted) processUp(process int) bool { return s.Sim.IsUp(sim.NodeID(process)) }

// inLeaderLog says whether an acknowledged send to one of the lost
// partitions is still in its leader's log, at the offset it was
// acknowledged with. Each partition's log is read once per look, and only
// when asked about.
func (s *Scripted) inLeaderLog(lost []model.TopicPartition) func(ackedSend) bool {
	logs := map[model.TopicPartition]map[model.Offset]string{}
	return func(a ackedSend) bool {
		m, ok := logs[a.tp]
		if !ok {
			m = map[model.Offset]string{}
			leader := s.Leader(a.tp)
			for _, r := range s.Replicas(a.tp) {
				if r.Broker == leader {
					for _, ov := range r.Records {
						m[ov.Offset] = ov.Value
					}
				}
			}
			logs[a.tp] = m
		}
		return m[a.offset] == a.value
	}
}

// clusterStuck says what keeps the cluster from being whole: a partition
// without a leader, with its leader down, or with a replica outside its
// ISR; "" if nothing does. The partitions in skip are not looked at.
func (s *Scripted) clusterStuck(skip ...model.TopicPartition) string {
	min := s.Config.Topic.MinInsyncReplicas
	for _, tp := range s.TPs {
		if slices.Contains(skip, tp) {
			continue
		}
		ps, ok := s.Partition(tp)
		switch {
		case !ok && s.topicDeleted(tp.Topic):
			continue // deleted on purpose (delete-topic): nothing to converge
		case !ok:
			return tp.String() + ": controller has no state (is it up?)"
		case ps.Leader == model.NoBroker:
			return tp.String() + ": no leader"
		case !s.Sim.IsUp(sim.NodeID(ps.Leader)):
			return tp.String() + ": leader " + ps.Leader.String() + " is down"
		case int32(len(ps.ISR)) < min && int32(len(ps.Replicas)) >= min:
			return fmt.Sprintf("%v: ISR %v below min.insync.replicas=%d", tp, ps.ISR, min)
		case len(ps.ISR) < len(ps.Replicas):
			// Every replica must be back: one left outside the ISR would
			// be left out of the agreement check, and a divergence could
			// hide in it.
			return fmt.Sprintf("%v: replicas %v not all back in the ISR %v", tp, ps.Replicas, ps.ISR)
		}
	}
	return ""
}

// topicDeleted says whether a committed record deleted the topic during
// the run (model.Observations.Deletions).
func (s *Scripted) topicDeleted(topic string) bool {
	for _, d := range s.Observed.Deletions {
		if d.Topic == topic {
			return true
		}
	}
	return false
}

// liveTPs are the fixture's partitions less those of topics deleted
// during the run that no topic of the same name has replaced: the
// liveness phase asks nothing of a partition the operator deleted.
func (s *Scripted) liveTPs() []model.TopicPartition {
	var out []model.TopicPartition
	for _, tp := range s.TPs {
		if _, ok := s.Partition(tp); ok || !s.topicDeleted(tp.Topic) {
			out = append(out, tp)
		}
	}
	return out
}

// deletedTPs are the partitions of topics deleted during the run that
// the fixture has or the history wrote to (a deleted topic's later
// partitions, added or created again, are the history's).
func (s *Scripted) deletedTPs() []model.TopicPartition {
	if len(s.Observed.Deletions) == 0 {
		return nil
	}
	var out []model.TopicPartition
	for _, tp := range s.TPs {
		if s.topicDeleted(tp.Topic) {
			out = append(out, tp)
		}
	}
	for _, op := range s.History.History() {
		if op.F == model.FSend && s.topicDeleted(op.TP.Topic) && !slices.Contains(out, op.TP) {
			out = append(out, op.TP)
		}
	}
	return out
}

// absent are those of tps the controller does not have now: a send to
// one settles only at delivery.timeout.ms.
func (s *Scripted) absent(tps []model.TopicPartition) []model.TopicPartition {
	var out []model.TopicPartition
	for _, tp := range tps {
		if _, ok := s.Partition(tp); !ok {
			out = append(out, tp)
		}
	}
	return out
}
