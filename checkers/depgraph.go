package checkers

import (
	"slices"
	"sort"

	"kafkasim/model"
)

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

func (x *txnIndex) graph() *depGraph {
	return buildDepGraph(len(x.ops), x.edges)
}

// edges calls add on every edge, as many times as the history gives it.
func (x *txnIndex) edges(add func(from, to int32, rel uint8)) {
	// ww: consecutive positions in each partition's version order.
	for _, xp := range x.parts {
		ws := xp.writers
		for i := 1; i < len(ws); i++ {
			if w1, w2 := ws[i-1], ws[i]; w1 >= 0 && w2 >= 0 && w1 != w2 && xp.follows(i) {
				add(w1, w2, relWW)
			}
		}
	}
	// wr: every completed poll, whatever its outcome: Kafka's consumers
	// are to return only committed data even inside a transaction that
	// later aborts (Jepsen's version-orders and readers-of use them all).
	for i := range x.a.h {
		op := &x.a.h[i]
		if op.F != model.FPoll || !op.Completed() {
			continue
		}
		reader := x.opOf[i]
		for _, pr := range op.Records {
			xp := x.part(pr.TP)
			if xp == nil {
				continue
			}
			for _, r := range pr.Records {
				if w, ok := x.writer(xp, r.Value, r.Offset); ok && w != reader {
					add(w, reader, relWR)
				}
			}
		}
	}
}

// newDepGraph builds a graph from a list of edges.
func newDepGraph(n int, edges []depEdge) *depGraph {
	return buildDepGraph(n, func(add func(from, to int32, rel uint8)) {
		for _, e := range edges {
			add(e.from, e.to, e.rel)
		}
	})
}

// buildDepGraph builds the rows in two walks over the edges, one to count
// each node's out-edges and one to put them in place, then sorts and
// merges each row: no list of edges is ever held, and no global sort is
// needed.
func buildDepGraph(n int, each func(add func(from, to int32, rel uint8))) *depGraph {
	g := &depGraph{start: make([]int32, n+1)}
	each(func(from, _ int32, _ uint8) { g.start[from+1]++ })
	for u := 0; u < n; u++ {
		g.start[u+1] += g.start[u]
	}
	m := g.start[n]
	g.to, g.rel = make([]int32, m), make([]uint8, m)
	fill := slices.Clone(g.start[:n])
	each(func(from, to int32, rel uint8) {
		g.to[fill[from]], g.rel[fill[from]] = to, rel
		fill[from]++
	})
	// Sort each row by target, merge repeats, and close the gaps.
	kept := int32(0)
	for u := 0; u < n; u++ {
		lo, hi := g.start[u], g.start[u+1]
		g.start[u] = kept
		row := edgeRow{g.to[lo:hi], g.rel[lo:hi]}
		switch {
		case len(row.to) > 16:
			sort.Sort(row)
		case len(row.to) > 1:
			row.insertionSort() // most rows are short; sort.Sort would box each one
		}
		for j := range row.to {
			if j > 0 && row.to[j] == row.to[j-1] {
				g.rel[kept-1] |= row.rel[j]
				continue
			}
			g.to[kept], g.rel[kept] = row.to[j], row.rel[j]
			kept++
		}
	}
	g.start[n] = kept
	g.to, g.rel = g.to[:kept], g.rel[:kept]
	return g
}

// edgeRow sorts one row's targets with their relations.
type edgeRow struct {
	to  []int32
	rel []uint8
}

func (r edgeRow) insertionSort() {
	for i := 1; i < len(r.to); i++ {
		for j := i; j > 0 && r.to[j] < r.to[j-1]; j-- {
			r.Swap(j, j-1)
		}
	}
}

func (r edgeRow) Len() int           { return len(r.to) }
func (r edgeRow) Less(i, j int) bool { return r.to[i] < r.to[j] }
func (r edgeRow) Swap(i, j int) {
	r.to[i], r.to[j] = r.to[j], r.to[i]
	r.rel[i], r.rel[j] = r.rel[j], r.rel[i]
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
