package cluster

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// failover crashes the active controller of a ready cluster (one topic,
// a producer and a consumer running) and measures two times from the
// crash: until a new controller is active (its LeaderChange entry
// committed), and until the first metadata record proposed after the
// crash is committed under it (a topic the harness asks every active
// controller to create from the crash on).
func failover(t *testing.T, seed uint64, controllers int) (active, firstRecord time.Duration, c *harness) {
	t.Helper()
	h := newHarnessWith(t, Options{Seed: seed, Config: safeConfig(), Controllers: controllers,
		Topics: []model.TopicSpec{{Name: "t", Partitions: 1, ReplicationFactor: 3}}}, 5*time.Millisecond)
	h.Sim.Run(h.Sim.Now() + time.Second)
	old := h.ActiveController()
	if old == model.NoBroker {
		t.Fatalf("seed %d: no active controller", seed)
	}
	crash := h.Sim.Now()
	h.Sim.Crash(sim.NodeID(old))
	spec := model.TopicSpec{Name: "after-crash", Partitions: 1, ReplicationFactor: 3}
	active = -1
	for h.Sim.Now() < crash+60*time.Second {
		if ctl := h.ControllerNode(); ctl != nil && ctl.ID() != old {
			if active < 0 {
				active = h.Sim.Now() - crash
			}
			if _, ok := ctl.Partition(model.TP(spec.Name, 0)); ok {
				return active, h.Sim.Now() - crash, h
			}
			ctl.CreateTopic(nil, spec)
		}
		h.Sim.Run(h.Sim.Now() + time.Millisecond)
	}
	t.Fatalf("seed %d: no metadata committed 60s after the active controller crashed (active after %v)", seed, active)
	return 0, 0, nil
}

// TestControllerFailover: after the active controller crashes, another
// becomes active in a higher epoch, commits metadata, and the brokers
// follow it (they register with it and stay unfenced); the crashed one
// rejoins as a follower when it restarts and the quorum's logs agree.
func TestControllerFailover(t *testing.T) {
	_, _, h := failover(t, 1, 3)
	h.Sim.Run(h.Sim.Now() + 10*time.Second)
	ctl := h.ControllerNode()
	for _, b := range ctl.Brokers() {
		if b.Fenced {
			t.Fatalf("%v fenced 10s after the failover: %v", b.ID, ctl.Brokers())
		}
	}
	for _, id := range h.Brokers {
		if got := h.Broker(id).ActiveController(); got != ctl.ID() {
			t.Fatalf("%v talks to %v, the active controller is %v", id, got, ctl.ID())
		}
	}
	for _, id := range h.Controllers {
		if h.ControllerByID(id) == nil {
			h.Sim.Restart(sim.NodeID(id))
		}
	}
	h.Sim.Run(h.Sim.Now() + 5*time.Second)
	want := ctl.Partitions()
	for _, id := range h.Controllers {
		c := h.ControllerByID(id)
		if !slices.EqualFunc(c.Partitions(), want, func(a, b model.PartitionState) bool { return a.String() == b.String() }) {
			t.Fatalf("controller %v has %v, the active one %v", id, c.Partitions(), want)
		}
	}
	if h.ControllerNode() != ctl {
		t.Fatalf("the restarted controller took over a healthy quorum")
	}
}

// TestControllerFailoverTime measures controller failover over 50 seeds
// (3 controllers, Kafka's quorum timeouts): from the active controller's
// crash to a new active controller, and to the first metadata record
// committed under it. Run with -v to see the distribution.
func TestControllerFailoverTime(t *testing.T) {
	if testing.Short() {
		t.Skip("50 cluster runs")
	}
	var actives, firsts []time.Duration
	for seed := uint64(1); seed <= 50; seed++ {
		a, f, _ := failover(t, seed, 3)
		actives, firsts = append(actives, a), append(firsts, f)
	}
	for _, d := range [][]time.Duration{actives, firsts} {
		slices.Sort(d)
		// A follower stands after controller.quorum.fetch.timeout.ms (2 s)
		// without an answer from the leader, whose last answer may have
		// come up to a long poll (500 ms) before the crash; an election
		// takes milliseconds unless votes split (both followers time out
		// together), and then waits out an election timeout, backs off up
		// to 1 s and tries again.
		if d[0] < 1500*time.Millisecond || d[len(d)-1] > 15*time.Second {
			t.Errorf("failover times %v outside [1.5s, 15s]", d)
		}
	}
	t.Logf("controller failover over 50 seeds, crash to new active controller: %s", quantiles(actives))
	t.Logf("controller failover over 50 seeds, crash to first metadata record committed: %s", quantiles(firsts))
}

func quantiles(d []time.Duration) string {
	q := func(p float64) time.Duration { return d[int(p*float64(len(d)-1))] }
	return fmt.Sprintf("min %v p50 %v p90 %v p99 %v max %v", d[0], q(0.5), q(0.9), q(0.99), d[len(d)-1])
}

// TestSingleControllerConfiguration: Controllers=1 is a quorum of one; the
// cluster comes up, and a restart of the controller brings back the same
// metadata.
func TestSingleControllerConfiguration(t *testing.T) {
	h := newHarnessWith(t, Options{Seed: 1, Config: safeConfig(), Controllers: 1,
		Topics: []model.TopicSpec{{Name: "t", Partitions: 2, ReplicationFactor: 3}}}, 5*time.Millisecond)
	if !slices.Equal(h.Controllers, []model.BrokerID{DefaultControllerID}) {
		t.Fatalf("controllers %v", h.Controllers)
	}
	parts := h.ControllerNode().Partitions()
	h.Sim.Crash(sim.NodeID(DefaultControllerID))
	h.Sim.Run(h.Sim.Now() + time.Second)
	h.Sim.Restart(sim.NodeID(DefaultControllerID))
	h.Sim.Run(h.Sim.Now() + 10*time.Millisecond)
	ctl := h.ControllerNode()
	if ctl == nil || ctl.ControllerEpoch() < 2 {
		t.Fatalf("the restarted single controller is not active in a new epoch")
	}
	got := ctl.Partitions()
	if len(got) != len(parts) {
		t.Fatalf("after restart %v, want %v", got, parts)
	}
}

// probe is a client node that sends each controller a heartbeat for a
// broker that does not exist and records the answers by sender.
type probe struct {
	controllers []model.BrokerID
	answers     map[model.BrokerID][]model.BrokerHeartbeatResponse
}

func (p *probe) Start(env *sim.Env) { env.After(500*time.Millisecond, "probe", 0) }

func (p *probe) Receive(_ *sim.Env, from sim.NodeID, m sim.Message) {
	if r, ok := m.(model.BrokerHeartbeatResponse); ok {
		p.answers[model.BrokerID(from)] = append(p.answers[model.BrokerID(from)], r)
	}
}

func (p *probe) Fire(env *sim.Env, _ sim.Timer) {
	for _, id := range p.controllers {
		env.Send(sim.NodeID(id), model.BrokerHeartbeatRequest{CorrelationID: 7, BrokerID: 99, BrokerEpoch: 5})
	}
	env.After(500*time.Millisecond, "probe", 0)
}

func (p *probe) Disconnected(*sim.Env, sim.NodeID) {}

// TestOnlyTheActiveControllerAnswers: the controllers that are not active
// answer NOT_CONTROLLER; the active one judges the request
// (STALE_BROKER_EPOCH for a broker it does not know).
func TestOnlyTheActiveControllerAnswers(t *testing.T) {
	c, err := New(Options{Seed: 1, Config: safeConfig(), Topics: []model.TopicSpec{{Name: "t", Partitions: 1, ReplicationFactor: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	p := &probe{controllers: c.Controllers, answers: map[model.BrokerID][]model.BrokerHeartbeatResponse{}}
	c.AddClient("probe", func() sim.Node { return p })
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	c.Sim.Run(c.Sim.Now() + 2*time.Second)
	active := c.ActiveController()
	for _, id := range c.Controllers {
		a := p.answers[id]
		if len(a) == 0 {
			t.Fatalf("%v never answered", id)
		}
		want := model.NotController
		if id == active {
			want = model.StaleBrokerEpoch
		}
		if got := a[len(a)-1].Error; got != want {
			t.Fatalf("%v (active %v) answered %v, want %v", id, active, got, want)
		}
	}
}

// TestStaleControllerChangesNothing: the active controller is cut off from
// the other controllers but not from the brokers. It keeps taking
// requests, but nothing it proposes can commit, so no broker applies any
// of it; the others elect a new active controller in a higher epoch, and
// after the heal every controller and broker agrees with it.
func TestStaleControllerChangesNothing(t *testing.T) {
	h := newHarnessWith(t, Options{Seed: 2, Config: safeConfig(),
		Topics: []model.TopicSpec{{Name: "t", Partitions: 3, ReplicationFactor: 3}}}, 5*time.Millisecond)
	h.Sim.Run(h.Sim.Now() + time.Second)
	old := h.ControllerNode()
	oldEpoch := old.ControllerEpoch()
	for _, id := range h.Controllers {
		if id != old.ID() {
			h.Sim.Cut(sim.NodeID(old.ID()), sim.NodeID(id))
			h.Sim.Cut(sim.NodeID(id), sim.NodeID(old.ID()))
		}
	}
	committed := old.Quorum().HighWatermark()
	// A broker crashes: its session expires on whichever controller is
	// active, and the fencing must be committed to count.
	victim := h.Leader(h.tps[0])
	h.Sim.Crash(sim.NodeID(victim))
	h.Sim.Run(h.Sim.Now() + 15*time.Second)
	if old.Quorum().HighWatermark() != committed {
		t.Fatalf("the cut-off controller's high watermark moved from %d to %d", committed, old.Quorum().HighWatermark())
	}
	if old.Active() {
		t.Fatalf("the cut-off controller is still active after 15 s")
	}
	ctl := h.ControllerNode()
	if ctl == nil || ctl.ID() == old.ID() || ctl.ControllerEpoch() <= oldEpoch {
		t.Fatalf("no new active controller in a higher epoch")
	}
	for _, b := range ctl.Brokers() {
		if b.ID == victim && !b.Fenced {
			t.Fatalf("the crashed %v is not fenced by the new controller", victim)
		}
	}
	h.Sim.HealAll()
	h.Sim.Restart(sim.NodeID(victim))
	h.Sim.Run(h.Sim.Now() + 15*time.Second)
	ctl = h.ControllerNode()
	want := fmt.Sprint(ctl.Partitions())
	for _, id := range h.Controllers {
		if got := fmt.Sprint(h.ControllerByID(id).Partitions()); got != want {
			t.Fatalf("controller %v has %s, the active one %s", id, got, want)
		}
	}
	for _, id := range h.Brokers {
		for _, tp := range h.tps {
			ps, _ := ctl.Partition(tp)
			if got := h.Broker(id).MetadataPartition(tp); got.String() != ps.String() {
				t.Fatalf("%v sees %v, the active controller %v", id, got, ps)
			}
		}
	}
}
