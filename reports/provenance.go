package reports

import (
	"slices"
	"strings"

	"kafkasim/scenarios"
)

// Provenance is what a report's runs were made with: the -set settings
// (each distinct list once: a -vary sweep has one per value), the
// schedule files that replaced the scenarios' faults, and the kafkasim
// builds and Go releases that ran them. It is folded one result at a time
// (Add), so a report built from a stream of results needs no list of
// them; a merge of shards built from different revisions shows each.
type Provenance struct {
	settings, schedules, versions, goVersions []string
	ownSchedules                              bool
}

// Add folds one result in.
func (p *Provenance) Add(r scenarios.Result) {
	set := r.Invocation().Set
	p.settings = addDistinct(p.settings, strings.Join(setFlagsOf(set), " "))
	if r.ScheduleFile == "" {
		p.ownSchedules = true
	} else {
		p.schedules = addDistinct(p.schedules, r.ScheduleFile)
	}
	p.versions = addDistinct(p.versions, orUnrecorded(r.Version))
	p.goVersions = addDistinct(p.goVersions, orUnrecorded(r.GoVersion))
}

// Lines are the provenance as "what: values" lines, in a fixed order.
func (p Provenance) Lines() []string {
	settings := slices.Clone(p.settings)
	for i, s := range settings {
		if s == "" {
			settings[i] = "the scenarios' own"
		}
	}
	schedules := slices.Clone(p.schedules)
	if p.ownSchedules {
		schedules = append([]string{"the scenarios' own, drawn from each seed"}, schedules...)
	}
	return []string{
		"settings: " + strings.Join(settings, "; "),
		"schedule: " + strings.Join(schedules, "; "),
		"kafkasim: " + strings.Join(p.versions, "; "),
		"go: " + strings.Join(p.goVersions, "; "),
	}
}

// setFlagsOf writes settings as the -set flags that give them.
func setFlagsOf(set []string) []string {
	out := make([]string, len(set))
	for i, kv := range set {
		out[i] = "-set " + kv
	}
	return out
}

// addDistinct inserts s into the sorted list xs unless it is there.
func addDistinct(xs []string, s string) []string {
	i, found := slices.BinarySearch(xs, s)
	if found {
		return xs
	}
	return slices.Insert(xs, i, s)
}

func orUnrecorded(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}
