package reports

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kafkasim/scenarios"
)

// RunsDir is the folder of a sweep report that holds the runs replayed
// with their artifacts (one folder per run, named by RunDirName); the
// report links whatever it finds there.
const RunsDir = "runs"

// RunDirName names a replayed run's folder: scenario, seed and the -vary
// setting, file-safe.
func RunDirName(r scenarios.Result) string {
	name := fmt.Sprintf("%s-seed%d", r.Scenario, r.Seed)
	if r.Vary != "" {
		name += "-" + r.Vary
	}
	return strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.', c == '_':
			return c
		}
		return '_'
	}, name)
}

// ReproduceLines are the commands that replay r: its scenario, seed,
// every -set (a -vary setting included) and schedule file.
func ReproduceLines(r scenarios.Result) string {
	return scenarios.Reproduce(r.Invocation())
}

// SweepFiles are the files WriteSweep writes in its folder (the plots
// are those of WriteSweep's list, each as .png and .svg): the command
// line removes these, and nothing else, when it reuses a folder.
var SweepFiles = []string{"summary.md", "index.html",
	"cdf-unavailable.png", "cdf-unavailable.svg", "cdf-election.png", "cdf-election.svg",
	"hist-unavailable.png", "hist-unavailable.svg", "cdf-controller-failover.png", "cdf-controller-failover.svg"}

// SweepOptions describe a sweep report beyond its results.
type SweepOptions struct {
	// Command is the command line that produced the results, shown at the
	// top of the report.
	Command string
	_       struct{}
}

// Figure is one plot of a report: the files written and a caption.
type Figure struct {
	Caption string
	PNG     string // relative to the report folder
	SVG     string
	// Legend is shown beside the plot, outside its data.
	Legend []LegendEntry
	// Width and Height are the picture's size in pixels; Panels says it
	// is a grid of small multiples, one panel per legend entry.
	Width, Height int
	Panels        bool
	// XFrom is where the x axis starts, in seconds, when not at zero.
	XFrom float64
}

// figureOf is the figure of a drawing saved as name.png and name.svg.
func figureOf(name, caption string, d Drawing) Figure {
	return Figure{Caption: caption, PNG: name + ".png", SVG: name + ".svg", Legend: d.Legend, Width: d.Width, Height: d.Height, Panels: d.Panels, XFrom: d.XFrom}
}

// Short says some legend entry counts fewer values than the tables'
// failovers, which the page then explains once.
func (f Figure) Short() bool { return Short(f.Legend) }

// Zoomed says where the x axis starts, when not at zero, for the caption.
func (f Figure) Zoomed() string {
	if f.XFrom == 0 {
		return ""
	}
	return fmt.Sprintf("The x axis starts at %.3f s, not at zero: every value is past half the largest.", f.XFrom)
}

// UnmeasuredNote is the one explanation of short counts.
func (Figure) UnmeasuredNote() string { return UnmeasuredNote }

// RunLink is one replayed run of a report and its files, relative to the
// report folder.
type RunLink struct {
	Name  string
	Files []string
}

// failingShown bounds the failing runs a report lists one by one.
const failingShown = 50

// sweepReport is everything index.html and summary.md show.
type sweepReport struct {
	Command string
	Runs    int
	// Provenance is what the runs were made with (Provenance.Lines).
	Provenance []string
	Summary    Table
	Latency    []Table // unavailable, election
	Figures    []Figure
	// Controllers is the controller failover section, when some run
	// measured one: the comparison table and its figure.
	Controllers *controllerSection
	Failing     []failing
	More        int // failing runs not listed
	Replayed    []RunLink
	// Verdict is the banner: Passed says every run went as its scenario
	// expects; FailingRuns counts runs of must-pass scenarios that failed;
	// NotShown lists bug scenarios whose anomaly no seed showed.
	Passed      bool
	Shown       int // runs of bug scenarios that showed their anomaly
	FailingRuns int
	Unknown     bool
	// Rows are the runs' rows for the sortable table; MoreRows counts runs
	// past runRowsCap that it leaves out.
	Rows      []RunRow
	MoreRows  int
	Anomalies Table
	Filters   filters
}

// filters are the distinct values of each filterable column, sorted.
type filters struct {
	Scenarios, Verdicts, Anomalies, Varies []string
}

type controllerSection struct {
	Table  Table
	Figure *Figure // nil when nothing was measured
}

type failing struct {
	Label, Reproduce, Dir string
	Problems              []string
}

// WriteSweep writes a sweep's report into dir (which holds, or will hold,
// results.jsonl): the plots (failover CDFs per group and a histogram, PNG
// and SVG), summary.md and index.html. It reads dir/runs/ for replayed
// runs to link. The content depends only on the results, the options and
// the files under dir/runs, so the same sweep gives the same report.
func WriteSweep(dir string, results []scenarios.Result, o SweepOptions) error {
	s := NewSummary()
	for _, r := range results {
		s.Add(r)
	}
	return WriteSummary(dir, s, o)
}

// WriteSummary writes the report of the runs a Summary accumulated, as
// WriteSweep does for a list of them.
func WriteSummary(dir string, s *Summary, o SweepOptions) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	groups := s.Groups()
	rep := sweepReport{Command: o.Command, Runs: s.Runs(), Summary: SummaryTable(groups),
		Latency: []Table{LatencyTable(groups, Unavailable), LatencyTable(groups, Election)}}
	if err := rep.addFigures(dir, s, groups); err != nil {
		return err
	}
	replayed, err := listRuns(dir)
	if err != nil {
		return err
	}
	rep.Replayed = replayed
	rep.Passed, rep.FailingRuns, rep.Unknown = s.AsExpected() && !s.Unknown(), s.FailingCount(), s.Unknown()
	rep.Shown = s.ShownRuns()
	rep.Anomalies = s.AnomalyCounts()
	rep.addRows(s, replayed)
	rep.Provenance = s.Provenance()
	rep.addFailing(s, replayed)
	if err := WriteFile(filepath.Join(dir, "summary.md"), func(w io.Writer) error { return rep.markdown(w) }); err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, "index.html"), func(w io.Writer) error { return indexTemplate.Execute(w, rep) })
}

// addFigures draws the report's plots into dir, and the controller
// failover comparison when the runs had any, and adds those drawn.
func (rep *sweepReport) addFigures(dir string, s *Summary, groups []Group) error {
	plots := []struct {
		name, caption string
		draw          func(string, []Group, Metric) (Drawing, error)
		m             Metric
	}{
		{"cdf-unavailable", "CDF of the write-unavailability window per failover (last acknowledged write before the election to the first after)", PlotCDF, Unavailable},
		{"cdf-election", "CDF of the time from the fault to the election of another leader", PlotCDF, Election},
		{"hist-unavailable", "histogram of the write-unavailability window", PlotHistogram, Unavailable},
	}
	for _, p := range plots {
		d, err := p.draw(filepath.Join(dir, p.name), groups, p.m)
		if err != nil {
			return fmt.Errorf("plot %s: %w", p.name, err)
		}
		if len(d.Files) > 0 {
			rep.Figures = append(rep.Figures, figureOf(p.name, p.caption, d))
		}
	}
	if !s.HasControllerFailovers() {
		return nil
	}
	const name = "cdf-controller-failover"
	d, err := PlotFailoverComparison(filepath.Join(dir, name), groups)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	rep.Controllers = &controllerSection{Table: FailoverComparisonTable(groups)}
	if len(d.Files) > 0 {
		f := figureOf(name, "CDF of partition-leader failover (the fault to another leader's election) beside controller failover (the fault to the first metadata entry committed under the new quorum leader)", d)
		rep.Controllers.Figure = &f
	}
	return nil
}

// addRows adds the run rows, each linked to its run directory when it
// was replayed, and the filters their values offer.
func (rep *sweepReport) addRows(s *Summary, replayed []RunLink) {
	rows, moreRows := s.Rows()
	rep.MoreRows = moreRows
	seen := map[string]map[string]bool{"s": {}, "v": {}, "a": {}, "x": {}}
	for _, r := range rows {
		if slices.ContainsFunc(replayed, func(l RunLink) bool {
			return l.Name == RunDirName(scenarios.Result{Scenario: r.Scenario, Seed: r.Seed, Vary: r.Vary})
		}) {
			r.Dir = RunsDir + "/" + RunDirName(scenarios.Result{Scenario: r.Scenario, Seed: r.Seed, Vary: r.Vary})
		}
		rep.Rows = append(rep.Rows, r)
		seen["s"][r.Scenario], seen["v"][r.Verdict] = true, true
		if r.Vary != "" {
			seen["x"][r.Vary] = true
		}
		for _, a := range r.Anomalies {
			seen["a"][a] = true
		}
	}
	rep.Filters = filters{Scenarios: sortedKeys(seen["s"]), Verdicts: sortedKeys(seen["v"]), Anomalies: sortedKeys(seen["a"]), Varies: sortedKeys(seen["x"])}
}

// addFailing adds the failing runs: each labelled, with its reproduce
// lines, its run directory when it was replayed and its first problems.
func (rep *sweepReport) addFailing(s *Summary, replayed []RunLink) {
	mixed := s.Mixed()
	failingRuns, more := s.Failing()
	rep.More = more
	for _, r := range failingRuns {
		f := failing{Label: fmt.Sprintf("%s seed %d", Label(r, mixed), r.Seed), Reproduce: ReproduceLines(r)}
		if slices.ContainsFunc(replayed, func(l RunLink) bool { return l.Name == RunDirName(r) }) {
			f.Dir = RunsDir + "/" + RunDirName(r)
		}
		if r.Liveness != "" {
			f.Problems = append(f.Problems, "liveness: "+r.Liveness)
		}
		for _, v := range r.Violations {
			if v.Error && len(f.Problems) < failingViolations {
				f.Problems = append(f.Problems, v.String())
			}
		}
		rep.Failing = append(rep.Failing, f)
	}
}

// listRuns lists dir/runs/*/ and their files, sorted by name.
func listRuns(dir string) ([]RunLink, error) {
	ents, err := os.ReadDir(filepath.Join(dir, RunsDir))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []RunLink
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(dir, RunsDir, e.Name()))
		if err != nil {
			return nil, err
		}
		l := RunLink{Name: e.Name()}
		for _, f := range files {
			if !f.IsDir() && !strings.HasSuffix(f.Name(), ".tmp") {
				l.Files = append(l.Files, RunsDir+"/"+e.Name()+"/"+f.Name())
			}
		}
		out = append(out, l)
	}
	return out, nil
}

func (rep sweepReport) markdown(w io.Writer) error {
	var b strings.Builder
	// The command line is left out (index.html shows it) so that
	// `kafkasim report` rebuilds this file exactly from results.jsonl.
	fmt.Fprintf(&b, "# kafkasim sweep\n\n%d runs.\n\n", rep.Runs)
	for _, l := range rep.Provenance {
		fmt.Fprintf(&b, "- %s\n", l)
	}
	b.WriteString("\n")
	if err := rep.Summary.Markdown(&b); err != nil {
		return err
	}
	b.WriteString("\n## Failover latency\n\nVirtual seconds, over every failover of the group's runs (`-`: none measured).\n\n")
	for _, t := range rep.Latency {
		if err := t.Markdown(&b); err != nil {
			return err
		}
		b.WriteString("\n")
	}
	for _, f := range rep.Figures {
		fmt.Fprintf(&b, "![%s](%s)\n\n", f.Caption, f.PNG)
	}
	if c := rep.Controllers; c != nil {
		b.WriteString("## Controller failover\n\nVirtual seconds from the fault that took the active controller (the metadata quorum's leader) away: to the election of a leader of a higher epoch, and to the first metadata entry committed under it, beside partition-leader failover.\n\n")
		if err := c.Table.Markdown(&b); err != nil {
			return err
		}
		if c.Figure != nil {
			fmt.Fprintf(&b, "\n![%s](%s)\n\n", c.Figure.Caption, c.Figure.PNG)
		}
	}
	if len(rep.Failing) > 0 {
		b.WriteString("## Failing runs\n")
		for _, f := range rep.Failing {
			fmt.Fprintf(&b, "\n- `%s` failed: `%s`", f.Label, strings.ReplaceAll(f.Reproduce, "\n", "` or `"))
			if f.Dir != "" {
				fmt.Fprintf(&b, " ([artifacts](%s/))", f.Dir)
			}
			b.WriteString("\n")
		}
		if rep.More > 0 {
			fmt.Fprintf(&b, "\n... and %d more (see results.jsonl)\n", rep.More)
		}
	}
	if len(rep.Replayed) > 0 {
		b.WriteString("\n## Replayed runs\n\n")
		for _, r := range rep.Replayed {
			fmt.Fprintf(&b, "- %s:", r.Name)
			for _, f := range r.Files {
				fmt.Fprintf(&b, " [%s](%s)", filepath.Base(f), f)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
