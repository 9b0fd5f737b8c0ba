package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
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

// selectScenarios resolves -scenario: a name, "all", or "safe".
func selectScenarios(name string) ([]scenarios.Scenario, error) {
	var out []scenarios.Scenario
	for _, sc := range scenarios.Catalog() {
		if name == "all" || sc.Name == name || (name == "safe" && sc.Expect == scenarios.Pass) {
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
	fs := flag.NewFlagSet("kafkasim sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("scenario", "safe", "scenario `name`, or all, or safe (every scenario that must pass)")
	expFile := fs.String("f", "", "sweep the experiment in this `file` (TOML; see docs/experiments.md) instead of catalog scenarios")
	seeds := fs.Int("seeds", 20, "seeds per scenario")
	start := fs.Uint64("start", 1, "first seed")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel runs")
	var sets setFlags
	fs.Var(&sets, "set", "override a configuration value by Kafka's name, `key=value` (repeatable)")
	out := fs.String("out", "", "`dir`ectory for results.jsonl (written as runs finish) and the report; a new or empty one (default: a new store/SCENARIO/TIME/, linked from store/latest)")
	force := fs.Bool("force", false, "reuse an -out directory that holds files: a previous sweep's outputs in it are removed, nothing else")
	resume := fs.String("resume", "", "continue the stopped sweep in `dir`: its flags come from dir/sweep.json, and only the runs missing from its results.jsonl are made (with -workers and -json only)")
	asJSON := fs.Bool("json", false, "print one JSON object per run instead of a table")
	shard := fs.String("shard", "", "run only shard `I/N` of the seeds (index mod N == I); combine shards with kafkasim merge")
	recheck := fs.Float64("recheck", 0.03, "fraction of runs replayed to check determinism")
	wide := wideFlag(fs)
	vary := fs.String("vary", "", "run the same seeds under each value of one configuration key, `key=v1,v2,...`, and compare them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim sweep [-scenario NAME|all|safe | -f FILE] [-seeds K] [-start S] [-workers W] [-set key=value ...] [-vary key=v1,v2,...] [-out DIR [-force]] [-json] [-wide] [-shard I/N] [-recheck F]")
		fmt.Fprintln(stderr, "       kafkasim sweep -resume DIR [-workers W] [-json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "kafkasim sweep: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *resume != "" {
		var other []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name != "resume" && f.Name != "workers" && f.Name != "json" {
				other = append(other, "-"+f.Name)
			}
		})
		if len(other) > 0 {
			fmt.Fprintf(stderr, "kafkasim sweep: -resume takes the sweep's flags from %s; %s cannot be changed (only -workers and -json)\n", filepath.Join(*resume, manifestName), strings.Join(other, ", "))
			return 2
		}
		m, err := readManifest(*resume)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
		*name, *seeds, *start, sets, *vary, *shard, *recheck = m.Scenario, m.Seeds, m.Start, m.Set, m.Vary, m.Shard, m.Recheck
		if m.Experiment != "" {
			*expFile = filepath.Join(*resume, m.Experiment)
		}
	}
	var exp *scenarios.LoadedExperiment
	var scs []scenarios.Scenario
	var err error
	if *expFile != "" {
		nameGiven := false
		fs.Visit(func(f *flag.Flag) { nameGiven = nameGiven || f.Name == "scenario" })
		if nameGiven {
			fmt.Fprintln(stderr, "kafkasim sweep: -scenario and -f are exclusive: sweep catalog scenarios or an experiment file")
			return 2
		}
		var sc scenarios.Scenario
		if sc, exp, err = scenarioFlags("", *expFile); err == nil {
			scs, *name = []scenarios.Scenario{sc}, sc.Name
		}
	} else {
		scs, err = selectScenarios(*name)
	}
	if err == nil && (*seeds < 1 || *workers < 1 || *recheck < 0 || *recheck > 1) {
		err = fmt.Errorf("-seeds and -workers must be at least 1, -recheck within [0, 1]")
	}
	opts := scenarios.SweepOptions{Scenarios: scs, Start: *start, Seeds: *seeds, Workers: *workers, Set: sets, Recheck: *recheck}
	if err == nil {
		opts.Shard, opts.Shards, err = parseShard(*shard)
	}
	var varied []string
	if err == nil {
		varied, err = parseVary(*vary, scs, sets)
	}
	if err == nil {
		for _, sc := range scs {
			if _, err = scenarios.ConfigFor(sc, sets); err != nil {
				break
			}
		}
	}
	var perVary int
	if err == nil {
		perVary, err = opts.Count()
	}
	if err == nil && perVary > math.MaxInt/max(1, len(varied)) {
		err = fmt.Errorf("-seeds %d: too many runs", *seeds)
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	total := perVary * max(1, len(varied))

	// The folder is settled before the first run: a bad -out costs nothing.
	var dir string
	var created, stored bool
	if *resume != "" {
		dir = filepath.Clean(*resume)
		if exp != nil {
			scs[0].Experiment = filepath.Join(dir, experimentFileName)
		}
	} else {
		dir, created, stored, err = prepareSweepDir(*out, *force, *name)
		if err == nil {
			m := sweepManifest{Scenario: *name, Seeds: *seeds, Start: *start, Set: sets, Vary: *vary, Shard: *shard, Recheck: *recheck}
			if exp != nil {
				m.Experiment = experimentFileName
				err = keepExperiment(dir, dir, exp, &scs[0])
			}
			if err == nil {
				err = writeManifest(dir, m)
			}
		}
		if err != nil {
			if created {
				os.RemoveAll(dir)
			}
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	summary := reports.NewSummary()
	var done map[runKey]bool
	if *resume != "" {
		done, err = resumeFrom(dir, opts, varied, summary, stderr)
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	log, err := openResultLog(dir)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	stop, stopped, release := interruptible()
	defer release()
	opts.Stop = stop
	var bar *sweepProgress
	if isTerminal(stderr) {
		bar = newSweepProgress(stderr, total-len(done))
	}
	enc := json.NewEncoder(stdout)
	began := time.Now()
	ran := 0
	res, runErr := sweepStreaming(opts, varied, done, func(r scenarios.Result) error {
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
		if *asJSON {
			return enc.Encode(r.Row())
		}
		return nil
	})
	wall := time.Since(began)
	if err := log.close(); err != nil && runErr == nil {
		runErr = err
	}
	interrupted := stopped()
	if runErr != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", runErr)
		fmt.Fprintf(stderr, "kafkasim sweep: the %d runs that finished are in %s; continue with kafkasim sweep -resume %s\n", summary.Runs(), filepath.Join(dir, "results.jsonl"), dir)
		return 2
	}
	if !interrupted {
		if err := replayForReport(dir, summary, sets, stderr); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	command := "kafkasim sweep " + strings.Join(args, " ")
	if err := reports.WriteSummary(dir, summary, reports.SweepOptions{Command: command}); err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	if stored {
		if err := linkLatest(dir); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		}
	}
	if !*asJSON {
		if err := fitted(stdout, *wide, func(w io.Writer) error { return writeSweepSummary(w, summary, len(varied) > 0, *wide) }); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	// Runs, not seeds: a sweep of several scenarios makes one run per
	// scenario and seed.
	fmt.Fprintf(stderr, "%d runs in %.1fs (%.0f runs/min on %s)\n", ran, wall.Seconds(), float64(ran)/wall.Minutes(), plural(*workers, "worker"))
	for _, nd := range res.Nondeterminism {
		fmt.Fprintf(stderr, "NONDETERMINISM: %s\n", nd)
	}
	printWritten(stderr, dir)
	if interrupted {
		fmt.Fprintf(stderr, "interrupted: %d of %d runs finished; the report covers them; continue with kafkasim sweep -resume %s\n", summary.Runs(), total, dir)
		return 130
	}
	return sweepExit(summary, len(res.Nondeterminism) > 0)
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
