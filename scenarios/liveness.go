package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// liveness runs after every fault healed, until the cluster converges
// (CHECKERS.md, Liveness) or the bound passes; it returns "" or what was
// stuck. Converged means: one controller is active in the metadata quorum
// and every broker is registered with it and unfenced (liveness_quorum.go),
// every partition has a leader and at least min.insync.replicas in its
// ISR, a send made after the heal succeeded, and (the producer then
// stopped) the consumer has read every acknowledged record.
func (s *Scripted) liveness(bound time.Duration) string {
	healedAt := s.Sim.Now()
	stopped := false
	_, err := faults.Converge(world{s}, bound, func() (bool, string) {
		if stuck := s.quorumStuck(); stuck != "" {
			return false, stuck
		}
		if stuck := s.clusterStuck(); stuck != "" {
			return false, stuck
		}
		if !stopped {
			if !s.sendSucceededSince(healedAt) {
				return false, "no send made after the heal has succeeded"
			}
			s.Work.Stop()
			stopped = true
		}
		// Which partitions lost their data is read from the active
		// controller's replica sets, so it is asked now that the
		// cluster is whole again: right after the heal a restarted
		// quorum may not have elected yet, and would name none.
		lost := s.diskLost()
		if stuck := s.unreadAcked(lost); stuck != "" {
			return false, stuck
		}
		if stuck := s.unreadByGroups(lost); stuck != "" {
			return false, stuck
		}
		return true, ""
	})
	if err != nil {
		return err.Error()
	}
	return ""
}

func (s *Scripted) clusterStuck() string {
	min := s.Config.Topic.MinInsyncReplicas
	for _, tp := range s.TPs {
		ps, ok := s.Partition(tp)
		switch {
		case !ok:
			return tp.String() + ": controller has no state (is it up?)"
		case ps.Leader == model.NoBroker:
			return tp.String() + ": no leader"
		case !s.Sim.IsUp(sim.NodeID(ps.Leader)):
			return tp.String() + ": leader " + ps.Leader.String() + " is down"
		case int32(len(ps.ISR)) < min && int32(len(ps.Replicas)) >= min:
			return fmt.Sprintf("%v: ISR %v below min.insync.replicas=%d", tp, ps.ISR, min)
		}
	}
	return ""
}

func (s *Scripted) sendSucceededSince(t time.Duration) bool {
	h := s.History.History()
	for i := len(h) - 1; i >= 0; i-- {
		op := &h[i]
		if op.Time < t {
			break
		}
		if op.F == model.FSend && op.Type == model.OpOK {
			return true
		}
	}
	return false
}

// unreadAcked names acknowledged values the consumer has not read, except
// on partitions whose data the faults destroyed (see diskLost): what is
// gone cannot be read.
func (s *Scripted) unreadAcked(lost []model.TopicPartition) string {
	h := s.History.History()
	read := map[string]bool{}
	for i := range h {
		if h[i].F == model.FPoll && h[i].Type == model.OpOK {
			for _, pr := range h[i].Records {
				for _, r := range pr.Records {
					read[r.Value] = true
				}
			}
		}
	}
	var missing []string
	for i := range h {
		if h[i].F == model.FSend && h[i].Type == model.OpOK && !read[h[i].Value] && !slices.Contains(lost, h[i].TP) {
			missing = append(missing, h[i].Value)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	if len(missing) > 5 {
		return fmt.Sprintf("%d acknowledged records not read by the consumer (%s, ...)", len(missing), strings.Join(missing[:5], ", "))
	}
	return "acknowledged records not read by the consumer: " + strings.Join(missing, ", ")
}
