package scenarios

import (
	"encoding/binary"
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/raft"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// The quorum checks, the controller faults and the controller failover
// measurement, end to end on nodes/raft alone: three voters (100..102) and
// two observers (brokers 1 and 2) replicate a counter while faults hit
// them; what they report goes to the checkers, recorded as a cluster
// records it.

// counterSM is the replicated state: how many entries were applied.
type counterSM struct{ n uint64 }

func (c *counterSM) Apply(int64, model.Epoch, []byte) { c.n++ }
func (c *counterSM) Snapshot() []byte                 { return binary.AppendUvarint(nil, c.n) }
func (c *counterSM) Restore(_ int64, _ model.Epoch, data []byte) {
	c.n, _ = binary.Uvarint(data)
}
func (c *counterSM) LeaderChanged(model.BrokerID, model.Epoch, bool) {}

// raftHost runs one raft node and nothing else.
type raftHost struct {
	cfg raft.Config
	r   *raft.Raft
	env *sim.Env
}

func (h *raftHost) Start(env *sim.Env) {
	h.env = env
	h.r = raft.New(h.cfg, &counterSM{})
	h.r.Start(env)
}
func (h *raftHost) Receive(env *sim.Env, from sim.NodeID, m sim.Message) { h.r.Receive(env, from, m) }
func (h *raftHost) Fire(env *sim.Env, t sim.Timer)                       { h.r.Fire(env, t) }
func (h *raftHost) Disconnected(env *sim.Env, peer sim.NodeID)           { h.r.Disconnected(env, peer) }

// raftWorld is the faults' World over the quorum.
type raftWorld struct {
	s         *sim.Sim
	voters    []model.BrokerID
	observers []model.BrokerID
	q         model.QuorumObservations
}

func (w *raftWorld) Sim() *sim.Sim                                { return w.s }
func (w *raftWorld) Brokers() []model.BrokerID                    { return w.observers }
func (w *raftWorld) LeaderOf(model.TopicPartition) model.BrokerID { return model.NoBroker }
func (w *raftWorld) ISR(model.TopicPartition) []model.BrokerID    { return nil }
func (w *raftWorld) CoordinatorOf(string) model.BrokerID          { return model.NoBroker }

// Controllers lists the voters, the active one (the usable leader of the
// highest epoch) first.
func (w *raftWorld) Controllers() []model.BrokerID {
	active, best := model.NoBroker, model.Epoch(-1)
	for _, id := range w.voters {
		if h := w.host(id); h != nil && h.r.IsLeader() && h.r.Epoch() > best {
			active, best = id, h.r.Epoch()
		}
	}
	out := []model.BrokerID{}
	if active != model.NoBroker {
		out = append(out, active)
	}
	for _, id := range w.voters {
		if id != active {
			out = append(out, id)
		}
	}
	return out
}

func (w *raftWorld) host(id model.BrokerID) *raftHost {
	h, _ := w.s.Node(sim.NodeID(id)).(*raftHost)
	return h
}

func newRaftWorld(seed uint64) *raftWorld {
	w := &raftWorld{
		s:         sim.New(sim.Config{Seed: seed, EventLimit: 20_000_000, Link: sim.LinkConfig{Latency: sim.Latency{Min: 500 * time.Microsecond, Max: 1500 * time.Microsecond}}}),
		voters:    []model.BrokerID{100, 101, 102},
		observers: []model.BrokerID{1, 2},
	}
	w.q.Voters = w.voters
	rec := fixture.QuorumRecorder{Sim: w.s, To: &w.q}
	for _, id := range append(slices.Clone(w.observers), w.voters...) {
		cfg := raft.Config{ID: id, Voters: w.voters, Observer: id < 100, Dir: "__cluster_metadata-0/", SnapshotEvery: 50, Watch: rec}
		w.s.AddNode(sim.NodeID(id), id.String(), func() sim.Node { return &raftHost{cfg: cfg} })
	}
	for _, id := range w.s.Nodes() {
		w.s.Start(id)
	}
	return w
}

// proposeEvery makes the active controller append one entry every step
// until end, as a kernel event so that the run stays deterministic.
func (w *raftWorld) proposeEvery(step, end time.Duration) {
	var tick func()
	i := 0
	tick = func() {
		if cs := w.Controllers(); len(cs) > 0 {
			if h := w.host(cs[0]); h != nil && h.r.IsLeader() && !w.s.IsPaused(sim.NodeID(cs[0])) {
				if _, ok := h.r.Propose(h.env, [][]byte{fmt.Appendf(nil, "e%d", i)}); ok {
					i++
				}
			}
		}
		if w.s.Now()+step < end {
			w.s.AfterFunc(step, "propose", tick)
		}
	}
	w.s.AfterFunc(step, "propose", tick)
}

// active reports whether exactly one usable leader runs, and it leads the
// highest epoch.
func (w *raftWorld) active() bool {
	n := 0
	for _, id := range w.voters {
		if h := w.host(id); h != nil && !w.s.IsPaused(sim.NodeID(id)) && h.r.IsLeader() {
			n++
		}
	}
	return n == 1
}

// Under a swarm of every fault kind aimed at the controllers too,
// nodes/raft keeps every quorum invariant and, once the faults heal,
// elects one active leader. (This test's sweep over 80 seeds found a
// livelock after partitions, a follower counting its return to a resigned
// leader as contact, fixed in nodes/raft since.)
func TestQuorumChecksPassOnRaftUnderControllerFaults(t *testing.T) {
	kinds := faults.SwarmKinds()
	failovers := 0
	for seed := uint64(1); seed <= 20; seed++ {
		w := newRaftWorld(seed)
		o := faults.SwarmOptions{Kinds: kinds, Start: 3 * time.Second, End: 30 * time.Second, MeanInterval: 4 * time.Second, WindowMax: 5 * time.Second, Controllers: true}
		sched := faults.Swarm(seed, o, faults.Shape{Brokers: w.observers, Controllers: w.voters})
		nem, err := faults.Apply(w, sched)
		if err != nil {
			t.Fatal(err)
		}
		w.proposeEvery(20*time.Millisecond, 40*time.Second)
		w.s.Run(30 * time.Second)
		nem.Heal()
		took, err := faults.Converge(w, 20*time.Second, func() (bool, string) {
			if w.active() {
				return true, ""
			}
			return false, "no single active controller: " + fmt.Sprint(w.Controllers())
		})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, sched)
		}
		w.s.Run(w.s.Now() + 5*time.Second)
		res := checkers.Check(checkers.Input{Observations: model.Observations{Quorum: w.q}}, checkers.Options{})
		if res.Valid != checkers.ValidOK || len(res.Violations) > 0 {
			for _, v := range res.Violations {
				t.Errorf("seed %d: %s", seed, v.String())
			}
			t.Fatalf("seed %d schedule:\n%s", seed, sched)
		}
		if len(w.q.Applied) == 0 || len(w.q.Leaders) == 0 {
			t.Fatalf("seed %d: nothing observed", seed)
		}
		cf := MeasureControllerFailovers(w.q, nem.Log())
		failovers += len(cf)
		if testing.Verbose() {
			t.Logf("seed %d: %d faults, %d controller failovers, converged in %v, %d entries applied, %d snapshots loaded",
				seed, len(sched), len(cf), took, len(w.q.Applied), len(w.q.Snapshots))
		}
	}
	if failovers == 0 {
		t.Fatal("no seed took the active controller away: the test shows nothing")
	}
}

// The checkers do see a broken quorum in a real run's observations: the
// same run with one applied entry's digest changed on one node, and with
// one observer's applied entry dropped.
func TestQuorumChecksCatchTamperedRaftObservations(t *testing.T) {
	w := newRaftWorld(3)
	w.proposeEvery(20*time.Millisecond, 5*time.Second)
	w.s.Run(6 * time.Second)
	clean := checkers.Check(checkers.Input{Observations: model.Observations{Quorum: w.q}}, checkers.Options{})
	if len(clean.Violations) != 0 {
		t.Fatalf("clean run: %v", clean.Violations)
	}
	q := w.q
	q.Applied = slices.Clone(w.q.Applied)
	i := slices.IndexFunc(q.Applied, func(a model.QuorumAppliedObservation) bool { return a.Node == 2 && a.Offset == 40 })
	q.Applied[i].Digest++
	q.Applied = slices.Delete(q.Applied, i+5, i+6) // the entry after, on broker 2 too
	res := checkers.Check(checkers.Input{Observations: model.Observations{Quorum: q}}, checkers.Options{})
	got := map[string]int{}
	for _, v := range res.Violations {
		got[v.Anomaly]++
	}
	if got[checkers.QuorumCommittedChanged] != 1 || got[checkers.MetadataReplayGap] != 1 {
		t.Fatalf("want one changed entry and one gap, got %v", res.Violations)
	}
}

func TestControllerFailoverOnRaft(t *testing.T) {
	var firsts []time.Duration
	for seed := uint64(1); seed <= 5; seed++ {
		w := newRaftWorld(seed)
		sched := faults.MustParse("test", "from 5s to 8s crash controller\n")
		nem, err := faults.Apply(w, sched)
		if err != nil {
			t.Fatal(err)
		}
		w.proposeEvery(20*time.Millisecond, 12*time.Second)
		w.s.Run(12 * time.Second)
		cf := MeasureControllerFailovers(w.q, nem.Log())
		if len(cf) != 1 {
			t.Fatalf("seed %d: want one controller failover, got %+v\n%v", seed, cf, nem.Log())
		}
		f := cf[0]
		// Followers notice after controller.quorum.fetch.timeout.ms (2 s)
		// without a fetch answer, then pre-vote and vote, backing off up
		// to controller.quorum.election.backoff.max.ms (1 s) a round when
		// the votes split; the new leader's LeaderChange entry commits a
		// round trip after its election.
		if f.NewLeader == f.OldLeader || f.NewEpoch <= f.OldEpoch || f.Election < time.Second || f.Election > 6*time.Second ||
			f.FirstCommit < f.Election || f.FirstCommit > f.Election+100*time.Millisecond {
			t.Fatalf("seed %d: %+v", seed, f)
		}
		firsts = append(firsts, f.FirstCommit)
	}
	t.Logf("controller failover (fault to first commit) over 5 seeds: %v", firsts)
}
