package checkers

import (
	"slices"

	"kafkasim/model"
)

// Which checks read more than the history, and what. This table is the one
// place that says it: Check runs the checks below from it, skipping one
// whose input is absent, and Missing derives from it the list a caller
// prints when a check could not run (kafkasim check -history on a bare
// history). A new check that reads replica logs or observations is added
// here, so that it cannot be skipped without a word.

// An InputPart is one part of Input besides the history.
type InputPart int

const (
	PartReplicas       InputPart = iota // Input.Replicas
	PartLeaders                         // Observations.Leaders
	PartHighWatermarks                  // Observations.HighWatermarks
	PartGenerations                     // Observations.Generations
	PartCommitted                       // Observations.Committed
	PartQuorum                          // Observations.Quorum
	PartDiskLost                        // Input.DiskLost
	PartDeletions                       // Observations.Deletions
	PartStranded                        // Input.Stranded
)

// String says what the part is, for a person.
func (p InputPart) String() string {
	switch p {
	case PartReplicas:
		return "the replicas' final logs"
	case PartLeaders:
		return "the leaders observed per epoch"
	case PartHighWatermarks:
		return "the high watermarks observed"
	case PartGenerations:
		return "the generations the group coordinators completed"
	case PartCommitted:
		return "the committed offsets the group coordinators held"
	case PartQuorum:
		return "the metadata quorum's reports"
	case PartDiskLost:
		return "the partitions where every ISR and ELR replica lost its disk"
	case PartDeletions:
		return "the topic deletions committed"
	case PartStranded:
		return "the partitions Kafka's controller left without a leader it may elect"
	}
	return "an unknown input part"
}

// Has reports whether the input holds anything of part p. An empty part is
// absent: a check that reads it has nothing to judge.
func (in *Input) Has(p InputPart) bool {
	o := &in.Observations
	switch p {
	case PartReplicas:
		return len(in.Replicas) > 0
	case PartLeaders:
		return len(o.Leaders) > 0
	case PartHighWatermarks:
		return len(o.HighWatermarks) > 0
	case PartGenerations:
		return len(o.Generations) > 0
	case PartCommitted:
		return len(o.Committed) > 0
	case PartQuorum:
		q := &o.Quorum
		return len(q.Leaders)+len(q.HighWatermarks)+len(q.Applied)+len(q.Snapshots) > 0
	case PartDiskLost:
		return len(in.DiskLost) > 0
	case PartDeletions:
		return len(o.Deletions) > 0
	case PartStranded:
		return len(in.Stranded) > 0
	}
	return false
}

// A Requirement is one check, or one excuse of findings, that reads more
// than the history.
type Requirement struct {
	// Name is what a person calls the check ("replica agreement").
	Name string
	// Anomalies are what it reports or, for an excuse, what it excuses.
	Anomalies []string
	// Needs are the input parts it reads. A check runs only when every
	// one is present; an excuse applies only then.
	Needs []InputPart
	// Excuse: not a check but a rule that allows findings the data it
	// reads explains; without that data the findings stay errors.
	Excuse bool
}

// clusterChecks are the checks Check runs after linearizability, in their
// report order. Those with no Needs judge the history alone; they sit in
// the table so that the order stays the one the report has always had.
type clusterCheck struct {
	Requirement
	run func(a *analysis, in *Input, opts *Options) []Violation
}

var clusterChecks = []clusterCheck{
	{Requirement{Name: "replica agreement", Anomalies: []string{ReplicaDivergence, InconsistentOffsets, AckedWriteLost, ReplicaNotRejoined, ReplicaRemovedEarly}, Needs: []InputPart{PartReplicas}},
		func(a *analysis, in *Input, opts *Options) []Violation { return a.replicaLogs(in, opts) }},
	{Requirement{Name: "high-watermark monotonicity", Anomalies: []string{HWRegression, ReadAboveHW}, Needs: []InputPart{PartHighWatermarks}},
		func(a *analysis, in *Input, _ *Options) []Violation {
			return a.highWatermarks(in.Observations.HighWatermarks, incarnations(in.Observations.Deletions))
		}},
	{Requirement{Name: "leader-epoch uniqueness", Anomalies: []string{SplitBrain, EpochRegression}, Needs: []InputPart{PartLeaders}},
		func(_ *analysis, in *Input, _ *Options) []Violation {
			return leaders(in.Observations.Leaders, incarnations(in.Observations.Deletions))
		}},
	{Requirement{Name: "partition ownership"},
		func(a *analysis, in *Input, opts *Options) []Violation {
			if !a.hasOther(model.FRebalance) {
				return nil // no one gained a partition: nothing owned
			}
			return owners(in.History, opts)
		}},
	{Requirement{Name: "group commits"},
		func(a *analysis, in *Input, _ *Options) []Violation {
			if !a.hasOther(model.FCommit) {
				return nil // no commit to judge
			}
			return commits(in.History)
		}},
	{Requirement{Name: "coordinator commit durability", Anomalies: []string{CommitRegression}, Needs: []InputPart{PartCommitted}},
		func(_ *analysis, in *Input, _ *Options) []Violation {
			return coordinatorCommits(in.Observations.Committed, in.History)
		}},
	{Requirement{Name: "generation monotonicity", Anomalies: []string{GenerationRegression, DoubleOwner}, Needs: []InputPart{PartGenerations}},
		func(_ *analysis, in *Input, _ *Options) []Violation { return generations(in.Observations.Generations) }},
	{Requirement{Name: "group delivery"},
		func(a *analysis, in *Input, opts *Options) []Violation { return a.groupDelivery(opts, in.Replicas) }},
	{Requirement{Name: "metadata quorum", Anomalies: []string{QuorumSplitBrain, QuorumEpochRegression, QuorumCommittedChanged, QuorumAppliedUncommitted, QuorumHWRegression, MetadataReplayGap}, Needs: []InputPart{PartQuorum}},
		func(_ *analysis, in *Input, _ *Options) []Violation { return quorum(&in.Observations.Quorum) }},
}

// excuses are the rules that allow findings given what the input says.
// The retention excuse is applied inside lostAndUnseen and groupUnseen
// (each reads the replicas' log starts); the disk-loss and stranded
// excuses by Check.
var excuses = []Requirement{
	{Name: "records retention deleted are not lost", Anomalies: []string{LostWrite, Unseen, GroupUnseen}, Needs: []InputPart{PartReplicas}, Excuse: true},
	{Name: "acknowledged writes are not promised where every ISR and ELR replica lost its disk", Anomalies: lossConsequences, Needs: []InputPart{PartDiskLost}, Excuse: true},
	{Name: "a deleted topic's acknowledged writes are not promised", Anomalies: deletionConsequences, Needs: []InputPart{PartDeletions}, Excuse: true},
	{Name: "no recovery is promised where Kafka left no electable leader", Anomalies: strandedConsequences, Needs: []InputPart{PartStranded}, Excuse: true},
}

// runClusterChecks runs the table in order, each check whose input is
// present.
func (a *analysis) runClusterChecks(in *Input, opts *Options) []Violation {
	var out []Violation
	for i := range clusterChecks {
		c := &clusterChecks[i]
		if in.hasAll(c.Needs) {
			out = append(out, c.run(a, in, opts)...)
		}
	}
	return out
}

func (in *Input) hasAll(parts []InputPart) bool {
	for _, p := range parts {
		if !in.Has(p) {
			return false
		}
	}
	return true
}

// Requirements lists every check and excuse that reads more than the
// history, in report order, excuses last.
func Requirements() []Requirement {
	var out []Requirement
	for _, c := range clusterChecks {
		if len(c.Needs) > 0 {
			out = append(out, c.Requirement.clone())
		}
	}
	for _, e := range excuses {
		out = append(out, e.clone())
	}
	return out
}

// Missing lists the requirements in has nothing for: the checks Check could
// not run on it and the excuses it could not apply.
func Missing(in *Input) []Requirement {
	var out []Requirement
	for _, r := range Requirements() {
		if !in.hasAll(r.Needs) {
			out = append(out, r)
		}
	}
	return out
}

// MissingParts are the parts of r's needs that in lacks.
func (r *Requirement) MissingParts(in *Input) []InputPart {
	var out []InputPart
	for _, p := range r.Needs {
		if !in.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

func (r Requirement) clone() Requirement {
	r.Anomalies = slices.Clone(r.Anomalies)
	r.Needs = slices.Clone(r.Needs)
	return r
}
