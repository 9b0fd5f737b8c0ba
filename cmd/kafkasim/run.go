package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["list"] = command{summary: "list the scenario catalog", run: runList}
	commands["run"] = command{summary: "run one scenario with one seed", run: runRun}
}

func runList(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	wide := wideFlag(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	t := reports.Table{Header: []string{"scenario", "expects", "description"}}
	for _, sc := range scenarios.Catalog() {
		t.Rows = append(t.Rows, []string{sc.Name, sc.Expect.Word(), sc.Description})
	}
	for _, sc := range scenarios.LargeScenarios() {
		t.Rows = append(t.Rows, []string{sc.Name, sc.Expect.Word(), sc.Description + " (large: only when named, not in all or safe)"})
	}
	if err := t.Render(stdout, *wide); err != nil {
		fmt.Fprintln(stderr, "kafkasim list:", err)
		return 2
	}
	return 0
}

// setFlags collects repeated -set key=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// runRun is `kafkasim run`: exit 0 when the run found no violation, 1 when
// it did, 2 on bad input (nothing is written then), 3 when nothing
// forbidden was found but not everything could be judged (runExit).
func runRun(args []string, stdout, stderr io.Writer) int {
	a, code, ok := parseRunArgs(args, stderr)
	if !ok {
		return code
	}
	sc, exp, opts, err := planRun(&a, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim run: %v\n", err)
		return 2
	}
	res, dir, err := runIntoDir(a, sc, exp, opts, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim run: %v\n", err)
		return 2
	}
	if a.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(res)
	} else {
		err = fitted(stdout, a.wide, func(w io.Writer) error { return writeRunTable(w, res, a.wide) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim run: %v\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "reproduce:\n%s\n", scenarios.Reproduce(res.Invocation()))
	printWritten(stderr, dir)
	return runExit(res)
}

// runArgs are the run command's flags.
type runArgs struct {
	name, expFile, out, schedFile string
	seed                          uint64
	seedGiven                     bool
	sets                          setFlags
	force, asJSON, wide           bool
}

// parseRunArgs reads the run command's flags. When ok is false the command
// ends with code: 0 for -h, 2 for a bad flag (already reported).
func parseRunArgs(args []string, stderr io.Writer) (a runArgs, code int, ok bool) {
	fs := flag.NewFlagSet("kafkasim run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&a.name, "scenario", "", "scenario `name` (see kafkasim list)")
	fs.StringVar(&a.expFile, "f", "", "run the experiment in this `file` (TOML; see docs/experiments.md) instead of a catalog scenario")
	fs.Uint64Var(&a.seed, "seed", 0, "the run's seed (default: the scenario's own, as go test runs it: a historical bug's replay seed; else 1)")
	fs.Var(&a.sets, "set", "override a configuration value by Kafka's name, `key=value` (repeatable)")
	fs.StringVar(&a.out, "out", "", "new `dir`ectory for the run: what the checkers judged (check it again with kafkasim check -run), the schedule, result, timeline plot, Chrome trace (trace.json) and artifacts; refused if it exists and is not an empty directory (default: a new store/SCENARIO/TIME/, linked from store/latest)")
	fs.BoolVar(&a.force, "force", false, "write into an -out directory that already holds files (only regular files of the same names are replaced)")
	fs.StringVar(&a.schedFile, "schedule", "", "run the faults of this schedule `file` instead of the scenario's")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object instead of a table")
	wide := wideFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim run -scenario NAME|-f FILE [-seed N] [-set key=value ...] [-schedule FILE] [-out DIR] [-json] [-wide]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return a, code, false
	}
	a.wide = *wide
	a.seedGiven = flagGiven(fs, "seed")
	return a, 0, true
}

// planRun resolves the scenario or experiment, the seed, the settings and
// the schedule, validating everything before anything runs or is
// written. Warnings about the experiment's own schedule go to stderr.
func planRun(a *runArgs, stderr io.Writer) (scenarios.Scenario, *scenarios.LoadedExperiment, scenarios.Options, error) {
	opts := scenarios.Options{Set: a.sets}
	sc, exp, err := scenarioFlags(a.name, a.expFile)
	if err != nil {
		return sc, nil, opts, err
	}
	if !a.seedGiven {
		a.seed = sc.DefaultSeed()
	}
	if _, err := scenarios.ConfigFor(sc, a.sets); err != nil {
		return sc, nil, opts, err
	}
	if exp != nil && len(exp.Schedule.Schedule) > 0 && a.schedFile == "" {
		// The experiment's own written-out faults, against this run's
		// cluster, as -schedule's are.
		warnings, err := scenarios.CheckSchedule(sc, a.seed, a.sets, exp.Schedule)
		if err != nil {
			return sc, nil, opts, err
		}
		for _, w := range warnings {
			fmt.Fprintf(stderr, "warning: %s\n", w)
		}
	}
	if a.schedFile != "" {
		sched, err := loadRunSchedule(a.schedFile, sc, a.seed, a.sets, stderr)
		if err != nil {
			return sc, nil, opts, err
		}
		opts.Schedule = &sched
		// The reproduce lines name the run directory's copy, which stays
		// as it was when the user's file changes; without one, the file.
		opts.ScheduleFile = a.schedFile
		if a.out != "" {
			opts.ScheduleFile = filepath.Join(a.out, scheduleFileName)
		}
	}
	return sc, exp, opts, nil
}

// runIntoDir plays the run into its directory: -out, or a fresh folder of
// the run store (linked from store/latest). The run is written into a
// temporary folder and moved into place only when complete, so a failed
// or interrupted run leaves nothing behind, not even the reserved store
// folder.
func runIntoDir(a runArgs, sc scenarios.Scenario, exp *scenarios.LoadedExperiment, opts scenarios.Options, stderr io.Writer) (scenarios.Result, string, error) {
	out, stored := a.out, a.out == ""
	if stored {
		// Reserved now so that no other run takes its name.
		p, err := newStoreDir(sc.Name, time.Now())
		if err != nil {
			return scenarios.Result{}, "", err
		}
		out = p
	}
	unreserve := func() {
		if stored {
			os.Remove(out)
		}
	}
	outDir, err := newRunDir(out, a.force)
	if err != nil {
		unreserve()
		return scenarios.Result{}, "", err
	}
	abandon := func() {
		outDir.discard()
		unreserve()
	}
	opts.OutDir = outDir.tmp
	if err := keepExperiment(outDir.tmp, out, exp, &sc); err != nil {
		abandon()
		return scenarios.Result{}, "", err
	}
	release := cleanUpOnInterrupt(stderr, abandon)
	defer release()
	res, err := scenarios.Run(sc, a.seed, opts)
	if err == nil {
		outDir.relocate(res.Artifacts)
		err = writeRunArtifacts(outDir.tmp, res)
	}
	if err != nil {
		abandon()
		return res, "", err
	}
	if err := outDir.commit(); err != nil {
		unreserve()
		return res, "", err
	}
	if stored {
		if err := linkLatest(out); err != nil {
			fmt.Fprintf(stderr, "kafkasim run: %v\n", err)
		}
	}
	return res, outDir.path, nil
}

// scheduleFileName is the run directory's copy of the run's faults, in
// the schedule-file format, which -schedule replays.
const scheduleFileName = "schedule.txt"

// writeRunArtifacts writes a run directory into dir: the files
// scenarios.SaveRun writes (what the checkers judged), the schedule, the
// fault log, the result, the timeline and the trace. Each file is written
// to a temporary name and renamed, so a failure leaves no half-written
// file behind.
func writeRunArtifacts(dir string, res scenarios.Result) error {
	write := func(name string, fill func(io.Writer) error) error {
		tmp := filepath.Join(dir, "."+name+".tmp")
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		if err := fill(f); err != nil {
			f.Close()
			os.Remove(tmp)
			return err
		}
		if err := f.Close(); err != nil {
			os.Remove(tmp)
			return err
		}
		return os.Rename(tmp, filepath.Join(dir, name))
	}
	// What the checkers judged, for kafkasim check -run.
	if err := scenarios.SaveRun(dir, res); err != nil {
		return err
	}
	// The experiment's copy, unless run -f wrote it already (a sweep's
	// replayed run copies the sweep directory's).
	if res.Experiment != "" {
		if _, err := os.Stat(filepath.Join(dir, experimentFileName)); os.IsNotExist(err) {
			data, err := os.ReadFile(res.Experiment)
			if err != nil {
				return err
			}
			if err := write(experimentFileName, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
				return err
			}
		}
	}
	if err := write(scheduleFileName, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "# faults of %s seed %d; replay with -schedule\n%s", res.Scenario, res.Seed, res.Schedule)
		return err
	}); err != nil {
		return err
	}
	if err := write("faults.log", func(w io.Writer) error {
		for _, l := range res.FaultLog {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := write("result.json", func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}); err != nil {
		return err
	}
	// The timeline plot and trace.json (Perfetto, chrome://tracing).
	if _, err := reports.WriteRun(dir, res); err != nil {
		return err
	}
	// Last, the page that links every file above.
	return reports.WriteRunPage(dir, res)
}

func writeRunTable(w io.Writer, res scenarios.Result, wide bool) error {
	expected := res.Expected
	if expected == "" {
		expected = "pass"
	}
	st := res.Stats
	t := reports.Table{Header: []string{"scenario", "seed", "ok", "expected", "as expected", "virtual s", "events", "sends ok/fail/info", "trace hash"},
		DropFirst: []int{6, 3, 5}}
	t.Rows = [][]string{{res.Scenario, fmt.Sprint(res.Seed), fmt.Sprint(res.OK), expected, fmt.Sprint(res.AsExpected),
		fmt.Sprintf("%.1f", st.VirtualSeconds), fmt.Sprint(st.Events),
		fmt.Sprintf("%d/%d/%d", st.SendsOK, st.SendsFail, st.SendsInfo), res.TraceHash}}
	if err := t.Render(w, wide); err != nil {
		return err
	}
	if len(res.Failovers) > 0 {
		fmt.Fprintln(w, "failovers (virtual seconds from the fault):")
		if err := reports.FailoverTable(res).Render(w, wide); err != nil {
			return err
		}
	}
	if len(res.ControllerFailovers) > 0 {
		fmt.Fprintln(w, "controller failovers (virtual seconds from the fault to the new quorum leader's election and first commit):")
		if err := reports.ControllerFailoverTable(res).Render(w, wide); err != nil {
			return err
		}
	}
	if res.Liveness != "" {
		fmt.Fprintf(w, "liveness: %s\n", res.Liveness)
	}
	for _, a := range res.Artifacts {
		fmt.Fprintf(w, "see %s\n", a)
	}
	return writeViolations(w, res.Violations, wide)
}

// flagGiven reports whether the flag name was set on the command line,
// so that a default that depends on another flag (run's -seed on its
// -scenario) is told apart from the same value given.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}
