package model

import (
	"fmt"
	"time"
)

// Recorder builds a History as clients act: an invocation appends an op,
// its completion fills the same op in. It is plain data with no I/O, so a
// simulated client can own one (or share the run's) without breaking
// determinism. Misuse (completing an op twice, or one that does not exist)
// is a programmer error and panics.
//
// Ops are kept in fixed-size chunks rather than one growing slice: an Op is
// a large struct and a long run records millions of them, so doubling a
// slice would copy the whole history again and again.
type Recorder struct {
	chunks [][]Op
	n      int
}

const recorderChunk = 4096

func (r *Recorder) add(op Op) int {
	op.Index = r.n
	if r.n%recorderChunk == 0 {
		r.chunks = append(r.chunks, make([]Op, 0, recorderChunk))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, op)
	r.n++
	return op.Index
}

func (r *Recorder) at(i int) *Op { return &r.chunks[i/recorderChunk][i%recorderChunk] }

// Invoke records the start of op and returns its index. The caller sets
// Process, F, Time and the request's fields (TP, Key and Value for a send;
// Partitions or Topics for assign and subscribe; Offsets for commit and
// seek); Index, Type and the result fields are the recorder's.
func (r *Recorder) Invoke(op Op) int {
	op.Type = OpInvoke
	op.End = 0
	if op.F == FSend {
		op.Offset = NoOffset
	}
	op.Records = nil
	return r.add(op)
}

// Event records an operation that starts and ends at one instant, such as
// a rebalance callback or a position reset, as ok. It returns its index.
func (r *Recorder) Event(op Op) int {
	op.Type = OpOK
	op.End = op.Time
	return r.add(op)
}

func (r *Recorder) pending(i int) *Op {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("model.Recorder: no op %d", i))
	}
	op := r.at(i)
	if op.Type != OpInvoke {
		panic(fmt.Sprintf("model.Recorder: op %s completed twice", op))
	}
	return op
}

func (r *Recorder) complete(i int, t OpType, at time.Duration) *Op {
	op := r.pending(i)
	if at < op.Time {
		panic(fmt.Sprintf("model.Recorder: op %s completes at %v, before it started", op, at))
	}
	op.Type, op.End = t, at
	return op
}

// OK completes op i as ok with no result (assign, subscribe, commit, seek).
func (r *Recorder) OK(i int, at time.Duration) { r.complete(i, OpOK, at) }

// SendOK completes send i: the broker put it at offset o of tp (tp matters
// when the record's key chose the partition).
func (r *Recorder) SendOK(i int, at time.Duration, tp TopicPartition, o Offset) {
	op := r.complete(i, OpOK, at)
	op.TP, op.Offset = tp, o
}

// PollOK completes poll i with what it returned. The records are kept as
// given (the recorder owns them from now on); partitions are put in order.
func (r *Recorder) PollOK(i int, at time.Duration, recs []PartitionRecords) {
	op := r.complete(i, OpOK, at)
	SortRecords(recs)
	op.Records = recs
}

// Fail completes op i as certainly not having happened, with the reason.
func (r *Recorder) Fail(i int, at time.Duration, reason string) {
	r.complete(i, OpFail, at).Error = reason
}

// Info completes op i as indeterminate (a timeout, a lost answer).
func (r *Recorder) Info(i int, at time.Duration, reason string) {
	r.complete(i, OpInfo, at).Error = reason
}

// Len is the number of ops recorded so far.
func (r *Recorder) Len() int { return r.n }

// History returns a copy of the ops recorded so far; ops still running
// keep Type OpInvoke.
func (r *Recorder) History() History {
	out := make(History, 0, r.n)
	for _, c := range r.chunks {
		out = append(out, c...)
	}
	return out
}
