package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// TestLivenessGivesLostPartitionsTheDeliveryTimeout: two of the three
// brokers lose power together before the heal, so every partition (rf 3,
// min.insync.replicas 2) may have lost its data and the producer's state
// with it. From the heal on the producer leaves t/2 unwritten. With an
// idempotent producer the check waits delivery.timeout.ms more, as a
// partition that lost the producer's state may need (liveness_sequences.go),
// and still calls t/2 stuck after it; without idempotence, or without the
// power loss (TestLivenessRequiresEveryPartition), there is no extra time.
// The extended bound runs whole here: 5 s + 120 s of virtual time.
func TestLivenessGivesLostPartitionsTheDeliveryTimeout(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent bool
		want       string
	}{
		{"idempotent", true, "did not converge within 5s of healing, nor in the delivery.timeout.ms=2m0s more given to the partitions whose data and producer state were lost (t/0, t/1, t/2): no send made after the heal has been acknowledged on t/2"},
		{"not idempotent", false, "did not converge within 5s of healing: no send made after the heal has been acknowledged on t/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := safe()
			kc.Producer.Idempotence = tc.idempotent
			s, err := NewScripted(fixture.Options{Seed: 3, Spec: fixture.Spec{Partitions: 3}, Config: kc})
			if err != nil {
				t.Fatal(err)
			}
			s.Sim.Run(s.Sim.Now() + 2*time.Second)
			at := s.Sim.Now() + time.Second
			sched := faults.MustParse(tc.name, fmt.Sprintf("from %v to %v power-loss b1\nfrom %v to %v power-loss b2\n", at, at+2*time.Second, at, at+2*time.Second))
			nem, err := faults.Apply(world{s}, sched)
			if err != nil {
				t.Fatal(err)
			}
			s.nemesis = nem
			s.Sim.Run(at + 6*time.Second)
			nem.Heal()
			if lost := s.diskLost(); len(lost) != 3 {
				t.Fatalf("the power loss should void every partition's durability, lost %v", lost)
			}
			s.At(s.Sim.Now(), "narrow the producer", func() { s.Work.Partitions = 2 })
			if got := s.liveness(5 * time.Second); got != tc.want {
				t.Fatalf("liveness:\n%q, want\n%q", got, tc.want)
			}
			if strings.Contains(tc.want, "delivery.timeout.ms") && s.Sim.Now() < at+6*time.Second+125*time.Second {
				t.Fatalf("the extra time did not run: the phase ended at %v", s.Sim.Now())
			}
		})
	}
}
