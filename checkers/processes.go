package checkers

import (
	"cmp"
	"math"
	"slices"
	"time"

	"kafkasim/model"
)

// processes is the history's entries grouped by the client (process) that
// made them: what the per-consumer and per-producer order checks walk.
//
// Those checks judge each process on its own, but they do not have to
// visit the processes one after another. Walking one process's entries
// reads every tenth entry or so of the history, and each is a cache miss
// (an entry is some 320 bytes, and a poll's records sit behind two more
// pointers): on the transactional million-operation benchmark that was
// more than a CPU second. inHistoryOrder visits the same steps, each
// process's in its own order, as one pass over the history, which the
// caches stream.
type processes struct {
	// ops are the entries of each process, in process-number order, each
	// in history (index) order.
	ops [][]int32
	// of is each entry's process, its index into ops.
	of []int32
	// endOrdered says of each process whether its entries complete in
	// history order (an entry still running completes after all), as
	// they nearly always do: pollOrder's order is completion order.
	endOrdered []bool
}

// completion is when op completed, for ordering a process's entries by
// it; an entry that never did comes after all.
func completion(op *model.Op) time.Duration {
	if op.Completed() {
		return op.End
	}
	return math.MaxInt64
}

// byProcess groups op indices by process (in process order), each in
// invocation order.
func (a *analysis) byProcess() *processes {
	// Process numbers are usually small (Jepsen's grow by the concurrency
	// each time a client crashes): then summarize has counted each
	// process's entries and noted whether they complete in order, and
	// slices of the right size are filled, in process order, from the
	// entries' process numbers, with no map and no walk of the history.
	if s := &a.procs; s.small {
		ps := &processes{of: make([]int32, len(a.entries))}
		each := make([][]int32, len(s.count))
		slot := make([]int32, len(s.count)) // process number → index into ops
		for p, n := range s.count {
			if n > 0 {
				each[p] = make([]int32, 0, n)
				slot[p] = int32(len(ps.ops))
				ps.ops = append(ps.ops, nil)
				ps.endOrdered = append(ps.endOrdered, s.endOrdered[p])
			}
		}
		for i := range a.entries {
			p := a.entries[i].proc
			each[p] = append(each[p], int32(i))
			ps.of[i] = slot[p]
		}
		for p, ops := range each {
			if len(ops) > 0 {
				ps.ops[slot[p]] = ops
			}
		}
		return ps
	}
	m := map[int][]int32{}
	for i := range a.h {
		p := a.h[i].Process
		m[p] = append(m[p], int32(i))
	}
	ids := make([]int, 0, len(m))
	for p := range m {
		ids = append(ids, p)
	}
	slices.Sort(ids)
	ps := &processes{ops: make([][]int32, len(ids)), of: make([]int32, len(a.h)), endOrdered: make([]bool, len(ids))}
	for k, p := range ids {
		ps.ops[k] = m[p]
		for _, i := range m[p] {
			ps.of[i] = int32(k)
		}
		ps.endOrdered[k] = slices.IsSortedFunc(m[p], a.byCompletion)
	}
	return ps
}

// byCompletion orders entries by completion.
func (a *analysis) byCompletion(x, y int32) int {
	return cmp.Compare(completion(&a.h[x]), completion(&a.h[y]))
}

// inHistoryOrder walks the history's entries once and hands entry i to step(p, i)
// when process p's walk waits for it (waiting(p) is i; -1 when that walk
// is over). A step may take more than one entry (an operation's
// micro-ops); the entries it took are not handed on again, since the
// walk then waits for a later one. Every walk must wait for its
// process's entries in history order, and steps of one process run in
// that order; steps of different processes interleave, so walks must
// not share state.
func (ps *processes) inHistoryOrder(waiting func(p int) int32, step func(p int, i int32)) {
	for i, p := range ps.of {
		if waiting(int(p)) == int32(i) {
			step(int(p), int32(i))
		}
	}
}
