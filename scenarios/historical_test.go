package scenarios

import (
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// historicalExpect says, per bug, which anomaly the checkers must name
// under the buggy configuration, whether it must count as an error (it
// does only where the configuration promised durability), and whether the
// fixed configuration must pass outright. kip279's fixed configuration
// still runs acks=1 with unclean election, which loses writes by design;
// what the fix removes is the divergence of the replicas. group-zombie's
// double owner is what Kafka's consumers do (checkers/zombie.go), so it is
// named as allowed; kafkasim's consumer.self.fencing extension removes it.
var historicalExpect = map[string]struct {
	anomaly    string
	asError    bool
	fixedPass  bool
	divergence bool
	// group: a consumer-group bug, shown by the group checks rather than
	// by records missing from the final logs.
	group bool
}{
	"kip101-hw-truncation": {anomaly: "acked-write-lost", asError: true, fixedPass: true},
	"jepsen-2013":          {anomaly: "acked-write-lost", asError: false, fixedPass: true},
	"acks1-failover":       {anomaly: "lost-write", asError: false, fixedPass: true},
	"kip279-divergence":    {anomaly: "replica-divergence", asError: true, divergence: true},
	"kip101-divergence":    {anomaly: "replica-divergence", asError: true, divergence: true},
	"kip966-last-replica":  {anomaly: "acked-write-lost", asError: true, fixedPass: true},
	"group-zombie":         {anomaly: "double-owner", asError: false, fixedPass: true, group: true},
	"offset-commit-lost":   {anomaly: "commit-regression", asError: true, fixedPass: true, group: true},
}

func TestHistoricalBugsShowUnderTheirConfigurationAndNotWithTheFix(t *testing.T) {
	for _, h := range HistoricalBugs {
		t.Run(h.Name, func(t *testing.T) {
			want, ok := historicalExpect[h.Name]
			if !ok {
				t.Fatalf("no expectation for %s", h.Name)
			}
			for _, buggy := range []bool{true, false} {
				kc := h.FixedConfig()
				if buggy {
					kc = h.BuggyConfig()
				}
				s, err := h.Run(kc)
				if err != nil {
					t.Fatal(err)
				}
				res := checkers.Check(s.CheckInput(), CheckOptions(kc))
				named, asError := false, false
				for _, v := range res.Violations {
					if v.Anomaly == want.anomaly {
						named = true
						asError = asError || v.Error
					}
				}
				lost, div := s.LostAcked(), s.Diverged(s.TPs[0])
				switch {
				case buggy && !named:
					t.Fatalf("buggy configuration: checkers did not name %s; they said:\n%s", want.anomaly, res.Summary())
				case buggy && want.asError && !asError:
					t.Fatalf("buggy configuration: %s named but not as an error; the configuration promised it", want.anomaly)
				case buggy && want.divergence && div < 0:
					t.Fatal("buggy configuration: the replicas agree; the scenario did not play out")
				case buggy && !want.divergence && !want.group && len(lost) == 0:
					t.Fatal("buggy configuration: no acknowledged write lost; the scenario did not play out")
				case !buggy && named && (want.fixedPass || want.asError):
					t.Fatalf("fixed configuration: checkers still name %s:\n%s", want.anomaly, res.Summary())
				case !buggy && want.fixedPass && res.Valid != checkers.ValidOK:
					t.Fatalf("fixed configuration: not valid:\n%s", res.Summary())
				case !buggy && want.fixedPass && len(lost) > 0:
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
