package sim

import (
	"math/rand/v2"
	"strconv"
	"time"
)

// NodeID names a node of the simulated world. The kernel keeps nodes in a
// dense table, so ids are small non-negative integers chosen by the caller.
type NodeID int32

func (id NodeID) String() string { return "n" + strconv.Itoa(int(id)) }

// Message is anything one node sends another. The kernel never looks inside
// a message; it folds Digest into the trace hash, so two runs that send
// different content part at the first differing message. Digest must be a
// pure function of the content and cheap (no formatting, no allocation).
// A message should also implement fmt.Stringer for readable traces.
type Message interface {
	Digest() uint64
}

// Node is a synchronous state machine: the system under test. The kernel
// calls exactly one method at a time, each for one event, and a node acts on
// the world only through the Env it is handed. A node never starts a
// goroutine, reads the real clock, touches the real file system or network,
// or draws randomness from anywhere but env.Rand().
//
// A crash throws the node's value away; a restart builds a fresh one from the
// node's factory and calls Start, so in-memory state is lost by construction
// and whatever survives must be recovered from env.Disk().
type Node interface {
	// Start boots or reboots the node: recover from env.Disk(), arm timers.
	Start(env *Env)
	// Receive handles one message delivered from another node.
	Receive(env *Env, from NodeID, m Message)
	// Fire handles one timer set with env.After (or one completed env.Sync).
	Fire(env *Env, t Timer)
	// Disconnected tells the node that its connection with peer broke: the
	// peer crashed, a partition or reset cut the link, or a message was sent
	// to a peer that is down. Messages in flight on that connection are lost.
	Disconnected(env *Env, peer NodeID)
}

// Stopper is implemented by nodes that have something to do on a clean
// shutdown (flush, write a clean-shutdown marker). Stop runs just before the
// node is discarded; messages it sends are lost with the connections.
type Stopper interface {
	Stop(env *Env)
}

// Factory builds a fresh node value. It is called at the first start and at
// every restart, so it must not share state between the values it returns.
type Factory func() Node

// TimerID identifies one armed timer of one node; ids are never reused
// within a run.
type TimerID uint64

// Timer is what Fire receives: the id that After returned and the kind and
// argument the node chose when arming it.
type Timer struct {
	ID   TimerID
	Kind string
	Arg  int64
}

// Env is a node's whole view of the world. The kernel hands the same Env to
// every call for one incarnation of a node; after a crash it is dead and its
// methods do nothing.
type Env struct {
	sim  *Sim
	n    *nodeState
	inc  uint32 // the incarnation this Env belongs to
	live bool
}

// ID is the node's own id.
func (e *Env) ID() NodeID { return e.n.id }

// Name is the node's name as given to AddNode.
func (e *Env) Name() string { return e.n.name }

// Now is the node's own clock: virtual time as the node sees it, with the
// skew and drift a fault may have given it. Use it for every protocol
// decision (timeouts, lag, expiry).
func (e *Env) Now() time.Duration { return e.n.clock.local(e.sim.now) }

// ObserverNow is the true virtual time, as an outside observer with a
// perfect clock sees it. Protocol code must not use it; it exists so that
// clients can stamp the operations they record in a history on one shared
// time line, which linearizability checking needs.
func (e *Env) ObserverNow() time.Duration { return e.sim.now }

// Send sends m to the node to over their connection. Delivery is FIFO and
// exactly once while the connection lives; a crash, partition or reset
// loses what is in flight. Sending to a node that is down costs a
// Disconnected notice one link latency later, as a refused connection does.
func (e *Env) Send(to NodeID, m Message) {
	if !e.live {
		return
	}
	e.sim.send(e.n, to, m)
}

// Close closes this node's connection to peer, as a process closing its
// socket after a request timeout does: what the kernel still held for the
// peer is abandoned, late messages on the old connection are dropped, the
// peer learns of the close after a round of the link if the path carries
// it, and the next Send opens a new connection (so it does not wait
// behind the old one's retransmissions). Closing when there is no
// connection does nothing.
func (e *Env) Close(peer NodeID) {
	if !e.live {
		return
	}
	e.sim.closeFrom(e.n.idx, e.sim.index(peer))
}

// After arms a timer that fires after d on the node's own clock, then calls
// Fire with kind and arg. A timer dies with the incarnation that armed it.
func (e *Env) After(d time.Duration, kind string, arg int64) TimerID {
	if !e.live {
		return 0
	}
	return e.sim.after(e.n, d, kind, arg)
}

// Cancel disarms a timer. Cancelling a timer that fired or was cancelled
// already does nothing.
func (e *Env) Cancel(id TimerID) {
	if !e.live || id == 0 {
		return
	}
	e.sim.cancel(e.n, id)
}

// Disk is the node's disk. It outlives the node's incarnations.
func (e *Env) Disk() *Disk { return e.n.disk }

// Sync starts an fsync of the named file that completes after the disk's
// sync latency; then the bytes written before the call are durable and Fire
// is called with kind and arg. A power loss before completion loses them.
// With zero latency it completes at the current instant, after this event.
func (e *Env) Sync(name string, kind string, arg int64) TimerID {
	if !e.live {
		return 0
	}
	return e.sim.syncAsync(e.n, name, kind, arg)
}

// Rand is the node's own random stream, derived from the seed and the node's
// name. It survives restarts (the stream continues), so a restart does not
// replay the draws of the previous incarnation.
func (e *Env) Rand() *rand.Rand { return e.n.rand }

// Tracing reports whether trace details are kept, so that a node can skip
// formatting a detail nobody will read.
func (e *Env) Tracing() bool { return e.sim.rec != nil }

// Trace records a structured event of the node: a short kind (such as
// "become-leader") that is folded into the trace hash, and a free-form
// detail kept only when the trace is recorded.
func (e *Env) Trace(kind, detail string) {
	if !e.live {
		return
	}
	e.sim.traceNode(e.n, kind, detail)
}
