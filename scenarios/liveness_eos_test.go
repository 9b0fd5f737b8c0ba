package scenarios

import (
	"strings"
	"testing"
	"time"

	"kafkasim/scenarios/fixture"
)

// eosStuck finds a pipeline that has not caught up with its input: with
// every worker down, the source's records have no committed output; once
// the workers are back and the source stopped, the output catches up.
func TestStalledPipelineIsFound(t *testing.T) {
	s, err := NewScripted(fixture.Options{Seed: 3, Config: txnConfig(), Spec: fixture.Spec{EOS: &fixture.EOSSpec{}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Sim.Run(s.Sim.Now() + 3*time.Second)
	workers := s.MembersOf("eos")
	for _, w := range workers {
		s.Sim.Crash(w)
	}
	s.Sim.Run(s.Sim.Now() + 3*time.Second)
	if stuck := s.eosStuck(); !strings.Contains(stuck, "has not caught up") {
		t.Fatalf("with the workers down: %q, want the pipeline behind", stuck)
	}
	for _, w := range workers {
		s.Sim.Restart(w)
	}
	s.StopProducing()
	s.Sim.Run(s.Sim.Now() + 40*time.Second)
	if stuck := s.eosStuck(); stuck != "" {
		t.Fatalf("40 s after the workers came back: %s", stuck)
	}
}
