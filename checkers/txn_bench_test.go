package checkers

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"kafkasim/model"
)

// genTxnHistory makes a valid history of n client operations (rounded up to a whole round) in the shape
// of Jepsen's transactional Kafka workload (kafka.clj workload with :txn?:
// its txn-generator rewrites Elle's list-append transactions, of one to
// four micro-operations each, into sends and polls, :append becoming
// [:send k v] and :r becoming [:poll]). Each round every process runs one
// operation of 1 to 4 micro-operations, each a send to a random partition
// or a poll (half and half), in any order; an operation of sends only is
// a :send, of polls only a :poll, and a mix a :txn, and every one runs as
// a read_committed Kafka transaction. A process is assigned three
// partitions (Jepsen's assign ops give a consumer a few keys) and polls
// them from its position, up to ten records a partition. At the end, as
// Jepsen's final-polls, each process polls until it has read everything.
//
// The round's micro-operations happen in a random merge of the
// operations (each keeps its own order): a send lands at the partition's
// end; a poll returns committed records up to the first record of a
// transaction still open (the last stable offset); a commit makes the
// transaction's records visible.
//
// Nothing in it breaks a promise, but it is full of what Kafka's
// unisolated transactions allow: sends of concurrent transactions
// interleave (int-send-skip, G0) and a transaction may poll a record of
// one that committed after its own send landed behind that one's (G1c
// through a ww edge).
func genTxnHistory(n, parts int, seed uint64) model.History {
	rng := rand.New(rand.NewPCG(seed, 2))
	const procs, assigned, maxPoll = 10, 3, 10
	type rec struct {
		value     string
		committed bool
	}
	logs := make([][]rec, parts)
	readPos := make([]int, procs*parts) // process*parts+partition → next offset
	tp := func(p int) model.TopicPartition { return model.TP("t", int32(p)) }
	// poll reads process proc's partitions from its positions, each up to
	// the first open record.
	poll := func(proc int) model.Op {
		op := model.Op{F: model.FPoll, Offset: model.NoOffset}
		for p := range parts { // in partition order, as a poll lists them
			if (p-proc%parts+parts)%parts >= assigned {
				continue
			}
			pos := &readPos[proc*parts+p]
			pr := model.PartitionRecords{TP: tp(p)}
			for end := *pos + maxPoll; *pos < min(end, len(logs[p])) && logs[p][*pos].committed; *pos++ {
				pr.Records = append(pr.Records, model.OffsetValue{Offset: model.Offset(*pos), Value: logs[p][*pos].value})
			}
			if len(pr.Records) > 0 {
				op.Records = append(op.Records, pr)
			}
		}
		return op
	}
	// An operation's plan: for each micro-operation, the partition it
	// sends to, or -1 for a poll.
	type plan struct {
		mops []int
		ops  []model.Op
		next int // the next micro-op to happen; len(mops) means commit
	}
	h := make(model.History, 0, 21*n/8+1024) // 2.5 micro-ops an operation, and some room
	txnID, value := 0, 0
	plans := make([]plan, procs)
	for round, done := 0, 0; done < n; round++ {
		base := time.Duration(round) * time.Millisecond
		for p := range plans {
			pl := &plans[p]
			pl.mops, pl.ops, pl.next = pl.mops[:0], nil, 0
			for range 1 + rng.IntN(4) {
				if rng.IntN(2) == 0 {
					pl.mops = append(pl.mops, rng.IntN(parts))
				} else {
					pl.mops = append(pl.mops, -1)
				}
			}
		}
		open, committed := procs, 0
		for open > 0 {
			p := rng.IntN(procs)
			pl := &plans[p]
			switch {
			case pl.next > len(pl.mops):
				continue // done
			case pl.next < len(pl.mops) && pl.mops[pl.next] >= 0:
				part := pl.mops[pl.next]
				value++
				v := "v" + strconv.Itoa(value)
				pl.ops = append(pl.ops, model.Op{F: model.FSend, TP: tp(part), Value: v, Offset: model.Offset(len(logs[part]))})
				logs[part] = append(logs[part], rec{value: v})
			case pl.next < len(pl.mops):
				pl.ops = append(pl.ops, poll(p))
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
		done += procs
		for p := range plans {
			ops := plans[p].ops
			txn := 0
			if len(ops) > 1 {
				txnID++
				txn = txnID
			}
			for _, op := range ops {
				op.Index, op.Process, op.Type, op.Txn = len(h), p, model.OpOK, txn
				op.Time = base + time.Duration(p)*time.Microsecond
				h = append(h, op)
			}
		}
	}
	// Jepsen's final-polls: each process polls until it has read all of
	// its partitions.
	end := time.Duration(n/procs+1) * time.Millisecond
	for p := range procs {
		for behind := true; behind; {
			op := poll(p)
			op.Index, op.Process, op.Type = len(h), p, model.OpOK
			op.Time, op.End = end, end+time.Microsecond
			end += 2 * time.Microsecond
			h = append(h, op)
			behind = len(op.Records) > 0
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

// BenchmarkTxnGraph100k builds the dependency graph of a history of
// 100,000 client operations in the shape of Jepsen's transactional
// workload and searches it for cycles.
func BenchmarkTxnGraph100k(b *testing.B) {
	const n = 100_000
	h := genTxnHistory(n, 10, 3)
	a := analyze(h)
	cycles := 0
	cpu := startClock(b)
	for b.Loop() {
		cycles = len(newTxnIndex(a).cycles())
	}
	reportCPU(b, cpu)
	if cycles == 0 {
		b.Fatal("no cycles found")
	}
	reportSize(b, h)
	b.ReportMetric(float64(cycles), "cycles")
}

// BenchmarkAnomaliesTxn1M runs every history anomaly check, the
// transactional ones included, over a history of 1,000,000 client
// operations (Jepsen's operations: a transaction of four micro-operations
// is one) in the shape of Jepsen's transactional workload.
func BenchmarkAnomaliesTxn1M(b *testing.B) {
	const n = 1_000_000
	h := genTxnHistory(n, 10, 4)
	opts := Options{Idempotent: true}
	cpu := startClock(b)
	for b.Loop() {
		r := CheckAnomalies(h, opts)
		if errs := r.Errors(); len(errs) > 0 {
			b.Fatalf("unexpected verdict %s", r.Summary())
		}
	}
	reportCPU(b, cpu)
	reportSize(b, h)
}

// reportSize reports how big a history is: its client operations and its
// entries (micro-operations), and how many of each were checked a second.
func reportSize(b *testing.B, h model.History) {
	ops := 0
	for i := range h {
		if h[i].Txn == 0 || i == 0 || h[i-1].Txn != h[i].Txn {
			ops++
		}
	}
	b.ReportMetric(float64(ops), "client-ops")
	b.ReportMetric(float64(len(h)), "entries")
	b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkTxnHistoryScan1M is the floor under every check of the
// transactional 1M history: one pass over its 2.5 million entries that
// reads three fields of each (what a check reads to pick the entries it
// judges). An entry (model.Op) is 320 bytes, so a pass streams some 800
// MB through the caches; the checks of BenchmarkAnomaliesTxn1M make more
// than a dozen such passes.
func BenchmarkTxnHistoryScan1M(b *testing.B) {
	h := genTxnHistory(1_000_000, 10, 4)
	sends, records := 0, 0
	cpu := startClock(b)
	for b.Loop() {
		sends, records = 0, 0
		for i := range h {
			op := &h[i]
			if op.F == model.FSend && op.Txn >= 0 {
				sends++
			}
			records += len(op.Records)
		}
	}
	reportCPU(b, cpu)
	if sends == 0 || records == 0 {
		b.Fatal("nothing scanned")
	}
	reportSize(b, h)
}
