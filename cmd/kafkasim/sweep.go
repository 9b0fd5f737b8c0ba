package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
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

// defaultReport is where `kafkasim` with no arguments writes its sweep.
const defaultReport = "kafkasim-report"

// runDefault is `kafkasim` with no arguments: every safe scenario over a
// modest number of seeds, reported to ./kafkasim-report/.
func runDefault(stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "kafkasim: sweeping every safe scenario (see 'kafkasim help' for the commands)\n")
	return runSweep([]string{"-scenario", "safe", "-seeds", "40", "-out", defaultReport}, stdout, stderr)
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
		if name == "all" || sc.Name == name || (name == "safe" && sc.Expect == "") {
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
	seeds := fs.Int("seeds", 20, "seeds per scenario")
	start := fs.Uint64("start", 1, "first seed")
	workers := fs.Int("workers", runtime.NumCPU(), "parallel runs")
	var sets setFlags
	fs.Var(&sets, "set", "override a configuration value by Kafka's name, `key=value` (repeatable)")
	out := fs.String("out", "", "`dir`ectory for results.jsonl and summary.md")
	asJSON := fs.Bool("json", false, "print one JSON object per run instead of a table")
	shard := fs.String("shard", "", "run only shard `I/N` of the seeds (index mod N == I); combine shards with kafkasim merge")
	recheck := fs.Float64("recheck", 0.03, "fraction of runs replayed to check determinism")
	vary := fs.String("vary", "", "run the same seeds under each value of one configuration key, `key=v1,v2,...`, and compare them")
	wide := wideFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim sweep [-scenario NAME|all|safe] [-seeds K] [-start S] [-workers W] [-set key=value ...] [-vary key=v1,v2,...] [-out DIR] [-json] [-wide] [-shard I/N] [-recheck F]")
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
	scs, err := selectScenarios(*name)
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
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	jobs, _ := opts.Jobs()
	if isTerminal(stderr) {
		bar := newSweepProgress(stderr, len(jobs)*max(1, len(varied)))
		opts.Progress = func(_, _ int, last scenarios.Result) { bar.runDone(last) }
	}
	began := time.Now()
	res, err := sweepVaried(opts, varied)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	wall := time.Since(began)
	if *out != "" {
		command := "kafkasim sweep " + strings.Join(args, " ")
		if err := writeSweep(*out, res.Results, command, true, sets, stderr); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return 2
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range res.Results {
			if err := enc.Encode(r); err != nil {
				return 2
			}
		}
	} else if err := fitted(stdout, *wide, func(w io.Writer) error { return writeSweepSummary(w, res.Results, len(varied) > 0, *wide) }); err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "%d runs in %.1fs (%.0f seeds/min on %d workers)\n", len(res.Results), wall.Seconds(), float64(len(res.Results))/wall.Minutes(), *workers)
	for _, nd := range res.Nondeterminism {
		fmt.Fprintf(stderr, "NONDETERMINISM: %s\n", nd)
	}
	if *out != "" {
		printWritten(stderr, *out)
	}
	return sweepExit(res.Results, len(res.Nondeterminism) > 0)
}

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

// sweepVaried runs the sweep once per -vary setting (the same seeds under
// each, after the -set overrides) and labels each result with its setting;
// without -vary it is one plain sweep.
func sweepVaried(opts scenarios.SweepOptions, varied []string) (scenarios.SweepResult, error) {
	if len(varied) == 0 {
		return scenarios.Sweep(opts)
	}
	var all scenarios.SweepResult
	base := opts.Set
	for _, kv := range varied {
		opts.Set = append(slices.Clone(base), kv)
		res, err := scenarios.Sweep(opts)
		if err != nil {
			return all, err
		}
		for i := range res.Results {
			res.Results[i].Vary = kv
		}
		all.Results = append(all.Results, res.Results...)
		all.Nondeterminism = append(all.Nondeterminism, res.Nondeterminism...)
	}
	return all, nil
}

// sweepAsExpected: every run of a safe scenario passed, and every bug
// scenario showed its anomaly on at least one seed.
func sweepAsExpected(results []scenarios.Result) bool {
	shown := map[string]bool{}
	expects := map[string]bool{}
	for _, r := range results {
		if r.Expected == "" && !r.OK {
			return false
		}
		if r.Expected != "" {
			expects[r.Scenario] = true
			shown[r.Scenario] = shown[r.Scenario] || r.AsExpected
		}
	}
	for sc := range expects {
		if !shown[sc] {
			return false
		}
	}
	return true
}

// writeSweep writes results.jsonl into dir, replays a few runs with
// their artifacts into dir/runs/ (see replayForReport), and writes the
// report (summary.md, index.html, plots) from the results. Each file goes
// through a temporary file, so nothing is left half-written.
func writeSweep(dir string, results []scenarios.Result, command string, replay bool, sets []string, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := reports.WriteFile(filepath.Join(dir, "results.jsonl"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		for _, r := range results {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if replay {
		if err := replayForReport(dir, results, sets, stderr); err != nil {
			return err
		}
	}
	return reports.WriteSweep(dir, results, reports.SweepOptions{Command: command})
}

// writeSweepSummary prints the summary table per group (scenario, or -vary
// value), the failover latency comparison when the sweep varied a key,
// controller failover beside partition failover when runs measured one,
// and every failing run's reproduce lines.
func writeSweepSummary(w io.Writer, results []scenarios.Result, varied, wide bool) error {
	groups := reports.Groups(results)
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
	if reports.HasControllerFailovers(results) {
		fmt.Fprintln(w, "controller failover beside partition-leader failover (virtual seconds):")
		if err := reports.FailoverComparisonTable(groups).Render(w, wide); err != nil {
			return err
		}
	}
	for _, r := range results {
		if r.Expected == "" && !r.OK {
			fmt.Fprintf(w, "FAILED %s seed %d\n%s\n", reports.Label(r, true), r.Seed, reports.ReproduceLines(r))
		}
	}
	return nil
}

// runMerge combines shard outputs: the results.jsonl of each input folder,
// sorted by scenario and seed, into one results.jsonl and summary.md.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "`dir`ectory for the merged results.jsonl and summary.md (required)")
	wide := wideFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim merge -out DIR [-wide] SHARD_DIR...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *out == "" || fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	var all []scenarios.Result
	for _, dir := range fs.Args() {
		rs, err := readResults(filepath.Join(dir, "results.jsonl"))
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim merge: %v\n", err)
			return 2
		}
		all = append(all, rs...)
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Scenario != all[j].Scenario {
			return all[i].Scenario < all[j].Scenario
		}
		return all[i].Seed < all[j].Seed
	})
	if err := writeSweep(*out, all, "", false, nil, stderr); err != nil {
		fmt.Fprintf(stderr, "kafkasim merge: %v\n", err)
		return 2
	}
	if err := writeSweepSummary(stdout, all, false, *wide); err != nil {
		return 2
	}
	printWritten(stderr, *out)
	return sweepExit(all, false)
}

// readResults reads a results.jsonl, naming the file and line of a bad one.
func readResults(path string) ([]scenarios.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []scenarios.Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r scenarios.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if r.Scenario == "" {
			return nil, fmt.Errorf("%s:%d: not a run result (no scenario)", path, line)
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}
