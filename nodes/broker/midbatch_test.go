package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// midBatchRig is a rig in which broker 2, cut from the leader from 2 s to
// 3 s, ends up with a log whose end falls inside one of the leader's
// batches: both hold v0 at offset 0; then the leader appends one batch of
// three records (offsets 1-3) and broker 2, on its own, one record at
// offset 1 in the same leader epoch, as if the two logs had been cut into
// batches differently.
func midBatchRig(t *testing.T) *rig {
	r := newRig(t, testConfig())
	r.produce(time.Second, 1, model.AcksAll, "v0")
	r.s.At(2*time.Second, "cut b2 from the leader", func() { r.s.Cut(1, 2); r.s.Cut(2, 1) })
	r.s.At(2100*time.Millisecond, "a three-record batch on the leader", func() {
		b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "a"}, model.Record{Value: "b"}, model.Record{Value: "c"})
		r.s.SendAs(clientID, 1, model.ProduceRequest{CorrelationID: 2, Acks: model.AcksLeader, Timeout: 30 * time.Second, TP: r.tp, Batch: b})
	})
	r.s.At(2200*time.Millisecond, "one record of its own on b2", func() {
		b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "x"})
		r.replica(2).Log.AppendAsLeader(&b, r.replica(1).LeaderEpoch, r.s.Now())
	})
	r.s.At(3*time.Second, "heal", func() { r.s.Heal(1, 2); r.s.Heal(2, 1) })
	return r
}

// A follower whose fetch position falls inside the leader's batch gets the
// whole batch (the leader reads from the batch holding the offset) and,
// as Kafka's follower (UnifiedLog.append's UnexpectedAppendOffsetException,
// AbstractFetcherThread.markPartitionFailed), stops fetching the partition
// rather than refetching at once or backing off: the leader hears no more
// fetches from it until the partition's leader epoch changes, when it
// fetches again (and, its log being what it is, fails again).
func TestAFollowerInsideTheLeadersBatchFailsThePartition(t *testing.T) {
	r := midBatchRig(t)
	r.s.Run(5 * time.Second)
	b2 := r.s.Node(2).(*Broker).part(r.tp)
	if v := r.replica(2); !b2.fetchFailed || v.LEO != 2 {
		t.Fatalf("b2 failed=%v LEO %d, want the partition failed at LEO 2", b2.fetchFailed, v.LEO)
	}
	if v := r.replica(3); v.LEO != 4 {
		t.Fatalf("b3 LEO %d, want 4: the other follower copies the batch", v.LEO)
	}
	leader := r.s.Node(1).(*Broker).part(r.tp)
	if _, last, _ := leader.follower(2).fetchTimes(); last > 3100*time.Millisecond {
		t.Fatalf("the leader heard b2 fetch at %v, after the failure: the follower refetched", last)
	}
	r.s.At(6*time.Second, "a new leader epoch", func() {
		st := &r.ctl.state
		st.LeaderEpoch++
		st.PartitionEpoch++
		r.ctl.offset++
		for _, id := range []sim.NodeID{1, 2, 3} {
			r.s.SendAs(controllerID, id, r.ctl.update(false))
		}
	})
	r.s.Run(8 * time.Second)
	leader = r.s.Node(1).(*Broker).part(r.tp)
	if _, last, _ := leader.follower(2).fetchTimes(); last < 6*time.Second || last > 6100*time.Millisecond {
		t.Fatalf("b2's last fetch at %v, want one fetch just after the new epoch at 6s", last)
	}
	if b2 := r.s.Node(2).(*Broker).part(r.tp); !b2.fetchFailed {
		t.Fatal("b2 not failed again after the same batch")
	}
}

// The nearby fine case (Partition.appendRecordsToFollowerOrFutureReplica):
// a follower whose log is empty, its end at its log start, and whose fetch
// position falls inside the leader's batch (the leader's log start was
// moved into the batch, as DeleteRecords can) starts its log over at the
// batch's base offset and appends it.
func TestAnEmptyFollowerStartsOverAtTheLeadersBatch(t *testing.T) {
	r := newRig(t, testConfig())
	r.s.At(500*time.Millisecond, "cut b2 from the leader, and out of the ISR", func() {
		r.s.Cut(1, 2)
		r.s.Cut(2, 1)
		// Out of the ISR and not live, so that it does not hold the high
		// watermark as a caught-up replica either.
		r.ctl.brokers = []model.BrokerID{1, 3}
		st := &r.ctl.state
		st.ISR = []model.BrokerID{1, 3}
		st.PartitionEpoch++
		r.ctl.offset++
		for _, id := range []sim.NodeID{1, 3} {
			r.s.SendAs(controllerID, id, r.ctl.update(false))
		}
	})
	r.s.At(time.Second, "a three-record batch on the leader", func() {
		b := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "a"}, model.Record{Value: "b"}, model.Record{Value: "c"})
		r.s.SendAs(clientID, 1, model.ProduceRequest{CorrelationID: 2, Acks: model.AcksAll, Timeout: 30 * time.Second, TP: r.tp, Batch: b})
	})
	r.s.At(2*time.Second, "log starts inside the batch", func() {
		if l := r.replica(1).Log; !l.MaybeIncrementLogStartOffset(1, r.replica(1).HW) {
			t.Errorf("leader HW %d: log start not raised", r.replica(1).HW)
		}
		r.replica(2).Log.TruncateFullyAndStartAt(1)
	})
	r.s.At(3*time.Second, "heal", func() { r.s.Heal(1, 2); r.s.Heal(2, 1) })
	// b2's fetch sent into the cut is given up after its timeout.
	r.s.Run(40 * time.Second)
	if b2 := r.s.Node(2).(*Broker).part(r.tp); b2.fetchFailed {
		t.Fatal("b2 failed the partition")
	}
	if v := r.replica(2); v.LEO != 3 || v.LogStart != 1 {
		t.Fatalf("b2 LEO %d log start %d, want 3 and 1 (the batch appended, the leader's start adopted)", v.LEO, v.LogStart)
	}
}
