package checkers

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The transpose that builds the graph's rows must give what a plain
// construction gives: for each node, its distinct targets in ascending
// order, each with the union of the relations of its repeats. Random
// edges with repeats, self-free and not, both relations, and nodes with
// no edges at all.
func TestBuildDepGraphMatchesPlainRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 1))
	for round := range 50 {
		n := 1 + rng.IntN(40)
		edges := make([]depEdge, rng.IntN(4*n))
		for i := range edges {
			edges[i] = depEdge{int32(rng.IntN(n)), int32(rng.IntN(n)), uint8(1 + rng.IntN(3))}
		}
		want := make([]map[int32]uint8, n)
		for _, e := range edges {
			if want[e.from] == nil {
				want[e.from] = map[int32]uint8{}
			}
			want[e.from][e.to] |= e.rel
		}
		g := newDepGraph(n, edges)
		if g.nodes() != n {
			t.Fatalf("round %d: %d nodes, want %d", round, g.nodes(), n)
		}
		for u := range int32(n) {
			row := g.to[g.start[u]:g.start[u+1]]
			if !slices.IsSorted(row) || len(row) != len(want[u]) {
				t.Fatalf("round %d: node %d row %v, want targets %v", round, u, row, want[u])
			}
			for j, v := range row {
				if rel := g.rel[g.start[u]+int32(j)]; rel != want[u][v] {
					t.Fatalf("round %d: edge %d→%d has relations %b, want %b", round, u, v, rel, want[u][v])
				}
			}
		}
	}
}
