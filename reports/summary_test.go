package reports

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// TestSampleIsExactWhileSmallAndBoundedPastIt: up to sampleCap values a
// Sample gives the very quantiles of the values; past it, it holds
// sampleCap of them, keeps the count and maximum exact, and its quantiles
// of a uniform spread stay within 2% of the true ones (the standard error
// of a median from 10,000 draws is 0.5%); the same
// values give the same sample.
func TestSampleIsExactWhileSmallAndBoundedPastIt(t *testing.T) {
	var small Sample
	var all []time.Duration
	for i := 1000; i >= 1; i-- {
		small.Add(time.Duration(i) * time.Millisecond)
		all = append(all, time.Duration(i)*time.Millisecond)
	}
	slices.Sort(all)
	q := small.Quantiles()
	if !small.Exact() || q.N != 1000 || q.P50 != Quantile(all, 0.5) || q.P99 != Quantile(all, 0.99) || q.Max != time.Second {
		t.Fatalf("small sample %+v", q)
	}
	const n = 1_000_000
	fill := func() *Sample {
		s := &Sample{}
		// 1..n ms in increasing order: a sample that kept the first
		// values (or the last) would be far off every quantile.
		for i := 1; i <= n; i++ {
			s.Add(time.Duration(i) * time.Millisecond)
		}
		return s
	}
	big, again := fill(), fill()
	if big.Exact() || len(big.values) != sampleCap || big.N() != n || big.Quantiles().Max != n*time.Millisecond {
		t.Fatalf("big sample: exact %v, kept %d, n %d, max %v", big.Exact(), len(big.values), big.N(), big.Quantiles().Max)
	}
	bq := big.Quantiles()
	for _, c := range []struct {
		got  time.Duration
		want float64
	}{{bq.P50, 0.5}, {bq.P90, 0.9}, {bq.P99, 0.99}} {
		if err := c.got.Seconds()/(c.want*n/1000) - 1; err > 0.02 || err < -0.02 {
			t.Errorf("p%.0f %v, want about %.0fs", c.want*100, c.got, c.want*n/1000)
		}
	}
	if !slices.Equal(big.Sorted(), again.Sorted()) {
		t.Fatal("the same values gave two samples")
	}
}

// TestSummaryCountsEveryRunAndKeepsFewOfThem: the summary of many runs
// counts each, keeps only the first failing runs (with a few violations
// each), and judges the sweep as sweepAsExpected did: a failing run of a
// scenario that must pass, or a bug scenario that never showed its
// anomaly, is not as expected; passing runs and a bug shown once are.
func TestSummaryCountsEveryRunAndKeepsFewOfThem(t *testing.T) {
	s := NewSummary()
	bad := checkers.Violation{Anomaly: "lost-write", Error: true, Partition: model.TP("t", 0)}
	for seed := uint64(1); seed <= 200; seed++ {
		r := scenarios.Result{Scenario: "safe-one", Seed: seed, OK: true, AsExpected: true,
			Failovers: []scenarios.Failover{{Election: time.Duration(seed) * time.Millisecond, Unavailable: time.Second}}}
		if seed%2 == 0 {
			r.OK, r.AsExpected = false, false
			r.Violations = slices.Repeat([]checkers.Violation{bad}, 40)
		}
		s.Add(r)
	}
	if s.AsExpected() {
		t.Fatal("100 failing runs of a scenario that must pass judged as expected")
	}
	failing, more := s.Failing()
	if len(failing) != failingShown || more != 100-failingShown || len(failing[0].Violations) != failingViolations || failing[0].Seed != 2 {
		t.Fatalf("kept %d failing (first seed %d, %d violations), %d more", len(failing), failing[0].Seed, len(failing[0].Violations), more)
	}
	st := Summarize(s.Groups()[0])
	if st.Runs != 200 || st.Failed != 100 || st.Failovers != 200 || st.Election.N != 200 || st.Election.Max != 200*time.Millisecond ||
		len(st.Violations) != 1 || st.Violations[0] != "lost-write 100" {
		t.Fatalf("stats %+v", st)
	}
	if r, ok := s.FirstFailover(); !ok || r.Seed != 1 {
		t.Fatalf("first failover %v %v", r.Seed, ok)
	}

	fine := NewSummary()
	fine.Add(scenarios.Result{Scenario: "safe-one", Seed: 1, OK: true, AsExpected: true})
	fine.Add(scenarios.Result{Scenario: "bug", Seed: 1, Expected: "lost-write", OK: true})
	if fine.AsExpected() {
		t.Fatal("a bug scenario that never showed its anomaly judged as expected")
	}
	fine.Add(scenarios.Result{Scenario: "bug", Seed: 2, Expected: "lost-write", AsExpected: true})
	if !fine.AsExpected() || !fine.Mixed() || len(fine.Groups()) != 2 {
		t.Fatalf("passing runs and a bug shown once: as expected %v, mixed %v, groups %d", fine.AsExpected(), fine.Mixed(), len(fine.Groups()))
	}
}

// BenchmarkSummaryMemory folds a million results, each with a failover
// and a controller failover, into one summary and reports the heap the
// summary holds afterwards (bytes), which must not grow with the runs.
func BenchmarkSummaryMemory(b *testing.B) {
	const runs = 1_000_000
	var held float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := NewSummary()
		for i := 0; i < runs; i++ {
			d := time.Duration(i%5000) * time.Millisecond
			s.Add(scenarios.Result{Scenario: "leader-failover", Seed: uint64(i), OK: true, AsExpected: true,
				Failovers:           []scenarios.Failover{{Election: d, FirstAck: d, Unavailable: d, ConsumerGap: d}},
				ControllerFailovers: []scenarios.ControllerFailover{{Election: d, FirstCommit: d}}})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = float64(after.HeapAlloc) - float64(before.HeapAlloc)
		runtime.KeepAlive(s)
	}
	b.ReportMetric(held, "heap-bytes/summary")
	b.ReportMetric(runs, "runs/summary")
}
