package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// isolate cuts a broker off from the other brokers, both ways, leaving
// its link to the controller (and clients) alone.
func (h *harness) isolate(x model.BrokerID) {
	for _, y := range h.Brokers {
		if y != x {
			h.Sim.Cut(sim.NodeID(x), sim.NodeID(y))
			h.Sim.Cut(sim.NodeID(y), sim.NodeID(x))
		}
	}
}

// followersOf returns the partition's replicas other than its leader, in
// assignment order.
func (h *harness) followersOf(tp model.TopicPartition) (leader model.BrokerID, followers []model.BrokerID) {
	ps, _ := h.Partition(tp)
	for _, r := range ps.Replicas {
		if r != ps.Leader {
			followers = append(followers, r)
		}
	}
	return ps.Leader, followers
}

// diverged reports the first offset at which two replicas of tp hold
// different values (-1 when they agree on every offset both hold).
func (h *harness) diverged(tp model.TopicPartition) model.Offset {
	reps := h.Replicas(tp)
	vals := map[model.Offset]string{}
	for _, ov := range reps[0].Records {
		vals[ov.Offset] = ov.Value
	}
	first := model.Offset(-1)
	for _, r := range reps[1:] {
		for _, ov := range r.Records {
			if v, ok := vals[ov.Offset]; ok && v != ov.Value && (first < 0 || ov.Offset < first) {
				first = ov.Offset
			}
		}
	}
	return first
}

// jepsen2013 isolates the leader's followers so that the ISR shrinks to
// the leader alone, lets it acknowledge writes, then crashes it.
func jepsen2013(t *testing.T, unclean bool) []string {
	kc := safeConfig()
	kc.Topic.MinInsyncReplicas = 1
	kc.Topic.UncleanLeaderElection = unclean
	kc.Controller.EligibleLeaderReplicas = false
	h := newHarness(t, 3, kc, 1, 20*time.Millisecond)
	tp := h.tps[0]
	a, _ := h.followersOf(tp)
	// The ISR shrinks at the first isr-expiration check after
	// replica.lag.time.max.ms (30s) of lag: by 50s.
	h.Sim.At(2*time.Second, "isolate leader", func() { h.isolate(a) })
	h.Sim.At(55*time.Second, "crash leader", func() { h.Sim.Crash(sim.NodeID(a)) })
	h.Sim.At(75*time.Second, "heal", func() { h.Sim.HealAll() })
	h.Sim.At(85*time.Second, "restart", func() { h.Sim.Restart(sim.NodeID(a)) })
	h.Sim.At(95*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(120 * time.Second)
	if ps, _ := h.Partition(tp); ps.Leader == model.NoBroker {
		t.Fatalf("unclean=%v: no leader at the end", unclean)
	}
	return h.lostAcked(t)
}

func TestJepsen2013UncleanElectionLosesAcknowledgedWrites(t *testing.T) {
	if lost := jepsen2013(t, true); len(lost) == 0 {
		t.Fatal("unclean election on, min.insync.replicas=1: expected lost acknowledged writes")
	}
	if lost := jepsen2013(t, false); len(lost) > 0 {
		t.Fatalf("unclean election off: acknowledged writes lost: %v", lost)
	}
}

// acks1Failover cuts the followers off, lets the leader acknowledge
// writes on its own append, then crashes it before the followers could
// fetch them.
func acks1Failover(t *testing.T, acks model.Acks) (lost []string, nAcked int) {
	kc := safeConfig()
	kc.Producer.Acks = acks
	if acks != model.AcksAll {
		kc.Producer.Idempotence = false
	}
	kc.Controller.EligibleLeaderReplicas = false
	h := newHarness(t, 5, kc, 1, 20*time.Millisecond)
	tp := h.tps[0]
	a, _ := h.followersOf(tp)
	h.Sim.At(2*time.Second, "isolate leader", func() { h.isolate(a) })
	h.Sim.At(3*time.Second, "crash leader", func() { h.Sim.Crash(sim.NodeID(a)) })
	h.Sim.At(20*time.Second, "heal and restart", func() { h.Sim.HealAll(); h.Sim.Restart(sim.NodeID(a)) })
	h.Sim.At(30*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(60 * time.Second)
	return h.lostAcked(t), len(acked(h.History.History()))
}

func TestAcks1FailoverLosesAnAcknowledgedWrite(t *testing.T) {
	if lost, _ := acks1Failover(t, model.AcksLeader); len(lost) == 0 {
		t.Fatal("acks=1: expected writes acknowledged by the crashed leader alone to be lost")
	}
	if lost, n := acks1Failover(t, model.AcksAll); len(lost) > 0 || n == 0 {
		t.Fatalf("acks=all, min.insync.replicas=2: %d acknowledged, lost %v", n, lost)
	}
}

// kip279 alternates leadership between the two replicas of an rf=2
// partition across crashes (unclean election on), so that each writes
// records at the same offsets under different epochs; then the older
// leader's replica follows the newer and must find where they diverge.
func kip279(t *testing.T, truncation model.TruncationMode) model.Offset {
	kc := safeConfig()
	kc.Broker.DefaultReplicationFactor = 2
	kc.Topic.MinInsyncReplicas = 1
	kc.Topic.UncleanLeaderElection = true
	kc.Controller.EligibleLeaderReplicas = false
	kc.Producer.Acks = model.AcksLeader
	kc.Producer.Idempotence = false
	kc.Broker.Truncation = truncation
	c, err := New(Options{Seed: 11, Brokers: 2, Config: kc, Topics: []model.TopicSpec{{Name: "t", Partitions: 1, ReplicationFactor: 2}}})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{Cluster: c, work: &Sequence{Topic: "t", Partitions: 1, Prefix: "v"}, tps: []model.TopicPartition{model.TP("t", 0)}}
	h.producer = h.addProducer(kc, 20*time.Millisecond)
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	tp := h.tps[0]
	a, f := h.followersOf(tp)
	b := f[0]
	h.Sim.At(2*time.Second, "cut A-B", func() { h.isolate(a) })
	h.Sim.At(3*time.Second, "crash A", func() { h.Sim.Crash(sim.NodeID(a)) })
	// ~12s: A fenced, B (still in the ISR) leads and takes writes at the
	// offsets A wrote after the cut.
	h.Sim.At(20*time.Second, "crash B", func() { h.Sim.Crash(sim.NodeID(b)) })
	// ~29s: B fenced; nobody alive in the ISR.
	h.Sim.At(32*time.Second, "restart A", func() { h.Sim.Restart(sim.NodeID(a)) }) // elected uncleanly
	h.Sim.At(40*time.Second, "heal, restart B", func() { h.Sim.HealAll(); h.Sim.Restart(sim.NodeID(b)) })
	h.Sim.At(50*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(70 * time.Second)
	if got := h.Leader(tp); got != a {
		t.Fatalf("%s: leader %v at the end, want A=%v", truncation, got, a)
	}
	return h.diverged(tp)
}

func TestKIP279DivergenceWithoutTheEpochInTheAnswer(t *testing.T) {
	if off := kip279(t, model.TruncateLeaderEpochKIP101); off < 0 {
		t.Fatal("truncation=leader-epoch-kip101: expected the replicas to diverge, they agree")
	}
	if off := kip279(t, model.TruncateLeaderEpoch); off >= 0 {
		t.Fatalf("truncation=leader-epoch (KIP-279): replicas diverge at offset %d", off)
	}
}

// kip966 lets writes commit with the full ISR, then cuts the followers off
// so that the ISR shrinks to the leader alone, and power-cycles the leader
// while those writes are still in its page cache (younger than the 30 s
// writeback): without fsync it loses them. replica.lag.time.max.ms is 10 s
// so that the shrink comes first.
func kip966(t *testing.T, elr bool) []string {
	kc := safeConfig()
	kc.Controller.EligibleLeaderReplicas = elr
	kc.Broker.ReplicaLagTimeMax = 10 * time.Second
	h := newHarness(t, 13, kc, 1, 20*time.Millisecond)
	tp := h.tps[0]
	a, _ := h.followersOf(tp)
	h.Sim.At(5*time.Second, "isolate leader", func() { h.isolate(a) })
	h.Sim.At(25*time.Second, "power loss", func() { h.Sim.PowerLoss(sim.NodeID(a)) })
	h.Sim.At(26*time.Second, "restart", func() { h.Sim.Restart(sim.NodeID(a)) })
	h.Sim.At(45*time.Second, "heal", func() { h.Sim.HealAll() })
	h.Sim.At(60*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(90 * time.Second)
	return h.lostAcked(t)
}

func TestKIP966LastReplicaPowerLoss(t *testing.T) {
	if lost := kip966(t, false); len(lost) == 0 {
		t.Fatal("ELR off: expected committed records lost when the last ISR replica loses its tail")
	}
	if lost := kip966(t, true); len(lost) > 0 {
		t.Fatalf("ELR on: committed records lost: %v", lost)
	}
}

// reordered counts pairs of one producer's acknowledged sends to a
// partition whose offsets are out of the order they were sent in.
func reordered(h model.History) int {
	type key struct {
		proc int
		tp   model.TopicPartition
	}
	last := map[key]model.Offset{}
	n := 0
	for _, op := range h { // ops are in invocation order
		if op.F != model.FSend || op.Type != model.OpOK {
			continue
		}
		k := key{op.Process, op.TP}
		if prev, ok := last[k]; ok && op.Offset < prev {
			n++
		}
		if op.Offset > last[k] {
			last[k] = op.Offset
		}
	}
	return n
}

// isrFlap shrinks the ISR below min.insync.replicas and restores it, so
// that some batches fail with NOT_ENOUGH_REPLICAS and are retried while
// later batches already succeed.
func isrFlap(t *testing.T, seed uint64, idempotent bool) int {
	kc := safeConfig()
	kc.Producer.Idempotence = idempotent
	kc.Producer.MaxInFlight = 5
	kc.Broker.ReplicaLagTimeMax = 2 * time.Second
	h := newHarness(t, seed, kc, 1, 2*time.Millisecond)
	tp := h.tps[0]
	a, _ := h.followersOf(tp)
	for i := 0; i < 5; i++ {
		at := time.Duration(2+6*i) * time.Second
		h.Sim.At(at, "isolate leader", func() { h.isolate(a) })
		h.Sim.At(at+4*time.Second, "heal", func() { h.Sim.HealAll() })
	}
	h.Sim.At(35*time.Second, "stop", func() { h.work.Stop() })
	h.Sim.Run(60 * time.Second)
	return reordered(h.History.History())
}

func TestRetriesReorderWithoutIdempotence(t *testing.T) {
	found := false
	for seed := uint64(1); seed <= 5 && !found; seed++ {
		found = isrFlap(t, seed, false) > 0
	}
	if !found {
		t.Fatal("enable.idempotence=false, 5 in flight: no reordered acknowledged sends in 5 seeds")
	}
	for seed := uint64(1); seed <= 5; seed++ {
		if n := isrFlap(t, seed, true); n > 0 {
			t.Fatalf("seed %d: enable.idempotence=true: %d reordered acknowledged sends", seed, n)
		}
	}
}
