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
	// analyzeValid validates the history in its first pass over it.
	a, err := analyzeValid(in.History)
	if err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("history not judged: %v", err))
		r.finish()
		r.Valid = ValidUnknown
		return r
	}
	procs := a.byProcess()
	r.Violations = append(r.Violations, a.inconsistentOffsets()...)
	r.Violations = append(r.Violations, a.duplicates(&opts)...)
	r.Violations = append(r.Violations, a.visibility()...)
	r.Violations = append(r.Violations, a.lostAndUnseen(&opts, in.Replicas)...)
	r.Violations = append(r.Violations, a.pollOrder(&opts, procs)...)
	r.Violations = append(r.Violations, a.sendOrder(&opts, procs)...)
	r.Violations = append(r.Violations, a.transactions(&opts)...)   // txn.go: nothing without multi-op operations
	r.Violations = append(r.Violations, exactlyOnce(in.History)...) // exactlyonce.go: nothing without pipeline transactions

	a.linearizability(&opts, &r)

	// The replica, group and quorum checks, each run only when the input
	// holds what it reads (needs.go says what that is).
	r.Violations = append(r.Violations, a.runClusterChecks(&in, &opts)...)
	excuseDiskLost(r.Violations, in.DiskLost)
	excuseStranded(r.Violations, in.Stranded)
	unpromiseDiskLost(r.Linearizability, in.DiskLost)
	deleted := deletedTopics(in.Observations.Deletions)
	excuseDeleted(r.Violations, deleted)
	unpromiseDeleted(r.Linearizability, deleted)
	for _, c := range r.Linearizability {
		if c.Result == "Unknown" && !c.unknownCounts() {
			r.Notes = append(r.Notes, fmt.Sprintf("linearizability of %s: its unknown leaves the verdict as it is, since a finding there would be allowed (%s)", c.TP, c.Unpromised))
		}
	}
	classifyJepsen(r.Violations, &opts)
	r.finish()
	if r.Valid == ValidOK && nothingToJudge(&in) {
		// kafka.clj's checker does not pass a history in which nothing
		// happened (empty-history-test): neither does kafkasim.
		r.Valid = ValidUnknown
		r.Notes = append(r.Notes, "nothing to judge: no send, poll, commit, rebalance, seek or reset completed, and there are no replica logs or observations")
	}
	return r
}

// nothingToJudge reports whether the input holds no evidence at all: no
// operation that a check judges completed (an empty history, one of
// invocations only, or one of assigns and subscribes), and no replica
// logs or cluster observations came with it.
func nothingToJudge(in *Input) bool {
	for i := range in.History {
		op := &in.History[i]
		if op.Completed() && op.F != model.FAssign && op.F != model.FSubscribe {
			return false
		}
	}
	if len(in.Observations.ISRs) > 0 {
		return false
	}
	for p := PartReplicas; p <= PartQuorum; p++ {
		if in.Has(p) {
			return false
		}
	}
	return true
}

// CheckAnomalies runs only the history anomaly checks (no porcupine, no
// invariants): the fast path for very long histories.
func CheckAnomalies(h model.History, opts Options) Result {
	opts.LinearizabilityBudget = -1
	return Check(Input{History: h}, opts)
}
