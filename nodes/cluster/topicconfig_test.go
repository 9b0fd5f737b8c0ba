package cluster

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// topicHarness is the harness on a cluster whose defaults are Kafka's
// (min.insync.replicas=1) and whose topic t sets configs of its own.
func topicHarness(t *testing.T, kc model.Config, configs ...model.ConfigEntry) *harness {
	t.Helper()
	return newHarnessWith(t, Options{
		Seed:   1,
		Config: kc,
		Topics: []model.TopicSpec{{Name: "t", Partitions: 1, ReplicationFactor: 3, Configs: configs}},
	}, 20*time.Millisecond)
}

// ackedAfter counts the sends acknowledged after at.
func ackedAfter(h model.History, at time.Duration) int {
	n := 0
	for _, op := range h {
		if op.F == model.FSend && op.Type == model.OpOK && op.End > at {
			n++
		}
	}
	return n
}

// A topic's min.insync.replicas binds the leader: with the cluster default
// at 1 and the topic at 3, once a crashed follower leaves the ISR the
// leader refuses every acks=all write (Partition.appendRecordsToLeader
// reads the log's LogConfig, which carries the topic override). The same
// run with the topic at 2 keeps acknowledging: the check is the topic's
// value, not a refusal of any shrunk ISR.
func TestATopicsMinInsyncReplicasBindsTheLeader(t *testing.T) {
	run := func(minISR string) (int, []model.BrokerID) {
		kc := model.DefaultConfig()
		kc.Broker.DefaultReplicationFactor = 3
		h := topicHarness(t, kc, model.ConfigEntry{Name: "min.insync.replicas", Value: minISR})
		tp := h.tps[0]
		_, followers := h.LeaderAndFollowers(tp)
		h.Sim.At(2*time.Second, "crash a follower", func() { h.Sim.Crash(sim.NodeID(followers[0])) })
		// replica.lag.time.max.ms is 30 s: the ISR has shrunk by 40 s.
		h.Sim.Run(40 * time.Second)
		isr := h.Broker(h.Leader(tp)).MetadataPartition(tp).ISR
		h.Sim.Run(60 * time.Second)
		return ackedAfter(h.History.History(), 40*time.Second), isr
	}
	n, isr := run("3")
	if len(isr) != 2 {
		t.Fatalf("min.insync.replicas=3: ISR %v at 40 s, want the two live replicas", isr)
	}
	if n != 0 {
		t.Fatalf("min.insync.replicas=3 on the topic, ISR %v: %d acks=all writes acknowledged", isr, n)
	}
	if n, _ := run("2"); n == 0 {
		t.Fatalf("min.insync.replicas=2 on the topic, one follower down: no write acknowledged")
	}
}

// A topic's retention settings apply to its log on every broker: with
// small segments and retention.ms=1s on the topic, the retention task
// (every 5 min) deletes old segments on every replica; the same topic
// without the override, under the default 7 days, keeps them all.
func TestATopicsRetentionApplies(t *testing.T) {
	run := func(configs ...model.ConfigEntry) []Replica {
		kc := model.DefaultConfig()
		kc.Broker.DefaultReplicationFactor = 3
		kc.Broker.LogSegmentBytes = 2048
		h := topicHarness(t, kc, configs...)
		h.Sim.Run(5*time.Minute + 10*time.Second)
		return h.Replicas(h.tps[0])
	}
	for _, r := range run(model.ConfigEntry{Name: "retention.ms", Value: "1000"}) {
		if r.LogStart == 0 || r.LEO == 0 {
			t.Fatalf("retention.ms=1000 on the topic: b%d log start %d, LEO %d; want segments deleted", r.Broker, r.LogStart, r.LEO)
		}
	}
	for _, r := range run() {
		if r.LogStart != 0 {
			t.Fatalf("default retention: b%d log start %d, want 0", r.Broker, r.LogStart)
		}
	}
}

// A topic may set min.insync.replicas above its replication factor; the
// leader caps it at the replica count (Partition.effectiveMinIsr), so an
// rf=3 topic at min.insync.replicas=5 takes acks=all writes while all three
// replicas are in sync, and refuses them once one has left the ISR.
func TestMinInsyncReplicasIsCappedAtTheReplicaCount(t *testing.T) {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	h := topicHarness(t, kc, model.ConfigEntry{Name: "min.insync.replicas", Value: "5"})
	tp := h.tps[0]
	_, followers := h.LeaderAndFollowers(tp)
	h.Sim.At(10*time.Second, "crash a follower", func() { h.Sim.Crash(sim.NodeID(followers[0])) })
	h.Sim.Run(50 * time.Second)
	hist := h.History.History()
	if ackedAfter(hist, 0) == ackedAfter(hist, 9*time.Second) {
		t.Fatalf("min.insync.replicas=5 on an rf=3 topic, all in sync: nothing acknowledged before 9 s")
	}
	if n := ackedAfter(hist, 45*time.Second); n != 0 {
		t.Fatalf("one of three replicas out of the ISR: %d acks=all writes acknowledged", n)
	}
}
