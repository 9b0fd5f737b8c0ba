package scenarios

import (
	"path/filepath"
	"testing"
	"time"

	"kafkasim/model"
)

// A broker cut from the metadata quorum learns what it missed soon after
// the heal. On seed 4 of experiments/rack-loss-cut.toml (rack r1 cut from
// everyone from 10 s to 40 s) b1 led t/2 and t/5; the producer's retry goes
// to b1 again just after the heal, and b1 answers NOT_LEADER_OR_FOLLOWER
// only once it has fetched the metadata that moved t/2 and t/5 to b2. Its
// fetches to the quorum leader, sent into the cut from 10.05 s on, sat in
// the kernel's retransmission queue, and before the quorum fetch closed its
// connection when given up on (as Kafka's NetworkClient does past
// controller.quorum.request.timeout.ms) every later fetch waited behind
// them, until the first retransmission after the heal: 0.2 s × (2⁸ − 1) =
// 51 s after the first, at 61 s. The writes then stalled 21 s past the
// heal. Now a fetch after the heal goes on a new connection, and the
// partitions take writes again by the heal plus the producer's
// request.timeout.ms round (the first ack after the cut is at 40.79 s).
func TestBrokerCutFromTheQuorumCatchesUpAfterTheHeal(t *testing.T) {
	le, err := LoadExperiment(filepath.Join("..", "experiments", "rack-loss-cut.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const (
		cutAt  = 10 * time.Second
		healAt = 40 * time.Second
		// The heal, the producer's retry backoff and reconnect, a
		// fetch retry of the quorum client (1 s) and a few rounds:
		// well short of the 61 s of the bug.
		bound = healAt + 5*time.Second
	)
	res, err := Run(le.Scenario, 4, Options{LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK {
		t.Fatalf("run failed: %v %s", res.Violations, res.Liveness)
	}
	for _, tp := range []string{"t/2", "t/5"} {
		first := time.Duration(-1)
		for _, op := range res.History {
			if op.F != model.FSend || op.Type != model.OpOK || op.TP.String() != tp || op.Time < cutAt {
				continue
			}
			if first < 0 || op.End < first {
				first = op.End
			}
		}
		if first < 0 {
			t.Fatalf("%s: no write invoked after the cut was acknowledged", tp)
		}
		if first <= healAt {
			t.Fatalf("%s: a write invoked after the cut was acknowledged at %v, before the heal: b1 no longer leads it when the cut comes, and the test no longer tests the stall", tp, first)
		}
		if first > bound {
			t.Errorf("%s: the first write invoked after the cut was acknowledged at %v, after heal + 5 s = %v: b1 learned late that it lost the partition", tp, first, bound)
		}
		t.Logf("%s: first acknowledged at %v", tp, first)
	}
}
