package checkers

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"kafkasim/model"
)

// Each partition is judged as its own linearizable log, as Jepsen's Kafka test judges it. The
// model's state is only the log's length n: the value at each offset comes
// from the history, so the state stays one integer and Hash is exact.
//
//   - A send that landed at offset o takes effect when the log has length
//     o, and makes it o+1.
//   - A poll that returned records up to offset b took effect at an instant
//     when the log was longer than b.
//   - Offsets that no send in the history wrote (transaction markers, a
//     record from an indeterminate send that no one read, a phantom) may
//     be passed over at any time: nothing constrains when they appeared.
//     Since passing over them is always allowed, advancing lazily (only
//     when an operation needs it) loses no linearization, which keeps the
//     model deterministic.
//
// Indeterminate sends whose record someone read are included with their
// return at the end of time, as porcupine advises for operations whose
// outcome is unknown: they may take effect at any point after their call.
// Indeterminate sends no one read, and failed sends, are left out: they
// either did not take effect or took an offset the model may pass over.

// logOp is one operation as the model sees it.
type logOp struct {
	send   bool
	offset model.Offset // send: where it landed; poll: highest offset returned
	op     int          // index in the history
	value  string       // send: the value; for descriptions only
}

// writers holds, ascending, the offsets that a send in the history wrote.
type writers []model.Offset

// free reports whether no send wrote an offset in [from, to).
func (w writers) free(from, to model.Offset) bool {
	i, _ := slices.BinarySearch(w, from)
	return i == len(w) || w[i] >= to
}

// logIndex answers the model's two questions without searching or
// allocating: porcupine calls Step for every candidate linearization, and a
// binary search over the writers plus a new boxed state per step were most
// of a chaos run's checking. Offsets below dense have a table entry;
// others, in a history whose offsets are sparse, fall back to the search
// and a new box.
type logIndex struct {
	w     writers
	dense model.Offset
	// next[o] is the smallest offset a send wrote at or after o, or
	// maxOffset when none did.
	next []model.Offset
	// states[n] is the state n, boxed the first time a step reaches it.
	states []any
}

// maxOffset stands for "no writer at or after this offset" in next.
const maxOffset = model.Offset(1<<63 - 1)

// denseLimit bounds the tables: a history's offsets are usually dense, but
// one recorded elsewhere may start at any offset.
func denseLimit(ops int) model.Offset { return model.Offset(4*ops + 4096) }

func newLogIndex(w writers, ops []porcupine.Operation) *logIndex {
	top := model.Offset(0)
	for _, o := range ops {
		top = max(top, o.Input.(*logOp).offset+2)
	}
	x := &logIndex{w: w, dense: min(top, denseLimit(len(ops)))}
	if x.dense < 0 {
		x.dense = 0
	}
	x.next = make([]model.Offset, x.dense)
	x.states = make([]any, x.dense)
	k := len(w)
	for o := x.dense - 1; o >= 0; o-- {
		for k > 0 && w[k-1] >= o {
			k--
		}
		x.next[o] = maxOffset
		if k < len(w) {
			x.next[o] = w[k]
		}
	}
	return x
}

// free reports whether no send wrote an offset in [from, to).
func (x *logIndex) free(from, to model.Offset) bool {
	if from >= 0 && from < x.dense {
		return x.next[from] >= to
	}
	return x.w.free(from, to)
}

// state returns n as a model state.
func (x *logIndex) state(n model.Offset) any {
	if n < 0 || n >= x.dense {
		return n
	}
	if s := x.states[n]; s != nil {
		return s
	}
	x.states[n] = n
	return x.states[n]
}

// logStep is the log's transition: whether the operation can take effect
// on a log of length n, and the state after it (nil when it cannot).
func logStep(x *logIndex, n model.Offset, in *logOp) (bool, any) {
	if in.send {
		if n > in.offset || !x.free(n, in.offset) {
			return false, nil
		}
		return true, x.state(in.offset + 1)
	}
	if n > in.offset {
		return true, x.state(n)
	}
	if !x.free(n, in.offset+1) {
		return false, nil
	}
	return true, x.state(in.offset + 1)
}

// logModel is the log as porcupine sees it; every step is paid from b
// (linearizability_budget.go).
func logModel(x *logIndex, b *searchBudget) porcupine.Model {
	return porcupine.Model{
		Init: func() any { return x.state(0) },
		Step: func(state, input, _ any) (bool, any) {
			if !b.step() {
				return false, state
			}
			ok, next := logStep(x, state.(model.Offset), input.(*logOp))
			if !ok {
				return false, state
			}
			b.accepted()
			return true, next
		},
		Hash: func(state any) uint64 { return uint64(state.(model.Offset)) },
		DescribeOperation: func(input, _ any) string {
			in := input.(*logOp)
			if in.send {
				return fmt.Sprintf("op %d: send %s → %d", in.op, in.value, in.offset)
			}
			return fmt.Sprintf("op %d: poll → up to %d", in.op, in.offset)
		},
		DescribeState: func(state any) string { return fmt.Sprintf("length %d", state.(model.Offset)) },
	}
}

// clock is the wall clock the cap is measured on; tests replace it to
// run the cap out, or to slow the machine down, deterministically.
var clock = time.Now

// linearizability runs porcupine on every partition, each search bounded
// by the work budget and all of them by the wall-clock cap.
func (a *analysis) linearizability(opts *Options, r *Result) {
	wall := opts.budget()
	if wall < 0 {
		r.Notes = append(r.Notes, "linearizability: skipped (negative budget)")
		return
	}
	work := opts.work()
	var horizon time.Duration
	for i := range a.h {
		horizon = max(horizon, a.h[i].Time, a.h[i].End)
	}
	horizon++
	hist := a.linOps(horizon)
	durable, why := opts.durable()
	start := clock()
	for _, p := range a.parts {
		ops := hist[p]
		pc := PartitionCheck{TP: p.tp, Ops: len(ops)}
		if !durable {
			pc.Unpromised = why
		}
		if clock().Sub(start) >= wall {
			pc.Result = string(porcupine.Unknown)
			r.Linearizability = append(r.Linearizability, pc)
			r.Notes = append(r.Notes, fmt.Sprintf("linearizability of %s: unknown, the %v wall-clock cap ran out before its search began (%d ops)", p.tp, wall, len(ops)))
			continue
		}
		var w writers
		for _, o := range ops {
			if in := o.Input.(*logOp); in.send {
				w = append(w, in.offset)
			}
		}
		slices.Sort(w)
		x := newLogIndex(w, ops)
		b := newSearchBudget(work, len(ops), start, wall)
		// No timeout for porcupine (zero is "no limit" there): the budget
		// stops the search from inside the model, on this goroutine's
		// terms, so the search has always finished when porcupine returns.
		res := porcupine.CheckOperationsTimeout(logModel(x, b), ops, 0)
		pc.Work = b.used
		if b.stopped != "" {
			// A search cut short answers Illegal: it proves nothing.
			res = porcupine.Unknown
			pc.Stopped = string(b.stopped)
			r.Notes = append(r.Notes, fmt.Sprintf("linearizability of %s: unknown, %s (%d ops)", p.tp, b.why(work), len(ops)))
		}
		pc.Result = string(res)
		if res == porcupine.Illegal {
			v := Violation{Checker: CheckerLinearizability, Anomaly: Nonlinearizable, Partition: p.tp}
			v.Error, v.Promise = promise(durable, PromiseLinearizable, why)
			v.Detail = fmt.Sprintf("no order of its %d sends and polls explains what the clients saw", len(ops))
			if wit, ok := witness(ops); ok {
				v.Ops, v.Offsets, v.Detail = wit.ops, wit.offsets, wit.detail
			}
			if opts.OutDir != "" {
				pc.Visualization = visualize(opts.OutDir, p.tp, x, ops, r)
			}
			r.Violations = append(r.Violations, v)
		}
		r.Linearizability = append(r.Linearizability, pc)
	}
}

// visualize writes porcupine's HTML picture of a partition found illegal
// and returns its path, or "" with a note when it could not. The picture
// needs porcupine's verbose search, which also keeps the longest partial
// linearizations and costs more per backtrack; it runs only here, once the
// bounded search has proved the partition illegal. The verbose search
// repeats the same steps, so it is given no budget.
func visualize(dir string, tp model.TopicPartition, x *logIndex, ops []porcupine.Operation, r *Result) string {
	m := logModel(x, newSearchBudget(-1, len(ops), clock(), time.Duration(1<<63-1)))
	_, info := porcupine.CheckOperationsVerbose(m, ops, 0)
	path := filepath.Join(dir, "linearizability-"+fileName(tp)+".html")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("linearizability: %v", err))
		return ""
	}
	if err := porcupine.VisualizePath(m, info, path); err != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("linearizability: writing %s: %v", path, err))
		return ""
	}
	// The path is in the partition's verdict, not in the finding: a
	// finding is the same wherever the run was written (a re-check of a
	// saved run compares them).
	return path
}

// linOps turns the history into porcupine operations per partition.
func (a *analysis) linOps(horizon time.Duration) map[*partition][]porcupine.Operation {
	out := map[*partition][]porcupine.Operation{}
	// Porcupine draws one lane per client id; keep them dense.
	lanes := map[*partition]map[int]int{}
	lane := func(p *partition, process int) int {
		m := lanes[p]
		if m == nil {
			m = map[int]int{}
			lanes[p] = m
		}
		id, ok := m[process]
		if !ok {
			id = len(m)
			m[process] = id
		}
		return id
	}
	for i := range a.h {
		op := &a.h[i]
		switch op.F {
		case model.FSend:
			var p *partition
			var o model.Offset
			ret := op.End
			vi := a.sent(i)
			switch {
			case a.acked(i):
				p, o = a.byTP[op.TP], op.Offset
			case a.known(i):
				// Indeterminate, but a read proved its operation
				// committed: its offset is a fact, its completion is not.
				p, o, ret = a.byTP[op.TP], op.Offset, horizon
			case op.Type == model.OpFail || vi == nil || vi.writer != int32(i) || vi.reader < 0 || vi.first == model.NoOffset:
				continue
			default:
				// An ok send that did not learn its offset, or an
				// indeterminate one, whose record a poll returned.
				p, o = a.partOf(vi), vi.first
				if op.Type != model.OpOK {
					ret = horizon
				}
			}
			out[p] = append(out[p], porcupine.Operation{
				ClientId: lane(p, op.Process), Call: int64(op.Time), Return: int64(ret),
				Input: &logOp{send: true, offset: o, op: i, value: op.Value},
			})
		case model.FPoll:
			for _, pr := range op.Records {
				if len(pr.Records) == 0 {
					continue
				}
				p := a.byTP[pr.TP]
				hi := pr.Records[0].Offset
				for _, rec := range pr.Records {
					hi = max(hi, rec.Offset)
				}
				ret := op.End
				if !op.Completed() {
					ret = horizon
				}
				out[p] = append(out[p], porcupine.Operation{
					ClientId: lane(p, op.Process), Call: int64(op.Time), Return: int64(ret),
					Input: &logOp{offset: hi, op: i},
				})
			}
		}
	}
	return out
}

type witnessed struct {
	ops     []int
	offsets []model.Offset
	detail  string
}

// witness looks for the plainest reason a partition is not linearizable:
// an operation that needs a record at a lower offset, yet returned before
// the send that wrote it was even invoked. O(n log n).
func witness(ops []porcupine.Operation) (witnessed, bool) {
	type w struct {
		offset model.Offset
		call   int64
		op     int
	}
	var ws []w
	for _, o := range ops {
		if in := o.Input.(*logOp); in.send {
			ws = append(ws, w{in.offset, o.Call, in.op})
		}
	}
	slices.SortFunc(ws, func(x, y w) int { return cmp.Compare(x.offset, y.offset) })
	// latest[k] is the writer with the latest call among ws[:k+1].
	latest := make([]int, len(ws))
	for k := range ws {
		latest[k] = k
		if k > 0 && ws[latest[k-1]].call > ws[k].call {
			latest[k] = latest[k-1]
		}
	}
	for _, o := range ops {
		in := o.Input.(*logOp)
		// The writers this op depends on: offsets below a send's, up to and
		// including a poll's.
		limit := in.offset
		if in.send {
			limit--
		}
		k, found := slices.BinarySearchFunc(ws, limit, func(x w, t model.Offset) int { return cmp.Compare(x.offset, t) })
		if !found {
			k--
		} else {
			for k+1 < len(ws) && ws[k+1].offset == limit {
				k++
			}
		}
		if k < 0 {
			continue
		}
		dep := ws[latest[k]]
		if dep.call > o.Return {
			need := fmt.Sprintf("poll op %d, which returned records up to offset %d,", in.op, in.offset)
			if in.send {
				need = fmt.Sprintf("send op %d, which landed at offset %d,", in.op, in.offset)
			}
			return witnessed{
				ops:     []int{in.op, dep.op},
				offsets: []model.Offset{dep.offset, in.offset},
				detail: fmt.Sprintf("%s returned before op %d, the send that wrote offset %d, was invoked: a record was visible before it was written",
					need, dep.op, dep.offset),
			}, true
		}
	}
	return witnessed{}, false
}

// fileName makes a partition's name safe as part of a file name.
func fileName(tp model.TopicPartition) string {
	s := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, tp.Topic)
	return fmt.Sprintf("%s-%d", s, tp.Partition)
}
