package checkers

import (
	"slices"
	"testing"

	"kafkasim/model"
)

// txn makes ops the micro-operations of one operation: Txn id, and the
// operation's process, outcome and times on each.
func txn(id, p int, typ model.OpType, call, ret int, ops ...model.Op) []model.Op {
	for i := range ops {
		ops[i].Txn, ops[i].Process, ops[i].Type, ops[i].Time, ops[i].End = id, p, typ, ms(call), ms(ret)
		if ops[i].F == model.FSend && typ != model.OpOK {
			ops[i].Offset = model.NoOffset
		}
	}
	return ops
}

func flat(groups ...[]model.Op) model.History {
	var ops []model.Op
	for _, g := range groups {
		ops = append(ops, g...)
	}
	return hist(ops...)
}

func one(op model.Op) []model.Op { return []model.Op{op} }

// A history of single sends and polls gets nothing from the transactional
// analyses, even where a dependency graph would have a cycle: here v is
// at offsets 0 and 2 around u, which makes ww edges both ways between
// their sends (the duplicate itself is reported as duplicate).
func TestTxnAnalysesSkipSingleOps(t *testing.T) {
	h := hist(
		sendOK(0, t0, "v", 0, 0, 1),
		sendOK(1, t0, "u", 1, 0, 1),
		poll(2, 2, 3, recs(t0, 0, "v", 1, "u", 2, "v")),
	)
	a := analyze(h)
	if got := a.transactions(&Options{}); got != nil {
		t.Fatalf("single ops: %v", got)
	}
	// The same history with the sends tied into one operation each is
	// judged: the cycle is there.
	h[0].Txn, h[1].Txn = 1, 2
	if got := analyze(h).transactions(&Options{}); len(got) != 1 || got[0].Anomaly != G0 {
		t.Fatalf("with Txn set: %v", got)
	}
}

func TestTxnG0AndFineNeighbour(t *testing.T) {
	x, y := t0, t1
	// wa and wb write x and y in opposite orders: a write cycle.
	bad := flat(
		txn(1, 0, model.OpOK, 0, 2, sendOK(0, x, "a", 0, 0, 0), sendOK(0, y, "a", 1, 0, 0)),
		txn(2, 1, model.OpOK, 1, 3, sendOK(0, x, "b", 1, 0, 0), sendOK(0, y, "b", 0, 0, 0)),
	)
	r := check(t, Input{History: bad}, Options{})
	v := mustFind(t, r, G0, y)
	if !slices.Equal(v.Ops, []int{2, 0}) || v.Error {
		t.Fatalf("G0: %+v", v)
	}
	want := []Step{
		{Type: "ww", From: 2, To: 0, Partition: y, Value: "b", Value2: "a", FromMop: 1, ToMop: 1},
		{Type: "ww", From: 0, To: 2, Partition: x, Value: "a", Value2: "b", FromMop: 0, ToMop: 0},
	}
	if !slices.Equal(v.Txn.Steps, want) {
		t.Fatalf("steps:\n got %+v\nwant %+v", v.Txn.Steps, want)
	}
	mustNotFind(t, r, G1c)
	// The same order on both partitions: no cycle.
	fine := flat(
		txn(1, 0, model.OpOK, 0, 2, sendOK(0, x, "a", 0, 0, 0), sendOK(0, y, "a", 0, 0, 0)),
		txn(2, 1, model.OpOK, 1, 3, sendOK(0, x, "b", 1, 0, 0), sendOK(0, y, "b", 1, 0, 0)),
	)
	mustNotFind(t, check(t, Input{History: fine}, Options{}), G0)
}

// A pure write-read cycle is an error; one through a write-write edge is
// allowed.
func TestTxnG1cClassification(t *testing.T) {
	x, y := t0, t1
	pure := flat(
		txn(1, 0, model.OpOK, 0, 2, sendOK(0, x, "a", 0, 0, 0), poll(0, 0, 0, recs(y, 0, "b"))),
		txn(2, 1, model.OpOK, 1, 3, sendOK(0, y, "b", 0, 0, 0), poll(0, 0, 0, recs(x, 0, "a"))),
	)
	r := check(t, Input{History: pure}, Options{})
	if v := mustFind(t, r, G1c, y); !v.Error || v.Promise != PromiseWriteRead || !slices.Equal(v.Ops, []int{2, 0}) {
		t.Fatalf("pure wr G1c: %+v", v)
	}
	mixed := flat(
		txn(1, 0, model.OpOK, 0, 2, sendOK(0, x, "a", 0, 0, 0), sendOK(0, y, "c", 2, 0, 0)),
		txn(2, 1, model.OpOK, 1, 3, poll(0, 0, 0, recs(x, 0, "a")), sendOK(0, y, "b", 1, 0, 0)),
	)
	r = check(t, Input{History: mixed}, Options{})
	v := mustFind(t, r, G1c, x)
	if v.Error || !slices.Equal(v.Ops, []int{0, 2}) || v.Txn.Steps[0].Type != "wr" || v.Txn.Steps[1].Type != "ww" {
		t.Fatalf("ww+wr G1c: %+v", v)
	}
}

// A pure write-read cycle is reported even where the operation that
// completed last starts a shorter cycle through a write-write edge.
func TestTxnG1cPrefersPureWR(t *testing.T) {
	x, y, z, w := t0, t1, model.TP("t", 2), model.TP("t", 3)
	h := flat(
		// A and B each poll what the other sent: pure wr.
		txn(1, 0, model.OpOK, 0, 5, sendOK(0, x, "a", 0, 0, 0), poll(0, 0, 0, recs(y, 0, "b"))),
		txn(2, 1, model.OpOK, 1, 6, poll(0, 0, 0, recs(x, 0, "a"), recs(z, 0, "p")), sendOK(0, y, "b", 0, 0, 0), sendOK(0, w, "s", 0, 0, 0)),
		// C, last to complete: B polls C's z:p (wr), and C's w:r lands
		// right after B's w:s (ww).
		txn(3, 2, model.OpOK, 2, 10, sendOK(0, z, "p", 0, 0, 0), sendOK(0, w, "r", 1, 0, 0)),
	)
	r := check(t, Input{History: h}, Options{})
	vs := find(r, G1c)
	if len(vs) != 1 || !vs[0].Error || !slices.Equal(vs[0].Ops, []int{2, 0}) {
		t.Fatalf("want one G1c error, B then A; got:\n%s", dump(r))
	}
	for _, s := range vs[0].Txn.Steps {
		if s.Type != "wr" {
			t.Fatalf("want the pure wr cycle; got:\n%s", dump(r))
		}
	}
	// Without A's poll, only the ww+wr cycle is left: allowed.
	h[1].Records = nil
	r = check(t, Input{History: h}, Options{})
	if vs := find(r, G1c); len(vs) != 1 || vs[0].Error || !slices.Equal(vs[0].Ops, []int{5, 2}) {
		t.Fatalf("want one allowed G1c, C then B; got:\n%s", dump(r))
	}
}

func TestTxnInternalSends(t *testing.T) {
	x := t0
	// One op sends a then c; another's b lands between them.
	skip := flat(
		txn(1, 0, model.OpOK, 0, 1, sendOK(0, x, "a", 1, 0, 0), sendOK(0, x, "c", 3, 0, 0)),
		one(sendOK(1, x, "b", 2, 0, 1)),
		one(poll(2, 2, 3, recs(x, 1, "a", 2, "b", 3, "c"))),
	)
	r := check(t, Input{History: skip}, Options{})
	v := mustFind(t, r, IntSendSkip, x, 1, 3)
	if v.Error || v.Txn.Delta != 2 || !slices.Equal(v.Txn.Skipped, []string{"b"}) || !slices.Equal(v.Values, []string{"a", "c"}) {
		t.Fatalf("int-send-skip: %+v", v)
	}
	mustNotFind(t, r, IntNonmonotonicSend)
	// Back to back: fine.
	fine := flat(
		txn(1, 0, model.OpOK, 0, 1, sendOK(0, x, "a", 1, 0, 0), sendOK(0, x, "c", 2, 0, 0)),
		one(poll(2, 2, 3, recs(x, 1, "a", 2, "c"))),
	)
	r = check(t, Input{History: fine}, Options{})
	mustNotFind(t, r, IntSendSkip)
	mustNotFind(t, r, IntNonmonotonicSend)
	// Out of order: an error when the configuration promises send order.
	back := flat(
		txn(1, 0, model.OpOK, 0, 1, sendOK(0, x, "c", 3, 0, 0), sendOK(0, x, "a", 1, 0, 0)),
	)
	r = check(t, Input{History: back}, Options{Idempotent: true})
	if v := mustFind(t, r, IntNonmonotonicSend, x, 3, 1); !v.Error || v.Txn.Delta != -1 {
		t.Fatalf("int-nonmonotonic-send: %+v", v)
	}
	r = check(t, Input{History: back}, Options{})
	if v := mustFind(t, r, IntNonmonotonicSend, x, 3, 1); v.Error {
		t.Fatalf("int-nonmonotonic-send without idempotence: %+v", v)
	}
}

func TestTxnPrecommittedRead(t *testing.T) {
	x := t0
	bad := flat(txn(1, 0, model.OpOK, 0, 1, sendOK(0, x, "a", 0, 0, 0), poll(0, 0, 0, recs(x, 0, "a"))))
	r := check(t, Input{History: bad}, Options{})
	if v := mustFind(t, r, PrecommittedRead, x, 0); !v.Error || !slices.Equal(v.Ops, []int{0}) || v.Values[0] != "a" {
		t.Fatalf("precommitted-read: %+v", v)
	}
	// Another operation reading it is the normal case.
	fine := flat(
		txn(1, 0, model.OpOK, 0, 1, sendOK(0, x, "a", 0, 0, 0), poll(0, 0, 0)),
		one(poll(1, 2, 3, recs(x, 0, "a"))),
	)
	mustNotFind(t, check(t, Input{History: fine}, Options{}), PrecommittedRead)
}

// A million-operation chain closed into one cycle: the component search
// needs no recursion, and the cycle found goes all the way round.
func TestSCCLongChain(t *testing.T) {
	const n = 1_000_000
	edges := make([]depEdge, n)
	for i := range edges {
		edges[i] = depEdge{int32(i), int32((i + 1) % n), relWW}
	}
	g := newDepGraph(n, edges)
	comp, size := g.sccs(relWW, nil, nil, &sccScratch{})
	if len(size) != 1 || size[0] != n || comp[0] != comp[n-1] {
		t.Fatalf("components: %d, first size %d", len(size), size[0])
	}
	if _, size := g.sccs(relWR, nil, nil, &sccScratch{}); len(size) != n {
		t.Fatalf("wr-only components: %d, want %d singletons", len(size), n)
	}
	sc := &bfsScratch{parent: make([]int32, n)}
	for i := range sc.parent {
		sc.parent[i] = -1
	}
	if cyc := g.cycleThrough(7, relWW, relWW, comp, sc); len(cyc) != n || cyc[0] != 7 || cyc[1] != 8 {
		t.Fatalf("cycle of %d nodes from %v", len(cyc), cyc[:min(3, len(cyc))])
	}
}

// The cycle through a node is a shortest one, and the first-edge
// restriction holds.
func TestCycleThroughShortest(t *testing.T) {
	// 0→1→2→3→0 (ww) and a shortcut 1→0 (wr); 0→2 (wr).
	g := newDepGraph(4, []depEdge{
		{0, 1, relWW}, {1, 2, relWW}, {2, 3, relWW}, {3, 0, relWW}, {1, 0, relWR}, {0, 2, relWR},
	})
	comp, _ := g.sccs(relWW|relWR, nil, nil, &sccScratch{})
	sc := &bfsScratch{parent: []int32{-1, -1, -1, -1}}
	if cyc := g.cycleThrough(0, relWW|relWR, relWW|relWR, comp, sc); !slices.Equal(cyc, []int32{0, 1}) {
		t.Fatalf("shortest: %v", cyc)
	}
	if cyc := g.cycleThrough(0, relWR, relWW|relWR, comp, sc); !slices.Equal(cyc, []int32{0, 2, 3}) {
		t.Fatalf("wr first: %v", cyc)
	}
	if cyc := g.cycleThrough(0, relWW, relWW, comp, sc); !slices.Equal(cyc, []int32{0, 1, 2, 3}) {
		t.Fatalf("ww only: %v", cyc)
	}
	if !slices.Equal(sc.parent, []int32{-1, -1, -1, -1}) {
		t.Fatalf("parent left dirty: %v", sc.parent)
	}
}
