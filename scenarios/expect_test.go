package scenarios

import (
	"testing"

	"kafkasim/checkers"
)

// TestExpectReadsAndWritesTheFileForm: "pass", nothing and every anomaly
// the checkers name are read, and written back as they were; any other
// word is refused with the list.
func TestExpectReadsAndWritesTheFileForm(t *testing.T) {
	for _, word := range append([]string{"pass"}, checkers.AnomalyNames()...) {
		e, err := ParseExpect(word)
		if err != nil || e.Word() != word {
			t.Errorf("%q: read as %q (%v), written back as %q", word, e, err, e.Word())
		}
	}
	if e, err := ParseExpect(""); err != nil || e != Pass {
		t.Errorf("nothing: %q, %v; want Pass", e, err)
	}
	if _, err := ParseExpect("lost-writes"); err == nil {
		t.Error("lost-writes: accepted")
	}
}

// TestExpectIsMetByItsAnomalyAndItsFamilyOnly: a bug scenario is as
// expected when its anomaly is named and every other error is of its
// family; a scenario that must pass, when the run passed.
func TestExpectIsMetByItsAnomalyAndItsFamilyOnly(t *testing.T) {
	found := func(anomalies ...string) Result {
		var r Result
		for _, a := range anomalies {
			r.Violations = append(r.Violations, checkers.Violation{Anomaly: a, Error: true})
		}
		r.OK = len(anomalies) == 0
		return r
	}
	for _, tc := range []struct {
		expect Expect
		res    Result
		met    bool
	}{
		{Pass, found(), true},
		{Pass, found(checkers.LostWrite), false},
		{checkers.AckedWriteLost, found(), false},
		{checkers.AckedWriteLost, found(checkers.AckedWriteLost), true},
		{checkers.AckedWriteLost, found(checkers.AckedWriteLost, checkers.LostWrite, checkers.ReplicaDivergence), true},
		{checkers.AckedWriteLost, found(checkers.LostWrite), false},
		{checkers.AckedWriteLost, found(checkers.AckedWriteLost, checkers.SplitBrain), false},
		{checkers.AckedWriteLost, found(checkers.AckedWriteLost, checkers.PollUnowned), false},
		{checkers.DoubleOwner, found(checkers.DoubleOwner, checkers.PollUnowned, checkers.LostWrite), true},
		{checkers.DoubleOwner, found(checkers.DoubleOwner, checkers.QuorumSplitBrain), false},
	} {
		if got := tc.expect.MetBy(tc.res); got != tc.met {
			t.Errorf("expect %q, found %v: met %v, want %v", tc.expect, tc.res.Violations, got, tc.met)
		}
	}
	// An allowed finding of another kind does not spoil a bug's replay.
	r := found(checkers.AckedWriteLost)
	r.Violations = append(r.Violations, checkers.Violation{Anomaly: checkers.SplitBrain})
	if !Expect(checkers.AckedWriteLost).MetBy(r) {
		t.Error("an allowed split-brain beside the expected acked-write-lost: not met")
	}
}
