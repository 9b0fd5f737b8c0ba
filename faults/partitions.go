package faults

import (
	"math/rand/v2"
	"slices"
	"strings"

	"kafkasim/model"
)

// link is one direction of the connection between two nodes: the unit a
// partition cuts and a window end heals.
type link struct{ from, to model.BrokerID }

// partition works out which directed links a partition fault cuts, at fire
// time: the selectors and the random shapes resolve now. It returns the
// links, the nodes involved and a description of the sides for the log
// ("b1, b3 | b2, b100"); no links means the fault is a no-op, and the
// description then says why.
func (n *Nemesis) partition(f Fault, r *rand.Rand) ([]link, []model.BrokerID, string) {
	srv := servers(n.w)
	switch f.Kind {
	case KindIsolate:
		return n.isolateLinks(f, srv, r)
	case KindHalves:
		if len(srv) < 2 {
			return nil, nil, "fewer than two servers to split"
		}
		p := shuffled(srv, r)
		gs := [][]model.BrokerID{p[:len(p)/2], p[len(p)/2:]}
		return groupLinks(gs), p, describe(gs)
	case KindBridge:
		if len(srv) < 3 {
			return nil, nil, "fewer than three servers to bridge"
		}
		// The bridge is in neither side, so its links stay up: it hears
		// both halves while they cannot hear each other.
		p := shuffled(srv, r)
		bridge, rest := p[0], p[1:]
		gs := [][]model.BrokerID{rest[:len(rest)/2], rest[len(rest)/2:]}
		return groupLinks(gs), p, describe(gs) + " (bridge " + bridge.String() + ")"
	case KindRing:
		return ringLinks(srv, r)
	case KindOneWay:
		return n.oneWayLinks(f, r)
	case KindSplit:
		return n.splitLinks(f, r)
	}
	panic("faults: partition of kind " + string(f.Kind))
}

// isolateLinks cuts the target's nodes from the rest of the fault's
// scope (the servers unless it says brokers, controllers or all nodes).
func (n *Nemesis) isolateLinks(f Fault, srv []model.BrokerID, r *rand.Rand) ([]link, []model.BrokerID, string) {
	xs, why := f.Target.resolveAll(n.w, r)
	if xs == nil {
		return nil, nil, why
	}
	var others []model.BrokerID
	switch f.Scope {
	case ScopeBrokers:
		others = n.w.Brokers()
	case ScopeControllers:
		others = n.w.Controllers()
	case ScopeAll:
		for _, id := range n.s.Nodes() {
			others = append(others, model.BrokerID(id))
		}
	default:
		others = srv
	}
	var rest []model.BrokerID
	for _, id := range others {
		if !inGroup(xs, id) {
			rest = append(rest, id)
		}
	}
	// Sorted so that the log names the sides the same way whatever
	// order the world lists its nodes in (the active controller
	// first).
	slices.Sort(rest)
	gs := [][]model.BrokerID{xs, rest}
	if len(rest) == 0 {
		return nil, nil, "no one to cut " + describe(gs[:1]) + " from " + f.Scope.String()
	}
	return groupLinks(gs), xs, describe(gs)
}

// oneWayLinks cuts the one link from the target to the peer.
func (n *Nemesis) oneWayLinks(f Fault, r *rand.Rand) ([]link, []model.BrokerID, string) {
	a, why := f.Target.resolve(n.w, r)
	if a == model.NoBroker {
		return nil, nil, why
	}
	b, why := f.Peer.resolve(n.w, r)
	if b == model.NoBroker {
		return nil, nil, why
	}
	if a == b {
		return nil, nil, "both ends are " + a.String()
	}
	return []link{{a, b}}, []model.BrokerID{a, b}, a.String() + " -> " + b.String()
}

// splitLinks cuts the fault's groups, each its selectors' nodes, from
// one another.
func (n *Nemesis) splitLinks(f Fault, r *rand.Rand) ([]link, []model.BrokerID, string) {
	var gs [][]model.BrokerID
	var all []model.BrokerID
	for _, g := range f.Groups {
		var ids []model.BrokerID
		for _, s := range g {
			found, _ := s.resolveAll(n.w, r)
			ids = append(ids, found...)
		}
		gs = append(gs, ids)
		all = append(all, ids...)
	}
	ls := groupLinks(gs)
	if len(ls) == 0 {
		return nil, nil, "the groups resolve to fewer than two sides: " + describe(gs)
	}
	return ls, all, describe(gs)
}

// groupLinks cuts every node of each group from every node of every other
// group, both ways. A node listed in two groups keeps its links to both
// (it bridges them); nobody is cut from itself.
func groupLinks(gs [][]model.BrokerID) []link {
	var out []link
	for i, g := range gs {
		for j, h := range gs {
			if i == j {
				continue
			}
			for _, a := range g {
				for _, b := range h {
					if a != b && !inGroup(h, a) && !inGroup(g, b) {
						out = append(out, link{a, b})
					}
				}
			}
		}
	}
	return out
}

// ringLinks arranges the servers in a random ring and cuts every pair
// further apart on it than k, where 2k+1 is the smallest odd number of
// nodes that is a majority. Every node then sees itself and its k
// neighbours on each side, a majority, and no two nodes see the same one:
// the "majorities ring" under which two leaders can each believe they
// have a quorum.
func ringLinks(srv []model.BrokerID, r *rand.Rand) ([]link, []model.BrokerID, string) {
	n := len(srv)
	majority := n/2 + 1
	k := majority / 2 // ceil((majority-1)/2)
	if n < 4 || 2*k+1 >= n {
		return nil, nil, "too few servers for a ring (every node would see all)"
	}
	p := shuffled(srv, r)
	var out []link
	for i := range p {
		for j := range p {
			d := (j - i + n) % n
			if d > k && n-d > k {
				out = append(out, link{p[i], p[j]})
			}
		}
	}
	var b strings.Builder
	b.WriteString("ring")
	for _, id := range p {
		b.WriteString(" " + id.String())
	}
	return out, p, b.String()
}

func shuffled(ids []model.BrokerID, r *rand.Rand) []model.BrokerID {
	p := append([]model.BrokerID(nil), ids...)
	r.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	return p
}

func inGroup(g []model.BrokerID, x model.BrokerID) bool {
	for _, id := range g {
		if id == x {
			return true
		}
	}
	return false
}

// describe writes groups as the file writes them: "b1, b3 | b2".
func describe(gs [][]model.BrokerID) string {
	var b strings.Builder
	for i, g := range gs {
		if i > 0 {
			b.WriteString(" | ")
		}
		for j, id := range g {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(id.String())
		}
	}
	return b.String()
}
