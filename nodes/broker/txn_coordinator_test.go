package broker_test

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/nodes/txn"
	"kafkasim/sim"
)

func txnConfig() model.Config {
	kc := groupConfig()
	kc.Txn.StateLogPartitions = 3
	return kc
}

// findTxnCoordinator asks via until it names id's transaction coordinator.
func (r *groupRig) findTxnCoordinator(via model.BrokerID, id string) (model.BrokerID, []model.ErrorCode) {
	r.t.Helper()
	var errs []model.ErrorCode
	for range 200 {
		resp := r.call(via, model.FindCoordinatorRequest{GroupID: id, KeyType: model.CoordinatorTransaction}, time.Second).(model.FindCoordinatorResponse)
		if resp.Error == model.NoError {
			return resp.Coordinator, errs
		}
		errs = append(errs, resp.Error)
		r.c.Sim.Run(r.c.Sim.Now() + 50*time.Millisecond)
	}
	r.t.Fatalf("no transaction coordinator for %s: %v", id, errs)
	return 0, nil
}

// initTxn runs InitProducerId for id at coord until the coordinator has
// loaded.
func (r *groupRig) initTxn(coord model.BrokerID, id string) model.InitProducerIDResponse {
	r.t.Helper()
	var resp model.InitProducerIDResponse
	for range 100 {
		resp = r.call(coord, model.InitProducerIDRequest{TransactionalID: id, TransactionTimeout: time.Minute,
			ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}, 10*time.Second).(model.InitProducerIDResponse)
		if resp.Error != model.CoordinatorLoadInProgress {
			break
		}
		r.c.Sim.Run(r.c.Sim.Now() + 10*time.Millisecond)
	}
	return resp
}

func TestFindTxnCoordinatorCreatesTheStateTopicOnlyWhenAsked(t *testing.T) {
	r := newGroupRig(t, 3, txnConfig())
	r.findCoordinator(1, "g") // a group's lookup leaves __transaction_state alone
	if _, ok := r.c.Partition(model.TP(broker.TransactionStateTopic, 0)); ok {
		t.Fatal("__transaction_state exists before a transactional id asked for it")
	}
	coord, errs := r.findTxnCoordinator(2, "tx")
	if len(errs) == 0 || errs[0] != model.CoordinatorNotAvailable {
		t.Fatalf("errors before the coordinator was found: %v, want COORDINATOR_NOT_AVAILABLE first", errs)
	}
	for p := int32(0); p < 3; p++ {
		ps, ok := r.c.Partition(model.TP(broker.TransactionStateTopic, p))
		if !ok || len(ps.Replicas) != 3 {
			t.Fatalf("__transaction_state-%d: %+v (want replication factor 3)", p, ps)
		}
	}
	if _, ok := r.c.Partition(model.TP(broker.TransactionStateTopic, 3)); ok {
		t.Fatal("more partitions than transaction.state.log.num.partitions")
	}
	want := r.c.Leader(model.TP(broker.TransactionStateTopic, model.CoordinatorPartition("tx", 3)))
	if coord != want {
		t.Fatalf("coordinator b%d, want b%d, the leader of the id's partition", coord, want)
	}
}

func TestTxnRequestsToANonCoordinatorAreRefused(t *testing.T) {
	r := newGroupRig(t, 3, txnConfig())
	coord, _ := r.findTxnCoordinator(1, "tx")
	other := coord%3 + 1
	resp := r.call(other, model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute,
		ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}, time.Second).(model.InitProducerIDResponse)
	if resp.Error != model.NotCoordinator {
		t.Fatalf("InitProducerId at b%d (not the coordinator b%d): %v, want NOT_COORDINATOR", other, coord, resp)
	}
	end := r.call(other, model.EndTxnRequest{TransactionalID: "tx", ProducerID: 1, ProducerEpoch: 0, Committed: true}, time.Second).(model.EndTxnResponse)
	if end.Error != model.NotCoordinator {
		t.Fatalf("EndTxn at b%d: %v, want NOT_COORDINATOR", other, end)
	}
}

// The coordinator's state is in __transaction_state: after its broker
// crashes, the new leader of the partition loads it by replay, and the
// next InitProducerId bumps the epoch of the same producer id (fencing
// the old one) rather than starting over.
func TestTxnCoordinatorStateSurvivesFailoverByReplay(t *testing.T) {
	r := newGroupRig(t, 3, txnConfig())
	coord, _ := r.findTxnCoordinator(1, "tx")
	first := r.initTxn(coord, "tx")
	if first.Error != model.NoError || first.ProducerEpoch != 0 {
		t.Fatalf("first InitProducerId: %v", first)
	}
	tp := model.TP(broker.TransactionStateTopic, model.CoordinatorPartition("tx", 3))
	if m := r.c.Broker(coord).TxnCoordinator(tp.Partition).Metadata("tx"); m == nil || m.ProducerID != first.ProducerID || m.State != txn.Empty {
		t.Fatalf("coordinator metadata after InitProducerId: %+v", m)
	}
	r.c.Sim.Crash(sim.NodeID(coord))
	var next model.BrokerID
	for range 100 {
		r.c.Sim.Run(r.c.Sim.Now() + 200*time.Millisecond)
		if l := r.c.Leader(tp); l != coord && l != model.NoBroker {
			next = l
			break
		}
	}
	if next == 0 {
		t.Fatal("no new leader of the id's partition")
	}
	again := r.initTxn(next, "tx")
	if again.Error != model.NoError || again.ProducerID != first.ProducerID || again.ProducerEpoch != first.ProducerEpoch+1 {
		t.Fatalf("InitProducerId at the new coordinator b%d: %v, want pid %d epoch %d", next, again, first.ProducerID, first.ProducerEpoch+1)
	}
}

// controlBatches lists the control batches of tp's log on broker id.
func (r *groupRig) controlBatches(id model.BrokerID, tp model.TopicPartition) []model.Batch {
	r.t.Helper()
	v, ok := r.c.Broker(id).Partition(tp)
	if !ok {
		r.t.Fatalf("b%d has no %v", id, tp)
	}
	var out []model.Batch
	for off := v.Log.LogStartOffset(); off < v.Log.LEO(); {
		bs := v.Log.Read(off, 1<<20)
		if len(bs) == 0 {
			break
		}
		for _, b := range bs {
			if b.IsControl() {
				out = append(out, *b)
			}
			off = b.NextOffset()
		}
	}
	return out
}

// A committed transaction's markers land in every partition it added, as
// control batches of the producer's bumped epoch (KIP-890 part 2) that
// the high watermark covers, and the coordinator then completes it.
func TestEndTxnWritesMarkersToEachPartitionLeader(t *testing.T) {
	r := newGroupRig(t, 3, txnConfig())
	coord, _ := r.findTxnCoordinator(1, "tx")
	init := r.initTxn(coord, "tx")
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1)}
	add := r.call(coord, model.AddPartitionsToTxnRequest{TransactionalID: "tx", ProducerID: init.ProducerID,
		ProducerEpoch: init.ProducerEpoch, Partitions: tps}, 10*time.Second).(model.AddPartitionsToTxnResponse)
	for _, res := range add.Results {
		if res.Error != model.NoError {
			t.Fatalf("AddPartitionsToTxn: %v", add)
		}
	}
	end := r.call(coord, model.EndTxnRequest{TransactionalID: "tx", ProducerID: init.ProducerID,
		ProducerEpoch: init.ProducerEpoch, Committed: true}, 10*time.Second).(model.EndTxnResponse)
	if end.Error != model.NoError {
		t.Fatalf("EndTxn: %v", end)
	}
	r.c.Sim.Run(r.c.Sim.Now() + 2*time.Second)
	tsp := model.CoordinatorPartition("tx", 3)
	if m := r.c.Broker(coord).TxnCoordinator(tsp).Metadata("tx"); m == nil || m.State != txn.CompleteCommit {
		t.Fatalf("coordinator state after the markers: %+v, want CompleteCommit", m)
	}
	for _, tp := range tps {
		leader := r.c.Leader(tp)
		cs := r.controlBatches(leader, tp)
		if len(cs) != 1 {
			t.Fatalf("%v on b%d: %d control batches, want 1", tp, leader, len(cs))
		}
		commit, cepoch, ok := model.EndTxnMarker(&cs[0])
		v, _ := r.c.Broker(leader).Partition(tp)
		if !ok || !commit || cs[0].ProducerID != init.ProducerID || cs[0].ProducerEpoch != init.ProducerEpoch+1 || cs[0].NextOffset() > v.HW {
			t.Fatalf("%v marker %v commit=%v coordEpoch=%d ok=%v hw=%d", tp, cs[0], commit, cepoch, ok, v.HW)
		}
		// The marker moved the partition's producer state to the bumped
		// epoch: a marker of the old epoch is now refused.
		stale := r.call(leader, model.WriteTxnMarkersRequest{Markers: []model.WritableTxnMarker{{ProducerID: init.ProducerID,
			ProducerEpoch: init.ProducerEpoch, TransactionResult: false, Partitions: []model.TopicPartition{tp}, CoordinatorEpoch: cepoch}}},
			time.Second).(model.WriteTxnMarkersResponse)
		if got := stale.Markers[0].Partitions[0].Error; got != model.InvalidProducerEpoch {
			t.Fatalf("%v stale marker: %v, want INVALID_PRODUCER_EPOCH", tp, stale)
		}
		// A newer coordinator's marker is taken; one from the coordinator
		// it deposed (an older coordinator epoch) is then refused.
		marker := func(cepoch int32) model.ErrorCode {
			resp := r.call(leader, model.WriteTxnMarkersRequest{Markers: []model.WritableTxnMarker{{ProducerID: init.ProducerID,
				ProducerEpoch: init.ProducerEpoch + 1, TransactionResult: false, Partitions: []model.TopicPartition{tp}, CoordinatorEpoch: cepoch}}},
				5*time.Second).(model.WriteTxnMarkersResponse)
			return resp.Markers[0].Partitions[0].Error
		}
		if got := marker(cepoch + 2); got != model.NoError {
			t.Fatalf("%v marker of a newer coordinator epoch: %v", tp, got)
		}
		if got := marker(cepoch + 1); got != model.TransactionCoordinatorFenced {
			t.Fatalf("%v marker of coordinator epoch %d after %d: %v, want TRANSACTION_COORDINATOR_FENCED", tp, cepoch+1, cepoch+2, got)
		}
		other := leader%3 + 1
		notLeader := r.call(other, model.WriteTxnMarkersRequest{Markers: []model.WritableTxnMarker{{ProducerID: init.ProducerID,
			ProducerEpoch: init.ProducerEpoch + 1, TransactionResult: true, Partitions: []model.TopicPartition{tp}}}},
			time.Second).(model.WriteTxnMarkersResponse)
		if got := notLeader.Markers[0].Partitions[0].Error; got != model.NotLeaderOrFollower {
			t.Fatalf("%v marker at follower b%d: %v", tp, other, notLeader)
		}
	}
}
