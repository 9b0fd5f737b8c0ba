package checkers

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"kafkasim/model"
)

// genHistory makes a valid, linearizable history of n ops over parts
// partitions: parts producers send to random partitions, one consumer per
// partition polls it in order. Processes take turns; each op lasts less
// than a round, so a process's ops never overlap but different processes'
// ops do. Every op takes effect at its invocation, in index order, which
// is what makes the history linearizable.
func genHistory(n, parts int, seed uint64) model.History {
	rng := rand.New(rand.NewPCG(seed, 1))
	procs := 2 * parts
	logs := make([][]string, parts)
	pos := make([]int, parts)
	h := make(model.History, 0, n)
	for i := 0; len(h) < n; i++ {
		p := i % procs
		t := time.Duration(i) * time.Microsecond
		op := model.Op{Index: len(h), Process: p, Type: model.OpOK, Time: t,
			End: t + time.Duration(1+rng.IntN(procs-1))*time.Microsecond, Offset: model.NoOffset}
		if p < parts {
			part := rng.IntN(parts)
			op.F, op.TP = model.FSend, model.TP("t", int32(part))
			op.Value = fmt.Sprintf("v%d", i)
			op.Offset = model.Offset(len(logs[part]))
			logs[part] = append(logs[part], op.Value)
		} else {
			part := p - parts
			op.F = model.FPoll
			end := min(len(logs[part]), pos[part]+1+rng.IntN(10))
			if end > pos[part] {
				pr := model.PartitionRecords{TP: model.TP("t", int32(part))}
				for o := pos[part]; o < end; o++ {
					pr.Records = append(pr.Records, model.OffsetValue{Offset: model.Offset(o), Value: logs[part][o]})
				}
				op.Records = []model.PartitionRecords{pr}
				pos[part] = end
			}
		}
		h = append(h, op)
	}
	return h
}

// The generator's histories must pass everything, or the benchmarks
// below measure the wrong path.
func TestGeneratedHistoryPasses(t *testing.T) {
	h := genHistory(20000, 10, 1)
	r := check(t, Input{History: h}, Options{Idempotent: true})
	// The last sends are never polled: unseen, and nothing else.
	for _, v := range r.Violations {
		if v.Anomaly != Unseen {
			t.Fatalf("generated history: %s", dump(r))
		}
	}
	for _, pc := range r.Linearizability {
		if pc.Result != "Ok" {
			t.Fatalf("generated history: %s", dump(r))
		}
	}
}

// startClock starts a benchmark's clocks once the garbage of making its
// history is collected. The testing package collects before running a
// benchmark for the same reason, but the history is made inside it: left
// alone, the first timed iteration marks the generator's leftovers along
// with its own (a collection of the 1.3 GB transactional history costs
// about 0.3 CPU s), and a figure over a few iterations hangs on when
// that collection happens to fall.
func startClock(b *testing.B) time.Duration {
	runtime.GC()
	b.ResetTimer()
	return cpuClock()
}

// BenchmarkAnomalies1M runs every history anomaly check over 1,000,000 ops.
func BenchmarkAnomalies1M(b *testing.B) {
	const n = 1_000_000
	h := genHistory(n, 10, 1)
	opts := Options{Idempotent: true, LinearizabilityBudget: -1}
	cpu := startClock(b)
	for b.Loop() {
		r := Check(Input{History: h}, opts)
		for _, v := range r.Violations {
			if v.Anomaly != Unseen { // an unpolled tail may be unseen
				b.Fatalf("unexpected verdict %s", r.Summary())
			}
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkPorcupine100k runs the porcupine log model over 100,000 ops
// across 10 partitions.
func BenchmarkPorcupine100k(b *testing.B) {
	const n = 100_000
	h := genHistory(n, 10, 2)
	a := analyze(h)
	opts := Options{LinearizabilityBudget: time.Minute, LinearizabilityWork: -1}
	var work int64
	cpu := startClock(b)
	for b.Loop() {
		var r Result
		a.linearizability(&opts, &r)
		work = 0
		for _, pc := range r.Linearizability {
			if pc.Result != "Ok" {
				b.Fatalf("partition %s: %s", pc.TP, pc.Result)
			}
			work += pc.Work
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	// What calibrates DefaultLinearizabilityWork: work units a CPU second.
	b.ReportMetric(float64(work), "work-units")
	if s := (cpuClock() - cpu).Seconds(); s > 0 {
		b.ReportMetric(float64(work)*float64(b.N)/s, "work-units/cpu-s")
	}
}
