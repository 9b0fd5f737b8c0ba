package scenarios

import (
	"slices"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/sim"
)

// historicalExpect says, per bug, whether the anomaly the bug expects
// (Historical.Expect) must count as an error under the buggy
// configuration (it does only where the configuration promised
// durability), and whether the fixed configuration must pass outright.
// kip279's fixed configuration still runs acks=1 with unclean election,
// which loses writes by design; what the fix removes is the divergence of
// the replicas. group-zombie's double owner is what Kafka's consumers do
// (checkers/zombie.go), so it is named as allowed; kafkasim's
// consumer.self.fencing extension removes it.
var historicalExpect = map[string]struct {
	asError    bool
	fixedPass  bool
	divergence bool
	// group: a consumer-group bug, shown by the group checks rather than
	// by records missing from the final logs.
	group bool
	// rejoin: a bug that loses nothing but leaves a replica outside its
	// ISR for good, shown after the liveness phase; the writes its
	// scenario loses are a deleted topic's, which no one was promised.
	rejoin bool
}{
	"kip101-hw-truncation":      {asError: true, fixedPass: true},
	"jepsen-2013":               {asError: false, fixedPass: true},
	"acks1-failover":            {asError: false, fixedPass: true},
	"kip279-divergence":         {asError: true, divergence: true},
	"kip101-divergence":         {asError: true, divergence: true},
	"kip966-last-replica":       {asError: true, fixedPass: true},
	"group-zombie":              {asError: false, fixedPass: true, group: true},
	"offset-commit-lost":        {asError: true, fixedPass: true, group: true},
	"kafka-14616-stray-replica": {asError: true, fixedPass: true, rejoin: true},
	// A transactional bug shows in what read_committed consumers read,
	// not in records missing from the logs.
	"kafka-17754-delayed-endtxn": {asError: true, fixedPass: true, group: true},
	"hanging-transaction":        {asError: true, fixedPass: true, group: true},
}

// TestHistoricalBugsShowUnderTheirConfigurationAndNotWithTheFix plays each
// bug at its own seed, by play as every run is, under the buggy and the
// fixed configuration.
func TestHistoricalBugsShowUnderTheirConfigurationAndNotWithTheFix(t *testing.T) {
	for _, h := range HistoricalBugs {
		t.Run(h.Name, func(t *testing.T) {
			want, ok := historicalExpect[h.Name]
			if !ok {
				t.Fatalf("no expectation for %s", h.Name)
			}
			for _, buggy := range []bool{true, false} {
				sc := h.FixedScenario()
				if buggy {
					sc = h.Scenario()
				}
				kc, err := ConfigFor(sc, nil)
				if err != nil {
					t.Fatal(err)
				}
				s, liveness, err := play(sc, sc.Seed, kc, sim.Config{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				res := checkers.Check(s.CheckInput(), CheckOptions(kc))
				// A bug that leaves the cluster unconverged is the
				// liveness phase's finding, as Run reports it.
				if v := hangingViolation(liveness); v != nil {
					res.Violations = append(res.Violations, *v)
				}
				named, asError := false, false
				for _, v := range res.Violations {
					if h.Expect.Names(v.Anomaly) {
						named = true
						asError = asError || v.Error
					}
				}
				lost, div := s.LostAcked(), s.Diverged(s.TPs[0])
				switch {
				case buggy && !named:
					t.Fatalf("buggy configuration: checkers did not name %s; they said:\n%s", h.Expect, res.Summary())
				case buggy && want.asError && !asError:
					t.Fatalf("buggy configuration: %s named but not as an error; the configuration promised it", h.Expect)
				case buggy && want.divergence && div < 0:
					t.Fatal("buggy configuration: the replicas agree; the scenario did not play out")
				case buggy && want.rejoin && liveness == "":
					t.Fatal("buggy configuration: the cluster converged; the scenario did not play out")
				case !buggy && want.rejoin && liveness != "":
					t.Fatalf("fixed configuration: %s", liveness)
				case buggy && want.rejoin:
					// nothing is lost: the checkers' finding is the bug
				case buggy && !want.divergence && !want.group && len(lost) == 0:
					t.Fatal("buggy configuration: no acknowledged write lost; the scenario did not play out")
				case !buggy && named && (want.fixedPass || want.asError):
					t.Fatalf("fixed configuration: checkers still name %s:\n%s", h.Expect, res.Summary())
				case !buggy && want.fixedPass && res.Valid != checkers.ValidOK:
					t.Fatalf("fixed configuration: not valid:\n%s", res.Summary())
				case !buggy && liveness != "":
					t.Fatalf("fixed configuration: did not converge: %s", liveness)
				case !buggy && want.fixedPass && !want.rejoin && len(lost) > 0:
					t.Fatalf("fixed configuration: acknowledged writes lost: %v", lost)
				case !buggy && want.divergence && div >= 0:
					t.Fatalf("fixed configuration: replicas diverge at offset %d", div)
				}
			}
		})
	}
}

func TestCheckOptionsFollowTheConfiguration(t *testing.T) {
	kc := safe()
	kc.Producer.Acks = model.AcksLeader
	kc.Producer.Idempotence = false
	o := CheckOptions(kc)
	if o.Acks != "1" || o.Idempotent || o.MinInsyncReplicas != 2 || o.AutoOffsetReset != "earliest" {
		t.Fatalf("options %+v do not follow the configuration", o)
	}
}

// TestHistoricalScenariosCarryTheirSeedAndAnAnomalyTheCheckersName: every
// historical bug in the catalog is a scenario with its own seed and an
// Expect that is one of the checkers' anomaly names; a scenario without
// a seed of its own is run at seed 1 by kafkasim run.
func TestHistoricalScenariosCarryTheirSeedAndAnAnomalyTheCheckersName(t *testing.T) {
	for _, h := range HistoricalBugs {
		sc, ok := Find(h.Name)
		if !ok {
			t.Fatalf("%s is not in the catalog", h.Name)
		}
		if sc.Seed == 0 || sc.Seed != h.Seed || sc.DefaultSeed() != h.Seed {
			t.Errorf("%s: scenario seed %d, default %d; the replay was written for %d", h.Name, sc.Seed, sc.DefaultSeed(), h.Seed)
		}
		if !slices.Contains(checkers.AnomalyNames(), sc.Expect.Anomaly()) {
			t.Errorf("%s: expects %q, not an anomaly the checkers name", h.Name, sc.Expect)
		}
		if fixed := h.FixedScenario(); fixed.Expect != "" || fixed.Seed != h.Seed {
			t.Errorf("%s: the fixed scenario expects %q at seed %d", h.Name, fixed.Expect, fixed.Seed)
		}
	}
	if sc, _ := Find("baseline"); sc.Seed != 0 || sc.DefaultSeed() != 1 {
		t.Errorf("baseline: seed %d, default %d; want none of its own, so 1", sc.Seed, sc.DefaultSeed())
	}
}
