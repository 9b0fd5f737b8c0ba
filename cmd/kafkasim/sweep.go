package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["sweep"] = command{summary: "run many seeds of scenarios in parallel and summarise", run: runSweep}
	commands["merge"] = command{summary: "merge the results.jsonl of sweep shards into one report", run: runMerge}
}

// runDefault is `kafkasim` with no arguments: every safe scenario over a
// modest number of seeds, reported to a new folder of the run store
// (store/safe/TIME/, linked from store/latest), so running it again never
// overwrites the last report.
func runDefault(stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "kafkasim: sweeping every safe scenario (see 'kafkasim help' for the commands)\n")
	return runSweep([]string{"-scenario", "safe", "-seeds", "40"}, stdout, stderr)
}

// parseShard reads "I/N".
func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 0 || a >= b {
		return 0, 0, fmt.Errorf("-shard %q: want I/N with 0 <= I < N", s)
	}
	return a, b, nil
}

// selectScenarios resolves -scenario: a name, "all", or "safe" (the
// catalog's; a large scenario only by its name).
func selectScenarios(name string) ([]scenarios.Scenario, error) {
	var out []scenarios.Scenario
	for _, sc := range scenarios.Catalog() {
		if name == "all" || sc.Name == name || (name == "safe" && sc.Expect == scenarios.Pass) {
			out = append(out, sc)
		}
	}
	for _, sc := range scenarios.LargeScenarios() {
		if sc.Name == name {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("unknown scenario %q (see kafkasim list; or all, safe)", name)
	}
	return out, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	a, code, ok := parseSweepArgs(args, stderr)
	if !ok {
		return code
	}
	plan, err := planSweep(&a)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	// The folder is settled before the first run: a bad -out costs nothing.
	dir, stored, err := settleSweepDir(a, &plan)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	summary := reports.NewSummary()
	var done map[runKey]bool
	if a.resume != "" {
		done, err = resumeFrom(dir, plan.opts, plan.varied, summary, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	ran, wall, res, interrupted, err := streamSweep(a, plan, dir, done, summary, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		fmt.Fprintf(stderr, "kafkasim sweep: the %d runs that finished are in %s; continue with kafkasim sweep -resume %s\n", summary.Runs(), filepath.Join(dir, "results.jsonl"), dir)
		return 2
	}
	if err := reportSweep(a, plan, dir, stored, interrupted, summary, "kafkasim sweep "+strings.Join(args, " "), stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	// Runs, not seeds: a sweep of several scenarios makes one run per
	// scenario and seed.
	fmt.Fprintf(stderr, "%d runs in %.1fs (%.0f runs/min on %s)\n", ran, wall.Seconds(), float64(ran)/wall.Minutes(), plural(a.workers, "worker"))
	for _, nd := range res.Nondeterminism {
		fmt.Fprintf(stderr, "NONDETERMINISM: %s\n", nd)
	}
	printWritten(stderr, dir)
	if interrupted {
		fmt.Fprintf(stderr, "interrupted: %d of %d runs finished; the report covers them; continue with kafkasim sweep -resume %s\n", summary.Runs(), plan.total, dir)
		return 130
	}
	return sweepExit(summary, len(res.Nondeterminism) > 0)
}

// settleSweepDir finds or makes the sweep's folder: the -resume folder as
// it is, or a new (or -force emptied) -out folder with the sweep's
// manifest and experiment file in it. A folder it created is removed again
// if writing into it fails. stored says the folder is in the run store.
func settleSweepDir(a sweepArgs, plan *sweepPlan) (dir string, stored bool, err error) {
	if a.resume != "" {
		dir = filepath.Clean(a.resume)
		if plan.exp != nil {
			plan.scs[0].Experiment = filepath.Join(dir, experimentFileName)
		}
		return dir, false, nil
	}
	dir, created, stored, err := prepareSweepDir(a.out, a.force, a.name)
	if err == nil {
		m := sweepManifest{Scenario: a.name, Seeds: a.seeds, Start: a.start, Set: a.sets, Vary: a.vary, Shard: a.shard, Recheck: a.recheck}
		if plan.exp != nil {
			m.Experiment = experimentFileName
			err = keepExperiment(dir, dir, plan.exp, &plan.scs[0])
		}
		if err == nil {
			err = writeManifest(dir, m)
		}
	}
	if err != nil && created {
		os.RemoveAll(dir)
	}
	return dir, stored, err
}

// streamSweep makes the runs that are not done yet, appending each result
// to dir/results.jsonl as it comes (and printing it with -json), until
// they are all made or the user interrupts.
func streamSweep(a sweepArgs, plan sweepPlan, dir string, done map[runKey]bool, summary *reports.Summary, stdout, stderr io.Writer) (ran int, wall time.Duration, res scenarios.SweepResult, interrupted bool, err error) {
	log, err := openResultLog(dir)
	if err != nil {
		return 0, 0, res, false, err
	}
	stop, stopped, release := interruptible()
	defer release()
	opts := plan.opts
	opts.Stop = stop
	var bar *sweepProgress
	if isTerminal(stderr) {
		bar = newSweepProgress(stderr, plan.total-len(done))
	}
	enc := json.NewEncoder(stdout)
	began := time.Now()
	res, err = sweepStreaming(opts, plan.varied, done, func(r scenarios.Result) error {
		if err := log.append(r); err != nil {
			return err
		}
		summary.Add(r)
		ran++
		if bar != nil {
			bar.runDone(r)
		}
		if afterSweepResult != nil {
			afterSweepResult(ran)
		}
		if a.asJSON {
			return enc.Encode(r.Row())
		}
		return nil
	})
	wall = time.Since(began)
	if cerr := log.close(); cerr != nil && err == nil {
		err = cerr
	}
	return ran, wall, res, stopped(), err
}

// reportSweep writes the sweep's report into dir (after replaying the runs
// it shows, unless the sweep was interrupted), links it from store/latest
// when it is in the store, and prints the summary table unless -json.
func reportSweep(a sweepArgs, plan sweepPlan, dir string, stored, interrupted bool, summary *reports.Summary, command string, stdout, stderr io.Writer) error {
	if !interrupted {
		if err := replayForReport(dir, summary, a.sets, stderr); err != nil {
			return err
		}
	}
	if err := reports.WriteSummary(dir, summary, reports.SweepOptions{Command: command}); err != nil {
		return err
	}
	if stored {
		if err := linkLatest(dir); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		}
	}
	if a.asJSON {
		return nil
	}
	return fitted(stdout, a.wide, func(w io.Writer) error { return writeSweepSummary(w, summary, len(plan.varied) > 0, a.wide) })
}

// afterSweepResult, when set (by tests), is called after each result is
// written, with the count so far.
var afterSweepResult func(n int)

// parseVary reads -vary "key=v1,v2,...": the settings to sweep under, one
// per value, each checked against every scenario's configuration so that
// an unknown key or a bad value is refused before anything runs.
func parseVary(vary string, scs []scenarios.Scenario, sets []string) ([]string, error) {
	if vary == "" {
		return nil, nil
	}
	key, vals, ok := strings.Cut(vary, "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.TrimSpace(vals) == "" {
		return nil, fmt.Errorf("-vary %q: want key=v1,v2 (one or more values)", vary)
	}
	var out []string
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("-vary %q: empty value", vary)
		}
		kv := key + "=" + v
		if slices.Contains(out, kv) {
			return nil, fmt.Errorf("-vary %q: value %q twice", vary, v)
		}
		for _, sc := range scs {
			if _, err := scenarios.ConfigFor(sc, append(slices.Clone(sets), kv)); err != nil {
				return nil, fmt.Errorf("-vary %s: %v", kv, err)
			}
		}
		out = append(out, kv)
	}
	return out, nil
}

// runKey names one run of a sweep: its -vary setting, scenario and seed.
type runKey struct {
	vary, scenario string
	seed           uint64
}

// sweepStreaming runs the sweep once per -vary setting (the same seeds
// under each, after the -set overrides), labels each result with its
// setting and hands it to emit as it finishes, in job order; runs in done
// are skipped. Without -vary it is one plain sweep. A stop ends it after
// the runs under way.
func sweepStreaming(opts scenarios.SweepOptions, varied []string, done map[runKey]bool, emit func(scenarios.Result) error) (scenarios.SweepResult, error) {
	if len(varied) == 0 {
		varied = []string{""}
	}
	var all scenarios.SweepResult
	base := opts.Set
	for _, kv := range varied {
		opts.Set = slices.Clone(base)
		if kv != "" {
			opts.Set = append(opts.Set, kv)
		}
		opts.Skip = func(j scenarios.Job) bool { return done[runKey{kv, j.Scenario.Name, j.Seed}] }
		opts.OnResult = func(_ scenarios.Job, r scenarios.Result) error {
			r.Vary = kv
			return emit(r)
		}
		res, err := scenarios.Sweep(opts)
		all.Ran += res.Ran
		all.Nondeterminism = append(all.Nondeterminism, res.Nondeterminism...)
		if err != nil || res.Stopped {
			all.Stopped = res.Stopped
			return all, err
		}
	}
	return all, nil
}

// writeSweepSummary prints the summary table per group (scenario, or -vary
// value), the failover latency comparison when the sweep varied a key,
// controller failover beside partition failover when runs measured one,
// and every failing run's reproduce lines.
func writeSweepSummary(w io.Writer, s *reports.Summary, varied, wide bool) error {
	groups := s.Groups()
	if err := reports.SummaryTable(groups).Render(w, wide); err != nil {
		return err
	}
	if varied {
		fmt.Fprintln(w, "write-unavailability window per failover (virtual seconds):")
		if err := reports.LatencyTable(groups, reports.Unavailable).Render(w, wide); err != nil {
			return err
		}
		fmt.Fprintln(w, "time to election per failover (virtual seconds):")
		if err := reports.LatencyTable(groups, reports.Election).Render(w, wide); err != nil {
			return err
		}
	}
	if s.HasControllerFailovers() {
		fmt.Fprintln(w, "controller failover beside partition-leader failover (virtual seconds):")
		if err := reports.FailoverComparisonTable(groups).Render(w, wide); err != nil {
			return err
		}
	}
	failing, more := s.Failing()
	for _, r := range failing {
		fmt.Fprintf(w, "FAILED %s seed %d\n%s\n", reports.Label(r, true), r.Seed, reports.ReproduceLines(r))
	}
	if more > 0 {
		fmt.Fprintf(w, "... and %d more failing runs (see results.jsonl)\n", more)
	}
	return nil
}

// summaryOf accumulates a list of results.
func summaryOf(results []scenarios.Result) *reports.Summary {
	s := reports.NewSummary()
	for _, r := range results {
		s.Add(r)
	}
	return s
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
