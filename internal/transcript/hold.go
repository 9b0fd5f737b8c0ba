package transcript

import (
	"slices"
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/sim"
)

// tap wraps a node so that the messages the network delivers to it wait
// in the Driver's mailbox for a deliver step; timers, disconnections and
// the start reach the node at once. A tap lives and dies with its node's
// incarnation, so what was held for an incarnation that crashed is never
// handed to the next one.
type tap struct {
	d     *Driver
	inner sim.Node
	env   *sim.Env
}

// Hold wraps a node factory so that the node's messages wait for deliver.
func (d *Driver) Hold(f sim.Factory) sim.Factory {
	return func() sim.Node { return &tap{d: d, inner: f()} }
}

func (p *tap) Start(env *sim.Env) {
	p.env = env
	p.inner.Start(env)
}

func (p *tap) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	p.d.held = append(p.d.held, held{tap: p, from: from, to: env.ID(), msg: m, names: p.d.Sim})
}

func (p *tap) Fire(env *sim.Env, t sim.Timer) { p.inner.Fire(env, t) }

func (p *tap) Disconnected(env *sim.Env, peer sim.NodeID) { p.inner.Disconnected(env, peer) }

// Stop passes a clean shutdown on to a node that has one.
func (p *tap) Stop(env *sim.Env) {
	if s, ok := p.inner.(sim.Stopper); ok {
		s.Stop(env)
	}
}

// Inner is the node a tap wraps, or n itself: how a test reaches its
// real node in a world where some are held.
func Inner(n sim.Node) sim.Node {
	if p, ok := n.(*tap); ok {
		return p.inner
	}
	return n
}

// held is one message in the mailbox.
type held struct {
	tap      *tap
	from, to sim.NodeID
	msg      sim.Message
	names    *sim.Sim
}

func (h held) String() string {
	return h.names.Name(h.from) + "->" + h.names.Name(h.to) + " " + messageString(h.msg)
}

// match picks the held messages a deliver or drop step names: from=X,
// to=Y, type=T (the message's first word) and n=N (at most the first N),
// each optional. Only messages held when the step starts count.
func (d *Driver) match(t *testing.T, td *datadriven.TestData) []int {
	t.Helper()
	var from, to []sim.NodeID
	var types []string
	limit := -1
	for _, a := range td.CmdArgs {
		switch a.Key {
		case "from":
			from = d.resolve(t, a.Vals)
		case "to":
			to = d.resolve(t, a.Vals)
		case "type":
			types = a.Vals
		case "n":
			n, err := strconv.Atoi(a.SingleVal(t))
			if err != nil {
				t.Fatalf("%s: n: %v", td.Pos, err)
			}
			limit = n
		default:
			t.Fatalf("%s: %s: unknown argument %q", td.Pos, td.Cmd, a.Key)
		}
	}
	var picked []int
	for i, h := range d.held {
		if limit >= 0 && len(picked) == limit {
			break
		}
		if (from == nil || slices.Contains(from, h.from)) && (to == nil || slices.Contains(to, h.to)) &&
			(types == nil || slices.Contains(types, kind(h.msg))) {
			picked = append(picked, i)
		}
	}
	return picked
}

func (d *Driver) resolve(t *testing.T, names []string) []sim.NodeID {
	t.Helper()
	ids := make([]sim.NodeID, 0, len(names))
	for _, n := range names {
		ids = append(ids, d.Node(t, n))
	}
	return ids
}

// take removes the picked messages from the mailbox and returns them.
func (d *Driver) take(picked []int) []held {
	out := make([]held, 0, len(picked))
	for _, i := range picked {
		out = append(out, d.held[i])
	}
	for j := len(picked) - 1; j >= 0; j-- {
		d.held = slices.Delete(d.held, picked[j], picked[j]+1)
	}
	return out
}

// deliver hands the picked messages to their nodes one at a time, each
// printed with what handling it sent that arrived at once (indented
// below it: over links without latency, everything it sent). A message
// whose node crashed since it arrived is gone with that incarnation.
func (d *Driver) deliver(picked []int) {
	for _, h := range d.take(picked) {
		if d.Sim.Node(h.to) != sim.Node(h.tap) {
			d.line("", h.String()+" (lost: "+d.Sim.Name(h.to)+" restarted)")
			continue
		}
		d.line("", h.String())
		d.Do("deliver", func() { h.tap.inner.Receive(h.tap.env, h.from, h.msg) })
		d.flush(false, "  ")
	}
}

// stabilizeRounds bounds stabilize: a world that keeps talking at one
// instant for longer is a bug in the transcript or the protocol.
const stabilizeRounds = 100

// stabilize delivers everything held, and what that caused, until the
// mailbox is empty at the current instant.
func (d *Driver) stabilize(t *testing.T, td *datadriven.TestData) {
	for range stabilizeRounds {
		if len(d.held) == 0 {
			return
		}
		d.deliver(d.match(t, td))
	}
	t.Fatalf("%s: still messages after %d rounds", td.Pos, stabilizeRounds)
}

// drop discards the picked messages, as a lost packet would.
func (d *Driver) drop(picked []int) {
	for _, h := range d.take(picked) {
		d.line("", "dropped "+h.String())
	}
}
