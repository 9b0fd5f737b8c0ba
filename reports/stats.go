package reports

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"kafkasim/scenarios"
)

// Metric is one failover measurement, read from a Failover.
type Metric struct {
	// Name is short and file-safe ("unavailable"); Title is for a reader.
	Name, Title string
	Get         func(scenarios.Failover) time.Duration
}

// The failover metrics. Unavailable is the one a client feels: how long
// writes to the partition went unacknowledged.
var (
	Election    = Metric{"election", "time to election", func(f scenarios.Failover) time.Duration { return f.Election }}
	FirstAck    = Metric{"first-ack", "time to first acknowledged write", func(f scenarios.Failover) time.Duration { return f.FirstAck }}
	Unavailable = Metric{"unavailable", "write-unavailability window", func(f scenarios.Failover) time.Duration { return f.Unavailable }}
	ConsumerGap = Metric{"consumer-gap", "consumer gap", func(f scenarios.Failover) time.Duration { return f.ConsumerGap }}
)

// Group is the runs of a sweep that share a label: a scenario, or a value
// of the swept configuration key (sweep -vary). It holds what the tables
// and plots show, accumulated run by run (see Summary), not the runs.
type Group struct {
	Label string
	// scenario and vary are what the label is made of, once the whole
	// sweep is known (Label depends on whether it mixed scenarios).
	scenario, vary string
	stats          GroupStats
	expects        map[string]bool
	kinds          map[string]int
	metrics        map[string]*Sample // partition failover metrics, by Metric.Name
	controller     map[string]*Sample // controller failover metrics, by ControllerMetric.Name
	// controllerFailovers counts them; neverRecommitted those that saw no
	// commit under a new quorum leader.
	controllerFailovers, neverRecommitted int
}

// groupMetrics and groupControllerMetrics are the metrics a Group samples.
var (
	groupMetrics           = []Metric{Election, FirstAck, Unavailable, ConsumerGap}
	groupControllerMetrics = []ControllerMetric{ControllerElection, ControllerFirstCommit}
)

func newGroup(r scenarios.Result) *Group {
	g := &Group{scenario: r.Scenario, vary: r.Vary, expects: map[string]bool{}, kinds: map[string]int{},
		metrics: map[string]*Sample{}, controller: map[string]*Sample{}}
	for _, m := range groupMetrics {
		g.metrics[m.Name] = &Sample{}
	}
	for _, m := range groupControllerMetrics {
		g.controller[m.Name] = &Sample{}
	}
	return g
}

// add folds one run into the group: the same figures Summarize once
// computed over a list of every run, in constant memory per group.
func (g *Group) add(r scenarios.Result) {
	s := &g.stats
	s.Runs++
	if !r.OK {
		s.Failed++
	}
	if r.AsExpected {
		s.AsExpected++
	}
	exp := r.Expected
	if exp == "" {
		exp = "pass"
	}
	g.expects[exp] = true
	var seen []string // a run's anomalies, each counted once; few per run
	for _, v := range r.Violations {
		if v.Error && !slices.Contains(seen, v.Anomaly) {
			seen = append(seen, v.Anomaly)
			g.kinds[v.Anomaly]++
		}
	}
	if r.Liveness != "" {
		g.kinds["liveness"]++
	}
	for _, f := range r.Failovers {
		s.Failovers++
		if f.Election < 0 {
			s.Unelected++
		}
		if f.Truncated {
			s.Truncated++
		}
		for _, m := range groupMetrics {
			if d := m.Get(f); d >= 0 {
				g.metrics[m.Name].Add(d)
			}
		}
	}
	for _, f := range r.ControllerFailovers {
		g.controllerFailovers++
		if f.FirstCommit < 0 {
			g.neverRecommitted++
		}
		for _, m := range groupControllerMetrics {
			if d := m.Get(f); d >= 0 {
				g.controller[m.Name].Add(d)
			}
		}
	}
}

// Groups splits results by Label, in order of first appearance (job order
// for a sweep, scenario then seed for a merge), so that a report is the
// same for the same results.
func Groups(results []scenarios.Result) []Group {
	s := NewSummary()
	for _, r := range results {
		s.Add(r)
	}
	return s.Groups()
}

// Values are the measured values of m over the group's failovers, sorted
// (a uniform sample of them past sampleCap); unmeasured ones are left out.
func Values(g Group, m Metric) []time.Duration {
	if s := g.metrics[m.Name]; s != nil {
		return s.Sorted()
	}
	return nil
}

// Quantile is the nearest-rank q-quantile of sorted values (q in [0, 1]),
// or -1 when there are none: a reported quantile is always a value some
// failover had.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return -1
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// GroupStats summarise one group for the tables.
type GroupStats struct {
	Label string
	Runs  int
	// Failed runs found an error-level violation or did not converge;
	// AsExpected matched what their scenario expects.
	Failed, AsExpected int
	// Expects is what the group's scenarios expect ("pass", an anomaly).
	Expects string
	// Violations counts runs per anomaly ("liveness" for a run that did
	// not converge), as "kind n" sorted by kind.
	Violations []string
	// Failovers counts them; Unelected those where no other broker took
	// over, Truncated those that lost acknowledged offsets.
	Failovers, Unelected, Truncated int
	// Election and Unavailable are the quantiles of those metrics.
	Election, Unavailable Quantiles
}

// Quantiles of one metric over a group's failovers; each is -1 when
// nothing was measured.
type Quantiles struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// QuantilesOf computes the quantiles of metric m over the group's
// failovers: exact up to sampleCap values, from a uniform sample past it
// (N and Max stay exact).
func QuantilesOf(g Group, m Metric) Quantiles {
	if s := g.metrics[m.Name]; s != nil {
		return s.Quantiles()
	}
	return Quantiles{P50: -1, P90: -1, P99: -1, Max: -1}
}

// Summarize returns a group's statistics.
func Summarize(g Group) GroupStats {
	s := g.stats
	s.Label = g.Label
	s.Expects = strings.Join(sortedKeys(g.expects), ", ")
	s.Violations = nil
	for _, k := range sortedKeys(g.kinds) {
		s.Violations = append(s.Violations, k+" "+strconv.Itoa(g.kinds[k]))
	}
	s.Election, s.Unavailable = QuantilesOf(g, Election), QuantilesOf(g, Unavailable)
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Label is what a run is grouped under: its -vary setting when it has one
// (after its scenario when the sweep mixed scenarios), else its scenario.
func Label(r scenarios.Result, mixed bool) string {
	switch {
	case r.Vary == "":
		return r.Scenario
	case mixed:
		return r.Scenario + " " + r.Vary
	}
	return r.Vary
}
