package checkers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"kafkasim/model"
)

// Valid is a run's verdict, a small string enum like porcupine's.
type Valid string

const (
	// ValidOK: nothing the configuration forbids was found, and every
	// check finished.
	ValidOK Valid = "ok"
	// ValidViolation: at least one violation the configuration forbids.
	ValidViolation Valid = "violation"
	// ValidUnknown: nothing forbidden was found, but a check ran out of
	// time; this is never a pass.
	ValidUnknown Valid = "unknown"
)

// The checkers, as named in a Violation.
const (
	CheckerAnomalies       = "anomalies"
	CheckerLinearizability = "linearizability"
	CheckerReplicas        = "replicas"
	CheckerGroups          = "groups"
	CheckerQuorum          = "quorum" // the metadata quorum (quorum.go)
	// CheckerSimulation names no checker: the run itself stopped because
	// the simulated cluster's code, or the harness, panicked (Panic).
	CheckerSimulation = "simulation"
)

// Anomaly names. The history anomalies are Jepsen's (jepsen_keys.go maps them); the
// rest name the invariant that broke.
const (
	LostWrite           = "lost-write"
	Unseen              = "unseen"
	Duplicate           = "duplicate"
	InconsistentOffsets = "inconsistent-offsets"
	PollSkip            = "poll-skip"
	NonmonotonicPoll    = "nonmonotonic-poll"
	IntPollSkip         = "int-poll-skip"
	IntNonmonotonicPoll = "int-nonmonotonic-poll"
	NonmonotonicSend    = "nonmonotonic-send"
	AbortedRead         = "aborted-read"
	Phantom             = "phantom"
	// ExactlyOnceOutput: a consume-transform-produce pipeline's output
	// is missing, duplicated or from an aborted transaction
	// (exactlyonce.go).
	ExactlyOnceOutput = "exactly-once-output"

	Nonlinearizable = "nonlinearizable"

	ReplicaDivergence  = "replica-divergence"   // replicas disagree below the high watermark
	HWRegression       = "hw-regression"        // a high watermark moved back
	ReadAboveHW        = "read-above-hw"        // a consumer got a record no high watermark had covered
	SplitBrain         = "split-brain"          // two leaders in one epoch
	EpochRegression    = "epoch-regression"     // a leader epoch went back
	AckedWriteLost     = "acked-write-lost"     // an acknowledged acks=all write is in no replica
	ReplicaNotRejoined = "replica-not-rejoined" // a replica still outside the ISR after the liveness bound
	// HangingTransaction: after the heal a partition's last stable offset
	// stayed below its high watermark for the whole liveness bound, a
	// transaction left open there that nothing ends (KIP-890's hanging
	// transaction). The liveness phase finds it (scenarios/liveness_txn.go),
	// not a checker of the history.
	HangingTransaction = "hanging-transaction"
	// ReplicaRemovedEarly: a record took a replica out of a partition's
	// replica set while a replica that stays was not in the ISR the same
	// record left (checkers/reassignment.go).
	ReplicaRemovedEarly = "replica-removed-early"

	DoubleOwner          = "double-owner"          // two members owned one partition at once
	CommitRegression     = "commit-regression"     // a committed offset went back without a reset
	GenerationRegression = "generation-regression" // a group's generation went back
	GroupUnseen          = "group-unseen"          // a group never received an acknowledged record
	GroupDuplicate       = "group-duplicate"       // a group received a record twice with no handover between
	PollUnowned          = "poll-unowned"          // a member polled records of a partition it did not own

	QuorumSplitBrain         = "quorum-split-brain"         // two quorum leaders in one epoch
	QuorumEpochRegression    = "quorum-epoch-regression"    // a node's epoch, or the committed log's, went back
	QuorumCommittedChanged   = "quorum-committed-changed"   // two nodes applied different entries at one committed offset
	QuorumAppliedUncommitted = "quorum-applied-uncommitted" // a node applied an entry no high watermark covered
	QuorumHWRegression       = "quorum-hw-regression"       // the metadata high watermark moved back
	MetadataReplayGap        = "metadata-replay-gap"        // a node's replayed metadata is not a prefix of the committed log

	// Panic: the simulated cluster's code or the harness panicked, and the
	// run stopped there. No checker finds it: scenarios.Run turns the
	// panic into this finding, so that a sweep records the seed and goes
	// on, and the run fails as any run with an error does.
	Panic = "panic"
	// EventLimit: the run processed the simulator's event limit before it
	// ended (a livelock, or a run far larger than the limit allows), so
	// what it recorded is cut short. As Panic, scenarios.Run reports it.
	EventLimit = "event-limit"
)

// Promises a violation can break, named for the configuration that makes
// them.
const (
	PromiseDurability    = "acks=all with min.insync.replicas>=2: acknowledged writes survive"
	PromiseIdempotence   = "enable.idempotence: each send is written once"
	PromiseSendOrder     = "enable.idempotence or max.in.flight=1: a producer's sends keep their order"
	PromiseAssignOrder   = "assign: a consumer reads its partitions in order, without gaps"
	PromiseLog           = "a partition is a log: one record per offset, read in offset order"
	PromiseVisibility    = "only records that were sent, and not definitely failed, are visible"
	PromiseReplication   = "replication: replicas agree below the high watermark, which never moves back"
	PromiseRejoin        = "liveness: once every fault has healed, every replica rejoins its partition's ISR within the liveness bound"
	PromiseLeadership    = "leadership: one leader per epoch, epochs only grow"
	PromiseGroups        = "consumer groups: one owner per partition, committed offsets only move forward"
	PromiseGroupDelivery = "consumer groups: each group receives every acknowledged record, again only after a handover"
	PromiseLinearizable  = "each partition is a linearizable log"
	PromiseNoPanic       = "the simulated cluster and the harness never panic"
	PromiseEventLimit    = "a run ends within the simulator's event limit"
	PromiseQuorum        = "metadata quorum: one leader per epoch, epochs only grow, committed entries never change, the high watermark never moves back, every node replays a prefix of the committed log"
)

// A Violation is one anomaly or broken invariant.
type Violation struct {
	Checker   string               `json:"checker"`
	Anomaly   string               `json:"anomaly"`
	Partition model.TopicPartition `json:"partition"`
	Offsets   []model.Offset       `json:"offsets,omitempty"`
	Values    []string             `json:"values,omitempty"`
	Ops       []int                `json:"ops,omitempty"` // indices into the history
	// Error: the configuration promised this cannot happen.
	Error bool `json:"error"`
	// Promise is the promise that broke, when Error; otherwise what allows
	// the violation (for example "enable.idempotence=false").
	Promise string `json:"promise,omitempty"`
	// Detail is one line a person can act on.
	Detail string `json:"detail"`
	// Jepsen is the key Jepsen's Kafka checker files this finding under
	// (jepsen_keys.go), when it has the analysis: "G1a" for aborted-read,
	// otherwise the anomaly's own name.
	Jepsen string `json:"jepsen,omitempty"`
	// JepsenClass is Jepsen's verdict on the finding, JepsenError or
	// JepsenAllowed, when Jepsen is set.
	JepsenClass string `json:"jepsen_class,omitempty"`
	// Txn is what the transactional analyses add (txn.go): a cycle's
	// edges, an internal send's distance in the version order.
	Txn *TxnDetail `json:"txn,omitempty"`
}

// String is the violation on one line.
func (f *Violation) String() string {
	sev := "allowed"
	if f.Error {
		sev = "ERROR"
	}
	return fmt.Sprintf("%s %s/%s %s: %s", sev, f.Checker, f.Anomaly, f.Partition, f.Detail)
}

// PartitionCheck is porcupine's verdict on one partition.
type PartitionCheck struct {
	TP     model.TopicPartition `json:"partition"`
	Ops    int                  `json:"ops"`    // operations given to porcupine
	Result string               `json:"result"` // porcupine's "Ok", "Illegal" or "Unknown"
	// Work is what the search spent, in the work units of
	// Options.LinearizabilityWork: the same on every machine.
	Work int64 `json:"work"`
	// Stopped says what cut an Unknown search short: "work budget" (the
	// same on every machine) or "wall-clock cap" (not).
	Stopped string `json:"stopped,omitempty"`
	// Visualization is the HTML file written for an Illegal partition.
	Visualization string `json:"visualization,omitempty"`
	// Unpromised, when set, is why the configuration did not promise
	// this partition a linearizable log (acks=1, every ISR and ELR
	// replica lost its disk, ...): a finding here would be allowed, so
	// an Unknown here does not make the run unknown (unknownCounts).
	Unpromised string `json:"unpromised,omitempty"`
}

// unknownCounts reports whether c leaves the run's verdict unknown: its
// search was cut short on a partition whose linearizability the
// configuration promised. Where it promised nothing, whatever the search
// would have found is an allowed finding, so no error can hide behind
// the cut.
func (c PartitionCheck) unknownCounts() bool {
	return c.Result == "Unknown" && c.Unpromised == ""
}

// Result is the verdict on a run.
type Result struct {
	Valid      Valid       `json:"valid"`
	Violations []Violation `json:"violations"`
	// Linearizability is porcupine's verdict per partition, in partition
	// order; empty when the check was skipped.
	Linearizability []PartitionCheck `json:"linearizability,omitempty"`
	// Notes explain an Unknown verdict or checks that could not run.
	Notes []string `json:"notes,omitempty"`
}

// Errors returns the violations the configuration forbids.
func (r *Result) Errors() []Violation {
	var out []Violation
	for _, f := range r.Violations {
		if f.Error {
			out = append(out, f)
		}
	}
	return out
}

// Summary is a one-line verdict: "ok", or the count of each anomaly.
func (r *Result) Summary() string {
	if len(r.Violations) == 0 {
		return string(r.Valid)
	}
	counts := map[string]int{}
	var names []string
	for _, f := range r.Violations {
		if counts[f.Anomaly] == 0 {
			names = append(names, f.Anomaly)
		}
		counts[f.Anomaly]++
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s×%d", n, counts[n])
	}
	return string(r.Valid) + ": " + strings.Join(parts, ", ")
}

var checkerRank = map[string]int{
	CheckerAnomalies: 0, CheckerLinearizability: 1, CheckerReplicas: 2, CheckerGroups: 3, CheckerQuorum: 4,
}

// finish sorts the violations into one fixed order (so that two runs of the
// same history print the same report) and sets the verdict.
func (r *Result) finish() {
	sortViolations(r.Violations)
	r.Valid = ValidOK
	for _, c := range r.Linearizability {
		if c.unknownCounts() {
			r.Valid = ValidUnknown
		}
	}
	for _, f := range r.Violations {
		if f.Error {
			r.Valid = ValidViolation
		}
	}
	if r.Violations == nil {
		r.Violations = []Violation{}
	}
}

// sortViolations sorts vs stably by checker, anomaly, partition and
// first offset. A long history holds tens of thousands of findings of a
// few hundred bytes each: it sorts their positions by keys computed once
// (the checker's rank is a map lookup), then moves each finding once.
func sortViolations(vs []Violation) {
	type key struct {
		rank   int
		offset model.Offset
		at     int32 // the position before the sort, which keeps it stable
	}
	keys := make([]key, len(vs))
	for i := range vs {
		keys[i] = key{checkerRank[vs[i].Checker], firstOffset(vs[i].Offsets), int32(i)}
	}
	slices.SortFunc(keys, func(a, b key) int {
		va, vb := &vs[a.at], &vs[b.at]
		if c := cmp.Compare(a.rank, b.rank); c != 0 {
			return c
		}
		if c := cmp.Compare(va.Anomaly, vb.Anomaly); c != 0 {
			return c
		}
		if va.Partition != vb.Partition {
			if va.Partition.Less(vb.Partition) {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(a.offset, b.offset); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	// Move finding keys[i].at to i, following each cycle of the
	// permutation; done marks the positions already filled.
	done := make([]bool, len(vs))
	for i := range vs {
		if done[i] || int(keys[i].at) == i {
			continue
		}
		saved := vs[i]
		j := i
		for {
			done[j] = true
			from := int(keys[j].at)
			if from == i {
				vs[j] = saved
				break
			}
			vs[j] = vs[from]
			j = from
		}
	}
}

func firstOffset(os []model.Offset) model.Offset {
	if len(os) == 0 {
		return model.NoOffset
	}
	return os[0]
}

// listOffsets writes at most a few offsets, so that a violation about a
// thousand records stays one line.
func listOffsets(os []model.Offset) string {
	const max = 8
	var b strings.Builder
	for i, o := range os {
		if i == max {
			fmt.Fprintf(&b, " … (%d in all)", len(os))
			break
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, int64(o))
	}
	return b.String()
}
