package checkers

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kafkasim/model"
)

// genTxnHistory makes a valid history of about n ops in which producers
// run Kafka transactions at read_committed, as Jepsen's transactional
// workload does. Each round every producer runs one transaction: one to
// four sends to random partitions, then, half the time, a poll of its own
// partition (read-process-write). The round's micro-operations happen in
// a random merge of the transactions (each keeps its own order): a send
// lands at the partition's end; a poll returns the committed records from
// the process's position up to the first record of a transaction still
// open (the last stable offset); a commit makes the transaction's records
// visible. After each round, one consumer per partition polls everything
// committed.
//
// Nothing in it breaks a promise, but it is full of what Kafka's
// unisolated transactions allow: sends of concurrent transactions
// interleave (int-send-skip, G0) and a transaction may poll a record of
// one that committed after its own send landed behind that one's (G1c
// through a ww edge).
func genTxnHistory(n, parts int, seed uint64) model.History {
	rng := rand.New(rand.NewPCG(seed, 2))
	producers := 8
	type rec struct {
		value     string
		txn       int
		committed bool
	}
	logs := make([][]rec, parts)
	readPos := make([]int, (producers+parts)*parts) // process*parts+partition → next offset
	tp := func(p int) model.TopicPartition { return model.TP("t", int32(p)) }
	// pollLSO reads partition p for process proc up to the first open
	// record.
	pollLSO := func(proc, p int) model.Op {
		op := model.Op{F: model.FPoll, Offset: model.NoOffset}
		pos := &readPos[proc*parts+p]
		pr := model.PartitionRecords{TP: tp(p)}
		for *pos < len(logs[p]) && logs[p][*pos].committed {
			pr.Records = append(pr.Records, model.OffsetValue{Offset: model.Offset(*pos), Value: logs[p][*pos].value})
			*pos++
		}
		if len(pr.Records) > 0 {
			op.Records = []model.PartitionRecords{pr}
		}
		return op
	}
	h := make(model.History, 0, n+64)
	txnID, value := 0, 0
	for round := 0; len(h) < n; round++ {
		base := time.Duration(round) * time.Millisecond
		// Plan: per producer, its sends' partitions and whether it polls.
		type plan struct {
			id    int
			parts []int
			poll  bool
			ops   []model.Op
			next  int // next micro-op to happen; len(parts)+poll means commit
		}
		plans := make([]plan, producers)
		for p := range plans {
			txnID++
			pl := plan{id: txnID, poll: rng.IntN(2) == 0}
			for range 1 + rng.IntN(4) {
				pl.parts = append(pl.parts, rng.IntN(parts))
			}
			plans[p] = pl
		}
		open, committed := producers, 0
		for open > 0 {
			p := rng.IntN(producers)
			pl := &plans[p]
			steps := len(pl.parts)
			if pl.poll {
				steps++
			}
			switch {
			case pl.next > steps:
				continue // done
			case pl.next < len(pl.parts):
				part := pl.parts[pl.next]
				value++
				v := fmt.Sprintf("v%d", value)
				pl.ops = append(pl.ops, model.Op{F: model.FSend, TP: tp(part), Value: v, Offset: model.Offset(len(logs[part]))})
				logs[part] = append(logs[part], rec{value: v, txn: pl.id})
			case pl.next < steps:
				pl.ops = append(pl.ops, pollLSO(p, p%parts))
			default:
				for _, op := range pl.ops {
					if op.F == model.FSend {
						logs[op.TP.Partition][op.Offset].committed = true
					}
				}
				committed++
				for i := range pl.ops {
					pl.ops[i].End = base + time.Duration(100+committed)*time.Microsecond
				}
				open--
			}
			pl.next++
		}
		for p := range plans {
			for _, op := range plans[p].ops {
				op.Index, op.Process, op.Type, op.Txn = len(h), p, model.OpOK, plans[p].id
				op.Time = base + time.Duration(p)*time.Microsecond
				h = append(h, op)
			}
		}
		for c := 0; c < parts; c++ {
			op := pollLSO(producers+c, c)
			op.Index, op.Process, op.Type = len(h), producers+c, model.OpOK
			op.Time = base + time.Duration(200+c)*time.Microsecond
			op.End = op.Time + time.Microsecond
			h = append(h, op)
		}
	}
	return h
}

// The transactional generator's histories must be free of errors, and
// hold the allowed findings the graph analysis works on, or the
// benchmarks below measure the wrong path.
func TestGeneratedTxnHistory(t *testing.T) {
	h := genTxnHistory(20000, 10, 1)
	r := check(t, Input{History: h}, Options{Idempotent: true, LinearizabilityBudget: -1})
	if errs := r.Errors(); len(errs) > 0 {
		t.Fatalf("generated history has %d errors, first %s", len(errs), errs[0].String())
	}
	for _, a := range []string{IntSendSkip, G0, G1c} {
		if len(find(r, a)) == 0 {
			t.Errorf("no %s in the generated history: %s", a, r.Summary())
		}
	}
}

// BenchmarkTxnGraph100k builds the dependency graph of a 100,000-op
// transactional history and searches it for cycles.
func BenchmarkTxnGraph100k(b *testing.B) {
	const n = 100_000
	h := genTxnHistory(n, 10, 3)
	a := analyze(h)
	cycles := 0
	cpu := cpuClock()
	for b.Loop() {
		cycles = len(newTxnIndex(a).cycles())
	}
	reportCPU(b, cpu)
	if cycles == 0 {
		b.Fatal("no cycles found")
	}
	b.ReportMetric(float64(len(h))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
	b.ReportMetric(float64(cycles), "cycles")
}

// BenchmarkAnomaliesTxn1M runs every history anomaly check, the
// transactional ones included, over a 1,000,000-op transactional history.
func BenchmarkAnomaliesTxn1M(b *testing.B) {
	const n = 1_000_000
	h := genTxnHistory(n, 10, 4)
	opts := Options{Idempotent: true}
	cpu := cpuClock()
	for b.Loop() {
		r := CheckAnomalies(h, opts)
		if errs := r.Errors(); len(errs) > 0 {
			b.Fatalf("unexpected verdict %s", r.Summary())
		}
	}
	reportCPU(b, cpu)
	b.ReportMetric(float64(len(h))*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
