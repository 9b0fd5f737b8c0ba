package scenarios

import (
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"
)

var (
	flagSeed     = flag.Uint64("seed", 0, "run exactly this seed (0 with -seed given: pick one and print it)")
	flagSeeds    = flag.Int("seeds", 1, "with -seed: run this many consecutive seeds from it")
	flagScenario = flag.String("scenario", "", "run only this scenario")
)

func seedsFor(t *testing.T, sc Scenario) []uint64 {
	given := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			given = true
		}
	})
	if given {
		start := *flagSeed
		if start == 0 {
			start = uint64(time.Now().UnixNano()) // the one place a run's seed comes from the clock: printed below
			t.Logf("picked seed %d", start)
		}
		out := make([]uint64, 0, *flagSeeds)
		for i := 0; i < max(1, *flagSeeds); i++ {
			out = append(out, start+uint64(i))
		}
		return out
	}
	if sc.Seed != 0 {
		return []uint64{sc.Seed}
	}
	return defaultSeeds
}

// TestScenarios runs the catalog: safe scenarios must pass on every seed;
// a bug scenario must show its expected anomaly on at least one seed.
func TestScenarios(t *testing.T) {
	all := Catalog()
	for _, sc := range LargeScenarios() {
		if sc.Name == *flagScenario {
			all = append(all, sc) // run only when named
		}
	}
	for _, sc := range all {
		if *flagScenario != "" && sc.Name != *flagScenario {
			continue
		}
		t.Run(sc.Name, func(t *testing.T) {
			seeds := seedsFor(t, sc)
			playSeeds(t, sc, seeds, sc.Name, Invocation{Scenario: sc.Name, Seed: seeds[0]})
		})
	}
}

// playSeeds runs sc on every seed: a scenario that must pass must pass on
// each, one that expects an anomaly must show it on at least one; name
// and first (the reproduce line of the first seed) say which in a failure.
func playSeeds(t *testing.T, sc Scenario, seeds []uint64, name string, first Invocation) {
	t.Helper()
	shown := false
	for _, seed := range seeds {
		res, err := Run(sc, seed, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if sc.Expect != "" {
			shown = shown || res.AsExpected
			continue
		}
		if !res.OK {
			t.Errorf("%s", failureReport(sc, res))
		}
	}
	if sc.Expect != "" && !shown {
		t.Errorf("%s: expected %s on at least one of seeds %v, saw none\nreproduce:\n%s", name, sc.Expect, seeds, Reproduce(first))
	}
}

// failureReport says everything needed to understand and replay a failed
// run.
func failureReport(sc Scenario, res Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "scenario %s seed %d failed\n", sc.Name, res.Seed)
	if kc, err := ConfigFor(sc, nil); err == nil {
		fmt.Fprintf(&b, "configuration (non-default): %s\n", strings.Join(kc.NonDefault(), " "))
	}
	if strings.TrimSpace(res.Schedule) != "" {
		fmt.Fprintf(&b, "schedule (save it and replay with -schedule FILE):\n%s", res.Schedule)
	}
	if res.Liveness != "" {
		fmt.Fprintf(&b, "liveness: %s\n", res.Liveness)
	}
	n := 0
	for _, v := range res.Violations {
		if v.Error && n < 10 {
			fmt.Fprintf(&b, "violation: %s\n", v.String())
			n++
		}
	}
	fmt.Fprintf(&b, "reproduce:\n%s", Reproduce(res.Invocation()))
	return b.String()
}
