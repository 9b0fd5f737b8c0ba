package checkers

import (
	"slices"
	"testing"

	"kafkasim/model"
)

// TestEveryRequirementIsWhatItsCheckReads takes each check and excuse of
// the table in needs.go and shows that it acts on the part of the input it
// declares: with the part, the check catches its anomaly (or the excuse
// allows its finding), and Missing does not list it; with the part taken
// away, the finding goes (or stays an error), and Missing names the
// requirement and the part. A requirement added to the table without a
// case here fails the test.
func TestEveryRequirementIsWhatItsCheckReads(t *testing.T) {
	divergent := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: ovs(0, "a", 1, "b")},
		{Broker: 2, TP: t0, HW: 2, Records: ovs(0, "a", 1, "y")},
	}
	// b at 1 is read, a at 0 is not: lost, unless retention deleted it.
	retained := hist(sendOK(0, t0, "a", 0, 0, 1), sendOK(0, t0, "b", 1, 1, 2), poll(1, 3, 4, recs(t0, 1, "b")))
	// Two acknowledged sends at one offset.
	twice := hist(sendOK(0, t0, "a", 0, 0, 1), sendOK(0, t0, "b", 0, 1, 2), poll(1, 3, 4, recs(t0, 0, "b")))
	cases := []struct {
		name    string
		in      Input
		part    InputPart
		anomaly string
		// excuse: the part turns an error into an allowed finding (or
		// removes it) instead of producing it.
		excuse bool
	}{
		{"replica agreement", Input{History: acked(), Replicas: divergent}, PartReplicas, ReplicaDivergence, false},
		{"high-watermark monotonicity", Input{History: acked(), Observations: model.Observations{HighWatermarks: []model.HWObservation{
			{Time: ms(2), TP: t0, Broker: 1, HW: 2}, {Time: ms(5), TP: t0, Broker: 1, HW: 1}}}}, PartHighWatermarks, HWRegression, false},
		{"leader-epoch uniqueness", Input{History: acked(), Observations: model.Observations{Leaders: []model.LeaderObservation{
			{Time: ms(0), TP: t0, Epoch: 1, Leader: 1}, {Time: ms(1), TP: t0, Epoch: 1, Leader: 2}}}}, PartLeaders, SplitBrain, false},
		{"coordinator commit durability", Input{History: acked(), Observations: model.Observations{Committed: []model.CommittedObservation{
			{Time: ms(1), Broker: 1, Group: "g", TP: t0, Offset: 5}, {Time: ms(2), Broker: 2, Group: "g", TP: t0, Offset: 3}}}}, PartCommitted, CommitRegression, false},
		{"generation monotonicity", Input{History: acked(), Observations: model.Observations{Generations: []model.GenerationObservation{
			{Time: ms(0), Group: "g", Generation: 2}, {Time: ms(5), Group: "g", Generation: 1}}}}, PartGenerations, GenerationRegression, false},
		{"metadata quorum", Input{History: acked(), Observations: model.Observations{Quorum: model.QuorumObservations{Voters: []model.BrokerID{100, 101},
			Leaders: []model.QuorumLeaderObservation{{Time: ms(1), Node: 100, Epoch: 1}, {Time: ms(2), Node: 101, Epoch: 1}}}}}, PartQuorum, QuorumSplitBrain, false},
		{"records retention deleted are not lost", Input{History: retained, Replicas: []ReplicaLog{
			{Broker: 1, TP: t0, LogStart: 1, HW: 2, Records: ovs(1, "b")}}}, PartReplicas, LostWrite, true},
		{"acknowledged writes are not promised where every ISR and ELR replica lost its disk", Input{History: twice, DiskLost: []model.TopicPartition{t0}}, PartDiskLost, InconsistentOffsets, true},
		{"a deleted topic's acknowledged writes are not promised", Input{History: twice, Observations: model.Observations{
			Deletions: []model.TopicDeletionObservation{{Time: 1, Topic: t0.Topic, Offset: 9}}}}, PartDeletions, InconsistentOffsets, true},
		{"no recovery is promised where Kafka left no electable leader", Input{History: acked(), Replicas: []ReplicaLog{
			{Broker: 1, TP: t0, HW: 0, OutOfSync: true, NeverRejoined: true}}, Stranded: []model.TopicPartition{t0}}, PartStranded, ReplicaNotRejoined, true},
	}
	opts := Options{Idempotent: true, LinearizabilityBudget: -1}
	isError := func(r Result, anomaly string) bool {
		return slices.ContainsFunc(r.Violations, func(v Violation) bool { return v.Anomaly == anomaly && v.Error })
	}
	listed := func(in *Input, name string) (Requirement, bool) {
		for _, r := range Missing(in) {
			if r.Name == name {
				return r, true
			}
		}
		return Requirement{}, false
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
		with := c.in
		without := c.in
		switch c.part {
		case PartReplicas:
			without.Replicas = nil
		case PartHighWatermarks:
			without.Observations.HighWatermarks = nil
		case PartLeaders:
			without.Observations.Leaders = nil
		case PartCommitted:
			without.Observations.Committed = nil
		case PartGenerations:
			without.Observations.Generations = nil
		case PartQuorum:
			without.Observations.Quorum = model.QuorumObservations{}
		case PartDiskLost:
			without.DiskLost = nil
		case PartDeletions:
			without.Observations.Deletions = nil
		case PartStranded:
			without.Stranded = nil
		}
		rWith, rWithout := check(t, with, opts), check(t, without, opts)
		if got, want := isError(rWith, c.anomaly), !c.excuse; got != want {
			t.Errorf("%s: with %s, %s an error: %v, want %v\n%s", c.name, c.part, c.anomaly, got, want, dump(rWith))
		}
		if got, want := isError(rWithout, c.anomaly), c.excuse; got != want {
			t.Errorf("%s: without %s, %s an error: %v, want %v\n%s", c.name, c.part, c.anomaly, got, want, dump(rWithout))
		}
		if _, ok := listed(&with, c.name); ok {
			t.Errorf("%s: listed as missing although the input has %s", c.name, c.part)
		}
		req, ok := listed(&without, c.name)
		if !ok {
			t.Errorf("%s: not listed as missing without %s; missing: %v", c.name, c.part, Missing(&without))
			continue
		}
		if parts := req.MissingParts(&without); !slices.Equal(parts, []InputPart{c.part}) {
			t.Errorf("%s: missing parts %v, want [%s]", c.name, parts, c.part)
		}
		if req.Excuse != c.excuse || !slices.Contains(req.Anomalies, c.anomaly) {
			t.Errorf("%s: requirement %+v should name %s (excuse %v)", c.name, req, c.anomaly, c.excuse)
		}
	}
	for _, r := range Requirements() {
		if !covered[r.Name] {
			t.Errorf("requirement %q has no case here", r.Name)
		}
	}
}

// TestAHistoryAloneMissesEveryRequirement: a bare history holds none of the
// parts, so every check and excuse of the table is missing, each with a
// part a person can read.
func TestAHistoryAloneMissesEveryRequirement(t *testing.T) {
	in := Input{History: acked()}
	missing := Missing(&in)
	if len(missing) != len(Requirements()) || len(missing) < 8 {
		t.Fatalf("missing %d of %d requirements", len(missing), len(Requirements()))
	}
	for _, r := range missing {
		for _, p := range r.MissingParts(&in) {
			if p.String() == "an unknown input part" {
				t.Errorf("%s: part %d has no description", r.Name, p)
			}
		}
	}
}
