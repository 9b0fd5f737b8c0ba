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
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/olekukonko/tablewriter"
	"github.com/schollz/progressbar/v3"

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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim sweep [-scenario NAME|all|safe] [-seeds K] [-start S] [-workers W] [-set key=value ...] [-out DIR] [-json] [-shard I/N] [-recheck F]")
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
		bar := progressbar.NewOptions(len(jobs), progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("sweep"), progressbar.OptionShowCount(), progressbar.OptionClearOnFinish())
		opts.Progress = func(done, total int) { _ = bar.Add(1) }
	}
	began := time.Now()
	res, err := scenarios.Sweep(opts)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	wall := time.Since(began)
	if *out != "" {
		if err := writeSweep(*out, res.Results); err != nil {
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
	} else if err := writeSweepSummary(stdout, res.Results); err != nil {
		fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "%d runs in %.1fs (%.0f seeds/min on %d workers)\n", len(res.Results), wall.Seconds(), float64(len(res.Results))/wall.Minutes(), *workers)
	for _, nd := range res.Nondeterminism {
		fmt.Fprintf(stderr, "NONDETERMINISM: %s\n", nd)
	}
	if len(res.Nondeterminism) > 0 || !sweepAsExpected(res.Results) {
		return 1
	}
	return 0
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

// writeSweep writes results.jsonl and summary.md into dir, each through a
// temporary file, so nothing is left half-written.
func writeSweep(dir string, results []scenarios.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "results.jsonl"), func(w io.Writer) error {
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
	return writeFileAtomic(filepath.Join(dir, "summary.md"), func(w io.Writer) error {
		fmt.Fprintln(w, "# kafkasim sweep")
		fmt.Fprintln(w)
		return writeSweepTable(w, results, true)
	})
}

func writeFileAtomic(path string, fill func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

type scenarioSummary struct {
	runs, failed, asExpected int
	kinds                    map[string]int
	failing                  []uint64
	expected                 string
}

func summarize(results []scenarios.Result) ([]string, map[string]*scenarioSummary) {
	var names []string
	by := map[string]*scenarioSummary{}
	for _, r := range results {
		s := by[r.Scenario]
		if s == nil {
			s = &scenarioSummary{kinds: map[string]int{}, expected: r.Expected}
			by[r.Scenario] = s
			names = append(names, r.Scenario)
		}
		s.runs++
		if !r.OK {
			s.failed++
			if r.Expected == "" {
				s.failing = append(s.failing, r.Seed)
			}
		}
		if r.AsExpected {
			s.asExpected++
		}
		seen := map[string]bool{}
		for _, v := range r.Violations {
			if v.Error && !seen[v.Anomaly] {
				seen[v.Anomaly] = true
				s.kinds[v.Anomaly]++
			}
		}
		if r.Liveness != "" {
			s.kinds["liveness"]++
		}
	}
	return names, by
}

func writeSweepSummary(w io.Writer, results []scenarios.Result) error {
	return writeSweepTable(w, results, false)
}

func writeSweepTable(w io.Writer, results []scenarios.Result, markdown bool) error {
	names, by := summarize(results)
	header := []string{"scenario", "runs", "failed", "as expected", "expects", "violations (runs)"}
	var rows [][]string
	for _, n := range names {
		s := by[n]
		var kinds []string
		for k := range s.kinds {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, s.kinds[k]))
		}
		sort.Strings(kinds)
		exp := s.expected
		if exp == "" {
			exp = "pass"
		}
		rows = append(rows, []string{n, fmt.Sprint(s.runs), fmt.Sprint(s.failed), fmt.Sprint(s.asExpected), exp, strings.Join(kinds, ", ")})
	}
	if markdown {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
	} else {
		t := tablewriter.NewTable(w)
		t.Header(header)
		for _, r := range rows {
			if err := t.Append(r); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	for _, n := range names {
		for _, seed := range by[n].failing {
			if markdown {
				fmt.Fprintf(w, "\n- `%s` seed %d failed: `go run ./cmd/kafkasim run -scenario %s -seed %d`\n", n, seed, n, seed)
			} else {
				fmt.Fprintf(w, "FAILED %s seed %d\n%s\n", n, seed, scenarios.Reproduce(n, seed))
			}
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
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim merge -out DIR SHARD_DIR...")
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
	if err := writeSweep(*out, all); err != nil {
		fmt.Fprintf(stderr, "kafkasim merge: %v\n", err)
		return 2
	}
	if err := writeSweepSummary(stdout, all); err != nil {
		return 2
	}
	if !sweepAsExpected(all) {
		return 1
	}
	return 0
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
