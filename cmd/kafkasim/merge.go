package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

// runMerge combines shard outputs: the results.jsonl of each input folder,
// sorted by scenario and seed, into one results.jsonl and report. Shards
// that overlap (the same run in two of them, as when one folder is given
// twice) are refused, naming the run and both places, since merging them
// would count it twice.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("kafkasim merge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "new or empty `dir`ectory for the merged results.jsonl and report (required)")
	force := fs.Bool("force", false, "reuse an -out directory that holds files: a previous sweep's outputs in it are removed, nothing else")
	wide := wideFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim merge -out DIR [-force] [-wide] SHARD_DIR...")
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
	type where struct {
		path string
		line int
	}
	seen := map[runKey]where{}
	var all []scenarios.Result
	for _, dir := range fs.Args() {
		path := filepath.Join(dir, "results.jsonl")
		err := eachResult(path, func(line int, r scenarios.Result) error {
			k := runKey{r.Vary, r.Scenario, r.Seed}
			if w, ok := seen[k]; ok {
				return fmt.Errorf("%s:%d: %s seed %d is also at %s:%d; the shards overlap", path, line, label(r), r.Seed, w.path, w.line)
			}
			seen[k] = where{path, line}
			all = append(all, r)
			return nil
		})
		if err != nil {
			fmt.Fprintf(stderr, "kafkasim merge: %v\n", err)
			return 2
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].Scenario != all[j].Scenario {
			return all[i].Scenario < all[j].Scenario
		}
		return all[i].Seed < all[j].Seed
	})
	dir, created, _, err := prepareSweepDir(*out, *force, "")
	if err == nil {
		err = reports.WriteFile(filepath.Join(dir, "results.jsonl"), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			for _, r := range all {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
			return nil
		})
	}
	summary := summaryOf(all)
	if err == nil {
		err = reports.WriteSummary(dir, summary, reports.SweepOptions{})
	}
	if err != nil {
		if created {
			os.RemoveAll(dir)
		}
		fmt.Fprintf(stderr, "kafkasim merge: %v\n", err)
		return 2
	}
	if err := writeSweepSummary(stdout, summary, false, *wide); err != nil {
		return 2
	}
	printWritten(stderr, *out)
	return sweepExit(summary, false)
}

// label names a run for a message: its scenario, and its -vary setting.
func label(r scenarios.Result) string {
	if r.Vary != "" {
		return r.Scenario + " (" + r.Vary + ")"
	}
	return r.Scenario
}
