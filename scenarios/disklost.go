package scenarios

import (
	"slices"
	"sort"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
)

// diskLost lists the partitions whose acknowledged writes the
// configuration no longer promised to keep, because power losses took the
// unflushed data of too many of their replicas at once (the promise:
// an acknowledged acks=all write survives "while one ISR or ELR replica keeps
// its disk").
//
// An acknowledged write is on at least min.insync.replicas replicas, and
// on each it becomes durable once written back (the cluster's 30 s
// writeback) or synced. So it can only vanish if that many of the
// partition's replicas lose power within one writeback period; when that
// never happened, every acknowledged write still has a durable copy and
// the promise holds. The test is conservative: it may void the promise
// for a partition where, by luck, nothing was lost.
//
// A leader elected from outside the ISR and ELR (KIP-966's last known
// leader after the others restarted uncleanly, or an unclean election)
// leads with whatever its own log kept: from then on Kafka promises
// nothing of what the others had acknowledged (its leader recovery state
// is RECOVERING), and neither do the checkers. With
// unclean.leader.election.enable the configuration promises nothing
// anyway, and the checkers say so themselves.
func (s *Scripted) diskLost() []model.TopicPartition {
	out := s.powerLost()
	if ctl := s.ControllerNode(); ctl != nil && !s.Config.Topic.UncleanLeaderElection {
		for _, tp := range s.TPs {
			if ctl.UncleanElections(tp) > 0 && !slices.Contains(out, tp) {
				out = append(out, tp)
			}
		}
	}
	return out
}

// powerLost is diskLost's power-loss part.
func (s *Scripted) powerLost() []model.TopicPartition {
	if s.nemesis == nil || s.Config.Broker.LogFlushIntervalMessages == 1 {
		return nil // an fsync per message: a power loss takes nothing acknowledged
	}
	const writeback = 30 * time.Second // ClusterOptions' default, which scenarios use (scenarios/fixture)
	type loss struct {
		at time.Duration
		b  model.BrokerID
	}
	var losses []loss
	for _, e := range s.nemesis.Log() {
		if e.Fault.Kind == faults.KindPowerLoss && (e.Edge == faults.EdgeAt || e.Edge == faults.EdgeStart) {
			for _, b := range e.Nodes {
				losses = append(losses, loss{e.Time, b})
			}
		}
	}
	sort.SliceStable(losses, func(i, j int) bool { return losses[i].at < losses[j].at })
	need := int(s.Config.Topic.MinInsyncReplicas)
	var out []model.TopicPartition
	for _, tp := range s.TPs {
		for i := range losses {
			hit := map[model.BrokerID]bool{}
			for j := i; j < len(losses) && losses[j].at-losses[i].at < writeback; j++ {
				// The replicas of the loss's time: a reassignment may
				// have moved them since.
				if slices.Contains(s.replicasAt(tp, losses[j].at), losses[j].b) {
					hit[losses[j].b] = true
				}
			}
			if len(hit) >= need {
				out = append(out, tp)
				break
			}
		}
	}
	return out
}
