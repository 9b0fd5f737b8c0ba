package reports

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/scenarios"
)

// Controller failover beside partition-leader failover: how long the
// metadata quorum takes to commit again after its leader (the active
// controller) is taken away, next to how long a partition takes to elect
// a leader and take writes again.

// ControllerMetric is one controller failover measurement.
type ControllerMetric struct {
	Name, Title string
	Get         func(scenarios.ControllerFailover) time.Duration
}

// The controller failover metrics. FirstCommit is the controller
// failover time: the fault to the first metadata entry committed under
// the new quorum leader.
var (
	ControllerElection    = ControllerMetric{"controller-election", "time to quorum leader election", func(f scenarios.ControllerFailover) time.Duration { return f.Election }}
	ControllerFirstCommit = ControllerMetric{"controller-failover", "controller failover time (to the first commit under the new leader)", func(f scenarios.ControllerFailover) time.Duration { return f.FirstCommit }}
)

// ControllerValues are the measured values of m over the group's
// controller failovers, sorted (a uniform sample past sampleCap);
// unmeasured ones are left out.
func ControllerValues(g Group, m ControllerMetric) []time.Duration {
	if s := g.controller[m.Name]; s != nil {
		return s.Sorted()
	}
	return nil
}

// ControllerQuantilesOf computes the quantiles of m over the group's
// controller failovers.
func ControllerQuantilesOf(g Group, m ControllerMetric) Quantiles {
	if s := g.controller[m.Name]; s != nil {
		return s.Quantiles()
	}
	return Quantiles{P50: -1, P90: -1, P99: -1, Max: -1}
}

// HasControllerFailovers reports whether any run measured a controller
// failover: reports show the controller section only then.
func HasControllerFailovers(results []scenarios.Result) bool {
	return slices.ContainsFunc(results, func(r scenarios.Result) bool { return len(r.ControllerFailovers) > 0 })
}

// FailoverComparisonTable puts, per group, controller failover beside
// partition-leader failover: how many of each, the partition election and
// write-unavailability quantiles, and the controller election and
// failover (first commit) quantiles, with the controller failovers that
// never saw a new leader commit.
func FailoverComparisonTable(groups []Group) Table {
	t := Table{Header: []string{"group", "runs",
		"partition failovers", "election p50", "election p99", "unavailable p50", "unavailable p99",
		"controller failovers", "quorum election p50", "quorum election p99",
		"controller failover p50", "p90", "p99", "max", "never recommitted"},
		DropFirst: []int{11, 13, 4, 5, 9, 12, 14, 2, 7, 1, 8}}
	for _, g := range groups {
		el, un := QuantilesOf(g, Election), QuantilesOf(g, Unavailable)
		ce, cf := ControllerQuantilesOf(g, ControllerElection), ControllerQuantilesOf(g, ControllerFirstCommit)
		n, never, parts := g.controllerFailovers, g.neverRecommitted, g.stats.Failovers
		t.Rows = append(t.Rows, []string{g.Label, fmt.Sprint(g.stats.Runs),
			fmt.Sprint(parts), Seconds(el.P50), Seconds(el.P99), Seconds(un.P50), Seconds(un.P99),
			fmt.Sprint(n), Seconds(ce.P50), Seconds(ce.P99),
			Seconds(cf.P50), Seconds(cf.P90), Seconds(cf.P99), Seconds(cf.Max), fmt.Sprint(never)})
	}
	return t
}

// ControllerFailoverTable lists one run's controller failovers.
func ControllerFailoverTable(res scenarios.Result) Table {
	t := Table{Header: []string{"at", "cause", "old leader", "old epoch", "old hw", "new leader", "new epoch", "election", "first commit"},
		DropFirst: []int{4, 3, 6}}
	for _, f := range res.ControllerFailovers {
		newEpoch := "-"
		if f.NewEpoch > 0 {
			newEpoch = fmt.Sprint(f.NewEpoch)
		}
		t.Rows = append(t.Rows, []string{Seconds(f.At), string(f.Cause), f.OldLeader.String(), fmt.Sprint(f.OldEpoch), fmt.Sprint(f.OldHW),
			f.NewLeader.String(), newEpoch, Seconds(f.Election), Seconds(f.FirstCommit)})
	}
	return t
}

// PlotFailoverComparison draws, per group, the CDF of partition-leader
// failover (the fault to the election of another leader) and of
// controller failover (the fault to the first commit under the new quorum
// leader) on one set of axes, and writes base.png and base.svg.
func PlotFailoverComparison(base string, groups []Group) (Drawing, error) {
	var series []cdfSeries
	for _, g := range groups {
		series = append(series,
			cdfSeries{g.Label + ": partition leader election", Values(g, Election), g.stats.Failovers},
			cdfSeries{g.Label + ": controller failover", ControllerValues(g, ControllerFirstCommit), g.controllerFailovers})
	}
	return plotCDFs(base, "partition-leader vs controller failover (CDF over failovers)", "time from the fault (virtual seconds)", series)
}
