package scenarios

import (
	"testing"
	"time"

	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// hangingTxn finds a transaction left open in a partition: the
// transactional producer crashes with its records in the log and no
// marker after them, and the last stable offset stays below the high
// watermark until the coordinator aborts the transaction once
// transaction.timeout.ms (10 s in txn-chaos's configuration) has passed,
// at its next check (every 10 s); a run whose transactions all ended
// passes.
func TestHangingTransactionIsFound(t *testing.T) {
	s, err := NewScripted(fixture.Options{Seed: 3, Config: txnConfig(), Spec: fixture.Spec{Txn: &fixture.TxnSpec{}}})
	if err != nil {
		t.Fatal(err)
	}
	var producer sim.NodeID
	for _, id := range s.Sim.Nodes() {
		if s.Sim.Name(id) == "txn-producer-1" {
			producer = id
		}
	}
	s.Sim.Run(s.Sim.Now() + 3*time.Second)
	// Catch a transaction between its records' append and its markers.
	for deadline := s.Sim.Now() + 5*time.Second; s.hangingTxn() == ""; {
		if s.Sim.Now() > deadline {
			t.Fatal("no transaction seen open in 5 s")
		}
		s.Sim.Run(s.Sim.Now() + 100*time.Microsecond)
	}
	s.Sim.Crash(producer)
	s.Sim.Run(s.Sim.Now() + 5*time.Second)
	if s.hangingTxn() == "" {
		t.Fatal("a crashed producer's open transaction went unnoticed")
	}
	t.Logf("5 s after the crash: %s", s.hangingTxn())
	s.Sim.Run(s.Sim.Now() + 25*time.Second)
	if stuck := s.hangingTxn(); stuck != "" {
		t.Fatalf("30 s after the crash the coordinator should have aborted the transaction: %s", stuck)
	}
}
