package checkers

import (
	"slices"

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
	edges := make([]depEdge, 0, x.records+x.positions)
	// ww: consecutive positions in each partition's version order.
	for _, xp := range x.parts {
		ws := xp.writers
		for i := 1; i < len(ws); i++ {
			if w1, w2 := ws[i-1], ws[i]; w1 >= 0 && w2 >= 0 && w1 != w2 && xp.follows(i) {
				edges = append(edges, depEdge{w1, w2, relWW})
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
					edges = append(edges, depEdge{w, reader, relWR})
				}
			}
		}
	}
	return newDepGraph(len(x.ops), edges)
}

// newDepGraph builds the rows by counting, then sorts and merges each
// row: O(E log d) for out-degree d, with no global sort.
func newDepGraph(n int, edges []depEdge) *depGraph {
	g := &depGraph{start: make([]int32, n+1)}
	for _, e := range edges {
		g.start[e.from+1]++
	}
	for u := 0; u < n; u++ {
		g.start[u+1] += g.start[u]
	}
	fill := slices.Clone(g.start[:n])
	row := make([]depEdge, len(edges))
	for _, e := range edges {
		row[fill[e.from]] = e
		fill[e.from]++
	}
	g.to = make([]int32, 0, len(edges))
	g.rel = make([]uint8, 0, len(edges))
	kept := int32(0)
	for u := 0; u < n; u++ {
		r := row[g.start[u]:g.start[u+1]]
		if len(r) > 1 {
			slices.SortFunc(r, func(a, b depEdge) int { return int(a.to - b.to) })
		}
		g.start[u] = kept
		for j, e := range r {
			if j > 0 && e.to == r[j-1].to {
				g.rel[len(g.rel)-1] |= e.rel
				continue
			}
			g.to = append(g.to, e.to)
			g.rel = append(g.rel, e.rel)
			kept++
		}
	}
	g.start[n] = kept
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
