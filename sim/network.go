package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
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

// Cloner is a message whose memory its sender reuses once the message has
// been handled (model's produce and fetch messages, which the nodes' free
// lists recycle after their answer). A datagram path that delivers a
// message twice delivers two clones made when it was sent, and never the
// message itself: each delivery owns its message, so a node may reuse what
// it sent once it handled an answer, by rules it can know, without asking
// which faults the network injected. Cloning the second delivery only
// would not do: a receiver may hold the first (a leader parks a fetch) and
// answer the clone first, and its sender, which handled that answer,
// would then write over a request still being read. Clones consume no
// randomness and move no event, so they change nothing in a run but the
// memory. Clone returns any because the packages that implement it do not
// import sim; it must return a Message.
type Cloner interface {
	Clone() any
}

// owned returns what one delivery of a message the network delivers twice
// carries: a clone of m when m is a Cloner, else m itself, which holds no
// memory its sender reuses.
func owned(m Message) Message {
	c, ok := m.(Cloner)
	if !ok {
		return m
	}
	d, ok := c.Clone().(Message)
	if !ok {
		panic(fmt.Sprintf("sim: %T.Clone returned no Message", m))
	}
	return d
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
	// unacked is what was sent while the path was down (a cut, a machine
	// that is off), in send order: the sending kernel keeps it and
	// retransmits it on one timer per connection, not one per message.
	unacked []Message
	// caught counts the messages at the head of unacked that were on
	// the wire when the path went down and were dropped on arrival
	// (catchInFlight): they were sent before anything queued behind
	// them, so the next one caught goes after them and before those.
	caught  int
	rto     time.Duration // the retransmission timer's current backoff
	retries int           // retransmissions without an answer so far
	// rtoChain names the retransmission timer now serving unacked: a
	// queue abandoned without the connection's generation moving on
	// (closeConn) leaves its timer pending, and that timer must not
	// serve, nor back off, a queue started after it.
	rtoChain uint32
	// unackedSince is when the oldest packet the timer retransmits was
	// first sent (Linux's retrans_stamp): an orphaned socket's give-up
	// counts from it.
	unackedSince time.Duration
	// finPending says the process at this end died (a crash or a
	// shutdown) while the path was cut: its kernel, which closed the
	// socket for it, keeps retransmitting the close (finTo is the far
	// end's incarnation it is meant for) on the connection's timer, and
	// the far end learns of it once a retransmission gets through.
	finPending bool
	finTo      uint32
	// halfOpen says the far end's machine lost power since this
	// connection was opened: its kernel no longer knows the connection,
	// and answers the next packet that reaches it with a reset.
	halfOpen bool
	// drainConn is the connection generation this end's process closed
	// while the path carried it (Env.Close), and drainUntil the delivery
	// time of the last message it had sent on it: those messages were on
	// the wire, and the far kernel takes them in and hands them to its
	// process ahead of the close, as Linux does with data sent before a
	// FIN. Anything else of an old generation is dropped.
	drainConn  uint32
	drainUntil time.Duration
}

// drains reports whether a message of connection generation conn, arriving
// now, is one its sender had put on the wire before closing the connection
// gracefully (drainConn): delivered, though the connection is gone.
func (l *link) drains(conn uint32, now time.Duration) bool {
	return conn == l.drainConn && now <= l.drainUntil
}

// TCP's retransmission rules, Linux's: the retransmission timeout starts at
// TCP_RTO_MIN (200 ms; a LAN's round trip is far below it), doubles after
// every unanswered retransmission up to TCP_RTO_MAX (120 s), and after
// net.ipv4.tcp_retries2 (15) retransmissions the kernel gives the
// connection up, about 924.6 s after the first unanswered send.
const (
	tcpRTOMin     = 200 * time.Millisecond
	tcpRTOMax     = 120 * time.Second
	tcpRetries2   = 15
	tcpGiveUpTime = 924600 * time.Millisecond // sum of the 16 timeouts above
	// tcpOrphanGiveUp is how long a socket whose process is gone keeps
	// retransmitting: net.ipv4.tcp_orphan_retries is 0 by default, which
	// tcp_orphan_retries() turns into 8 retries for a live connection, and
	// retransmits_timed_out() measures 8 retries from the first
	// unanswered send as (2^9 - 1) × TCP_RTO_MIN.
	tcpOrphanGiveUp = 511 * tcpRTOMin
)

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
	dst := s.nodes[t]
	if s.cfg.TCP && l.cfg.Datagram == nil && (l.cut || dst.off || len(l.unacked) > 0) {
		// The packets vanish on the way, and neither end is told, as
		// behind a real partition or a machine that is off; the
		// sending kernel keeps them and retransmits. What is sent
		// behind them waits behind them: a connection delivers in
		// order.
		s.queueUnacked(l, n.idx, t, m)
		return
	}
	if l.cut {
		// A datagram path, or the announcing network, keeps nothing:
		// the message is lost.
		s.stats.Dropped++
		return
	}
	if back := s.link(t, n.idx); back.halfOpen && dst.status != statusDown {
		// The far end lost its old connection to us silently (a power
		// loss, a crash behind a cut) and we open a new one: its old
		// socket is reset now, before the new one carries anything.
		s.refuse(back, t, n.idx, s.now)
	}
	s.transmit(n, l, t, m)
}

// transmit schedules the delivery of m on a link whose path carries
// packets.
func (s *Sim) transmit(n *nodeState, l *link, t int32, m Message) {
	dst := s.nodes[t]
	lat := l.cfg.Latency.Min
	if l.cfg.Latency.Max > lat || l.cfg.Latency.TailProb > 0 {
		lat = l.cfg.Latency.draw(s.linkRand(l, n.idx, t))
	}
	if s.now < l.clogUntil {
		lat += l.clogExtra
	}
	if dst.status == statusDown || l.halfOpen {
		// The machine is on but nobody listens, or its kernel does not
		// know this connection (it lost power and came back, or the
		// process behind it died): it answers with a reset, and the
		// sender hears about it after a round of the link.
		s.stats.Dropped++
		s.refuse(l, n.idx, t, s.now+lat)
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
		if dg.DupProb > 0 && r.Float64() < dg.DupProb {
			dup := ev
			ev.msg, dup.msg = owned(m), owned(m)
			s.q.push(at, ev)
			s.q.push(at+l.cfg.Latency.draw(r), dup)
			return
		}
		s.q.push(at, ev)
		return
	}
	if at < l.lastAt {
		at = l.lastAt // a connection delivers in order
	}
	l.lastAt = at
	s.q.push(at, ev)
}

// queueUnacked keeps a message the path did not carry in the sending
// kernel's retransmission queue, arming the connection's retransmission
// timer if it is not armed.
func (s *Sim) queueUnacked(l *link, from, to int32, m Message) {
	l.used = true
	l.unacked = append(l.unacked, m)
	if len(l.unacked) > 1 || l.finPending {
		return // the timer is armed
	}
	s.armRetransmit(l, from, to)
}

// armRetransmit starts the retransmission timer of a connection whose
// queue was empty: its first unanswered packet was sent now.
func (s *Sim) armRetransmit(l *link, from, to int32) {
	l.rto, l.retries, l.unackedSince = tcpRTOMin, 0, s.now
	s.q.push(s.now+l.rto, event{kind: evRetransmit, node: from, peer: to, conn: l.conn, arg: int64(l.rtoChain)})
}

// catchInFlight is a message that was on the wire when its path was cut:
// the cut drops it on arrival, unseen by the receiver, and the sending
// kernel, which never got its acknowledgement, retransmits it with what
// it queued since. It was sent before everything queued while the path was
// down, so it goes ahead of them, behind what was caught before it (the
// wire delivers in order, so that is what was sent before it).
func (s *Sim) catchInFlight(l *link, from, to int32, m Message) {
	l.unacked = slices.Insert(l.unacked, l.caught, m)
	l.caught++
	l.used = true
	if len(l.unacked) > 1 || l.finPending {
		return // the timer is armed
	}
	s.armRetransmit(l, from, to)
}

// retransmit is the retransmission timer of the connection from ev.node to
// ev.peer (Linux's tcp_retransmit_timer). If the path carries packets
// again, everything queued is delivered in order, or refused by a machine
// that does not know the connection; if not, the timeout doubles, and after
// tcp_retries2 retransmissions the kernel gives up and tells its own
// process (ETIMEDOUT), while the far end hears nothing.
func (s *Sim) retransmit(ev *event) {
	from, to := ev.node, ev.peer
	l := s.link(from, to)
	if l.conn != ev.conn || uint32(ev.arg) != l.rtoChain || (len(l.unacked) == 0 && !l.finPending) {
		return // the connection broke or was closed meanwhile and took its queue
	}
	if l.finPending && s.now-l.unackedSince >= tcpOrphanGiveUp {
		// The orphaned socket gives up before this retransmission
		// (tcp_write_timeout), silently: the far end keeps its
		// half-open connection.
		l.finPending = false
		if len(l.unacked) == 0 {
			return
		}
	}
	dst := s.nodes[to]
	if l.cut || dst.off {
		if l.retries == tcpRetries2 {
			s.traceOut(s.nodes[from].id, "tcp-give-up", uint64(uint32(dst.id)), nil)
			s.stats.Dropped += uint64(len(l.unacked))
			s.breakHalf(from, to)
			return
		}
		l.retries++
		l.rto = min(2*l.rto, tcpRTOMax)
		s.q.push(s.now+l.rto, event{kind: evRetransmit, node: from, peer: to, conn: l.conn, arg: int64(l.rtoChain)})
		return
	}
	if l.finPending {
		s.deliverFin(l, from, to)
	}
	queued := l.unacked
	l.unacked, l.caught = nil, 0
	if len(queued) == 0 {
		return
	}
	if dst.status == statusDown || l.halfOpen {
		s.stats.Dropped += uint64(len(queued))
		s.refuse(l, from, to, s.now+l.cfg.Latency.Min)
		return
	}
	src := s.nodes[from]
	for _, m := range queued {
		s.transmit(src, l, to, m)
	}
}

// deliverFin is the retransmitted close of a process that died behind a
// cut reaching the far end: if the far end is the incarnation it was meant
// for and still believes in the connection, it learns of the close now
// (after a round of the link), as a peer reading the end of its stream
// does, and its kernel drops what it still had queued for the dead
// process (which would only be answered with a reset).
func (s *Sim) deliverFin(l *link, from, to int32) {
	l.finPending = false
	back := s.link(to, from)
	if dst := s.nodes[to]; dst.status == statusDown || dst.inc != l.finTo || !back.halfOpen {
		return // nobody there holds the old connection any more
	}
	s.refuse(back, to, from, s.now+l.cfg.Latency.Min)
}

// orphanClose is a process that died (crashed, or shut down) with its
// path to b cut: the kernel closes its socket and queues the close (a
// FIN) behind what it had not delivered, and, the socket now orphaned,
// retransmits it on the connection's timer for up to tcpOrphanGiveUp,
// so b learns of the death once the cut heals. Nothing is queued when
// the two never had a connection, or b's end of it is already gone.
//
// What the process had sent but its kernel had not delivered is dropped
// (dropSilently), as a crash on an open path drops what is in flight
// (resetConn); Linux would deliver it ahead of the close, unless the
// process died with unread data, in which case its kernel resets the
// connection and the reset is lost in the cut.
func (s *Sim) orphanClose(a, b int32) {
	ab, ba := s.link(a, b), s.link(b, a)
	pending := len(ab.unacked) > 0
	s.dropSilently(a, b)
	peer := s.nodes[b]
	if !ba.halfOpen || peer.status == statusDown || peer.off {
		return
	}
	ab.finPending, ab.finTo = true, peer.inc
	if !pending {
		s.armRetransmit(ab, a, b)
	}
}

// dropSilently forgets the connection between a node that died without a
// word reaching b (a power loss; a crash or shutdown whose reset the cut
// swallowed) and b: what a's kernel had not sent yet is gone, and b keeps
// believing in the connection until it sends on it and is reset, or its own
// timeouts fire.
func (s *Sim) dropSilently(a, b int32) {
	ab, ba := s.link(a, b), s.link(b, a)
	s.stats.Dropped += uint64(len(ab.unacked))
	ab.unacked, ab.caught = nil, 0
	if ab.used || ba.used {
		ba.halfOpen = true
	}
	ab.used = false
}

// refuse is a reset answering a packet: the sender is told at "at". On
// the TCP network the sender's connection is then gone (the far end's
// process never had it, or is down): nothing stays queued on it, and the
// next message opens a new one. Messages already on their way stay: what the far
// end sent before its process died was sent before the reset.
func (s *Sim) refuse(l *link, from, to int32, at time.Duration) {
	n := s.nodes[from]
	s.q.push(at, event{kind: evDisconnect, node: from, peer: to, inc: n.inc})
	if !s.cfg.TCP {
		return
	}
	l.used, l.halfOpen, l.finPending = false, false, false
	s.link(to, from).halfOpen = false
	s.stats.Dropped += uint64(len(l.unacked))
	l.unacked, l.caught = nil, 0
}

// holdsUnsent reports whether the sending kernel still holds something
// for this connection that the path has not carried: messages waiting
// for a retransmission, or the close of a process that died behind a cut.
func (l *link) holdsUnsent() bool { return len(l.unacked) > 0 || l.finPending }

// breakHalf ends the connection from a's side only: a is told now, b, which
// did not hear of it, keeps believing in it until it sends and is reset or
// its own timeouts fire.
func (s *Sim) breakHalf(a, b int32) {
	ab, ba := s.link(a, b), s.link(b, a)
	ab.conn++
	ba.conn = ab.conn
	ab.unacked, ab.caught, ab.used, ab.finPending = nil, 0, false, false
	ab.drainUntil, ba.drainUntil = 0, 0
	ba.halfOpen = true
	s.rearmRetransmit(ba, b, a)
	if n := s.nodes[a]; n.status != statusDown {
		s.q.push(s.now, event{kind: evDisconnect, node: a, peer: b, inc: n.inc})
	}
}

// resetConn breaks the connection between a and b: what is in flight either
// way is lost, and each end that is up is told. Nodes that never exchanged a
// message had no connection, so nobody is told.
func (s *Sim) resetConn(a, b int32) {
	ab, ba := s.link(a, b), s.link(b, a)
	ab.conn++
	ba.conn = ab.conn
	s.stats.Dropped += uint64(len(ab.unacked) + len(ba.unacked))
	ab.unacked, ba.unacked = nil, nil
	ab.caught, ba.caught = 0, 0
	ab.halfOpen, ba.halfOpen = false, false
	ab.finPending, ba.finPending = false, false
	ab.drainUntil, ba.drainUntil = 0, 0
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

// closeFrom is a process closing its socket to b (Env.Close): its kernel
// abandons what it had not delivered, late messages either way on the old
// connection are dropped, and the next message opens a new connection.
// The close reaches b after a round of the link, unless the path is cut or
// b's machine is off; a b that was not told keeps a half-open connection
// and is reset when it next sends on it.
func (s *Sim) closeFrom(a, b int32) {
	if !s.cfg.TCP {
		return // the announcing network keeps one connection per pair
	}
	ab, ba := s.link(a, b), s.link(b, a)
	s.stats.Dropped += uint64(len(ab.unacked))
	ab.unacked, ab.caught = nil, 0
	ab.halfOpen, ab.finPending = false, false
	if !ab.used && !ba.used {
		return // no connection to close
	}
	ab.conn++
	ba.conn = ab.conn
	ab.used, ba.used = false, false
	// A close that b's dead process left pending was for the connection
	// a just closed: a's kernel no longer knows it and would answer it
	// with a reset, so nobody learns anything from it. Left pending, it
	// would wait for a retransmission timer of the old generation, which
	// no longer acts, and everything b's next incarnation sends would
	// queue behind it for good (reassign-under-chaos seed 99702610).
	ba.finPending = false
	peer := s.nodes[b]
	switch {
	case peer.off || peer.status == statusDown:
		// Nothing on the far side holds the connection.
	case ab.cut:
		// b never hears of the close: it keeps retransmitting what it
		// queued for a, and a's kernel, which no longer knows the
		// connection, resets it once a retransmission gets through.
		ba.halfOpen = true
		s.rearmRetransmit(ba, b, a)
	default:
		// b's kernel learns of the close and abandons what it still
		// had for a (a's kernel would reset it anyway).
		s.stats.Dropped += uint64(len(ba.unacked))
		ba.unacked, ba.caught = nil, 0
		at := s.now + ab.cfg.Latency.Min
		if ab.lastAt > s.now {
			// What a sent before closing is still on the wire (a slow
			// path, a clog): b's kernel takes it in and its process
			// reads it before the close, which travels behind it. A
			// connection a opens next is a socket of its own, not
			// ordered behind the old one's data.
			ab.drainConn, ab.drainUntil = ab.conn-1, ab.lastAt
			at = max(at, ab.lastAt)
			ab.lastAt = s.now
		}
		s.q.push(at, event{kind: evDisconnect, node: b, peer: a, inc: peer.inc})
	}
}

// rearmRetransmit moves the retransmission timer of the link from a to b
// onto the connection generation the link has now: a connection that one
// end gave up or closed keeps, at the other end, the queue it had, and
// that end's kernel goes on retransmitting it (to be reset by the far
// kernel once a retransmission gets through). Without it the queue would
// wait for a timer of the old generation that no longer acts, and
// everything sent behind it would wait forever.
func (s *Sim) rearmRetransmit(l *link, a, b int32) {
	if len(l.unacked) == 0 {
		return
	}
	s.q.push(s.now+l.rto, event{kind: evRetransmit, node: a, peer: b, conn: l.conn, arg: int64(l.rtoChain)})
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
	if s.cfg.TCP && len(in.unacked) > 0 {
		// The peer's kernel still holds data for the closing process, sent
		// into a cut that healed before the next retransmission. It was for
		// this connection, which the peer's process closes on reading the
		// close; the node's next incarnation opens a new one and never sees
		// that data. Kept on the one connection the simulator has a pair,
		// it would hold back everything the peer sends the next
		// incarnation until the old, backed-off timer fired, and then be
		// delivered to it (reassign-under-chaos seed 92508529).
		s.stats.Dropped += uint64(len(in.unacked))
		in.unacked, in.caught = nil, 0
		in.rtoChain++
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

// Cut drops every packet sent from one node to another until Heal, and
// tells nobody: the connection stays open, the sending kernel retransmits
// (see retransmit), and what was sent is delivered in order at the first
// retransmission after the heal, unless the connection broke first. A
// one-way cut leaves the other direction working, as a misconfigured
// firewall does.
//
// On the announcing network (Config.TCP false) a cut instead breaks the
// connection at once, both ends are told, and what is sent into the cut
// is lost.
func (s *Sim) Cut(from, to NodeID) {
	f, t := s.index(from), s.index(to)
	s.controlTrace("cut", fmt.Sprintf("%v->%v", from, to))
	l := s.link(f, t)
	if l.cut {
		return
	}
	l.cut = true
	if !s.cfg.TCP {
		s.resetConn(f, t)
	}
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
