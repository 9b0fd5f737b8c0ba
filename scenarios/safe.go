package scenarios

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// safeScenarios are the scenarios that must pass on every seed: the fixed
// configuration under faults it is designed to survive.
func safeScenarios() []Scenario {
	return []Scenario{
		{
			Name:          "baseline",
			Description:   "no faults: every acknowledged record is replicated and read",
			Config:        safe,
			Safety:        20 * time.Second,
			LivenessBound: 30 * time.Second,
		},
		{
			Name:          "leader-failover",
			Description:   "partition leaders crash repeatedly and restart",
			Config:        safe,
			Faults:        crashLeaders,
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
	}
}

// crashLeaders crashes the leader of a random partition every 5–15 s and
// restarts it 2–12 s later.
func crashLeaders(s *Scripted) {
	r := s.Sim.Rand("faults/crash-leaders")
	for t := 5 * time.Second; t < s.safety; t += time.Duration(5+r.IntN(10)) * time.Second {
		tp := s.TPs[r.IntN(len(s.TPs))]
		down := time.Duration(2+r.IntN(10)) * time.Second
		s.At(t, "crash leader-of "+tp.String(), func() {
			l := s.Leader(tp)
			if l == model.NoBroker || !s.Sim.IsUp(sim.NodeID(l)) {
				return
			}
			s.Sim.Crash(sim.NodeID(l))
			s.Sim.AfterFunc(down, "restart "+l.String(), func() {
				if !s.Sim.IsUp(sim.NodeID(l)) {
					s.Sim.Restart(sim.NodeID(l))
				}
			})
		})
	}
}
