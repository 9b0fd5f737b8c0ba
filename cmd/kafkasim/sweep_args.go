package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"

	"kafkasim/scenarios"
)

// sweepArgs are the sweep command's flags, as given or, with -resume, as
// the stopped sweep's manifest recorded them.
type sweepArgs struct {
	name, expFile, out, resume, shard, vary string
	seeds, workers                          int
	start                                   uint64
	sets                                    setFlags
	force, asJSON, wide                     bool
	recheck                                 float64
	nameGiven                               bool // -scenario was on the command line
}

// parseSweepArgs reads the sweep command's flags. When ok is false the
// command ends with code: 0 for -h, 2 for a bad flag (already reported).
func parseSweepArgs(args []string, stderr io.Writer) (a sweepArgs, code int, ok bool) {
	fs := flag.NewFlagSet("kafkasim sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&a.name, "scenario", "safe", "scenario `name`, or all, or safe (every scenario that must pass)")
	fs.StringVar(&a.expFile, "f", "", "sweep the experiment in this `file` (TOML; see docs/experiments.md) instead of catalog scenarios")
	fs.IntVar(&a.seeds, "seeds", 20, "seeds per scenario")
	fs.Uint64Var(&a.start, "start", 1, "first seed")
	fs.IntVar(&a.workers, "workers", runtime.NumCPU(), "parallel runs")
	fs.Var(&a.sets, "set", "override a configuration value by Kafka's name, `key=value` (repeatable)")
	fs.StringVar(&a.out, "out", "", "`dir`ectory for results.jsonl (written as runs finish) and the report; a new or empty one (default: a new store/SCENARIO/TIME/, linked from store/latest)")
	fs.BoolVar(&a.force, "force", false, "reuse an -out directory that holds files: a previous sweep's outputs in it are removed, nothing else")
	fs.StringVar(&a.resume, "resume", "", "continue the stopped sweep in `dir`: its flags come from dir/sweep.json, and only the runs missing from its results.jsonl are made (with -workers and -json only)")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object per run instead of a table")
	fs.StringVar(&a.shard, "shard", "", "run only shard `I/N` of the seeds (index mod N == I); combine shards with kafkasim merge")
	fs.Float64Var(&a.recheck, "recheck", 0.03, "fraction of runs replayed to check determinism")
	wide := wideFlag(fs)
	fs.StringVar(&a.vary, "vary", "", "run the same seeds under each value of one configuration key, `key=v1,v2,...`, and compare them")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim sweep [-scenario NAME|all|safe | -f FILE] [-seeds K] [-start S] [-workers W] [-set key=value ...] [-vary key=v1,v2,...] [-out DIR [-force]] [-json] [-wide] [-shard I/N] [-recheck F]")
		fmt.Fprintln(stderr, "       kafkasim sweep -resume DIR [-workers W] [-json]")
		fs.PrintDefaults()
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return a, code, false
	}
	a.wide = *wide
	fs.Visit(func(f *flag.Flag) { a.nameGiven = a.nameGiven || f.Name == "scenario" })
	if a.resume != "" {
		if err := a.fromManifest(fs); err != nil {
			fmt.Fprintf(stderr, "kafkasim sweep: %v\n", err)
			return a, 2, false
		}
	}
	return a, 0, true
}

// fromManifest takes a stopped sweep's flags from its manifest: only
// -workers and -json may be given beside -resume.
func (a *sweepArgs) fromManifest(fs *flag.FlagSet) error {
	var other []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "resume" && f.Name != "workers" && f.Name != "json" {
			other = append(other, "-"+f.Name)
		}
	})
	if len(other) > 0 {
		return fmt.Errorf("-resume takes the sweep's flags from %s; %s cannot be changed (only -workers and -json)", filepath.Join(a.resume, manifestName), strings.Join(other, ", "))
	}
	m, err := readManifest(a.resume)
	if err != nil {
		return err
	}
	a.name, a.seeds, a.start, a.sets, a.vary, a.shard, a.recheck = m.Scenario, m.Seeds, m.Start, m.Set, m.Vary, m.Shard, m.Recheck
	if m.Experiment != "" {
		a.expFile = filepath.Join(a.resume, m.Experiment)
	}
	return nil
}

// sweepPlan is what a sweep will run: its scenarios (or experiment), the
// values of a -vary key, and the run count.
type sweepPlan struct {
	exp    *scenarios.LoadedExperiment
	scs    []scenarios.Scenario
	opts   scenarios.SweepOptions
	varied []string
	total  int // runs, over every -vary value
}

// planSweep checks the flags against each other and the catalog and works
// out the runs, so that a bad sweep is refused before anything is
// written.
func planSweep(a *sweepArgs) (sweepPlan, error) {
	var p sweepPlan
	var err error
	if a.expFile != "" {
		if a.nameGiven {
			return p, errors.New("-scenario and -f are exclusive: sweep catalog scenarios or an experiment file")
		}
		var sc scenarios.Scenario
		if sc, p.exp, err = scenarioFlags("", a.expFile); err != nil {
			return p, err
		}
		p.scs, a.name = []scenarios.Scenario{sc}, sc.Name
	} else if p.scs, err = selectScenarios(a.name); err != nil {
		return p, err
	}
	if a.seeds < 1 || a.workers < 1 || a.recheck < 0 || a.recheck > 1 {
		return p, errors.New("-seeds and -workers must be at least 1, -recheck within [0, 1]")
	}
	p.opts = scenarios.SweepOptions{Scenarios: p.scs, Start: a.start, Seeds: a.seeds, Workers: a.workers, Set: a.sets, Recheck: a.recheck}
	if p.opts.Shard, p.opts.Shards, err = parseShard(a.shard); err != nil {
		return p, err
	}
	if p.varied, err = parseVary(a.vary, p.scs, a.sets); err != nil {
		return p, err
	}
	for _, sc := range p.scs {
		if _, err = scenarios.ConfigFor(sc, a.sets); err != nil {
			return p, err
		}
	}
	perVary, err := p.opts.Count()
	if err != nil {
		return p, err
	}
	if perVary > math.MaxInt/max(1, len(p.varied)) {
		return p, fmt.Errorf("-seeds %d: too many runs", a.seeds)
	}
	p.total = perVary * max(1, len(p.varied))
	return p, nil
}
