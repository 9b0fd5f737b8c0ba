package sim

import (
	"testing"
	"time"
)

// rearm is the event loop's ceiling: a node that keeps many timers pending,
// each re-arming itself with a random delay and doing nothing else.
type rearm struct{ timers int }

type benchMsg uint64

func (m benchMsg) Digest() uint64 { return uint64(m) }

func (r *rearm) Start(env *Env) {
	for i := 0; i < r.timers; i++ {
		env.After(time.Duration(1+env.Rand().IntN(1000))*time.Microsecond, "t", int64(i))
	}
}
func (r *rearm) Receive(env *Env, from NodeID, m Message) {}
func (r *rearm) Fire(env *Env, t Timer) {
	env.After(time.Duration(1+env.Rand().IntN(1000))*time.Microsecond, "t", t.Arg)
}
func (r *rearm) Disconnected(env *Env, peer NodeID) {}

// BenchmarkKernel measures the event loop with 1,000 pending self-re-arming
// timers, tracing and hashing on as in a real run.
func BenchmarkKernel(b *testing.B) {
	s := New(Config{Seed: 1, CheckpointEvery: 4096})
	s.AddNode(0, "n0", func() Node { return &rearm{timers: 1000} })
	s.Start(0)
	const slice = 10_000 // events per iteration
	var events uint64
	start := s.Stats().Events
	b.ResetTimer()
	for b.Loop() {
		s.cfg.EventLimit = s.Stats().Events + slice
		s.Run(time.Duration(1 << 62))
	}
	events = s.Stats().Events - start
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// pinger bounces one message back and forth forever.
type pinger struct{ peer NodeID }

func (p *pinger) Start(env *Env) {
	if env.ID() == 0 {
		env.Send(p.peer, benchMsg(0))
	}
}
func (p *pinger) Receive(env *Env, from NodeID, m Message) {
	env.Send(from, m.(benchMsg)+1)
}
func (p *pinger) Fire(env *Env, t Timer)             {}
func (p *pinger) Disconnected(env *Env, peer NodeID) {}

// BenchmarkPingPong measures two nodes exchanging messages through the
// simulated network with 1 ms latency.
func BenchmarkPingPong(b *testing.B) {
	s := New(Config{Seed: 1, CheckpointEvery: 4096, Link: LinkConfig{Latency: Fixed(time.Millisecond)}})
	s.AddNode(0, "a", func() Node { return &pinger{peer: 1} })
	s.AddNode(1, "b", func() Node { return &pinger{peer: 0} })
	s.Start(1)
	s.Start(0)
	const slice = 10_000
	start := s.Stats().Delivered
	for b.Loop() {
		s.cfg.EventLimit = s.Stats().Events + slice
		s.Run(time.Duration(1 << 62))
	}
	b.ReportMetric(float64(s.Stats().Delivered-start)/b.Elapsed().Seconds(), "msgs/s")
}
