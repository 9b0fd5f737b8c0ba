package sim

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// gossip is a randomized node for determinism tests: on every timer it
// sends a random message to a random peer, writes to its disk now and then,
// and re-arms with a random delay; on every message it may answer. All of
// it is drawn from env.Rand(), so a run depends only on the seed.
type gossip struct {
	peers []NodeID
	seen  uint64 // recovered from disk: proves restarts read what survived
}

func (g *gossip) Start(env *Env) {
	if env.Disk().Exists("state") {
		g.seen = uint64(env.Disk().Size("state"))
	}
	for i := 0; i < 3; i++ {
		env.After(time.Duration(1+env.Rand().IntN(20))*ms, "tick", int64(i))
	}
}

func (g *gossip) Receive(env *Env, from NodeID, m Message) {
	g.seen += m.Digest()
	if env.Rand().IntN(3) == 0 {
		env.Send(from, msg(int64(g.seen%1000)))
	}
}

func (g *gossip) Fire(env *Env, t Timer) {
	r := env.Rand()
	to := g.peers[r.IntN(len(g.peers))]
	if to != env.ID() {
		env.Send(to, msg(r.Int64N(1_000_000)))
	}
	if r.IntN(4) == 0 {
		env.Disk().Append("state", []byte{byte(g.seen)})
		if r.IntN(3) == 0 {
			env.Disk().Sync("state")
			env.Disk().SyncDir()
		}
	}
	env.Trace("tick", "")
	env.After(time.Duration(1+r.IntN(20))*ms, "tick", t.Arg)
}

func (g *gossip) Disconnected(env *Env, peer NodeID) {}

// chaosRun builds a world of 12 gossip nodes with random latencies and a
// seeded storm of crashes, power losses, pauses, partitions, resets, clogs
// and clock drift, and runs it for 20 virtual seconds.
func chaosRun(cfg Config) *Sim {
	const nodes = 12
	cfg.EventLimit = 2_000_000
	cfg.Link = LinkConfig{Latency: Latency{Min: ms / 2, Max: 5 * ms, TailProb: 0.01, Tail: 50 * ms}}
	s := New(cfg)
	ids := make([]NodeID, nodes)
	for i := range ids {
		ids[i] = NodeID(i)
	}
	for _, id := range ids {
		s.AddNode(id, fmt.Sprintf("g%d", id), func() Node { return &gossip{peers: ids} })
	}
	s.SetLink(3, 4, LinkConfig{Latency: Fixed(ms), Datagram: &Datagram{DupProb: 0.1, ReorderProb: 0.2, ReorderMax: 10 * ms}})
	for _, id := range ids {
		s.Start(id)
	}
	faults := s.Rand("faults")
	for t := 50 * ms; t < 20*time.Second; t += time.Duration(1+faults.IntN(100)) * ms {
		a := NodeID(faults.IntN(nodes))
		b := NodeID(faults.IntN(nodes))
		var name string
		var fn func()
		switch faults.IntN(9) {
		case 0:
			name, fn = "crash", func() { s.Crash(a) }
			s.At(t+time.Duration(faults.IntN(500))*ms, "restart", func() {
				if !s.IsUp(a) {
					s.Restart(a)
				}
			})
		case 1:
			name, fn = "power-loss", func() { s.PowerLoss(a) }
			s.At(t+time.Duration(faults.IntN(500))*ms, "restart", func() {
				if !s.IsUp(a) {
					s.Restart(a)
				}
			})
		case 2:
			name, fn = "restart", func() {
				if !s.IsUp(a) {
					s.Restart(a)
				}
			}
		case 3:
			name, fn = "pause", func() { s.Pause(a) }
			s.At(t+time.Duration(faults.IntN(500))*ms, "resume", func() { s.Resume(a) })
		case 4:
			name, fn = "resume", func() { s.Resume(a) }
		case 5:
			name, fn = "partition", func() { s.Partition(ids[:nodes/2], ids[nodes/2:]) }
		case 6:
			name, fn = "heal", func() { s.HealAll() }
		case 7:
			if a != b {
				name, fn = "reset", func() { s.ResetConnection(a, b) }
			} else {
				name, fn = "drift", func() { s.Drift(a, 0.05) }
			}
		case 8:
			name, fn = "clog", func() { s.Clog(a, b, 30*ms, 200*ms) }
		}
		if fn != nil {
			s.At(t, name, fn)
		}
	}
	s.Run(20 * time.Second)
	return s
}

func TestSameSeedSameTrace(t *testing.T) {
	for _, tcp := range []bool{false, true} {
		sameSeedSameTrace(t, Config{Seed: 2024, CheckpointEvery: 1000, TCP: tcp})
	}
}

// sameSeedSameTrace runs the chaos workload twice on one network model.
func sameSeedSameTrace(t *testing.T, cfg Config) {
	t.Helper()
	a, b := chaosRun(cfg), chaosRun(cfg)
	if a.Stats().Events < 50_000 {
		t.Fatalf("the workload is too small to mean anything: %d events", a.Stats().Events)
	}
	if a.Hash() != b.Hash() || FirstCheckpointDiff(a.Checkpoints(), b.Checkpoints()) >= 0 {
		t.Fatalf("tcp=%v: same seed, different traces: %x vs %x", cfg.TCP, a.Hash(), b.Hash())
	}
	st := a.Stats()
	if st.Dropped == 0 || st.Delivered == 0 || st.Fired == 0 {
		t.Fatalf("the workload must exercise faults: %+v", st)
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	seen := map[uint64]uint64{}
	for seed := uint64(1); seed <= 5; seed++ {
		h := chaosRun(Config{Seed: seed}).Hash()
		if prev, dup := seen[h]; dup {
			t.Fatalf("seeds %d and %d gave the same trace hash", prev, seed)
		}
		seen[h] = seed
	}
}

func TestTraceDoesNotDependOnGOMAXPROCSOrConcurrentRuns(t *testing.T) {
	cfg := Config{Seed: 99, TCP: true}
	want := chaosRun(cfg).Hash()
	old := runtime.GOMAXPROCS(1)
	one := chaosRun(cfg).Hash()
	runtime.GOMAXPROCS(max(old, 4))
	// Several runs at once, on several threads: runs share nothing.
	got := make(chan uint64, 4)
	for i := 0; i < 4; i++ {
		go func() { got <- chaosRun(cfg).Hash() }()
	}
	for i := 0; i < 4; i++ {
		if h := <-got; h != want {
			t.Fatalf("concurrent run hash %x, want %x", h, want)
		}
	}
	runtime.GOMAXPROCS(old)
	if one != want {
		t.Fatalf("GOMAXPROCS=1 hash %x, want %x", one, want)
	}
}

func TestRecordingDoesNotChangeTheRun(t *testing.T) {
	a := chaosRun(Config{Seed: 5})
	b := chaosRun(Config{Seed: 5, Record: true, RecordLimit: 100})
	if a.Hash() != b.Hash() {
		t.Fatal("recording the trace changed the trace hash")
	}
	if len(b.Trace()) != 100 || !strings.Contains(b.Trace()[0].String(), "#1 ") {
		t.Fatalf("recorded %d events, first %v", len(b.Trace()), b.Trace()[0])
	}
}

func TestCheckReplayNamesTheFirstDifferentEvent(t *testing.T) {
	if d, ok := CheckReplay(Config{Seed: 3, CheckpointEvery: 512}, chaosRun); !ok {
		t.Fatalf("a deterministic run reported a divergence: %v", d)
	}
	// A deliberately nondeterministic run: every other call sends one
	// different message at 1.5s, as a map-order bug would.
	calls := 0
	flaky := func(cfg Config) *Sim {
		calls++
		odd := calls%2 == 1
		cfg.EventLimit = 2_000_000
		s := New(cfg)
		ids := []NodeID{0, 1, 2}
		for _, id := range ids {
			s.AddNode(id, fmt.Sprintf("g%d", id), func() Node { return &gossip{peers: ids} })
		}
		for _, id := range ids {
			s.Start(id)
		}
		s.At(1500*ms, "flaky", func() {
			v := msg(1)
			if odd {
				v = msg(2)
			}
			s.nodes[0].env.Send(1, v)
		})
		s.Run(3 * time.Second)
		return s
	}
	d, ok := CheckReplay(Config{Seed: 3, CheckpointEvery: 256}, flaky)
	if ok {
		t.Fatal("a nondeterministic run passed the replay check")
	}
	if d.Event == 0 || d.A == nil || d.A.Kind != "deliver" || d.A.Time < 1500*ms || !strings.Contains(d.String(), "msg(2)") {
		t.Fatalf("divergence not named at the flaky delivery: %v", d)
	}
}
