package scenarios

import (
	"fmt"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/txn"
	"kafkasim/scenarios/fixture"
)

// eosPipeline is exactly-once consume-transform-produce (KIP-447) under
// crashes: the fixture's pipeline (two workers in group eos reading
// eos-in and writing eos-out in transactions, fixture.EOSSpec) while,
// every 3 to 8 s, a worker, the group's coordinator, a worker's
// transaction coordinator or a partition's leader crashes for 2 to 12 s,
// or a worker is cut from the cluster (its session and its transaction
// may expire meanwhile: the zombie KIP-447's generation check fences).
// The exactly-once checker judges the output; the liveness phase asks
// the committed output to catch up with the input (eosStuck).
func eosPipeline() Scenario {
	eos := fixture.EOSSpec{}
	var faults []string
	faults = append(faults, "crash member-of eos", "partition isolate member-of eos", "crash coordinator-of eos", "crash leader-of {partition}")
	seen := map[int32]bool{}
	for _, id := range eos.TxnIDs() {
		p := txn.PartitionFor(id, eosConfig().Txn.StateLogPartitions)
		if !seen[p] {
			seen[p] = true
			faults = append(faults, fmt.Sprintf("crash leader-of %s/%d", model.TransactionStateTopic, p))
		}
	}
	return Scenario{
		Name:          "eos-pipeline",
		Description:   "exactly-once consume-transform-produce workers under crashes of the workers, their group and transaction coordinators and partition leaders",
		Config:        eosConfig,
		Spec:          fixture.Spec{EOS: &eos},
		Writer:        spacedWriter("eos-pipeline", 3*time.Second, 8*time.Second, faults...),
		Safety:        60 * time.Second,
		LivenessBound: 90 * time.Second,
	}
}

// eosConfig is txn-chaos's configuration (the shaped scenarios' group
// timings, read_committed consumers, three __transaction_state
// partitions, transaction.timeout.ms of 10 s, Kafka Streams' exactly-once
// setting).
func eosConfig() model.Config { return txnConfig() }
