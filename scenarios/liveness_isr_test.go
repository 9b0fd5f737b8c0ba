package scenarios

import (
	"strings"
	"testing"
	"time"

	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// The liveness phase converges only once every replica is back in its
// partition's ISR, not merely min.insync.replicas of them: a follower cut
// from its leader (but not from the controller, so it stays registered and
// unfenced) drops out of the ISR, and the cluster counts as stuck until the
// cut heals and the follower rejoins.
func TestLivenessWaitsForEveryReplicaInTheISR(t *testing.T) {
	s, err := NewScripted(fixture.Options{Seed: 1, Config: withSettings([]string{"replica.lag.time.max.ms=2s"})})
	if err != nil {
		t.Fatal(err)
	}
	tp := s.TPs[0]
	leader := s.Leader(tp)
	ps, _ := s.Partition(tp)
	follower := ps.Replicas[0]
	if follower == leader {
		follower = ps.Replicas[1]
	}
	s.Sim.Cut(sim.NodeID(leader), sim.NodeID(follower))
	s.Sim.Cut(sim.NodeID(follower), sim.NodeID(leader))
	s.Sim.Run(s.Sim.Now() + 10*time.Second)
	if ps, _ := s.Partition(tp); len(ps.ISR) != len(ps.Replicas)-1 {
		t.Fatalf("ISR %v of %v: the cut follower did not drop out", ps.ISR, ps.Replicas)
	}
	if got := s.liveness(3 * time.Second); !strings.Contains(got, "not all back in the ISR") {
		t.Fatalf("liveness said %q, want the missing replica named", got)
	}
	s.Sim.HealAll()
	if got := s.liveness(30 * time.Second); got != "" {
		t.Fatalf("after the heal, liveness said %q", got)
	}
	if ps, _ := s.Partition(tp); len(ps.ISR) != len(ps.Replicas) {
		t.Fatalf("converged with ISR %v of %v", ps.ISR, ps.Replicas)
	}
}
