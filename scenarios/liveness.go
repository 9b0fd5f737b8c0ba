package scenarios

import (
	"fmt"
	"strings"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// heal ends every fault at once, as the liveness phase begins: partitions
// close, paused nodes resume, crashed nodes restart, clocks resync.
func (s *Scripted) heal() {
	s.Sim.HealAll()
	for _, id := range s.Sim.Nodes() {
		switch {
		case !s.Sim.IsUp(id):
			s.Sim.Restart(id)
		case s.Sim.IsPaused(id):
			s.Sim.Resume(id)
		}
		s.Sim.ResyncClock(id)
	}
}

// liveness heals everything and runs until the cluster converges
// (CHECKERS.md, Liveness) or the bound passes; it returns "" or what was
// stuck. Converged means: every partition has a leader and at least
// min.insync.replicas in its ISR, a send made after the heal succeeded,
// and (the producer then stopped) the consumer has read every
// acknowledged record.
func (s *Scripted) liveness(bound time.Duration) string {
	s.heal()
	healedAt := s.Sim.Now()
	deadline := healedAt + bound
	stopped := false
	stuck := ""
	for s.Sim.Now() < deadline {
		s.Sim.Run(min(s.Sim.Now()+250*time.Millisecond, deadline))
		if stuck = s.clusterStuck(); stuck != "" {
			continue
		}
		if !stopped {
			if !s.sendSucceededSince(healedAt) {
				stuck = "no send made after the heal has succeeded"
				continue
			}
			s.Work.Stop()
			stopped = true
		}
		if stuck = s.unreadAcked(); stuck == "" {
			return ""
		}
	}
	return fmt.Sprintf("not converged %v after healing: %s", bound, stuck)
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

// unreadAcked names acknowledged values the consumer has not read.
func (s *Scripted) unreadAcked() string {
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
		if h[i].F == model.FSend && h[i].Type == model.OpOK && !read[h[i].Value] {
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
