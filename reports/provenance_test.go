package reports

import (
	"strings"
	"testing"

	"kafkasim/scenarios"
)

// TestProvenanceNamesEachDistinctSettingAndBuild: a -vary sweep's two
// settings, a schedule file beside the scenarios' own faults, and two
// builds (a merge of shards from different revisions) each show once, in
// sorted order; results alike show as one.
func TestProvenanceNamesEachDistinctSettingAndBuild(t *testing.T) {
	base := scenarios.Result{Scenario: "s", Version: "v1", GoVersion: "go1.26"}
	a, b, c := base, base, base
	a.Set = []string{"acks=1"}
	b.Set, b.Vary = []string{"acks=all"}, "acks=all"
	c.Vary, c.Version, c.ScheduleFile = "acks=1", "v2", "run/schedule.txt" // an old row: the -vary setting only
	var p Provenance
	for _, r := range []scenarios.Result{b, a, a, c} {
		p.Add(r)
	}
	got := strings.Join(p.Lines(), "\n")
	want := "settings: -set acks=1; -set acks=all\n" +
		"schedule: the scenarios' own, drawn from each seed; run/schedule.txt\n" +
		"kafkasim: v1; v2\n" +
		"go: go1.26"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	var plain Provenance
	plain.Add(scenarios.Result{Scenario: "s"})
	if got := strings.Join(plain.Lines(), "\n"); got != "settings: the scenarios' own\nschedule: the scenarios' own, drawn from each seed\nkafkasim: not recorded\ngo: not recorded" {
		t.Fatalf("no settings recorded: got\n%s", got)
	}
}
