package scenarios

import (
	"fmt"
	"runtime"
	"sync"

	"kafkasim/checkers"
)

// SweepOptions describe a sweep: many seeds of some scenarios, run in
// parallel, one single-threaded run per worker.
type SweepOptions struct {
	Scenarios []Scenario
	Start     uint64 // first seed
	Seeds     int    // seeds per scenario
	Workers   int    // default: the number of cores
	Set       []string
	// Shard and Shards split a sweep across machines: this sweep runs the
	// jobs whose index mod Shards is Shard. Shards 0 means no sharding.
	Shard, Shards int
	// Recheck is the fraction of runs replayed to check that the same
	// seed gives the same trace hash (the determinism self-check). The
	// sample is chosen by job index, so it is the same on every machine.
	Recheck float64
	// Progress, if set, is called after each run with the count done, the
	// total and the run that just finished (from the caller's goroutine
	// only: never concurrently), so that a progress bar can say which
	// scenario is running and how many runs failed so far.
	Progress func(done, total int, last Result)
	_        struct{}
}

// Job is one (scenario, seed) of a sweep.
type Job struct {
	Index    int
	Scenario Scenario
	Seed     uint64
}

// SweepResult holds every run's result in job order, and any determinism
// failures the recheck found.
type SweepResult struct {
	Results        []Result
	Nondeterminism []string
}

// Jobs lists a sweep's jobs in a fixed order (scenario by scenario, seed by
// seed), after sharding.
func (o SweepOptions) Jobs() ([]Job, error) {
	if o.Shards < 0 || (o.Shards > 0 && (o.Shard < 0 || o.Shard >= o.Shards)) {
		return nil, fmt.Errorf("shard %d/%d: want 0 <= shard < shards", o.Shard, o.Shards)
	}
	if o.Seeds < 1 {
		return nil, fmt.Errorf("seeds %d: want at least 1", o.Seeds)
	}
	var jobs []Job
	i := 0
	for _, sc := range o.Scenarios {
		for k := 0; k < o.Seeds; k++ {
			if o.Shards == 0 || i%o.Shards == o.Shard {
				jobs = append(jobs, Job{Index: i, Scenario: sc, Seed: o.Start + uint64(k)})
			}
			i++
		}
	}
	return jobs, nil
}

// rechecked reports whether job i is in the determinism sample: a fixed
// hash of the index, so every shard and machine picks the same runs.
func rechecked(i int, fraction float64) bool {
	if fraction <= 0 {
		return false
	}
	h := uint64(i)*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019
	h ^= h >> 29
	return float64(h%10000) < fraction*10000
}

// Sweep runs the jobs on a pool of workers. Each run is single-threaded
// and shares nothing with the others (a run is a pure function of its
// scenario, seed and options), so the results do not depend on the number
// of workers or their timing; they are returned in job order.
func Sweep(o SweepOptions) (SweepResult, error) {
	for _, kv := range o.Scenarios {
		if _, err := ConfigFor(kv, o.Set); err != nil {
			return SweepResult{}, fmt.Errorf("scenario %s: %w", kv.Name, err)
		}
	}
	jobs, err := o.Jobs()
	if err != nil {
		return SweepResult{}, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	type outcome struct {
		pos    int
		res    Result
		err    error
		nondet string
	}
	work := make(chan int)
	done := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pos := range work {
				j := jobs[pos]
				res, err := Run(j.Scenario, j.Seed, Options{Set: o.Set})
				oc := outcome{pos: pos, res: res, err: err}
				if err == nil && rechecked(j.Index, o.Recheck) {
					again, err2 := Run(j.Scenario, j.Seed, Options{Set: o.Set})
					if err2 == nil && again.TraceHash != res.TraceHash {
						d, _, _ := Replay(j.Scenario, j.Seed, o.Set, nil)
						oc.nondet = fmt.Sprintf("%s seed %d: trace hash %s then %s: %v", j.Scenario.Name, j.Seed, res.TraceHash, again.TraceHash, d)
					}
				}
				done <- oc
			}
		}()
	}
	go func() {
		for pos := range jobs {
			work <- pos
		}
		close(work)
		wg.Wait()
		close(done)
	}()
	out := SweepResult{Results: make([]Result, len(jobs))}
	var firstErr error
	n := 0
	for oc := range done {
		n++
		if oc.err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%s seed %d: %w", jobs[oc.pos].Scenario.Name, jobs[oc.pos].Seed, oc.err)
		}
		oc.res.History = nil // a sweep keeps results, not every history
		oc.res.Observed, oc.res.Faults = checkers.Observations{}, nil
		oc.res.Replicas, oc.res.DiskLost = nil, nil
		out.Results[oc.pos] = oc.res
		if oc.nondet != "" {
			out.Nondeterminism = append(out.Nondeterminism, oc.nondet)
		}
		if o.Progress != nil {
			o.Progress(n, len(jobs), oc.res)
		}
	}
	return out, firstErr
}
