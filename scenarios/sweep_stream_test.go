package scenarios

import (
	"errors"
	"math"
	"testing"
)

// TestSweepStreamsInJobOrder: with OnResult the sweep hands over every
// result in job order whatever the workers' timing (run under -race in
// CI), keeps none itself, skips what Skip names, and stops starting runs
// when Stop is closed or OnResult fails.
func TestSweepStreamsInJobOrder(t *testing.T) {
	base, _ := Find("baseline")
	base.Safety /= 4
	o := SweepOptions{Scenarios: []Scenario{base}, Start: 1, Seeds: 9, Workers: 3}
	var seeds []uint64
	o.OnResult = func(j Job, r Result) error {
		if r.Seed != j.Seed || r.History != nil {
			t.Errorf("job seed %d, result seed %d, history kept %v", j.Seed, r.Seed, r.History != nil)
		}
		seeds = append(seeds, r.Seed)
		return nil
	}
	o.Skip = func(j Job) bool { return j.Seed%3 == 0 }
	res, err := Sweep(o)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{1, 2, 4, 5, 7, 8}
	if len(seeds) != len(want) || res.Ran != len(want) || len(res.Results) != 0 || res.Stopped {
		t.Fatalf("seeds %v (want %v), ran %d, kept %d, stopped %v", seeds, want, res.Ran, len(res.Results), res.Stopped)
	}
	for i := range want {
		if seeds[i] != want[i] {
			t.Fatalf("seeds %v, want %v in order", seeds, want)
		}
	}

	// Stopped before the start: nothing runs.
	stop := make(chan struct{})
	close(stop)
	o.Skip, o.Stop, seeds = nil, stop, nil
	if res, err := Sweep(o); err != nil || res.Ran != 0 || !res.Stopped || len(seeds) != 0 {
		t.Fatalf("stopped sweep: ran %d, stopped %v, seeds %v, err %v", res.Ran, res.Stopped, seeds, err)
	}

	// OnResult fails on the second result: the error comes back, no
	// result after it is handed over, and the sweep stops. The jobs after
	// the first three are not started before that failure (Skip is asked
	// from the dispatcher), so that the runs cannot all be over before the
	// sweep learns of it, however fast they are.
	o.Stop = nil
	boom := errors.New("disk full")
	failed := make(chan struct{})
	n := 0
	o.OnResult = func(Job, Result) error {
		n++
		if n == 2 {
			close(failed)
			return boom
		}
		return nil
	}
	o.Skip = func(j Job) bool {
		if j.Seed > 3 {
			<-failed
		}
		return false
	}
	if res, err := Sweep(o); !errors.Is(err, boom) || n != 2 || !res.Stopped && res.Ran == 9 {
		t.Fatalf("failing OnResult: err %v, calls %d, ran %d, stopped %v", err, n, res.Ran, res.Stopped)
	}
}

// TestSweepCountsWithoutListing: a sweep's size is computed, not listed,
// and seeds past the last uint64 or a job count past int are refused.
func TestSweepCountsWithoutListing(t *testing.T) {
	scs := Catalog()[:3]
	o := SweepOptions{Scenarios: scs, Start: 1, Seeds: 99999999999999}
	if n, err := o.Count(); err != nil || n != 3*99999999999999 {
		t.Fatalf("count %d, %v", n, err)
	}
	o.Shard, o.Shards = 2, 4
	if n, _ := o.Count(); n != (3*99999999999999-2+3)/4 {
		t.Fatalf("shard count %d", n)
	}
	if j := o.JobAt(1); j.Index != 6 || j.Scenario.Name != scs[0].Name || j.Seed != 7 {
		t.Fatalf("job 1 of shard 2/4: %+v", j)
	}
	o.Shard, o.Shards = 0, 0
	o.Start, o.Seeds = math.MaxUint64, 2
	if _, err := o.Count(); err == nil {
		t.Fatal("seeds past the last uint64 accepted")
	}
	o.Start, o.Seeds = math.MaxUint64, 1
	if _, err := o.Count(); err != nil {
		t.Fatalf("the last seed refused: %v", err)
	}
	o.Start, o.Seeds = 0, math.MaxInt/2
	if _, err := o.Count(); err == nil {
		t.Fatal("a job count past int accepted")
	}
}
