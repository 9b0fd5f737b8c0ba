package sim

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Latency is a per-message delay distribution: uniform in [Min, Max], and
// with probability TailProb an extra delay uniform in [0, Tail] on top, for
// the long tail real networks have.
type Latency struct {
	Min, Max time.Duration
	TailProb float64
	Tail     time.Duration
}

// Fixed is a latency that is always d.
func Fixed(d time.Duration) Latency { return Latency{Min: d, Max: d} }

func (l Latency) draw(r *rand.Rand) time.Duration {
	d := l.Min
	if l.Max > l.Min {
		d += time.Duration(r.Int64N(int64(l.Max-l.Min) + 1))
	}
	if l.TailProb > 0 && l.Tail > 0 && r.Float64() < l.TailProb {
		d += time.Duration(r.Int64N(int64(l.Tail) + 1))
	}
	return d
}

// Datagram turns a link from a connection into a datagram path, for stress
// runs: messages may be duplicated and reordered (never corrupted). The zero
// value, and a nil *Datagram in LinkConfig, mean no chaos.
type Datagram struct {
	DupProb     float64       // probability a message is delivered twice
	ReorderProb float64       // probability a message is held back
	ReorderMax  time.Duration // how long at most it is held back
}

// LinkConfig describes one directed link.
type LinkConfig struct {
	Latency  Latency
	Datagram *Datagram // nil: a FIFO connection (the normal case)
}

// link is the state of one directed link from one node to another.
type link struct {
	cfg       LinkConfig
	cut       bool          // a partition drops everything sent on it
	conn      uint32        // connection generation, shared by both directions
	used      bool          // something was sent since the last reset
	lastAt    time.Duration // latest delivery time scheduled: keeps FIFO
	clogExtra time.Duration // extra delay while clogged
	clogUntil time.Duration
	rand      *rand.Rand // latency draws, made on first use
	// duplicated says the link delivered (or has scheduled) some message
	// twice in this run (datagram chaos); see Env.Duplicated.
	duplicated bool
}

func (s *Sim) link(from, to int32) *link {
	i := int(from)*len(s.nodes) + int(to)
	l := s.links[i]
	if l == nil {
		l = &link{cfg: s.cfg.Link}
		s.links[i] = l
	}
	return l
}

func (s *Sim) linkRand(l *link, from, to int32) *rand.Rand {
	if l.rand == nil {
		l.rand = s.streams.Stream(fmt.Sprintf("link/%s->%s", s.nodes[from].name, s.nodes[to].name))
	}
	return l.rand
}

// send puts m on the link from n to the node to.
func (s *Sim) send(n *nodeState, to NodeID, m Message) {
	t := s.index(to)
	s.stats.Sent++
	l := s.link(n.idx, t)
	if l.cut {
		// The packets vanish; neither end is told, as with a real
		// partition. The sender finds out by a timeout.
		s.stats.Dropped++
		return
	}
	dst := s.nodes[t]
	lat := l.cfg.Latency.Min
	if l.cfg.Latency.Max > lat || l.cfg.Latency.TailProb > 0 {
		lat = l.cfg.Latency.draw(s.linkRand(l, n.idx, t))
	}
	if s.now < l.clogUntil {
		lat += l.clogExtra
	}
	if dst.status == statusDown {
		// Nobody listens: the connection is refused, and the sender
		// hears about it after a round of the link.
		s.stats.Dropped++
		s.q.push(s.now+lat, event{kind: evDisconnect, node: n.idx, peer: t, inc: n.inc})
		return
	}
	l.used = true
	at := s.now + lat
	ev := event{kind: evDeliver, node: t, peer: n.idx, inc: dst.inc, conn: l.conn, msg: m}
	if dg := l.cfg.Datagram; dg != nil {
		r := s.linkRand(l, n.idx, t)
		if dg.ReorderProb > 0 && dg.ReorderMax > 0 && r.Float64() < dg.ReorderProb {
			at += time.Duration(r.Int64N(int64(dg.ReorderMax) + 1))
		}
		s.q.push(at, ev)
		if dg.DupProb > 0 && r.Float64() < dg.DupProb {
			s.q.push(at+l.cfg.Latency.draw(r), ev)
			l.duplicated = true
		}
		return
	}
	if at < l.lastAt {
		at = l.lastAt // a connection delivers in order
	}
	l.lastAt = at
	s.q.push(at, ev)
}

// resetConn breaks the connection between a and b: what is in flight either
// way is lost, and each end that is up is told. Nodes that never exchanged a
// message had no connection, so nobody is told.
func (s *Sim) resetConn(a, b int32) {
	ab, ba := s.link(a, b), s.link(b, a)
	ab.conn++
	ba.conn = ab.conn
	if !ab.used && !ba.used {
		return
	}
	ab.used, ba.used = false, false
	for _, p := range [2][2]int32{{a, b}, {b, a}} {
		n := s.nodes[p[0]]
		if n.status != statusDown {
			s.q.push(s.now, event{kind: evDisconnect, node: p[0], peer: p[1], inc: n.inc})
		}
	}
}

// closeConn closes the connection from a node that is shutting down to a
// peer gracefully: messages already sent from the node keep their
// connection generation and are delivered; the peer learns of the close
// after them (same delivery time, later sequence number). Messages in
// flight to the node die with its incarnation.
func (s *Sim) closeConn(from, to int32) {
	out, in := s.link(from, to), s.link(to, from)
	if !out.used && !in.used {
		return
	}
	out.used, in.used = false, false
	peer := s.nodes[to]
	if peer.status == statusDown {
		return
	}
	at := max(s.now, out.lastAt)
	s.q.push(at, event{kind: evDisconnect, node: to, peer: from, inc: peer.inc})
}

// SetLink configures the directed link from one node to another.
func (s *Sim) SetLink(from, to NodeID, cfg LinkConfig) {
	s.link(s.index(from), s.index(to)).cfg = cfg
}

// SetAllLinks configures every directed link between distinct nodes.
func (s *Sim) SetAllLinks(cfg LinkConfig) {
	for a := range s.nodes {
		for b := range s.nodes {
			if a != b {
				s.link(int32(a), int32(b)).cfg = cfg
			}
		}
	}
}

// Cut drops everything sent from one node to another until Heal, and breaks
// their connection. A one-way cut leaves the other direction working, as a
// misconfigured firewall does.
func (s *Sim) Cut(from, to NodeID) {
	f, t := s.index(from), s.index(to)
	s.controlTrace("cut", fmt.Sprintf("%v->%v", from, to))
	l := s.link(f, t)
	if l.cut {
		return
	}
	l.cut = true
	s.resetConn(f, t)
}

// Heal removes a one-way cut.
func (s *Sim) Heal(from, to NodeID) {
	s.controlTrace("heal", fmt.Sprintf("%v->%v", from, to))
	s.link(s.index(from), s.index(to)).cut = false
}

// Partition splits the listed groups from each other, both ways: no message
// crosses between nodes of different groups. Nodes not listed are not
// affected.
func (s *Sim) Partition(groups ...[]NodeID) {
	for i, g := range groups {
		for j, h := range groups {
			if i == j {
				continue
			}
			for _, a := range g {
				for _, b := range h {
					s.Cut(a, b)
				}
			}
		}
	}
}

// HealAll removes every cut.
func (s *Sim) HealAll() {
	s.controlTrace("heal-all", "")
	for _, l := range s.links {
		if l != nil {
			l.cut = false
		}
	}
}

// IsCut reports whether the directed link from one node to another is cut.
func (s *Sim) IsCut(from, to NodeID) bool {
	return s.link(s.index(from), s.index(to)).cut
}

// ResetConnection breaks the connection between a and b without cutting the
// link: in-flight messages are lost, both ends are told, and new messages
// flow again at once.
func (s *Sim) ResetConnection(a, b NodeID) {
	s.controlTrace("reset", fmt.Sprintf("%v<->%v", a, b))
	s.resetConn(s.index(a), s.index(b))
}

// Clog adds extra delay to every message sent on the directed link from one
// node to another during the next d of virtual time (a congested switch, a
// saturated NIC). Messages stay in order.
func (s *Sim) Clog(from, to NodeID, extra, d time.Duration) {
	s.controlTrace("clog", fmt.Sprintf("%v->%v +%v for %v", from, to, extra, d))
	l := s.link(s.index(from), s.index(to))
	l.clogExtra = extra
	l.clogUntil = s.now + d
}

// SendAs sends m from node from to node to as if from's code had sent it,
// over the same connection and with the same semantics. The harness uses
// it to drive test doubles and scripted clients. A node that is down sends
// nothing.
func (s *Sim) SendAs(from, to NodeID, m Message) {
	n := s.nodes[s.index(from)]
	if n.status == statusDown {
		return
	}
	s.send(n, to, m)
}
