package transcript

import (
	"strconv"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"kafkasim/sim"
)

// ping is the message of the driver's own test world: a counter that
// each node sends back one higher, up to a bound.
type ping struct{ n int }

func (p ping) Digest() uint64 { return uint64(p.n) }
func (p ping) String() string { return "Ping n=" + strconv.Itoa(p.n) }

// pinger answers every ping with the next one until pingMax, and
// serves a ping to its peer when its timer fires.
type pinger struct{ peer sim.NodeID }

const pingMax = 3

func (p *pinger) Start(env *sim.Env) { env.After(10*time.Millisecond, "serve", 0) }
func (p *pinger) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	if n := m.(ping).n; n < pingMax {
		env.Send(from, ping{n + 1})
	}
}
func (p *pinger) Fire(env *sim.Env, t sim.Timer)             { env.Send(p.peer, ping{0}) }
func (p *pinger) Disconnected(env *sim.Env, peer sim.NodeID) {}

// TestDriver plays testdata/driver over two pingers: a and b, whose
// messages are held, and c, which gets its messages as they arrive.
func TestDriver(t *testing.T) {
	Walk(t, "testdata", func(t *testing.T, td *datadriven.TestData) (*Driver, Step) {
		s := sim.New(sim.Config{Seed: 1, EventLimit: 10_000, Record: true, Link: sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)}})
		d := New(s)
		s.AddNode(1, "a", d.Hold(func() sim.Node { return &pinger{peer: 2} }))
		s.AddNode(2, "b", d.Hold(func() sim.Node { return &pinger{peer: 3} }))
		s.AddNode(3, "c", func() sim.Node { return &pinger{peer: 1} })
		for _, id := range s.Nodes() {
			s.Start(id)
		}
		return d, func(t *testing.T, td *datadriven.TestData) (string, bool) { return "", false }
	})
}
