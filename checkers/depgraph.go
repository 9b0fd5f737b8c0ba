package checkers

import "slices"

// This file builds the dependency graph over client operations that Elle
// builds for Kafka (jepsen.tests.kafka ww-graph, wr-graph, graph):
//
//   - ww: the record after v1 in a partition's version order is v2, and
//     operation A sent v1, B sent v2: A's write came before B's.
//   - wr: operation B polled a value that A sent: B saw A's write.
//
// Nodes are operations (txnIndex.ops); only completed sends and polls
// make edges, and an operation has no edge to itself. A value no one sent
// makes no edge: it is a phantom, reported on its own.

// The relations an edge can carry, as bits.
const (
	relWW uint8 = 1 << iota
	relWR
)

// depGraph is a directed graph in compressed sparse rows: node u's
// out-edges go to to[start[u]:start[u+1]], in ascending order, with their
// relations in rel. An edge carrying both relations is stored once.
type depGraph struct {
	start []int32
	to    []int32
	rel   []uint8
}

type depEdge struct {
	from, to int32
	rel      uint8
}

// inRows are edges of one relation grouped by their target: node v's
// in-edges come from from[start[v]:start[v+1]], in any order, repeats
// allowed.
type inRows struct {
	start []int32 // len n+1
	from  []int32
	rel   uint8
}

// graph builds the dependency graph. The wr edges come from one walk of
// the history, and they come grouped by their target (the reader), since
// operations are numbered in history order; the ww edges come from the
// partitions' writers, compact arrays. buildDepGraph then turns the
// in-edges into sorted out-rows. Building the out-rows directly would
// need every edge twice (once to count a row, once to fill it), that is
// two walks over the 320-byte history entries, and a sort of each row.
func (x *txnIndex) graph() *depGraph {
	n := len(x.ops)
	return buildDepGraph(n, x.wwRows(n), x.wrRows(n))
}

// wwRows are the ww edges: consecutive positions in each partition's
// version order, grouped by the later writer.
func (x *txnIndex) wwRows(n int) inRows {
	r := inRows{start: make([]int32, n+1), rel: relWW}
	each := func(add func(w1, w2 int32)) {
		for _, xp := range x.parts {
			ws := xp.writers
			for i := 1; i < len(ws); i++ {
				if w1, w2 := ws[i-1], ws[i]; w1 >= 0 && w2 >= 0 && w1 != w2 && xp.follows(i) {
					add(w1, w2)
				}
			}
		}
	}
	each(func(_, w2 int32) { r.start[w2+1]++ })
	for v := range n {
		r.start[v+1] += r.start[v]
	}
	r.from = make([]int32, r.start[n])
	fill := slices.Clone(r.start[:n])
	each(func(w1, w2 int32) {
		r.from[fill[w2]] = w1
		fill[w2]++
	})
	return r
}

// wrRows are the wr edges, one for every record a completed poll
// returned, whatever the poll's outcome: Kafka's consumers are to return
// only committed data even inside a transaction that later aborts
// (Jepsen's version-orders and readers-of use them all). The history's
// order is the readers' order, so each reader's row is appended whole.
func (x *txnIndex) wrRows(n int) inRows {
	r := inRows{start: make([]int32, n+1), from: make([]int32, 0, x.a.polled), rel: relWR}
	for i := range x.a.entries {
		e := &x.a.entries[i]
		if e.kind != kindPoll || !e.completed() {
			continue
		}
		reader := e.op
		for _, rec := range x.a.polledRecs[e.recs : e.recs+e.nrecs] {
			// Every polled partition was observed: it has its index.
			if w, ok := x.writer(x.parts[rec.part], rec.id, rec.offset); ok && w != reader {
				r.from = append(r.from, w)
			}
		}
		r.start[reader+1] = int32(len(r.from))
	}
	// Readers without edges end where the reader before them ended.
	for v := range n {
		r.start[v+1] = max(r.start[v+1], r.start[v])
	}
	return r
}

// newDepGraph builds a graph from a list of edges.
func newDepGraph(n int, edges []depEdge) *depGraph {
	var rows []inRows
	for _, rel := range []uint8{relWW, relWR} {
		r := inRows{start: make([]int32, n+1), rel: rel}
		for _, e := range edges {
			if e.rel&rel != 0 {
				r.start[e.to+1]++
			}
		}
		for v := range n {
			r.start[v+1] += r.start[v]
		}
		r.from = make([]int32, r.start[n])
		fill := slices.Clone(r.start[:n])
		for _, e := range edges {
			if e.rel&rel != 0 {
				r.from[fill[e.to]] = e.from
				fill[e.to]++
			}
		}
		rows = append(rows, r)
	}
	return buildDepGraph(n, rows...)
}

// buildDepGraph turns in-edges into out-rows: it counts each node's
// out-edges, then visits the targets in ascending order and puts each
// in-edge into its source's row, so every row comes out sorted by target
// without a sort (a transpose by counting), with the repeats of an edge
// next to each other; they are merged, their relations joined.
func buildDepGraph(n int, in ...inRows) *depGraph {
	g := &depGraph{start: make([]int32, n+1)}
	m := 0
	for _, r := range in {
		for _, u := range r.from {
			g.start[u+1]++
		}
		m += len(r.from)
	}
	for u := range n {
		g.start[u+1] += g.start[u]
	}
	g.to, g.rel = make([]int32, m), make([]uint8, m)
	fill := slices.Clone(g.start[:n])
	for v := range int32(n) {
		for _, r := range in {
			for _, u := range r.from[r.start[v]:r.start[v+1]] {
				g.to[fill[u]], g.rel[fill[u]] = v, r.rel
				fill[u]++
			}
		}
	}
	// Merge repeats and close the gaps.
	kept := int32(0)
	for u := range n {
		lo, hi := g.start[u], g.start[u+1]
		g.start[u] = kept
		for e := lo; e < hi; e++ {
			if e > lo && g.to[e] == g.to[kept-1] {
				g.rel[kept-1] |= g.rel[e]
				continue
			}
			g.to[kept], g.rel[kept] = g.to[e], g.rel[e]
			kept++
		}
	}
	g.start[n] = kept
	g.to, g.rel = g.to[:kept], g.rel[:kept]
	return g
}

func (g *depGraph) nodes() int { return len(g.start) - 1 }

// relOf is the relations of edge u→v, 0 when there is none.
func (g *depGraph) relOf(u, v int32) uint8 {
	row := g.to[g.start[u]:g.start[u+1]]
	if j, ok := slices.BinarySearch(row, v); ok {
		return g.rel[g.start[u]+int32(j)]
	}
	return 0
}
