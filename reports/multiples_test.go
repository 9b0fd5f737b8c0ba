package reports

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// variedGroups are n groups (a -vary sweep of n values), each of three
// runs with one failover, group i's failovers taking about i seconds.
func variedGroups(n int) []Group {
	var rs []scenarios.Result
	for i := range n {
		for seed := uint64(1); seed <= 3; seed++ {
			d := time.Duration(i+1)*time.Second + time.Duration(seed)*100*time.Millisecond
			rs = append(rs, scenarios.Result{Scenario: "leader-failover", Seed: seed, Vary: fmt.Sprintf("broker.session.timeout.ms=%d", 1000*(i+1)),
				OK: true, AsExpected: true, Valid: checkers.ValidOK,
				Failovers: []scenarios.Failover{{TP: model.TP("t", 0), Cause: faults.KindCrash, At: 10 * time.Second, OldLeader: 1, NewLeader: 2,
					Election: d, FirstAck: d, Unavailable: d, ConsumerGap: d}}})
		}
	}
	return Groups(rs)
}

func TestPlotsPastSixteenSeriesBecomeSmallMultiples(t *testing.T) {
	for _, c := range []struct {
		name string
		plot func(string, []Group, Metric) (Drawing, error)
	}{{"cdf", PlotCDF}, {"hist", PlotHistogram}} {
		dir := t.TempDir()
		// Sixteen series: one plot, sixteen colours, none dashed.
		one, err := c.plot(filepath.Join(dir, "one"), variedGroups(16), Unavailable)
		if err != nil {
			t.Fatal(err)
		}
		colours := map[string]bool{}
		for _, e := range one.Legend {
			colours[e.Color] = true
			if e.Dashed {
				t.Errorf("%s: series %s is dashed with only sixteen series", c.name, e.Label)
			}
		}
		if one.Panels || len(one.Legend) != 16 || len(colours) != 16 || one.Height != pixels(plotHeight) {
			t.Errorf("%s of 16 series: panels %v, %d entries, %d colours, height %d; want one plot of 16 colours", c.name, one.Panels, len(one.Legend), len(colours), one.Height)
		}
		// Seventeen: a grid of five rows of four panels, each titled with
		// its series, on the same axes.
		grid, err := c.plot(filepath.Join(dir, "grid"), variedGroups(17), Unavailable)
		if err != nil {
			t.Fatal(err)
		}
		if !grid.Panels || len(grid.Legend) != 17 || grid.Height != pixels(2*multiplesTitleHeight+5*multiplesPanelHeight) {
			t.Fatalf("%s of 17 series: panels %v, %d entries, height %d; want 5 rows of panels", c.name, grid.Panels, len(grid.Legend), grid.Height)
		}
		svg, err := os.ReadFile(filepath.Join(dir, "grid.svg"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range grid.Legend {
			// The title names the setting once; each panel its value,
			// over its count.
			if value := strings.TrimPrefix(e.Label, "broker.session.timeout.ms="); strings.Count(string(svg), ">"+value+"<") != 1 {
				t.Errorf("%s: no panel titled %q", c.name, value)
			}
		}
		if n := strings.Count(string(svg), ">n=3<"); n != 17 {
			t.Errorf("%s: %d panels say their count, want 17", c.name, n)
		}
		if !strings.Contains(string(svg), "panels by broker.session.timeout.ms<") {
			t.Errorf("%s: the title does not name the setting the panels vary", c.name)
		}
		// Shared axes: every panel has the same x ticks (8 and 16 for
		// values up to 17.3 s), so each tick label appears once a panel.
		for _, tick := range []string{">8<", ">16<"} {
			if n := strings.Count(string(svg), tick); n != 17 {
				t.Errorf("%s: the tick %s appears %d times, want once in each of 17 panels", c.name, tick, n)
			}
		}
	}
}
