package checkers

import (
	"cmp"
	"slices"

	"kafkasim/model"
)

// This file is the entry point of the analyses that only mean something
// when one client operation did several things at once (model.Op.Txn > 0:
// a Jepsen :txn, or a :send or :poll with several micro-operations):
// int-send-skip, int-nonmonotonic-send and precommitted-read
// (txn_internal.go), and the write-write / write-read dependency graph
// with its G0 and G1c cycles (depgraph.go, cycles.go). They follow
// jepsen.tests.kafka: int-send-skip+nonmonotonic-cases,
// precommitted-read-cases, writer-of, ww-graph, wr-graph and cycles!.
//
// A history in which every operation is a single send or poll (Txn 0
// everywhere, as in every kafkasim run without a transactional producer)
// gives them nothing to find:
// no operation sends twice, none both sends and polls, and a dependency
// cycle needs an operation that both is read (or overwritten) and reads
// (or overwrites). They cost one scan of the history then.

// The anomaly names of the transactional analyses: Jepsen's keys.
const (
	IntSendSkip         = "int-send-skip"         // one operation's sends to a partition have other records between them
	IntNonmonotonicSend = "int-nonmonotonic-send" // one operation's sends to a partition landed out of order
	PrecommittedRead    = "precommitted-read"     // an operation read a value it sent itself
	G0                  = "G0"                    // a cycle of write-write dependencies
	G1c                 = "G1c"                   // a cycle of write-write and write-read dependencies, at least one write-read
)

// What allows or forbids the transactional findings. Jepsen's
// allowed-error-types lists int-send-skip and G0 as normal in Kafka's
// transaction model, and G1c too once write-write dependencies are
// inferred; precommitted-read and int-nonmonotonic-send are errors.
const (
	PromiseReadCommitted = "read_committed: no one, not even the sender, sees a transaction's records before it commits"
	PromiseWriteRead     = "read_committed: two transactions cannot each see the other's writes"
	allowIntSendSkip     = "Kafka's transactions do not isolate writes: other producers' records land between one transaction's sends"
	allowG0              = "Kafka's transactions do not isolate writes: two transactions may interleave their sends in different orders on two partitions"
	allowG1cWW           = "the cycle goes through a write-write edge, and Kafka's transactions do not isolate writes"
)

// TxnDetail is what Jepsen's error map says beyond the common fields of a
// Violation, for the transactional analyses.
type TxnDetail struct {
	// Delta is how far the second send is from the first in the version
	// order (int-send-skip, int-nonmonotonic-send): 1 would be in order.
	Delta int `json:"delta"`
	// Skipped are the values between two sends (int-send-skip).
	Skipped []string `json:"skipped,omitempty"`
	// Steps are a cycle's edges, in order (G0, G1c): step i goes from
	// Violation.Ops[i] to Ops[i+1], the last one back to Ops[0].
	Steps []Step `json:"steps,omitempty"`
}

// hasWW reports whether a cycle goes through a write-write edge.
func (d *TxnDetail) hasWW() bool {
	if d == nil {
		return false
	}
	for _, s := range d.Steps {
		if s.Type == "ww" {
			return true
		}
	}
	return false
}

// A Step is one edge of a dependency cycle, explained as Elle explains it
// (jepsen.tests.kafka WWExplainer, WRExplainer).
type Step struct {
	// Type is "ww" (From sent Value, and the next record in the
	// partition's version order is To's Value2) or "wr" (To polled the
	// Value that From sent).
	Type      string               `json:"type"`
	From      int                  `json:"from"` // the operations, by their first op's index
	To        int                  `json:"to"`
	Partition model.TopicPartition `json:"partition"`
	Value     string               `json:"value"`
	Value2    string               `json:"value2,omitempty"` // ww: To's value (Jepsen's :value')
	// FromMop and ToMop are the positions, inside each operation, of the
	// micro-operation involved (Jepsen's :a-mop-index, :b-mop-index).
	FromMop int `json:"from_mop"`
	ToMop   int `json:"to_mop"`
}

// transactions runs the transactional analyses, or nothing at all when
// the history has no multi-op operation.
func (a *analysis) transactions(opts *Options) []Violation {
	if !a.hasTxn {
		return nil
	}
	x := newTxnIndex(a)
	out := x.internalSends(opts)
	out = append(out, x.precommittedReads()...)
	out = append(out, x.cycles()...)
	return out
}

// txnIndex is what the transactional analyses share.
type txnIndex struct {
	a *analysis
	// ops are the client operations in history order; op k spans history
	// entries ops[k].first up to (not including) ops[k].end.
	// (The operation an entry belongs to is its analysis.entries op.)
	ops []txnOp
	// parts indexes each observed partition's version order, in a.parts
	// order (partition.order).
	parts []*txnPart
}

type txnOp struct{ first, end int32 }

// txnPart indexes one partition's version order by position: what Jepsen
// keeps as :by-index, and writer-of for the value at each position. Maps
// by value are built only for values away from the offset their send or
// poll gave (info sends, duplicates, conflicting offsets).
type txnPart struct {
	p *partition
	// ids are the record at each position (Jepsen's :by-index), indices
	// into analysis.vals; names is analysis.names, their values. Ids
	// rather than strings: a comparison is one integer, and the slice
	// holds no pointers for the garbage collector to scan.
	ids     []int32
	names   []string
	writers []int32 // the operation that sent it; -1 for none
	// exact: every position holds the value a send acknowledged at that
	// offset, so a value's offset finds its position. Otherwise (info
	// sends, duplicates, phantoms) positions come from byValue, a value's
	// last position (Jepsen's :by-value).
	exact   bool
	byValue map[string]int32
	// writerOf is a value's writer, the last op to send it (writer-of),
	// built on first need.
	writerOf map[string]int32
}

func newTxnIndex(a *analysis) *txnIndex {
	x := &txnIndex{a: a}
	es := a.entries
	if len(es) > 0 {
		x.ops = make([]txnOp, es[len(es)-1].op+1)
	}
	for i := range es {
		o := &x.ops[es[i].op]
		if i == 0 || es[i-1].op != es[i].op {
			o.first = int32(i)
		}
		o.end = int32(i) + 1
	}
	x.parts = make([]*txnPart, 0, len(a.parts))
	for _, p := range a.parts {
		xp := &txnPart{p: p, ids: make([]int32, len(p.offsets)), names: a.names, writers: make([]int32, len(p.offsets))}
		for i, o := range p.offsets {
			sn, _ := p.at.lookup(o)
			xp.ids[i], xp.writers[i] = sn.id, -1
		}
		x.parts = append(x.parts, xp)
	}
	for i := range a.entries {
		e := &a.entries[i]
		if e.kind != kindSend || !e.completed() {
			continue
		}
		// A send with its partition known has its record's id, and the
		// id its partition; the others are looked for by value.
		xp, j, ok := (*txnPart)(nil), int32(0), false
		if id := e.sent; id >= 0 {
			xp = x.parts[a.vals[id].part]
			j, ok = xp.atID(id, e.offset)
		} else if xp = x.part(a.h[i].TP); xp != nil {
			j, ok = xp.at(a.h[i].Value, e.offset)
		}
		if ok {
			xp.writers[j] = e.op // a later send of the value wins, as in writer-of
		}
	}
	// Positions no send's offset explains (info sends, duplicates,
	// phantoms) take their writer by value.
	var inexact []*txnPart
	for _, xp := range x.parts {
		xp.exact = !slices.Contains(xp.writers, -1)
		if !xp.exact {
			inexact = append(inexact, xp)
		}
	}
	x.writersByValue(inexact)
	for _, xp := range inexact {
		xp.byValue = make(map[string]int32, len(xp.ids))
		for j, id := range xp.ids {
			v := xp.names[id]
			xp.byValue[v] = int32(j)
			if xp.writers[j] < 0 {
				if w, ok := xp.writerOf[v]; ok {
					xp.writers[j] = w
				}
			}
		}
	}
	return x
}

// writersByValue builds writerOf for each of parts in one scan of the
// history.
func (x *txnIndex) writersByValue(parts []*txnPart) {
	if len(parts) == 0 {
		return
	}
	for _, xp := range parts {
		xp.writerOf = map[string]int32{}
	}
	for i := range x.a.h {
		if e := &x.a.entries[i]; e.kind != kindSend || !e.completed() {
			continue
		}
		op := &x.a.h[i]
		if xp := x.part(op.TP); xp != nil && xp.writerOf != nil {
			xp.writerOf[op.Value] = x.a.entries[i].op
		}
	}
}

// at is the position of value at offset o, if that is where the version
// order has it.
func (xp *txnPart) at(value string, o model.Offset) (int32, bool) {
	j, ok := xp.offsetAt(o)
	if !ok || xp.names[xp.ids[j]] != value {
		return 0, false
	}
	return j, true
}

// atID is at for a record of this partition known by its id: the same
// answer, since a partition's records are its values.
func (xp *txnPart) atID(id int32, o model.Offset) (int32, bool) {
	j, ok := xp.offsetAt(o)
	if !ok || xp.ids[j] != id {
		return 0, false
	}
	return j, true
}

// offsetAt is o's position in the version order, if o was observed.
func (xp *txnPart) offsetAt(o model.Offset) (int32, bool) {
	offs := xp.p.offsets
	if o == model.NoOffset || len(offs) == 0 {
		return 0, false
	}
	// Offsets are usually dense (a log without transaction markers or
	// unobserved records): try o's place in a dense log first.
	j := int(o - offs[0])
	if j < 0 || j >= len(offs) || offs[j] != o {
		var ok bool
		if j, ok = slices.BinarySearch(offs, o); !ok {
			return 0, false
		}
	}
	return int32(j), true
}

// position is value's place in the version order, given the offset its
// send or poll reported (NoOffset if none).
func (xp *txnPart) position(value string, o model.Offset) (int32, bool) {
	if xp.exact {
		return xp.at(value, o)
	}
	j, ok := xp.byValue[value]
	return j, ok
}

// positionOf is position for a record of this partition known by its id.
func (xp *txnPart) positionOf(id int32, o model.Offset) (int32, bool) {
	if xp.exact {
		return xp.atID(id, o)
	}
	j, ok := xp.byValue[xp.names[id]]
	return j, ok
}

// follows reports whether the ww edge into position j counts: Jepsen's
// previous-value looks a value up at its last position only.
func (xp *txnPart) follows(j int) bool {
	return xp.exact || xp.byValue[xp.names[xp.ids[j]]] == int32(j)
}

// writer is the operation that sent record id of xp's partition, seen at
// offset o.
func (x *txnIndex) writer(xp *txnPart, id int32, o model.Offset) (int32, bool) {
	if j, ok := xp.atID(id, o); ok && xp.writers[j] >= 0 {
		return xp.writers[j], true
	}
	return x.writerByValue(xp, xp.names[id])
}

// writerOfValue is writer for a record known by its value.
func (x *txnIndex) writerOfValue(xp *txnPart, value string, o model.Offset) (int32, bool) {
	if j, ok := xp.at(value, o); ok && xp.writers[j] >= 0 {
		return xp.writers[j], true
	}
	return x.writerByValue(xp, value)
}

func (x *txnIndex) writerByValue(xp *txnPart, value string) (int32, bool) {
	if xp.writerOf == nil {
		x.writersByValue([]*txnPart{xp})
	}
	w, ok := xp.writerOf[value]
	return w, ok
}

// part is tp's index, nil when no one observed the partition.
func (x *txnIndex) part(tp model.TopicPartition) *txnPart {
	if p := x.a.lookup(tp); p != nil {
		return x.parts[p.order]
	}
	return nil
}

// micro returns operation k's history entries.
func (x *txnIndex) micro(k int32) []model.Op {
	o := x.ops[k]
	return x.a.h[o.first:o.end]
}

// head is operation k's first history entry, which names it in findings.
func (x *txnIndex) head(k int32) *model.Op { return &x.a.h[x.ops[k].first] }

// completedLater orders operations by completion, then position: Elle
// prints a cycle from the operation that completed last.
func (x *txnIndex) completedLater(j, k int32) bool {
	a, b := x.head(j), x.head(k)
	if c := cmp.Compare(opEnd(a), opEnd(b)); c != 0 {
		return c > 0
	}
	return j > k
}

// opEnd is when op completed; an op still running ends after everything.
func opEnd(op *model.Op) int64 {
	if !op.Completed() {
		return 1<<63 - 1
	}
	return int64(op.End)
}

// sendMop is the position inside operation k of its send of value to tp,
// or -1.
func (x *txnIndex) sendMop(k int32, tp model.TopicPartition, value string) int {
	mops := x.micro(k)
	for m := range mops {
		if op := &mops[m]; op.F == model.FSend && op.TP == tp && op.Value == value {
			return m
		}
	}
	return -1
}
