package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// produceIdempotent makes the client send one record of producer pid at
// sequence seq, stamped at the send time.
func (r *rig) produceIdempotent(at time.Duration, to model.BrokerID, pid model.ProducerID, seq int32) {
	r.s.At(at, "produce idempotent", func() {
		b := model.NewBatch(pid, 0, seq, model.Record{Timestamp: at, Value: "x"})
		r.s.SendAs(clientID, sim.NodeID(to), model.ProduceRequest{CorrelationID: 1, Acks: model.AcksAll, Timeout: 30 * time.Second, TP: r.tp, Batch: b})
	})
}

// Every broker forgets an idle producer at its first check
// (producer.id.expiration.check.interval.ms) after producer.id.expiration.ms
// has passed since the producer's last batch, and not before.
func TestBrokersExpireIdleProducers(t *testing.T) {
	kc := testConfig()
	kc.Broker.ProducerIDExpiration = 2 * time.Second
	kc.Broker.ProducerIDExpirationCheckInterval = time.Second
	r := newRig(t, kc)
	r.produceIdempotent(1500*time.Millisecond, 1, 7, 0)
	// Checks run at 1 s, 2 s, 3 s, 4 s: the batch of 1.5 s is 1.5 s old
	// at 3 s and 2.5 s old at 4 s.
	r.s.Run(3500 * time.Millisecond)
	for id := model.BrokerID(1); id <= 3; id++ {
		if _, ok := r.replica(id).Log.Producers().Lookup(7); !ok {
			t.Fatalf("b%d forgot producer 7 before producer.id.expiration.ms", id)
		}
	}
	r.s.Run(4500 * time.Millisecond)
	for id := model.BrokerID(1); id <= 3; id++ {
		if _, ok := r.replica(id).Log.Producers().Lookup(7); ok {
			t.Fatalf("b%d still knows producer 7 after producer.id.expiration.ms", id)
		}
	}
}

// A clean shutdown closes every log, which snapshots its producer state at
// the log end (UnifiedLog.close); a crash does not.
func TestACleanShutdownSnapshotsTheProducerState(t *testing.T) {
	r := newRig(t, testConfig())
	r.produceIdempotent(time.Second, 1, 7, 0)
	r.s.Run(2 * time.Second)
	snapshot := partitionDir(r.tp) + "00000000000000000001.snapshot"
	r.s.Crash(2)
	if r.s.Disk(2).Exists(snapshot) {
		t.Fatalf("a crash left %s", snapshot)
	}
	r.s.Start(2)
	r.s.Run(3 * time.Second)
	r.s.Shutdown(3)
	// This rig's controller never lets a broker go, so the controlled
	// shutdown runs to its five-minute bound before the logs close.
	r.s.Run(3*time.Second + 5*time.Minute - time.Millisecond)
	if !r.s.IsUp(3) || r.s.Disk(3).Exists(snapshot) {
		t.Fatal("b3 stopped before the controller let it go or its wait ran out")
	}
	r.s.Run(3*time.Second + 5*time.Minute + time.Millisecond)
	if r.s.IsUp(3) {
		t.Fatal("b3 still up after its controlled-shutdown wait")
	}
	if !r.s.Disk(3).Exists(snapshot) {
		t.Fatalf("a clean shutdown left no %s: %v", snapshot, r.s.Disk(3).List(partitionDir(r.tp)))
	}
}
