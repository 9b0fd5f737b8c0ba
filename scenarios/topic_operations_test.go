package scenarios

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// topicOpsCluster builds a three-broker cluster with topic t of two
// partitions and arms a schedule written relative to its readiness.
func topicOpsCluster(t *testing.T, lines string, args ...any) *Scripted {
	t.Helper()
	s, err := NewScripted(fixture.Options{Seed: 7, Config: model.DefaultConfig(), Spec: fixture.Spec{Partitions: 2, ReplicationFactor: 3}})
	if err != nil {
		t.Fatal(err)
	}
	s.ready = s.Sim.Now()
	text := fmt.Sprintf(lines, append([]any{}, args...)...)
	if _, err := faults.Apply(world{s}, faults.MustParse("ops", text)); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTopicOperationsReachTheBrokers: a topic created and grown by a
// schedule is hosted on its replicas; a deleted topic is gone from every
// broker, its replicas stopped and their files deleted, and the deletion
// is observed for the checkers.
func TestTopicOperationsReachTheBrokers(t *testing.T) {
	base := 0 * time.Second
	s := topicOpsCluster(t, "at %v create-topic u 3 3\nat %v add-partitions u 5\nat %v delete-topic t\n",
		base+30*time.Second, base+32*time.Second, base+34*time.Second)
	s.Sim.Run(s.Sim.Now() + 30*time.Second)
	for _, id := range s.Brokers {
		if _, ok := s.Broker(id).Partition(model.TP("t", 0)); !ok {
			t.Fatalf("before the deletion %v hosts no t/0", id)
		}
	}
	s.Sim.Run(s.Sim.Now() + 10*time.Second)
	for _, id := range s.Brokers {
		b := s.Broker(id)
		for p := int32(0); p < 5; p++ {
			if _, ok := b.Partition(model.TP("u", p)); !ok {
				t.Errorf("%v does not host u/%d", id, p)
			}
		}
		for p := int32(0); p < 2; p++ {
			tp := model.TP("t", p)
			if _, ok := b.Partition(tp); ok {
				t.Errorf("%v still hosts %v after its deletion", id, tp)
			}
			if files := s.Sim.Disk(sim.NodeID(id)).List(fmt.Sprintf("t-%d/", p)); len(files) > 0 {
				t.Errorf("%v kept the files of %v: %v", id, tp, files)
			}
		}
	}
	// Each broker reports the deletion once, as it replays it.
	if d := s.Observed.Deletions; len(d) != len(s.Brokers) || d[0].Topic != "t" || d[0].Offset != d[len(d)-1].Offset {
		t.Fatalf("deletions observed: %v", d)
	}
}

// TestAlterConfigMinISRTakesEffect: once alter-config raises t's
// min.insync.replicas to 3, a cluster with one broker down acknowledges no
// acks=all write; without the change, the same run goes on acknowledging.
func TestAlterConfigMinISRTakesEffect(t *testing.T) {
	acked := func(alter bool) int {
		lines := "at 30s crash b1\n"
		if alter {
			lines = "at 29s alter-config t min.insync.replicas=3\n" + lines
		}
		s := topicOpsCluster(t, lines)
		s.Sim.Run(s.Sim.Now() + 70*time.Second)
		n := 0
		for _, op := range s.History.History() {
			if op.F == model.FSend && op.Type == model.OpOK && op.Time > s.ready+45*time.Second {
				n++
			}
		}
		return n
	}
	if n := acked(false); n == 0 {
		t.Fatal("without the change no write was acknowledged with b1 down")
	}
	if n := acked(true); n != 0 {
		t.Fatalf("with min.insync.replicas=3 and b1 down, %d writes were acknowledged", n)
	}
}
