package controller

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

func TestRegistrationGivesIncreasingEpochs(t *testing.T) {
	c := newClusterWith(t, testConfig(), 4, 1, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)},
		func(logs map[model.BrokerID]*brokerLog) { logs[4].silent = true })
	c.runFor(100 * time.Millisecond)

	// Every broker has an epoch, the offset of its RegisterBrokerRecord:
	// distinct, above the controller's LeaderChangeRecord at offset 1.
	seen := map[model.Epoch]bool{}
	var maxEpoch model.Epoch
	for id := model.BrokerID(1); id <= 3; id++ {
		l := c.logs[id]
		if len(l.registrations) != 1 || l.registrations[0].Error != model.NoError {
			t.Fatalf("%v registrations: %v", id, l.registrations)
		}
		b := c.broker(id)
		if l.epoch != b.Epoch || b.Epoch <= 1 || seen[b.Epoch] || b.Incarnation != l.incarnation {
			t.Fatalf("%v: epoch %d, controller records %+v", id, l.epoch, b)
		}
		seen[b.Epoch] = true
		maxEpoch = max(maxEpoch, b.Epoch)
		// It replayed its own registration and said so in a heartbeat,
		// which unfenced it.
		if b.Fenced || len(l.heartbeats) == 0 || l.offset < int64(b.Epoch) {
			t.Fatalf("%v: %+v at offset %d, heartbeats %v", id, b, l.offset, l.heartbeats)
		}
	}
	if _, registered := c.ctrl().state.brokers[4]; registered {
		t.Fatalf("b4 never registered but is known")
	}

	// A heartbeat from a broker that is not registered, and one with a
	// stale epoch, get STALE_BROKER_EPOCH (ClusterControlManager.
	// checkBrokerEpoch), and change nothing.
	offset := c.ctrl().MetadataOffset()
	c.send(4, model.BrokerHeartbeatRequest{CorrelationID: injected, BrokerID: 4, BrokerEpoch: 3})
	c.send(2, model.BrokerHeartbeatRequest{CorrelationID: injected, BrokerID: 2, BrokerEpoch: c.broker(2).Epoch - 1})
	c.runFor(10 * time.Millisecond)
	for _, id := range ids(4, 2) {
		hb := c.logs[id].heartbeats
		if len(hb) == 0 || hb[len(hb)-1].Error != model.StaleBrokerEpoch {
			t.Fatalf("%v: heartbeats %v, want STALE_BROKER_EPOCH last", id, hb)
		}
	}
	if c.ctrl().MetadataOffset() != offset {
		t.Fatalf("stale heartbeats changed the metadata")
	}

	// Broker 2 crashes and restarts at once: its old session is still valid,
	// so the new incarnation is refused until it expires.
	old := c.broker(2)
	c.s.Crash(2)
	c.s.Restart(2)
	lastContact := c.ctrl().sessions[2].lastContact
	c.runFor(time.Second)
	// Meanwhile the metadata changes. The restarted broker, not yet
	// registered, replays it all the same: the log is not only for
	// registered brokers.
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	if l := c.logs[2]; !reflect.DeepEqual(l.viewList(), c.ctrl().Partitions()) {
		t.Fatalf("restarted broker sees %v", l.viewList())
	}
	c.runUntil(lastContact + c.cfg.Controller.BrokerSessionTimeout - 50*time.Millisecond)
	regs := c.logs[2].registrations
	if regs[len(regs)-1].Error != model.DuplicateBrokerRegistration || c.broker(2).Incarnation != old.Incarnation {
		t.Fatalf("quick restart: last answer %v, registration %+v; want DUPLICATE_BROKER_REGISTRATION and the old one kept",
			regs[len(regs)-1], c.broker(2))
	}
	// After broker.session.timeout.ms the old incarnation is fenced and the
	// new one registers with an epoch above every earlier one.
	c.runFor(time.Second)
	now := c.broker(2)
	if now.Incarnation != c.logs[2].incarnation || now.Epoch <= maxEpoch || now.Fenced {
		t.Fatalf("after the session expired: %+v (old %+v), want the new incarnation, epoch > %d, unfenced", now, old, maxEpoch)
	}
}

func TestUnfenceOnlyWhenCaughtUp(t *testing.T) {
	c := newClusterWith(t, testConfig(), 3, 1, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)},
		func(logs map[model.BrokerID]*brokerLog) { logs[3].noHeartbeat = true })
	c.runFor(100 * time.Millisecond)
	epoch := c.broker(3).Epoch
	beat := func(offset int64, wantFence bool) model.BrokerHeartbeatResponse {
		c.send(3, model.BrokerHeartbeatRequest{
			CorrelationID: injected, BrokerID: 3, BrokerEpoch: epoch, MetadataOffset: offset, WantFence: wantFence,
		})
		c.runFor(10 * time.Millisecond)
		hb := c.logs[3].heartbeats
		return hb[len(hb)-1]
	}
	// Behind its own registration: stays fenced.
	if r := beat(int64(epoch)-1, false); !r.Fenced || r.CaughtUp || !c.broker(3).Fenced {
		t.Fatalf("behind: %v", r)
	}
	// Caught up but asking to stay fenced: stays fenced.
	if r := beat(int64(epoch), true); !r.Fenced || !r.CaughtUp || !c.broker(3).Fenced {
		t.Fatalf("caught up, wantFence: %v", r)
	}
	// Caught up: unfenced.
	if r := beat(int64(epoch), false); r.Fenced || !r.CaughtUp || c.broker(3).Fenced {
		t.Fatalf("caught up: %v", r)
	}
}

func TestReRegistrationFencesOldIncarnation(t *testing.T) {
	// A broker that sends its registration again (same incarnation, say its
	// answer was lost) gets a new epoch and starts fenced: it must leave
	// the ISRs and leaderships of its previous epoch, not keep them fenced.
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	tp := model.TP("t", 0)
	before := c.partition(tp)
	leader := before.Leader
	l := c.logs[leader]
	c.send(leader, model.BrokerRegistrationRequest{CorrelationID: injected, BrokerID: leader, Incarnation: l.incarnation, CleanShutdown: true})
	c.runFor(time.Millisecond + time.Millisecond/2)
	after := c.partition(tp)
	if !c.broker(leader).Fenced || after.Leader == leader || slices.Contains(after.ISR, leader) || after.LeaderEpoch != before.LeaderEpoch+1 {
		t.Fatalf("after re-registering %v: %+v, partition %v", leader, c.broker(leader), after)
	}
}

// TestUnfenceElectsLeaderlessPartitions: a partition whose replicas are
// all gone has no leader; the broker that can lead it is elected when it
// is unfenced again.
func TestUnfenceElectsLeaderlessPartitions(t *testing.T) {
	cases := []struct {
		name       string
		elr, clean bool
		isr, elrs  []model.BrokerID // while 3 is away
	}{
		{"no ELR: the last ISR member stays and leads again", false, true, ids(3), nil},
		{"ELR: back from the ELR", true, true, nil, ids(3)},
		{"ELR, unclean restart: the last known leader", true, false, nil, ids(3)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Controller.EligibleLeaderReplicas = tc.elr
			c := started(t, cfg, 3)
			c.createTopic(model.TopicSpec{Name: "t", Assignment: [][]model.BrokerID{{3}}})
			c.runFor(10 * time.Millisecond)
			tp := model.TP("t", 0)
			c.logs[3].cleanShutdown = tc.clean
			c.s.Crash(3)
			c.runFor(c.cfg.Controller.BrokerSessionTimeout + time.Second)
			away := c.partition(tp)
			if away.Leader != model.NoBroker || !slices.Equal(away.ISR, tc.isr) || !slices.Equal(away.ELR, tc.elrs) || away.LeaderEpoch != 1 {
				t.Fatalf("while b3 is away: %v, want no leader at epoch 1, isr=%v elr=%v", away, tc.isr, tc.elrs)
			}
			c.s.Restart(3)
			c.runFor(100 * time.Millisecond)
			back := c.partition(tp)
			if c.broker(3).Fenced || back.Leader != 3 || !slices.Equal(back.ISR, ids(3)) || len(back.ELR) != 0 || back.LeaderEpoch != 2 {
				t.Fatalf("b3 back: %v, want it leading at epoch 2 with isr=[b3]", back)
			}
		})
	}
}

func TestCleanShutdownAllowsImmediateRegistration(t *testing.T) {
	c := started(t, testConfig(), 3)
	// Broker 2 asks to shut down: it is fenced and told it may stop.
	c.send(2, model.BrokerHeartbeatRequest{
		CorrelationID: injected, BrokerID: 2, BrokerEpoch: c.broker(2).Epoch, MetadataOffset: c.logs[2].offset, WantShutdown: true,
	})
	c.runFor(10 * time.Millisecond)
	hb := c.logs[2].heartbeats
	if last := hb[len(hb)-1]; !last.ShouldShutdown || !last.Fenced || !c.broker(2).Fenced {
		t.Fatalf("shutdown request: %v, broker %+v", last, c.broker(2))
	}
	c.s.Crash(2)
	c.s.Restart(2)
	c.runFor(100 * time.Millisecond)
	if regs := c.logs[2].registrations; regs[len(regs)-1].Error != model.NoError || c.broker(2).Incarnation != c.logs[2].incarnation {
		t.Fatalf("restart after a clean shutdown: %v", regs)
	}
}

func TestSessionTimeoutFencesAndReelects(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 6, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	before := c.ctrl().Partitions()
	victim := before[0].Leader
	led := 0
	for _, p := range before {
		if p.Leader == victim {
			led++
		}
	}
	if led < 2 {
		t.Fatalf("placement gave %v only %d of 6 leaderships", victim, led)
	}

	c.s.Partition([]sim.NodeID{sim.NodeID(victim)}, []sim.NodeID{ctrlID})
	last := c.ctrl().sessions[victim].lastContact
	victimApplied := c.logs[victim].applied
	timeout := c.cfg.Controller.BrokerSessionTimeout

	// Not a moment early.
	c.runUntil(last + timeout - time.Millisecond)
	if c.broker(victim).Fenced || !reflect.DeepEqual(c.ctrl().Partitions(), before) {
		t.Fatalf("%v fenced or partitions changed before broker.session.timeout.ms", victim)
	}

	c.runUntil(last + timeout + 2*time.Millisecond)
	if !c.broker(victim).Fenced {
		t.Fatalf("%v not fenced after broker.session.timeout.ms of silence", victim)
	}
	c.runFor(3 * time.Millisecond) // brokers fetch the committed fencing
	after := c.ctrl().Partitions()
	for i, p := range after {
		b := before[i]
		if slices.Contains(p.ISR, victim) {
			t.Fatalf("%v still in the ISR of %v", victim, p)
		}
		if b.Leader == victim {
			if p.Leader == victim || p.Leader == model.NoBroker || p.LeaderEpoch != b.LeaderEpoch+1 {
				t.Fatalf("%v led %v; now %v, want a new leader at epoch %d", victim, b, p, b.LeaderEpoch+1)
			}
		} else if p.Leader != b.Leader || p.LeaderEpoch != b.LeaderEpoch {
			t.Fatalf("%v was led by %v and changed leader: %v", b.TP, b.Leader, p)
		}
	}
	for id, l := range c.logs {
		if id == victim {
			continue
		}
		if c.broker(id).Fenced {
			t.Fatalf("%v fenced too", id)
		}
		if !reflect.DeepEqual(l.viewList(), after) || !slices.Contains(l.fenced, victim) {
			t.Fatalf("%v sees %v fenced=%v, want the controller's state with %v fenced", id, l.viewList(), l.fenced, victim)
		}
	}
	if c.logs[victim].applied != victimApplied {
		t.Fatalf("the partitioned broker replayed records")
	}
}

// TestPartitionedBrokerCatchesUp: a broker cut off from the controller
// misses changes; when it returns it fetches what it missed from the log,
// and its view and offset equal the controller's.
func TestPartitionedBrokerCatchesUp(t *testing.T) {
	c := started(t, testConfig(), 3)
	c.runFor(3 * time.Second)
	c.s.Partition([]sim.NodeID{3}, []sim.NodeID{ctrlID})
	c.runFor(100 * time.Millisecond)
	c.createTopic(model.TopicSpec{Name: "u", Partitions: 2, ReplicationFactor: 3})
	c.runFor(100 * time.Millisecond)
	if _, ok := c.logs[3].view[model.TP("u", 0)]; ok {
		t.Fatalf("the partitioned broker learnt of u")
	}
	if _, ok := c.logs[1].view[model.TP("u", 1)]; !ok {
		t.Fatalf("b1 did not learn of u")
	}
	c.s.HealAll()
	c.runFor(time.Second)
	l3 := c.logs[3]
	if !reflect.DeepEqual(l3.viewList(), c.ctrl().Partitions()) || l3.offset != c.ctrl().Quorum().LastApplied() {
		t.Fatalf("b3 at offset %d sees %v; controller at %d has %v", l3.offset, l3.viewList(), c.ctrl().Quorum().LastApplied(), c.ctrl().Partitions())
	}
	if c.broker(3).Fenced {
		t.Fatalf("b3 fenced after 200ms of silence")
	}
}

// TestBrokerCatchesUpFromSnapshot: with a snapshot every few records, a
// broker that was down while the controller deleted the log it lacked
// restores the controller's snapshot and then replays the rest; its view
// equals the controller's.
func TestBrokerCatchesUpFromSnapshot(t *testing.T) {
	snapshotEvery = 4
	defer func() { snapshotEvery = 0 }()
	c := started(t, testConfig(), 3)
	c.s.Crash(3)
	for i := 0; i < 6; i++ {
		c.createTopic(model.TopicSpec{Name: "s" + string(rune('a'+i)), Partitions: 1, ReplicationFactor: 2})
	}
	if start := c.ctrl().Quorum().LogStartOffset(); start < 10 {
		t.Fatalf("the controller's log starts at %d after %d records with a snapshot every 4", start, c.ctrl().MetadataOffset())
	}
	c.s.Restart(3)
	c.runFor(2 * time.Second)
	l3 := c.logs[3]
	if l3.snapshots == 0 {
		t.Fatalf("b3 restored no snapshot")
	}
	if !reflect.DeepEqual(l3.viewList(), c.ctrl().Partitions()) || l3.offset != c.ctrl().Quorum().LastApplied() {
		t.Fatalf("b3 at offset %d sees %v; controller at %d has %v", l3.offset, l3.viewList(), c.ctrl().Quorum().LastApplied(), c.ctrl().Partitions())
	}
	// A controller restart recovers from its snapshot and log tail.
	parts := c.ctrl().Partitions()
	c.s.Crash(ctrlID)
	c.s.Restart(ctrlID)
	c.runFor(10 * time.Millisecond)
	if !reflect.DeepEqual(c.ctrl().Partitions(), parts) {
		t.Fatalf("after restart %v, want %v", c.ctrl().Partitions(), parts)
	}
}

// restartable builds a cluster with a topic and an ISR change behind it.
func restartable(t *testing.T) *cluster {
	c := started(t, testConfig(), 3)
	c.createTopic(model.TopicSpec{Name: "t", Partitions: 3, ReplicationFactor: 3})
	c.runFor(10 * time.Millisecond)
	p := c.partition(model.TP("t", 0))
	resp := c.alter(model.AlterPartitionRequest{
		CorrelationID: injected, BrokerID: p.Leader, BrokerEpoch: c.broker(p.Leader).Epoch, TP: p.TP,
		LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(p.Leader),
	})
	if resp.Error != model.NoError {
		t.Fatalf("shrink: %v", resp)
	}
	return c
}

func TestControllerRestartRecoversMetadata(t *testing.T) {
	for _, how := range []string{"crash", "power loss"} {
		t.Run(how, func(t *testing.T) {
			c := restartable(t)
			old := c.ctrl()
			brokers, parts, offset, epoch := old.Brokers(), old.Partitions(), old.MetadataOffset(), old.ControllerEpoch()
			if how == "crash" {
				c.s.Crash(ctrlID)
			} else {
				c.s.PowerLoss(ctrlID)
			}
			c.runFor(time.Second)
			c.s.Restart(ctrlID)
			n := c.ctrl()
			if n == old {
				t.Fatalf("restart kept the old value")
			}
			if !reflect.DeepEqual(durable(n.Brokers()), durable(brokers)) || !reflect.DeepEqual(n.Partitions(), parts) {
				t.Fatalf("after restart:\n%v\n%v\nwant\n%v\n%v", n.Brokers(), n.Partitions(), brokers, parts)
			}
			// Heard is session state, not metadata: the old controller
			// had heard every broker, the restarted one none yet, though
			// its replayed log calls them all unfenced.
			for i, b := range n.Brokers() {
				if !brokers[i].Heard || b.Heard {
					t.Errorf("%v heard: before the restart %v, after %v; want true, then false", b.ID, brokers[i].Heard, b.Heard)
				}
			}
			// Every record replayed; a new quorum epoch whose LeaderChange
			// entry follows them.
			if n.MetadataOffset() != offset || n.ControllerEpoch() != epoch+1 || n.Quorum().LastApplied() <= offset || !n.Active() {
				t.Fatalf("offset %d epoch %d applied %d active %v; want offset %d, epoch %d, a LeaderChange entry after it",
					n.MetadataOffset(), n.ControllerEpoch(), n.Quorum().LastApplied(), n.Active(), offset, epoch+1)
			}
			// Brokers find the controller again and replay the new entry.
			c.runFor(time.Second)
			for id, l := range c.logs {
				if l.offset != n.Quorum().LastApplied() || !reflect.DeepEqual(l.viewList(), parts) {
					t.Fatalf("%v at offset %d sees %v", id, l.offset, l.viewList())
				}
			}
		})
	}
}

func TestControllerRestartGivesFreshSessions(t *testing.T) {
	c := restartable(t)
	// Broker 3 dies while the controller is down. The new controller has
	// never heard from anyone and gives everyone a full session: 3 is
	// fenced broker.session.timeout.ms after the restart, not earlier.
	c.s.Crash(ctrlID)
	c.s.Crash(3)
	c.runFor(5 * time.Second)
	c.s.Restart(ctrlID)
	restarted := c.s.Now()
	timeout := c.cfg.Controller.BrokerSessionTimeout
	c.runUntil(restarted + timeout - time.Millisecond)
	if c.broker(3).Fenced {
		t.Fatalf("b3 fenced before a full session after the restart")
	}
	c.runUntil(restarted + timeout + time.Millisecond)
	if !c.broker(3).Fenced || c.broker(1).Fenced || c.broker(2).Fenced {
		t.Fatalf("brokers %v: want only b3 fenced", c.ctrl().Brokers())
	}
}

func TestUncleanRestartOnCluster(t *testing.T) {
	for _, clean := range []bool{false, true} {
		name := map[bool]string{false: "unclean", true: "clean"}[clean]
		t.Run(name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Topic.MinInsyncReplicas = 2
			c := started(t, cfg, 3)
			c.createTopic(model.TopicSpec{Name: "t", Partitions: 1, ReplicationFactor: 3})
			c.runFor(10 * time.Millisecond)
			tp := model.TP("t", 0)
			p := c.partition(tp)
			leader := p.Leader
			// The ISR shrinks to the leader alone: the others enter the ELR.
			resp := c.alter(model.AlterPartitionRequest{
				CorrelationID: injected, BrokerID: leader, BrokerEpoch: c.broker(leader).Epoch, TP: tp,
				LeaderEpoch: p.LeaderEpoch, PartitionEpoch: p.PartitionEpoch, NewISR: c.isr(leader),
			})
			if resp.Error != model.NoError || len(resp.Partition.ELR) != 2 {
				t.Fatalf("shrink: %v", resp)
			}
			// The leader crashes; its session expires and a replica from the
			// ELR leads; the old leader, fenced below min ISR, joins the ELR.
			c.logs[leader].cleanShutdown = clean
			c.s.Crash(sim.NodeID(leader))
			c.s.Restart(sim.NodeID(leader))
			c.runFor(c.cfg.Controller.BrokerSessionTimeout + 2*c.cfg.Controller.BrokerHeartbeatInterval)
			if c.broker(leader).Incarnation != c.logs[leader].incarnation {
				t.Fatalf("the restarted leader did not register")
			}
			p = c.partition(tp)
			if p.Leader == leader || p.Leader == model.NoBroker {
				t.Fatalf("after the leader's restart: %v, want a leader from the ELR", p)
			}
			inELR := slices.Contains(p.ELR, leader)
			if slices.Contains(p.ISR, leader) || inELR == !clean {
				t.Fatalf("after a %s restart: %v; the old leader must be in the ELR exactly when it shut down cleanly", name, p)
			}
		})
	}
}

func TestCreateTopicsAndMetadataRequests(t *testing.T) {
	c := newClusterWith(t, testConfig(), 4, 1, sim.LinkConfig{Latency: sim.Fixed(time.Millisecond)},
		func(logs map[model.BrokerID]*brokerLog) { logs[4].silent = true })
	c.runFor(100 * time.Millisecond)
	client := c.logs[4]
	c.send(4, model.CreateTopicsRequest{CorrelationID: 1, Topics: []model.TopicSpec{
		{Name: "a", Partitions: 2, ReplicationFactor: 3},
		{Name: "a", Partitions: 1, ReplicationFactor: 1},
		{Name: "b", Partitions: 1, ReplicationFactor: 4},
		{Name: "bad name", Partitions: 1, ReplicationFactor: 1},
		{Name: "c", Partitions: 1, Configs: []model.ConfigEntry{{Name: "min.insync.replicas", Value: "2"}}},
		{Name: "d", Partitions: 1, Configs: []model.ConfigEntry{{Name: "log.segment.bytes", Value: "100"}}},
		{Name: "e", Assignment: [][]model.BrokerID{{2, 1}, {3, 2}}},
		{Name: "f", Assignment: [][]model.BrokerID{{2, 9}}},
		{Name: "g", Partitions: 0},
		{Name: "h", Partitions: -5},
	}})
	c.runFor(10 * time.Millisecond)
	c.send(4, model.CreateTopicsRequest{CorrelationID: 2, Topics: []model.TopicSpec{{Name: "a", Partitions: 1}}})
	c.runFor(10 * time.Millisecond)
	if len(client.creates) != 2 {
		t.Fatalf("answers: %v", client.creates)
	}
	want := []model.TopicResult{
		{Name: "a", Error: model.NoError},
		{Name: "a", Error: model.InvalidRequest},
		{Name: "b", Error: model.InvalidReplicationFactor},
		{Name: "bad name", Error: model.InvalidTopicException},
		{Name: "c", Error: model.NoError},
		{Name: "d", Error: model.InvalidConfig},
		{Name: "e", Error: model.NoError},
		{Name: "f", Error: model.InvalidReplicaAssignment},
		{Name: "g", Error: model.NoError},
		{Name: "h", Error: model.InvalidPartitions},
	}
	if got := client.creates[0]; got.CorrelationID != 1 || !reflect.DeepEqual(got.Topics, want) {
		t.Fatalf("first answer %v\nwant %v", got.Topics, want)
	}
	if got := client.creates[1].Topics; len(got) != 1 || got[0].Error != model.TopicAlreadyExists {
		t.Fatalf("second answer %v, want TOPIC_ALREADY_EXISTS", got)
	}
	ctrl := c.ctrl()
	if got := ctrl.state.topics["c"].effectiveMinISR(); got != 2 {
		t.Fatalf("topic c min ISR %d, want its override 2", got)
	}
	if e := c.partition(model.TP("e", 1)); !slices.Equal(e.Replicas, ids(3, 2)) || e.Leader != 3 || !slices.Equal(e.ISR, ids(3, 2)) {
		t.Fatalf("manual assignment: %v", e)
	}
	if g := c.partition(model.TP("g", 0)); len(g.Replicas) != 3 {
		t.Fatalf("defaults: %v, want default.replication.factor=3", g)
	}

	for _, p := range ctrl.Partitions() {
		if p.LeaderEpoch != 0 || p.PartitionEpoch != 0 || p.Leader != p.Replicas[0] || !slices.Equal(p.ISR, p.Replicas) {
			t.Fatalf("new partition %v: want epochs 0, the first replica leading, every replica in the ISR", p)
		}
	}

	// With broker 3 fenced, placement avoids it while enough others are
	// unfenced, and uses it (outside the ISR) only when it must.
	c.send(3, model.BrokerHeartbeatRequest{CorrelationID: injected, BrokerID: 3, BrokerEpoch: c.broker(3).Epoch,
		MetadataOffset: c.logs[3].offset, WantFence: true})
	c.runFor(10 * time.Millisecond)
	c.createTopic(model.TopicSpec{Name: "two", Partitions: 6, ReplicationFactor: 2})
	c.createTopic(model.TopicSpec{Name: "three", Partitions: 3, ReplicationFactor: 3})
	for p := int32(0); p < 6; p++ {
		if two := c.partition(model.TP("two", p)); slices.Contains(two.Replicas, 3) {
			t.Fatalf("rf 2 placed on fenced b3: %v", two)
		}
	}
	for p := int32(0); p < 3; p++ {
		if three := c.partition(model.TP("three", p)); !slices.Contains(three.Replicas, 3) ||
			slices.Contains(three.ISR, 3) || three.Leader == 3 {
			t.Fatalf("rf 3 with b3 fenced: %v, want b3 a replica outside the ISR", three)
		}
	}
	c.send(3, model.BrokerHeartbeatRequest{CorrelationID: injected, BrokerID: 3, BrokerEpoch: c.broker(3).Epoch,
		MetadataOffset: c.logs[3].offset})
	c.runFor(10 * time.Millisecond)

	c.send(4, model.MetadataRequest{CorrelationID: 3, Topics: []string{"zz", "a"}})
	c.send(4, model.MetadataRequest{CorrelationID: 4, AllTopics: true})
	c.runFor(10 * time.Millisecond)
	if len(client.metadata) != 2 {
		t.Fatalf("metadata answers: %v", client.metadata)
	}
	some, all := client.metadata[0], client.metadata[1]
	if some.ControllerID != ctrlID || !slices.Equal(some.Brokers, ids(1, 2, 3)) || len(some.Topics) != 2 ||
		some.Topics[0].Topic != "a" || len(some.Topics[0].Partitions) != 2 ||
		some.Topics[1].Topic != "zz" || some.Topics[1].Error != model.UnknownTopicOrPartition {
		t.Fatalf("metadata for [zz a]: %v", some)
	}
	var names []string
	for _, tm := range all.Topics {
		names = append(names, tm.Topic)
	}
	if !slices.Equal(names, []string{"a", "c", "e", "g", "three", "two"}) {
		t.Fatalf("all topics: %v", names)
	}
}

func TestSameSeedSameRun(t *testing.T) {
	// Recording the trace must not change the run: the second run records.
	run := func(record bool) uint64 {
		link := sim.LinkConfig{Latency: sim.Latency{Min: time.Millisecond, Max: 5 * time.Millisecond}}
		c := newClusterSim(t, testConfig(), 3, sim.Config{Seed: 7, EventLimit: 2_000_000, Link: link, Record: record}, nil)
		c.runFor(time.Second)
		c.createTopic(model.TopicSpec{Name: "t", Partitions: 5, ReplicationFactor: 2})
		c.s.Partition([]sim.NodeID{2}, []sim.NodeID{ctrlID, 1, 3})
		c.runFor(12 * time.Second)
		c.s.HealAll()
		c.s.Crash(ctrlID)
		c.runFor(time.Second)
		c.s.Restart(ctrlID)
		c.runFor(5 * time.Second)
		return c.s.Hash()
	}
	if a, b := run(false), run(true); a != b {
		t.Fatalf("trace hashes %x and %x differ for one seed", a, b)
	}
}

// durable is bs without what only the active controller's sessions know.
func durable(bs []BrokerState) []BrokerState {
	out := slices.Clone(bs)
	for i := range out {
		out[i].Heard = false
	}
	return out
}
