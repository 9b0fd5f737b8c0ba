package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kafkasim/model"
	"kafkasim/scenarios"
)

// TestCheckJudgesAHistorySavedByASimulatedRun writes the history of a
// simulated run to a file, as a user would, and judges it with the command:
// the Jepsen 2013 configuration's history has violations, the fixed one's
// does not.
func TestCheckJudgesAHistorySavedByASimulatedRun(t *testing.T) {
	var h scenarios.Historical
	for _, x := range scenarios.HistoricalBugs {
		if x.Name == "jepsen-2013" {
			h = x
		}
	}
	for _, tc := range []struct {
		name string
		sc   scenarios.Scenario
		exit int
	}{
		{"buggy", h.Scenario(), 1},
		{"fixed", h.FixedScenario(), 0},
	} {
		res, err := scenarios.Run(tc.sc, tc.sc.Seed, scenarios.Options{LinearizabilityBudget: -1})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "history.jsonl")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := model.WriteHistory(f, res.History); err != nil {
			t.Fatal(err)
		}
		f.Close()
		var out, errb bytes.Buffer
		code := dispatch([]string{"check", "-history", path, "-min-isr", "1", "-json"}, &out, &errb)
		if code != tc.exit {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", tc.name, code, tc.exit, out.String(), errb.String())
		}
		if tc.exit == 1 && !strings.Contains(out.String(), "inconsistent-offsets") {
			t.Fatalf("%s: output does not name inconsistent-offsets: %s", tc.name, out.String())
		}
	}
}
