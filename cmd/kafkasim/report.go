package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["report"] = command{summary: "rebuild a sweep's index.html and summary.md from its results.jsonl", run: runReport}
}

// runReport is `kafkasim report -in DIR`: the report of a sweep (or of a
// merge of shards) rebuilt from results.jsonl alone, for instance after
// the report's code changed or results were merged by hand. It links the
// replayed runs it finds in DIR/runs/ and replays none itself.
func runReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	in := fs.String("in", "", "`dir`ectory holding results.jsonl (a sweep's or a merge's -out)")
	out := fs.String("out", "", "`dir`ectory for the report (default: the -in directory)")
	wide := wideFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim report -in DIR [-out DIR] [-wide]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if *in == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if *out == "" {
		*out = *in
	}
	results, err := readResults(filepath.Join(*in, "results.jsonl"))
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim report: %v\n", err)
		return 2
	}
	summary := summaryOf(results)
	if err := reports.WriteSummary(*out, summary, reports.SweepOptions{}); err != nil {
		fmt.Fprintf(stderr, "kafkasim report: %v\n", err)
		return 2
	}
	if err := writeSweepSummary(stdout, summary, slices.ContainsFunc(results, func(r scenarios.Result) bool { return r.Vary != "" }), *wide); err != nil {
		return 2
	}
	printWritten(stderr, *out)
	return 0
}

// replayedMax bounds the failing runs a sweep replays for its report.
const replayedMax = 5

// replayForReport replays, into dir/runs/NAME/, the first few failing runs
// of scenarios that must pass, and the first run that had a failover (an
// example timeline), each with every artifact of `kafkasim run -out`: the
// history, schedule, fault log, result, porcupine's visualization if any,
// the timeline plot and the Chrome trace. A run is a pure function of its
// scenario, seed and settings, so the replay is the run the sweep saw.
func replayForReport(dir string, summary *reports.Summary, sets []string, stderr io.Writer) error {
	failing, _ := summary.Failing()
	pick := slices.Clone(failing[:min(len(failing), replayedMax)])
	if r, ok := summary.FirstFailover(); ok {
		if !slices.ContainsFunc(pick, func(p scenarios.Result) bool { return reports.RunDirName(p) == reports.RunDirName(r) }) {
			pick = append(pick, r)
		}
	}
	for _, r := range pick {
		sc, ok := scenarios.Find(r.Scenario)
		if r.Experiment != "" {
			// The sweep directory's copy of the experiment, if it is
			// still the one that ran.
			le, err := scenarios.LoadExperiment(r.Experiment)
			sc, ok = le.Scenario, err == nil && le.Hash == r.ExperimentHash
		}
		if !ok {
			continue // a merged result from another build's catalog, or an experiment file gone or changed
		}
		runDir := filepath.Join(dir, reports.RunsDir, reports.RunDirName(r))
		if err := os.MkdirAll(runDir, 0o755); err != nil {
			return err
		}
		set := slices.Clone(sets)
		if r.Vary != "" {
			set = append(set, r.Vary)
		}
		res, err := scenarios.Run(sc, r.Seed, scenarios.Options{Set: set, OutDir: runDir})
		if err != nil {
			return err
		}
		if res.TraceHash != r.TraceHash {
			fmt.Fprintf(stderr, "NONDETERMINISM: %s seed %d replayed for the report with trace hash %s, swept with %s\n", r.Scenario, r.Seed, res.TraceHash, r.TraceHash)
		}
		if err := writeRunArtifacts(runDir, res); err != nil {
			return err
		}
	}
	return nil
}
