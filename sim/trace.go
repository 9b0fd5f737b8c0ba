package sim

import (
	"fmt"
	"time"
)

// TraceEvent is one processed event as the trace records it.
type TraceEvent struct {
	Index  uint64        // 1-based position among processed events
	Time   time.Duration // true virtual time
	Node   NodeID        // the node it happened at (-1 for the harness)
	Kind   string        // deliver, fire, disconnect, sync, control, crash, node trace kinds, ...
	Digest uint64        // digest of the payload
	Detail string        // readable payload (only when recording)
	Hash   uint64        // running trace hash after this event
}

func (e TraceEvent) String() string {
	node := "-"
	if e.Node >= 0 {
		node = e.Node.String()
	}
	s := fmt.Sprintf("#%d %v %s %s", e.Index, e.Time, node, e.Kind)
	if e.Detail != "" {
		s += " " + e.Detail
	}
	return s
}

// Checkpoint is the trace hash after every K-th event. Two runs of one seed
// compare checkpoints first; the first differing one bounds where they part.
type Checkpoint struct {
	Events uint64
	Time   time.Duration
	Hash   uint64
}

// fold mixes one value into the running hash. It is a multiply-xorshift
// step: cheap, and any change to any folded value changes every later hash.
func fold(h, v uint64) uint64 {
	h ^= v
	h *= 0xff51afd7ed558ccd
	h ^= h >> 32
	return h
}

// recorder keeps full trace events, optionally only a window of them (by
// event index) so that locating a divergence in a long run stays bounded.
type recorder struct {
	from, to uint64 // inclusive window of event indices; to==0 means no end
	limit    int    // at most this many events kept
	events   []TraceEvent
}

func (r *recorder) wants(i uint64) bool {
	return i >= r.from && (r.to == 0 || i <= r.to) && len(r.events) < r.limit
}

// Digests of the kinds the kernel folds for nearly every event, computed
// once: they are what fnv64 gives, so the hash is the same as folding the
// strings each time. Only read after initialisation.
var (
	kindDeliverDigest    = fnv64("deliver")
	kindFireDigest       = fnv64("fire")
	kindDisconnectDigest = fnv64("disconnect")
	kindControlDigest    = fnv64("control")
)

// traceOut is called for every node trace record and kernel action.
func (s *Sim) traceOut(node NodeID, kind string, digest uint64, detail func() string) {
	s.traceKind(node, kind, fnv64(kind), digest, detail)
}

// traceKind is traceOut with the kind's digest (fnv64(kind)) given, so that
// the per-event kinds are not hashed again for every event.
func (s *Sim) traceKind(node NodeID, kind string, kindDigest, digest uint64, detail func() string) {
	s.events++
	h := fold(s.hash, uint64(s.now))
	h = fold(h, uint64(uint32(node)))
	h = fold(h, kindDigest)
	h = fold(h, digest)
	s.hash = h
	if s.cfg.CheckpointEvery > 0 && s.events%s.cfg.CheckpointEvery == 0 {
		s.checkpoints = append(s.checkpoints, Checkpoint{Events: s.events, Time: s.now, Hash: h})
	}
	if s.rec != nil && s.rec.wants(s.events) {
		d := ""
		if detail != nil {
			d = detail()
		}
		s.rec.events = append(s.rec.events, TraceEvent{
			Index: s.events, Time: s.now, Node: node, Kind: kind, Digest: digest, Detail: d, Hash: h,
		})
	}
}

func (s *Sim) traceNode(n *nodeState, kind, detail string) {
	s.traceOut(n.id, kind, fnv64(detail), func() string { return detail })
}

// Divergence names where two runs of one scenario part.
type Divergence struct {
	// Checkpoint is the index in the checkpoint lists of the first
	// differing checkpoint, or -1 when every shared checkpoint agrees.
	Checkpoint int
	// Event is the 1-based index of the first differing event, or 0 when it
	// is not known (the traces were not recorded around it).
	Event uint64
	A, B  *TraceEvent // the two differing events when known
}

func (d Divergence) String() string {
	switch {
	case d.Event != 0 && d.A != nil && d.B != nil:
		return fmt.Sprintf("runs part at event %d:\n  a: %v\n  b: %v", d.Event, *d.A, *d.B)
	case d.Event != 0:
		return fmt.Sprintf("runs part at event %d (one run ended there)", d.Event)
	case d.Checkpoint >= 0:
		return fmt.Sprintf("runs part before checkpoint %d", d.Checkpoint)
	}
	return "runs agree"
}

// FirstCheckpointDiff returns the index of the first checkpoint where a and
// b differ, or -1 when the shorter list is a prefix of the longer.
func FirstCheckpointDiff(a, b []Checkpoint) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

// FirstEventDiff returns the first position where two recorded traces
// differ in (time, node, kind, digest), comparing events with equal index.
// It returns ok=false when one is a prefix of the other.
func FirstEventDiff(a, b []TraceEvent) (i int, ok bool) {
	for i = 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x.Index != y.Index || x.Time != y.Time || x.Node != y.Node || x.Kind != y.Kind || x.Digest != y.Digest {
			return i, true
		}
	}
	return i, false
}
