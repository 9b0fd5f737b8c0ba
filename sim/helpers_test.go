package sim

import (
	"fmt"
	"testing"
	"time"
)

// msg is the test message: an integer payload.
type msg int64

func (m msg) Digest() uint64 { return uint64(m) }
func (m msg) String() string { return fmt.Sprintf("msg(%d)", int64(m)) }

// probe is a scriptable test node that logs everything it sees. Its hooks
// let a test act on events; its log survives crashes because the test keeps
// it outside the node value (a probe value itself is discarded on crash).
type probe struct {
	log     *[]string
	onStart func(env *Env)
	onRecv  func(env *Env, from NodeID, m Message)
	onFire  func(env *Env, t Timer)
}

func (p *probe) logf(env *Env, format string, args ...any) {
	*p.log = append(*p.log, fmt.Sprintf("%v %v ", env.ObserverNow(), env.ID())+fmt.Sprintf(format, args...))
}

func (p *probe) Start(env *Env) {
	p.logf(env, "start")
	if p.onStart != nil {
		p.onStart(env)
	}
}
func (p *probe) Receive(env *Env, from NodeID, m Message) {
	p.logf(env, "recv %v from %v", m, from)
	if p.onRecv != nil {
		p.onRecv(env, from, m)
	}
}
func (p *probe) Fire(env *Env, t Timer) {
	p.logf(env, "fire %s(%d)", t.Kind, t.Arg)
	if p.onFire != nil {
		p.onFire(env, t)
	}
}
func (p *probe) Disconnected(env *Env, peer NodeID) { p.logf(env, "disconnect %v", peer) }

// world builds a Sim with n probe nodes 0..n-1 that share one log and the
// given hooks, all started.
func world(t *testing.T, n int, link LinkConfig, mk func(id NodeID) *probe) (*Sim, *[]string) {
	t.Helper()
	return worldOn(t, Config{Seed: 7, EventLimit: 1_000_000, Link: link}, n, mk)
}

// tcpWorld is world on the TCP-faithful network.
func tcpWorld(t *testing.T, n int, link LinkConfig, mk func(id NodeID) *probe) (*Sim, *[]string) {
	t.Helper()
	return worldOn(t, Config{Seed: 7, EventLimit: 1_000_000, Link: link, TCP: true}, n, mk)
}

func worldOn(t *testing.T, cfg Config, n int, mk func(id NodeID) *probe) (*Sim, *[]string) {
	t.Helper()
	s := New(cfg)
	log := &[]string{}
	for i := 0; i < n; i++ {
		id := NodeID(i)
		s.AddNode(id, fmt.Sprintf("p%d", i), func() Node {
			p := mk(id)
			p.log = log
			return p
		})
	}
	for i := 0; i < n; i++ {
		s.Start(NodeID(i))
	}
	*log = nil // the start lines are not what tests look at
	return s, log
}

func plain(NodeID) *probe { return &probe{} }

func contains(log []string, want string) bool {
	for _, l := range log {
		if l == want {
			return true
		}
	}
	return false
}

func mustContain(t *testing.T, log []string, want string) {
	t.Helper()
	if !contains(log, want) {
		t.Fatalf("log lacks %q; log:\n%s", want, join(log))
	}
}

func mustNotContain(t *testing.T, log []string, bad string) {
	t.Helper()
	if contains(log, bad) {
		t.Fatalf("log has %q but must not; log:\n%s", bad, join(log))
	}
}

func join(log []string) string {
	s := ""
	for _, l := range log {
		s += "  " + l + "\n"
	}
	return s
}

const ms = time.Millisecond
