package checkers

// Jepsen's names for the findings, and its verdict on each.
//
// Jepsen's Kafka checker (jepsen/src/jepsen/tests/kafka.clj, analysis)
// files every error under a key, and its checker counts a key against
// validity unless allowed-error-types lists it for the test. kafkasim
// reports the same analyses; each finding carries Jepsen's key and
// Jepsen's classification beside kafkasim's own, which also weighs the
// configuration's promises (Violation.Error). Where the two disagree the
// README says why.

// jepsenKeys maps a kafkasim anomaly to Jepsen's key for it. Anomalies
// Jepsen has no analysis for (phantom, the replica, group and quorum
// invariants, linearizability) have no key.
var jepsenKeys = map[string]string{
	LostWrite:           "lost-write",
	Unseen:              "unseen",
	Duplicate:           "duplicate",
	InconsistentOffsets: "inconsistent-offsets",
	PollSkip:            "poll-skip",
	NonmonotonicPoll:    "nonmonotonic-poll",
	IntPollSkip:         "int-poll-skip",
	IntNonmonotonicPoll: "int-nonmonotonic-poll",
	NonmonotonicSend:    "nonmonotonic-send",
	AbortedRead:         "G1a", // kafka.clj g1a-cases; kafkasim calls it aborted-read
	// The transactional analyses (kafka.clj int-send-skip+nonmonotonic-cases,
	// precommitted-read-cases, cycles!) are named as Jepsen names them.
	"int-send-skip":         "int-send-skip",
	"int-nonmonotonic-send": "int-nonmonotonic-send",
	"precommitted-read":     "precommitted-read",
	"G0":                    "G0",
	"G1c":                   "G1c",
}

// Jepsen's classification of a finding.
const (
	JepsenError   = "error"   // counted against validity
	JepsenAllowed = "allowed" // listed in allowed-error-types for the test
)

// jepsenAllowed reports whether Jepsen's allowed-error-types lets key pass
// for a test run with these options: int-send-skip and G0 always (writes
// are not isolated in Kafka's transaction model), poll-skip and
// nonmonotonic-poll with subscribe (a rebalance may move the consumer).
// Jepsen also allows G1c when the test inferred write-write edges
// (:ww-deps). kafkasim always infers them, so a G1c cycle through a ww
// edge (one only a :ww-deps test finds) is allowed, and one of wr edges
// only (which Jepsen finds without :ww-deps, and calls an error) is not
// (cycles.go).
func jepsenAllowed(key string, opts *Options) bool {
	switch key {
	case "int-send-skip", "G0", "G0-process", "G0-realtime":
		return true
	case "poll-skip", "nonmonotonic-poll":
		return opts.Subscribe
	}
	return false
}

// classifyJepsen fills in each violation's Jepsen key and classification.
func classifyJepsen(vs []Violation, opts *Options) {
	for i := range vs {
		v := &vs[i]
		if v.Checker != CheckerAnomalies {
			continue
		}
		key, ok := jepsenKeys[v.Anomaly]
		if !ok {
			continue
		}
		v.Jepsen, v.JepsenClass = key, JepsenError
		if jepsenAllowed(key, opts) || key == G1c && v.Txn.hasWW() {
			v.JepsenClass = JepsenAllowed
		}
	}
}
