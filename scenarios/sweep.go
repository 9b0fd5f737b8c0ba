package scenarios

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"kafkasim/model"
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
	// OnResult, if set, receives every run's result as soon as it and
	// every job before it have finished: in job order, from the caller's
	// goroutine, never concurrently. The sweep then keeps no results
	// (SweepResult.Results stays empty), so its memory does not grow with
	// the number of seeds. An error stops the sweep as Stop does and is
	// returned.
	OnResult func(Job, Result) error
	// Skip, if set, is asked about each job before it is started (from one
	// goroutine, never concurrently): a skipped job is not run and not
	// reported, as when a stopped sweep is resumed.
	Skip func(Job) bool
	// Stop, when closed, stops the sweep from starting new runs; the runs
	// under way finish and are reported, and Sweep returns with Stopped set.
	Stop <-chan struct{}
	_    struct{}
}

// Job is one (scenario, seed) of a sweep.
type Job struct {
	Index    int
	Scenario Scenario
	Seed     uint64
}

// SweepResult holds every run's result in job order (when no OnResult
// takes them), and any determinism failures the recheck found.
type SweepResult struct {
	Results        []Result
	Nondeterminism []string
	// Ran counts the runs reported; Stopped says Stop (or an error) ended
	// the sweep before every job was started.
	Ran     int
	Stopped bool
}

// Count is the number of jobs of the sweep after sharding, checking that
// the seeds and their count fit: a sweep's jobs are made one at a time
// (JobAt), never listed, so that a sweep of a billion seeds costs no more
// memory than one of ten.
func (o SweepOptions) Count() (int, error) {
	if o.Shards < 0 || (o.Shards > 0 && (o.Shard < 0 || o.Shard >= o.Shards)) {
		return 0, fmt.Errorf("shard %d/%d: want 0 <= shard < shards", o.Shard, o.Shards)
	}
	if o.Seeds < 1 {
		return 0, fmt.Errorf("seeds %d: want at least 1", o.Seeds)
	}
	if uint64(o.Seeds-1) > math.MaxUint64-o.Start {
		return 0, fmt.Errorf("seeds %d from %d: the last seed would pass %d", o.Seeds, o.Start, uint64(math.MaxUint64))
	}
	if len(o.Scenarios) > 0 && o.Seeds > math.MaxInt/len(o.Scenarios) {
		return 0, fmt.Errorf("seeds %d of %d scenarios: too many jobs", o.Seeds, len(o.Scenarios))
	}
	total := len(o.Scenarios) * o.Seeds
	if o.Shards == 0 {
		return total, nil
	}
	return (total - o.Shard + o.Shards - 1) / o.Shards, nil
}

// JobAt is the p-th job of the sweep after sharding (0 <= p < Count), in
// the fixed order scenario by scenario, seed by seed.
func (o SweepOptions) JobAt(p int) Job {
	i := p
	if o.Shards > 0 {
		i = p*o.Shards + o.Shard
	}
	return Job{Index: i, Scenario: o.Scenarios[i/o.Seeds], Seed: o.Start + uint64(i%o.Seeds)}
}

// Jobs lists a sweep's jobs in a fixed order (scenario by scenario, seed by
// seed), after sharding. For small sweeps and tests; Sweep itself makes
// them one at a time.
func (o SweepOptions) Jobs() ([]Job, error) {
	n, err := o.Count()
	if err != nil {
		return nil, err
	}
	jobs := make([]Job, n)
	for p := range jobs {
		jobs[p] = o.JobAt(p)
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

// windowPerWorker bounds how far the sweep runs ahead of its slowest
// unfinished job: results are reported in job order, so the ones after a
// slow run wait for it, and at most this many per worker are held.
const windowPerWorker = 8

// sweepStart is a job in flight with its sequence number among the jobs
// started, so that the collector can put the results back in order.
type sweepStart struct {
	seq int
	job Job
}

// sweepOutcome is a started job's result, and the determinism failure
// its recheck found, if any.
type sweepOutcome struct {
	sweepStart
	res    Result
	err    error
	nondet string
}

// Sweep runs the jobs on a pool of workers. Each run is single-threaded
// and shares nothing with the others (a run is a pure function of its
// scenario, seed and options), so the results do not depend on the number
// of workers or their timing; they are reported in job order.
func Sweep(o SweepOptions) (SweepResult, error) {
	for _, kv := range o.Scenarios {
		if _, err := ConfigFor(kv, o.Set); err != nil {
			return SweepResult{}, fmt.Errorf("scenario %s: %w", kv.Name, err)
		}
	}
	total, err := o.Count()
	if err != nil {
		return SweepResult{}, err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	work := make(chan sweepStart)
	done := make(chan sweepOutcome)
	// slots bounds the jobs started but not yet reported (running or
	// waiting for an earlier one): the reorder buffer stays small.
	slots := make(chan struct{}, workers*windowPerWorker)
	// quit is closed by the collector when OnResult fails.
	quit := make(chan struct{})
	var stopped bool // written by the dispatcher, read after it ends
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range work {
				done <- o.runJob(s)
			}
		}()
	}
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		stopped = o.dispatch(total, work, slots, quit)
	}()
	go func() {
		<-dispatched
		close(work)
		wg.Wait()
		close(done)
	}()
	c := sweepCollector{o: o, total: total, pending: map[int]sweepOutcome{}, slots: slots, quit: quit}
	for oc := range done {
		c.collect(oc)
	}
	c.out.Stopped = stopped
	return c.out, c.firstErr
}

// runJob runs one job and, when it is in the determinism sample, runs it
// again and explains a trace hash that differs.
func (o SweepOptions) runJob(s sweepStart) sweepOutcome {
	j := s.job
	res, err := Run(j.Scenario, j.Seed, Options{Set: o.Set})
	oc := sweepOutcome{sweepStart: s, res: res, err: err}
	if err == nil && rechecked(j.Index, o.Recheck) {
		again, err2 := Run(j.Scenario, j.Seed, Options{Set: o.Set})
		if err2 == nil && again.TraceHash != res.TraceHash {
			d, _, _ := Replay(j.Scenario, j.Seed, o.Set, nil)
			oc.nondet = fmt.Sprintf("%s seed %d: trace hash %s then %s: %v", j.Scenario.Name, j.Seed, res.TraceHash, again.TraceHash, d)
		}
	}
	return oc
}

// dispatch hands the jobs not skipped to the workers, each once a slot is
// free, until every job is started or Stop or quit ends it (stopped).
func (o SweepOptions) dispatch(total int, work chan<- sweepStart, slots chan<- struct{}, quit <-chan struct{}) (stopped bool) {
	seq := 0
	for p := 0; p < total; p++ {
		j := o.JobAt(p)
		if o.Skip != nil && o.Skip(j) {
			continue
		}
		select {
		case slots <- struct{}{}:
		case <-o.Stop:
			return true
		case <-quit:
			return true
		}
		// A stop that came while waiting for a slot wins over the job.
		select {
		case <-o.Stop:
			return true
		case <-quit:
			return true
		default:
		}
		work <- sweepStart{seq: seq, job: j}
		seq++
	}
	return false
}

// sweepCollector puts the workers' outcomes back in job order and
// reports each: to OnResult or into the results, and to Progress.
type sweepCollector struct {
	o        SweepOptions
	total    int
	out      SweepResult
	firstErr error
	pending  map[int]sweepOutcome
	next     int // the sequence number to report next
	slots    <-chan struct{}
	quit     chan struct{}
}

// collect takes one outcome and reports every one now in order.
func (c *sweepCollector) collect(oc sweepOutcome) {
	c.pending[oc.seq] = oc
	for {
		oc, ok := c.pending[c.next]
		if !ok {
			return
		}
		delete(c.pending, c.next)
		c.next++
		<-c.slots
		c.report(oc)
	}
}

// report hands one outcome on; the first error (a run's or OnResult's)
// closes quit, so that no new job starts.
func (c *sweepCollector) report(oc sweepOutcome) {
	if oc.err != nil {
		if c.firstErr == nil {
			c.firstErr = fmt.Errorf("%s seed %d: %w", oc.job.Scenario.Name, oc.job.Seed, oc.err)
			close(c.quit)
		}
		return
	}
	oc.res.History = nil // a sweep keeps results, not every history
	oc.res.Observed, oc.res.Faults = model.Observations{}, nil
	oc.res.Replicas, oc.res.DiskLost, oc.res.Stranded = nil, nil, nil
	if oc.nondet != "" {
		c.out.Nondeterminism = append(c.out.Nondeterminism, oc.nondet)
	}
	c.out.Ran++
	if c.o.OnResult == nil {
		c.out.Results = append(c.out.Results, oc.res)
	} else if c.firstErr == nil {
		if err := c.o.OnResult(oc.job, oc.res); err != nil {
			c.firstErr = err
			close(c.quit)
		}
	}
	if c.o.Progress != nil {
		c.o.Progress(c.out.Ran, c.total, oc.res)
	}
}
