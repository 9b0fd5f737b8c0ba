package checkers

import (
	"fmt"

	"kafkasim/model"
)

// Check judges a run: the Jepsen-style anomaly checks and porcupine over
// the history, the replica invariants over the final logs and
// observations, the group invariants and the metadata quorum's. Every anomaly found is reported;
// Valid and each violation's Error say whether the configuration in opts
// forbids it.
//
// The history must be valid (model.History.Validate; ReadHistory and
// ReadJepsenEDN only return valid ones). An invalid one is not judged: the
// result is Unknown with a note saying why.
func Check(in Input, opts Options) Result {
	var r Result
	if err := in.History.Validate(); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("history not judged: %v", err))
		r.finish()
		r.Valid = ValidUnknown
		return r
	}
	a := analyze(in.History)
	procs := a.byProcess()
	r.Violations = append(r.Violations, a.inconsistentOffsets()...)
	r.Violations = append(r.Violations, a.duplicates(&opts)...)
	r.Violations = append(r.Violations, a.visibility()...)
	r.Violations = append(r.Violations, a.lostAndUnseen(&opts, in.Replicas)...)
	r.Violations = append(r.Violations, a.pollOrder(&opts, procs)...)
	r.Violations = append(r.Violations, a.sendOrder(&opts, procs)...)
	r.Violations = append(r.Violations, a.transactions(&opts)...) // txn.go: nothing without multi-op operations

	a.linearizability(&opts, &r)

	r.Violations = append(r.Violations, a.replicaLogs(&in, &opts)...)
	r.Violations = append(r.Violations, a.highWatermarks(in.Observations.HighWatermarks)...)
	r.Violations = append(r.Violations, leaders(in.Observations.Leaders)...)

	r.Violations = append(r.Violations, owners(in.History)...)
	r.Violations = append(r.Violations, commits(in.History)...)
	r.Violations = append(r.Violations, coordinatorCommits(in.Observations.Committed, in.History)...)
	r.Violations = append(r.Violations, generations(in.Observations.Generations)...)
	r.Violations = append(r.Violations, a.groupDelivery(&opts, in.Replicas)...)
	r.Violations = append(r.Violations, quorum(&in.Observations.Quorum)...)
	excuseDiskLost(r.Violations, in.DiskLost)
	r.finish()
	return r
}

// CheckAnomalies runs only the history anomaly checks (no porcupine, no
// invariants): the fast path for very long histories.
func CheckAnomalies(h model.History, opts Options) Result {
	opts.LinearizabilityBudget = -1
	return Check(Input{History: h}, opts)
}
