package scenarios

import (
	"slices"
	"testing"
)

// TestSweepIsIndependentOfWorkers runs the same small sweep with one and
// with four workers (run under -race in CI): the results must be the same
// runs, in the same order, with the same trace hashes.
func TestSweepIsIndependentOfWorkers(t *testing.T) {
	base, _ := Find("baseline")
	base.Safety /= 4
	fail, _ := Find("leader-failover")
	fail.Safety /= 3
	opts := SweepOptions{Scenarios: []Scenario{base, fail}, Start: 10, Seeds: 3, Recheck: 0.5}
	hashes := func(workers int) []string {
		o := opts
		o.Workers = workers
		calls := 0
		o.Progress = func(done, total int, _ Result) {
			calls++
			if done != calls || total != 6 {
				t.Fatalf("progress %d/%d at call %d", done, total, calls)
			}
		}
		res, err := Sweep(o)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Nondeterminism) > 0 {
			t.Fatalf("determinism self-check failed: %v", res.Nondeterminism)
		}
		var out []string
		for _, r := range res.Results {
			if !r.OK {
				t.Fatalf("%s seed %d failed: %v", r.Scenario, r.Seed, r.Liveness)
			}
			out = append(out, r.Scenario+"/"+r.TraceHash)
		}
		return out
	}
	one, four := hashes(1), hashes(4)
	if !slices.Equal(one, four) {
		t.Fatalf("1 worker: %v\n4 workers: %v", one, four)
	}
	if one[0] == one[1] {
		t.Fatal("two seeds gave the same trace hash")
	}
}

func TestSweepShardsPartitionTheJobs(t *testing.T) {
	o := SweepOptions{Scenarios: Catalog()[:2], Start: 1, Seeds: 5}
	var all []int
	for shard := 0; shard < 3; shard++ {
		o.Shard, o.Shards = shard, 3
		jobs, err := o.Jobs()
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			all = append(all, j.Index)
		}
	}
	slices.Sort(all)
	if len(all) != 10 || all[0] != 0 || all[9] != 9 {
		t.Fatalf("shards cover %v, want 0..9 exactly once", all)
	}
	for _, bad := range [][2]int{{3, 3}, {-1, 2}, {0, -1}} {
		o.Shard, o.Shards = bad[0], bad[1]
		if _, err := o.Jobs(); err == nil {
			t.Fatalf("shard %d/%d accepted", bad[0], bad[1])
		}
	}
}

func TestReplayOfADeterministicRunAgrees(t *testing.T) {
	sc, _ := Find("leader-failover")
	sc.Safety /= 3
	if d, same, err := Replay(sc, 4, nil, nil); err != nil || !same {
		t.Fatalf("replay of one seed differs: %v (err %v)", d, err)
	}
}
