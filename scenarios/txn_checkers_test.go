package scenarios

import (
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// txnJudged runs the transactional workload without faults, its consumer
// at isolation.level iso, and returns the result: the history as the
// checkers judged it.
func txnJudged(t *testing.T, iso string) Result {
	t.Helper()
	sc := Scenario{Name: "txn-judged", Config: txnConfig, Spec: fixture.Spec{Shape: realistic(), Txn: &fixture.TxnSpec{}},
		Safety: 15 * time.Second, LivenessBound: 30 * time.Second}
	res, err := Run(sc, 7, Options{Set: []string{"isolation.level=" + iso}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// The checkers' transactional analyses judge a transactional producer's
// history: every transaction is one operation (model.Op.Txn), aborted
// ones fail. A read_committed consumer reads no aborted record and the
// run is valid, although aborted records are in the log: the
// read_uncommitted run beside it reads them, and the checker names them
// aborted reads (G1a). (Without the consumer's filter of aborted
// transactions, fetch_isolation.go, the read_committed run fails the
// same way.)
func TestTransactionalHistoriesAreJudged(t *testing.T) {
	committed := txnJudged(t, "read_committed")
	ops := map[int]model.OpType{}
	for _, op := range committed.History {
		if op.Txn > 0 {
			ops[op.Txn] = op.Type
		}
	}
	n := map[model.OpType]int{}
	for _, ty := range ops {
		n[ty]++
	}
	if n[model.OpOK] < 20 || n[model.OpFail] < 5 {
		t.Fatalf("transactions by outcome %v: want many committed and some aborted", n)
	}
	if !committed.OK {
		for _, v := range committed.Violations {
			if v.Error {
				t.Errorf("read_committed: %s %s", v.Anomaly, v.Detail)
			}
		}
		t.Fatalf("read_committed run not ok (liveness %q)", committed.Liveness)
	}
	uncommitted := txnJudged(t, "read_uncommitted")
	aborted := 0
	for _, v := range uncommitted.Violations {
		if v.Anomaly == checkers.AbortedRead && v.Error && v.Partition.Topic == "txn" {
			aborted++
		}
	}
	if aborted == 0 {
		t.Fatalf("read_uncommitted read aborted transactions' records, but no aborted-read was found: %d violations", len(uncommitted.Violations))
	}
	t.Logf("read_uncommitted: %d aborted reads found", aborted)
}
