package reports

import (
	"strconv"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// Summary accumulates a sweep's results one at a time, as they finish,
// into what its report and tables show: per group the counts, the
// anomalies, and a bounded sample of each failover metric; the first
// failing runs of scenarios that must pass; the first run that had a
// failover. Its memory grows with the number of groups, not of runs, so a
// sweep of a million seeds reports in the same memory as one of forty.
type Summary struct {
	groups []*Group
	at     map[string]int
	first  string // the first run's scenario
	mixed  bool   // runs of more than one scenario
	runs   int
	// failing are the first failingShown failing runs of scenarios that
	// must pass; moreFailing counts the rest.
	failing     []scenarios.Result
	moreFailing int
	mustFail    bool // some run of a scenario that must pass failed
	// shown says, per bug scenario, whether some run showed its anomaly;
	// shownRuns counts the runs that did.
	shown         map[string]bool
	shownRuns     int
	firstFailover *scenarios.Result
	controllers   bool
	unknown       bool // some run's verdict was unknown
	// prov are the distinct settings, schedules and builds of the runs.
	prov Provenance
	// rows are the first runRowsCap runs' rows; moreRows counts the rest.
	rows     []RunRow
	moreRows int
}

// NewSummary is an empty summary.
func NewSummary() *Summary {
	return &Summary{at: map[string]int{}, shown: map[string]bool{}}
}

// failingViolations bounds the violations a kept failing run holds: the
// report lists a few per run, and a run may have thousands.
const failingViolations = 5

// Add folds one run's result in.
func (s *Summary) Add(r scenarios.Result) {
	if s.runs == 0 {
		s.first = r.Scenario
	}
	s.runs++
	s.prov.Add(r)
	if r.Valid == checkers.ValidUnknown {
		s.unknown = true
	}
	s.mixed = s.mixed || r.Scenario != s.first
	key := r.Scenario + "\x00" + r.Vary
	i, ok := s.at[key]
	if !ok {
		i = len(s.groups)
		s.at[key] = i
		s.groups = append(s.groups, newGroup(r))
	}
	s.groups[i].add(r)
	if len(s.rows) < runRowsCap {
		s.rows = append(s.rows, rowOf(r))
	} else {
		s.moreRows++
	}
	s.controllers = s.controllers || len(r.ControllerFailovers) > 0
	if r.Expected != "" {
		s.shown[r.Scenario] = s.shown[r.Scenario] || r.AsExpected
		if r.AsExpected {
			s.shownRuns++
		}
	} else if !r.OK {
		s.mustFail = true
		if len(s.failing) < failingShown {
			s.failing = append(s.failing, slim(r))
		} else {
			s.moreFailing++
		}
	}
	if s.firstFailover == nil && len(r.Failovers) > 0 {
		f := slim(r)
		s.firstFailover = &f
	}
}

// slim is r with only its first few error-level violations.
func slim(r scenarios.Result) scenarios.Result {
	var vs []checkers.Violation
	for _, v := range r.Violations {
		if v.Error && len(vs) < failingViolations {
			vs = append(vs, v)
		}
	}
	r.Violations = vs
	r.History, r.Observed, r.Faults, r.Replicas, r.DiskLost = nil, model.Observations{}, nil, nil, nil
	return r
}

// Runs is how many results were added.
func (s *Summary) Runs() int { return s.runs }

// Groups are the groups in order of first appearance, labelled.
func (s *Summary) Groups() []Group {
	out := make([]Group, len(s.groups))
	for i, g := range s.groups {
		out[i] = *g
		out[i].Label = Label(scenarios.Result{Scenario: g.scenario, Vary: g.vary}, s.mixed)
	}
	return out
}

// Mixed says the runs were of more than one scenario.
func (s *Summary) Mixed() bool { return s.mixed }

// Unknown: some run's verdict was unknown (porcupine ran out of its
// budget), which is not a pass.
func (s *Summary) Unknown() bool { return s.unknown }

// Provenance lists the distinct settings, schedules, kafkasim builds and
// Go versions of the runs, for the report.
func (s *Summary) Provenance() []string { return s.prov.Lines() }

// Failing are the first failing runs of scenarios that must pass (each
// with its first few error-level violations), and how many more failed.
func (s *Summary) Failing() ([]scenarios.Result, int) { return s.failing, s.moreFailing }

// FirstFailover is the first run that had a failover, for an example
// timeline.
func (s *Summary) FirstFailover() (scenarios.Result, bool) {
	if s.firstFailover == nil {
		return scenarios.Result{}, false
	}
	return *s.firstFailover, true
}

// HasControllerFailovers says some run measured a controller failover.
func (s *Summary) HasControllerFailovers() bool { return s.controllers }

// AsExpected: every run of a scenario that must pass passed, and every
// bug scenario showed its anomaly on at least one seed.
func (s *Summary) AsExpected() bool {
	if s.mustFail {
		return false
	}
	for _, shown := range s.shown {
		if !shown {
			return false
		}
	}
	return true
}

// Rows are the first runs' rows (runRowsCap of them) and how many runs
// have none.
func (s *Summary) Rows() ([]RunRow, int) { return s.rows, s.moreRows }

// ShownRuns is how many runs of bug scenarios showed their anomaly: they
// went as expected by failing.
func (s *Summary) ShownRuns() int { return s.shownRuns }

// FailingCount is how many runs of scenarios that must pass failed.
func (s *Summary) FailingCount() int { return len(s.failing) + s.moreFailing }

// AnomalyCounts is, per anomaly, how many runs showed it at error level
// (and "liveness" for runs that did not converge), sorted by anomaly.
func (s *Summary) AnomalyCounts() Table {
	total := map[string]int{}
	for _, g := range s.groups {
		for k, n := range g.kinds {
			total[k] += n
		}
	}
	t := Table{Header: []string{"anomaly", "runs"}}
	for _, k := range sortedKeys(total) {
		t.Rows = append(t.Rows, []string{k, strconv.Itoa(total[k])})
	}
	return t
}
