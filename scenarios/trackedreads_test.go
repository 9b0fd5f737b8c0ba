package scenarios

import (
	"testing"

	"kafkasim/checkers"
	"kafkasim/nodes/broker"
	"kafkasim/nodes/client"
)

// TestTrackedReadsMatchFullReads runs scenarios with fetch sessions under
// broker.CheckIncremental and client.CheckIncremental: every read of a
// tracked session's dirty partitions is checked against a read of all of
// them, and a partition the session holds clean that a read would answer
// panics the run; every consumer fetch built from the partitions that
// changed is checked against one built from all of them. It is how a
// change the broker forgets to tell its sessions (fetchsession.Cache.
// Changed), or the consumer its fetches (fetchChanged), shows up as a
// failure rather than as a fetcher answered or asked differently.
func TestTrackedReadsMatchFullReads(t *testing.T) {
	if testing.Short() {
		t.Skip("runs several whole scenarios")
	}
	broker.CheckIncremental, client.CheckIncremental = true, true
	defer func() { broker.CheckIncremental, client.CheckIncremental = false, false }()
	for _, name := range []string{"chaos", "leader-failover", "topics-under-chaos", "coordinator-failover", "reassign-under-chaos", "kip279-divergence", "slow-follower", "txn-chaos", "eos-pipeline"} {
		sc, ok := Find(name)
		if !ok {
			continue // a scenario this tree does not have
		}
		for seed := uint64(24100); seed < 24102; seed++ {
			res, err := Run(sc, seed, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range res.Violations {
				if v.Anomaly == checkers.Panic {
					t.Errorf("%s seed %d: %s", name, seed, v.Detail)
				}
			}
		}
	}
}
