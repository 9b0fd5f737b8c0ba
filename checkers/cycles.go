package checkers

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"kafkasim/model"
)

// This file searches the dependency graph (depgraph.go) for cycles and
// explains them, as jepsen.tests.kafka cycles! has Elle do:
//
//   - the graph is cut into strongly connected components (Tarjan); a
//     cycle lies inside one;
//   - in each component with more than one operation, a shortest cycle
//     through one operation is found by breadth-first search, for the
//     kinds cycles() lists;
//   - a cycle is named by the edges it holds, as elle.txn cycle-explainer
//     names it: write-write edges only is G0, any write-read edge makes it
//     G1c. Elle's other names need edges this graph does not have: an
//     anti-dependency (rw) edge makes G-single, G-nonadjacent or G2, and
//     kafka.clj builds no rw graph (its rw-graph is commented out), so
//     they never arise on Kafka histories; a realtime or process edge
//     adds -realtime or -process (kafkasim does not build those edges:
//     see the README);
//   - the cycle starts at the operation that completed last among those
//     that can start it, which is how Elle writes the cycles in Jepsen's
//     own tests.

// sccs labels each node with its strongly connected component over the
// edges that carry a relation in mask: comp[u] is u's component and
// size[c] the number of nodes in c. It is Tarjan's algorithm with explicit
// stacks, so a chain of a million operations needs no deep recursion.
//
// Given within and withinSize (components over more relations, and their
// sizes; nil for none), edges between two of those components are left
// out, since no cycle crosses them, and a node alone in its component
// there is alone here without a search.
func (g *depGraph) sccs(mask uint8, within, withinSize []int32, sc *sccScratch) (comp, size []int32) {
	n := g.nodes()
	if len(sc.order) != n {
		sc.order, sc.low, sc.onStack = make([]int32, n), make([]int32, n), make([]bool, n)
	} else {
		clear(sc.order) // low is set on every visit; onStack is all false after a search
	}
	order, low, onStack := sc.order, sc.low, sc.onStack
	comp = make([]int32, n)
	size = make([]int32, 0, n)
	stack, call := sc.stack[:0], sc.call[:0]
	defer func() { sc.stack, sc.call = stack, call }()
	next := int32(1)
	visit := func(u int32) {
		order[u], low[u] = next, next
		next++
		stack = append(stack, u)
		onStack[u] = true
		call = append(call, sccFrame{u, g.start[u]})
	}
	for s := int32(0); s < int32(n); s++ {
		if order[s] != 0 {
			continue
		}
		if within != nil && withinSize[within[s]] < 2 {
			order[s] = next
			next++
			comp[s] = int32(len(size))
			size = append(size, 1)
			continue
		}
		visit(s)
		for len(call) > 0 {
			top := len(call) - 1
			u, e := call[top].u, call[top].e
			if e < g.start[u+1] {
				call[top].e++
				v := g.to[e]
				if g.rel[e]&mask == 0 || within != nil && within[v] != within[u] {
					continue
				}
				switch {
				case order[v] == 0:
					visit(v)
				case onStack[v]:
					low[u] = min(low[u], order[v])
				}
				continue
			}
			call = call[:top]
			if top > 0 {
				p := call[top-1].u
				low[p] = min(low[p], low[u])
			}
			if low[u] != order[u] {
				continue
			}
			c, k := int32(len(size)), int32(0)
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp[w] = c
				k++
				if w == u {
					break
				}
			}
			size = append(size, k)
		}
	}
	return comp, size
}

// sccScratch is what one search for components lends the next: order
// (visit order, from 1; 0 is unvisited), low and onStack are Tarjan's, by
// node; stack and call are its stacks (empty between searches), which
// grow to a component's size.
type sccScratch struct {
	order, low []int32
	onStack    []bool
	stack      []int32
	call       []sccFrame
}

// sccFrame is a node of Tarjan's call stack and its next out-edge.
type sccFrame struct{ u, e int32 }

// cycleThrough is a shortest cycle through s whose first edge carries a
// relation in first and whose other edges each carry one in rest, inside
// s's component of comp: its nodes from s on, or nil if there is none.
// sc.parent must be all -1; it is left so.
func (g *depGraph) cycleThrough(s int32, first, rest uint8, comp []int32, sc *bfsScratch) []int32 {
	c, parent := comp[s], sc.parent
	queue := sc.queue[:0]
	defer func() {
		for _, v := range queue {
			parent[v] = -1
		}
		sc.queue = queue
	}()
	for e := g.start[s]; e < g.start[s+1]; e++ {
		if v := g.to[e]; g.rel[e]&first != 0 && comp[v] == c && parent[v] < 0 {
			parent[v] = s
			queue = append(queue, v)
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for e := g.start[u]; e < g.start[u+1]; e++ {
			v := g.to[e]
			if g.rel[e]&rest == 0 || comp[v] != c {
				continue
			}
			if v == s {
				n := 1
				for w := u; w != s; w = parent[w] {
					n++
				}
				cyc := make([]int32, n)
				cyc[0] = s
				for w, i := u, n-1; w != s; w, i = parent[w], i-1 {
					cyc[i] = w
				}
				return cyc
			}
			if parent[v] < 0 {
				parent[v] = u
				queue = append(queue, v)
			}
		}
	}
	return nil
}

// bfsScratch is what cycleThrough reuses from one search to the next.
type bfsScratch struct {
	parent []int32 // the node a search reached each node from; -1 if none
	queue  []int32
}

// cycles finds, in each strongly connected component of the dependency
// graph, one G0 or else one G1c through a ww edge, and in each component
// of the write-read edges alone, one G1c of write-read edges only.
func (x *txnIndex) cycles() []Violation {
	g := x.graph()
	if len(g.to) == 0 {
		return nil
	}
	var sc0 sccScratch
	full, fullSize := g.sccs(relWW|relWR, nil, nil, &sc0)
	if !slices.ContainsFunc(fullSize, func(k int32) bool { return k > 1 }) {
		return nil
	}
	cs := &cycleComponents{full: full, fullSize: fullSize}
	cs.ww, cs.wwSize = g.sccs(relWW, full, fullSize, &sc0)
	cs.wr, cs.wrSize = g.sccs(relWR, full, fullSize, &sc0)
	x.pickStarts(g, cs)
	sc := &bfsScratch{parent: make([]int32, g.nodes())}
	for i := range sc.parent {
		sc.parent[i] = -1
	}
	searches := cs.searches()
	out := make([]Violation, 0, len(searches))
	for _, s := range searches {
		switch s.kind {
		case cycleWW:
			out = append(out, x.cycleViolation(G0, g, g.cycleThrough(s.start, relWW, relWW, cs.ww, sc), cycleWW))
		case cycleWR:
			out = append(out, x.cycleViolation(G1c, g, g.cycleThrough(s.start, relWR, relWR, cs.wr, sc), cycleWR))
		default:
			out = append(out, x.cycleViolation(G1c, g, g.cycleThrough(s.start, relWR, relWW|relWR, cs.full, sc), cycleMixed))
		}
	}
	return out
}

// cycleComponents are the strongly connected components of the whole
// graph (full), of its ww edges (ww) and of its wr edges (wr), each with
// its sizes, and the operation each kind of cycle starts from; -1 for
// none. Per component of the whole graph: one in a ww-only cycle (G0),
// one with a wr edge that stays in the component (G1c through a ww
// edge). Per component of the wr edges alone: one in a wr-only cycle
// (G1c).
type cycleComponents struct {
	full, fullSize []int32
	ww, wwSize     []int32
	wr, wrSize     []int32
	from           []cycleStarts // by component of full
	pureFrom       []int32       // by component of wr
	pure           []bool        // by component of full: it holds a wr-only cycle
}

type cycleStarts struct{ g0, wrFirst int32 }

// pickStarts fills cs's starts: for each kind, the operation that
// completed last among those that can start it.
func (x *txnIndex) pickStarts(g *depGraph, cs *cycleComponents) {
	cs.from = make([]cycleStarts, len(cs.fullSize))
	for c := range cs.from {
		cs.from[c] = cycleStarts{-1, -1}
	}
	cs.pureFrom = make([]int32, len(cs.wrSize))
	for c := range cs.pureFrom {
		cs.pureFrom[c] = -1
	}
	cs.pure = make([]bool, len(cs.fullSize))
	pick := func(cur *int32, u int32) {
		if *cur < 0 || x.completedLater(u, *cur) {
			*cur = u
		}
	}
	full := cs.full
	for u := int32(0); u < int32(g.nodes()); u++ {
		c := full[u]
		if cs.fullSize[c] < 2 {
			continue
		}
		if cs.wwSize[cs.ww[u]] > 1 {
			pick(&cs.from[c].g0, u)
		}
		if cs.wrSize[cs.wr[u]] > 1 {
			pick(&cs.pureFrom[cs.wr[u]], u)
			cs.pure[c] = true
		}
		for e := g.start[u]; e < g.start[u+1]; e++ {
			if g.rel[e]&relWR != 0 && full[g.to[e]] == c {
				pick(&cs.from[c].wrFirst, u)
				break
			}
		}
	}
}

// cycleSearch is one search for a cycle: from start, of a kind, inside
// a component of the components the kind names (cycles: cycleWW inside
// those of ww edges, cycleWR of wr edges, cycleMixed of the whole
// graph). It holds no pointer, so that sorting tens of thousands of them
// moves no pointers the garbage collector must hear about.
type cycleSearch struct {
	start int32
	kind  int
}

// searches are the cycle searches to run, in the order of the operations
// they start from. Components come out of Tarjan's search in reverse
// topological order; a report reads better in history order.
//
// Which searches to run follows the two ways Jepsen runs Elle on a
// Kafka history (kafka.clj cycles!, elle.txn cycle-cases-in-scc). With
// :ww-deps, Elle searches each component of the whole graph for the
// kinds of cycle in order, G0 then G1c, and skips a kind that one
// already found implies (elle.consistency-model implied-anomalies: G0
// implies G1c): a component with a G0 reports no G1c. Without
// :ww-deps there are only wr edges, and each of their components with
// a cycle is a G1c of wr edges only. kafkasim reports both: G0, or
// else a G1c through a ww edge, for each component of the whole graph,
// and a wr-only G1c for each component of the wr edges. A component
// that holds a wr-only G1c has no G1c through a ww edge reported too:
// the wr-only one is Elle's answer there in both ways.
func (cs *cycleComponents) searches() []cycleSearch {
	var searches []cycleSearch
	for c, s := range cs.from {
		switch {
		case s.g0 >= 0:
			searches = append(searches, cycleSearch{s.g0, cycleWW})
		case !cs.pure[c] && s.wrFirst >= 0:
			searches = append(searches, cycleSearch{s.wrFirst, cycleMixed})
		}
	}
	for _, s := range cs.pureFrom {
		if s >= 0 {
			searches = append(searches, cycleSearch{s, cycleWR})
		}
	}
	slices.SortStableFunc(searches, func(a, b cycleSearch) int { return cmp.Compare(a.start, b.start) })
	return searches
}

// How a cycle's edges are explained.
const (
	cycleWW    = iota // every edge as ww
	cycleWR           // every edge as wr
	cycleMixed        // the first as wr, the rest as ww where they are, as Elle's explainers are tried (ww, then wr)
)

func (x *txnIndex) cycleViolation(anomaly string, g *depGraph, cyc []int32, kind int) Violation {
	if len(cyc) < 2 {
		panic("checkers: a component with a cycle start has no cycle")
	}
	v := Violation{Checker: CheckerAnomalies, Anomaly: anomaly, Ops: make([]int, 0, len(cyc)), Txn: &TxnDetail{Steps: make([]Step, 0, len(cyc))}}
	for i, a := range cyc {
		b := cyc[(i+1)%len(cyc)]
		rel := relWR
		switch {
		case kind == cycleWW, kind == cycleMixed && i > 0 && g.relOf(a, b)&relWW != 0:
			rel = relWW
		}
		st := x.explain(a, b, rel)
		v.Ops = append(v.Ops, x.head(a).Index)
		v.Txn.Steps = append(v.Txn.Steps, st)
	}
	v.Partition = v.Txn.Steps[0].Partition
	switch {
	case anomaly == G0:
		v.Error, v.Promise = false, allowG0
	case v.Txn.hasWW():
		v.Error, v.Promise = false, allowG1cWW
	default:
		v.Error, v.Promise = true, PromiseWriteRead
	}
	v.Detail = x.describeCycle(v.Txn.Steps)
	return v
}

// explain says why operation a precedes b by relation rel (Jepsen's
// WWExplainer and WRExplainer): the first of b's sends (ww) or polled
// records (wr), in micro-op order, that a's write explains.
func (x *txnIndex) explain(a, b int32, rel uint8) Step {
	ha, hb := x.head(a), x.head(b)
	mops := x.micro(b)
	for m := range mops {
		op := &mops[m]
		switch {
		case rel == relWW && op.F == model.FSend:
			xp := x.part(op.TP)
			if xp == nil {
				continue
			}
			i2, ok := xp.position(op.Value, op.Offset)
			if !ok || i2 == 0 {
				continue
			}
			if xp.writers[i2-1] == a {
				v1 := xp.names[xp.ids[i2-1]]
				return Step{Type: "ww", From: ha.Index, To: hb.Index, Partition: op.TP, Value: v1, Value2: op.Value,
					FromMop: x.sendMop(a, op.TP, v1), ToMop: m}
			}
		case rel == relWR && op.F == model.FPoll:
			for _, pr := range op.Records {
				xp := x.part(pr.TP)
				if xp == nil {
					continue
				}
				for _, r := range pr.Records {
					if w, ok := x.writerOfValue(xp, r.Value, r.Offset); ok && w == a {
						return Step{Type: "wr", From: ha.Index, To: hb.Index, Partition: pr.TP, Value: r.Value,
							FromMop: x.sendMop(a, pr.TP, r.Value), ToMop: m}
					}
				}
			}
		}
	}
	panic(fmt.Sprintf("checkers: no explanation for the %d edge from op %d to op %d", rel, ha.Index, hb.Index))
}

// describeCycle is one line naming each step, as Elle's explanations do.
// It appends rather than formats: a long history can hold tens of
// thousands of cycles.
func (x *txnIndex) describeCycle(steps []Step) string {
	const maxSteps = 8
	ww, wr := false, false
	for _, s := range steps {
		ww, wr = ww || s.Type == "ww", wr || s.Type == "wr"
	}
	kind := "write-write and write-read"
	switch {
	case !wr:
		kind = "write-write"
	case !ww:
		kind = "write-read"
	}
	b := make([]byte, 0, 128+112*min(len(steps), maxSteps))
	b = append(b, "a cycle of "...)
	b = strconv.AppendInt(b, int64(len(steps)), 10)
	b = append(b, " operations linked by "...)
	b = append(b, kind...)
	b = append(b, " dependencies, so each must come before itself: "...)
	op := func(b []byte, i int) []byte {
		b = append(b, "op "...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, " (process "...)
		b = strconv.AppendInt(b, int64(x.a.h[i].Process), 10)
		return append(b, ')')
	}
	for i, s := range steps {
		if i == maxSteps {
			b = append(b, "; … ("...)
			b = strconv.AppendInt(b, int64(len(steps)), 10)
			b = append(b, " steps in all)"...)
			break
		}
		if i > 0 {
			b = append(b, "; "...)
		}
		b = op(b, s.From)
		b = append(b, " sent "...)
		b = strconv.AppendQuote(b, s.Value)
		b = append(b, " to "...)
		b = append(b, s.Partition.String()...)
		if s.Type == "ww" {
			b = append(b, " just before "...)
			b = op(b, s.To)
			b = append(b, " sent "...)
			b = strconv.AppendQuote(b, s.Value2)
			b = append(b, " there (ww)"...)
		} else {
			b = append(b, ", which "...)
			b = op(b, s.To)
			b = append(b, " polled (wr)"...)
		}
	}
	return string(b)
}
