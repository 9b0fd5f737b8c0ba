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
// of the swept configuration key (sweep -vary).
type Group struct {
	Label   string
	Results []scenarios.Result
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

// Groups splits results by Label, in order of first appearance (job order
// for a sweep, scenario then seed for a merge), so that a report is the
// same for the same results.
func Groups(results []scenarios.Result) []Group {
	mixed := false
	for _, r := range results {
		mixed = mixed || r.Scenario != results[0].Scenario
	}
	var out []Group
	at := map[string]int{}
	for _, r := range results {
		l := Label(r, mixed)
		i, ok := at[l]
		if !ok {
			i = len(out)
			at[l] = i
			out = append(out, Group{Label: l})
		}
		out[i].Results = append(out[i].Results, r)
	}
	return out
}

// Values are the measured values of m over every failover of the runs,
// sorted; unmeasured ones are left out.
func Values(results []scenarios.Result, m Metric) []time.Duration {
	var out []time.Duration
	for _, r := range results {
		for _, f := range r.Failovers {
			if d := m.Get(f); d >= 0 {
				out = append(out, d)
			}
		}
	}
	slices.Sort(out)
	return out
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
	// Failing are the runs of scenarios that must pass and did not.
	Failing []scenarios.Result
}

// Quantiles of one metric over a group's failovers; each is -1 when
// nothing was measured.
type Quantiles struct {
	N                  int
	P50, P90, P99, Max time.Duration
}

// QuantilesOf computes the quantiles of metric m over the runs.
func QuantilesOf(results []scenarios.Result, m Metric) Quantiles {
	vs := Values(results, m)
	return Quantiles{N: len(vs), P50: Quantile(vs, 0.5), P90: Quantile(vs, 0.9), P99: Quantile(vs, 0.99), Max: Quantile(vs, 1)}
}

// Summarize computes a group's statistics.
func Summarize(g Group) GroupStats {
	s := GroupStats{Label: g.Label, Runs: len(g.Results)}
	kinds := map[string]int{}
	expects := map[string]bool{}
	for _, r := range g.Results {
		if !r.OK {
			s.Failed++
			if r.Expected == "" {
				s.Failing = append(s.Failing, r)
			}
		}
		if r.AsExpected {
			s.AsExpected++
		}
		exp := r.Expected
		if exp == "" {
			exp = "pass"
		}
		expects[exp] = true
		seen := map[string]bool{}
		for _, v := range r.Violations {
			if v.Error && !seen[v.Anomaly] {
				seen[v.Anomaly] = true
				kinds[v.Anomaly]++
			}
		}
		if r.Liveness != "" {
			kinds["liveness"]++
		}
		for _, f := range r.Failovers {
			s.Failovers++
			if f.Election < 0 {
				s.Unelected++
			}
			if f.Truncated {
				s.Truncated++
			}
		}
	}
	s.Expects = strings.Join(sortedKeys(expects), ", ")
	for _, k := range sortedKeys(kinds) {
		s.Violations = append(s.Violations, k+" "+strconv.Itoa(kinds[k]))
	}
	s.Election, s.Unavailable = QuantilesOf(g.Results, Election), QuantilesOf(g.Results, Unavailable)
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
