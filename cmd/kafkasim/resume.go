package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

// resumeFrom reads the results.jsonl of a stopped sweep in dir into the
// summary and returns the runs it holds, which the resumed sweep skips.
// A torn last row (the sweep was killed while writing it) is cut off and
// run again; a row that is not a run of this sweep (another scenario, a
// seed outside it, another shard, twice the same run) is bad input,
// named by file and line.
func resumeFrom(dir string, opts scenarios.SweepOptions, varied []string, summary *reports.Summary, stderr io.Writer) (map[runKey]bool, error) {
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("-resume %s: not a sweep's folder", dir)
	}
	path := filepath.Join(dir, "results.jsonl")
	torn, err := dropTornTail(path)
	if err != nil {
		return nil, err
	}
	if torn {
		fmt.Fprintf(stderr, "kafkasim sweep: %s: dropped a torn last row; that run is made again\n", path)
	}
	done := map[runKey]bool{}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return done, nil
	}
	vs := varied
	if len(vs) == 0 {
		vs = []string{""}
	}
	err = eachResult(path, func(line int, r scenarios.Result) error {
		i := slices.IndexFunc(opts.Scenarios, func(sc scenarios.Scenario) bool { return sc.Name == r.Scenario })
		if i < 0 || r.Seed < opts.Start || r.Seed-opts.Start >= uint64(opts.Seeds) || !slices.Contains(vs, r.Vary) {
			return fmt.Errorf("%s:%d: %s seed %d (%q) is not a run of the sweep in %s", path, line, r.Scenario, r.Seed, r.Vary, manifestName)
		}
		if index := i*opts.Seeds + int(r.Seed-opts.Start); opts.Shards > 0 && index%opts.Shards != opts.Shard {
			return fmt.Errorf("%s:%d: %s seed %d belongs to another shard than %d/%d", path, line, r.Scenario, r.Seed, opts.Shard, opts.Shards)
		}
		k := runKey{r.Vary, r.Scenario, r.Seed}
		if done[k] {
			return fmt.Errorf("%s:%d: %s seed %d is there twice", path, line, r.Scenario, r.Seed)
		}
		done[k] = true
		summary.Add(r)
		return nil
	})
	return done, err
}
