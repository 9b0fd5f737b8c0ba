package txn

import (
	"reflect"
	"testing"
	"time"

	"kafkasim/model"
)

// TestInitProducerID covers TransactionCoordinator.handleInitProducerId's
// answers, each case on a fresh coordinator.
func TestInitProducerID(t *testing.T) {
	cases := []struct {
		name  string
		setup func(w *world)
		req   model.InitProducerIDRequest
		want  model.InitProducerIDResponse
	}{
		{"a new transactional id gets a new producer id at epoch 0", nil,
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{ProducerID: 101, ProducerEpoch: 0}},
		{"a null transactional id gets a producer id without a write", nil,
			model.InitProducerIDRequest{ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{ProducerID: 101, ProducerEpoch: 0}},
		{"a timeout above transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT", nil,
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: 16 * time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.InvalidTransactionTimeout, ProducerID: -1, ProducerEpoch: -1}},
		{"a zero timeout is INVALID_TRANSACTION_TIMEOUT", nil,
			model.InitProducerIDRequest{TransactionalID: "tx", ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.InvalidTransactionTimeout, ProducerID: -1, ProducerEpoch: -1}},
		{"a second producer with the id bumps the epoch (fencing the first)",
			func(w *world) { w.producer("tx") },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{ProducerID: 101, ProducerEpoch: 1}},
		{"the producer's own bump (KIP-360) with its epoch",
			func(w *world) { w.producer("tx") },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: 101, ProducerEpoch: 0},
			model.InitProducerIDResponse{ProducerID: 101, ProducerEpoch: 1}},
		{"another producer id is PRODUCER_FENCED",
			func(w *world) { w.producer("tx") },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: 55, ProducerEpoch: 0},
			model.InitProducerIDResponse{Error: model.ProducerFenced, ProducerID: -1, ProducerEpoch: -1}},
		{"an epoch neither current nor last is PRODUCER_FENCED",
			func(w *world) { w.producer("tx"); w.producer("tx"); w.producer("tx") },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: 101, ProducerEpoch: 0},
			model.InitProducerIDResponse{Error: model.ProducerFenced, ProducerID: -1, ProducerEpoch: -1}},
		{"a pending transition is CONCURRENT_TRANSACTIONS",
			func(w *world) {
				w.take(w.c.HandleInitProducerID(w.now, client, model.InitProducerIDRequest{TransactionalID: "tx",
					TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1}))
			},
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.ConcurrentTransactions, ProducerID: -1, ProducerEpoch: -1}},
		{"a transaction being completed is CONCURRENT_TRANSACTIONS",
			func(w *world) {
				pid, e := w.producer("tx")
				w.add("tx", pid, e, a0)
				w.endTxn("tx", pid, e, true) // markers not yet answered
			},
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.ConcurrentTransactions, ProducerID: -1, ProducerEpoch: -1}},
		{"a closed coordinator is NOT_COORDINATOR",
			func(w *world) { w.c.Close(w.now) },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.NotCoordinator, ProducerID: -1, ProducerEpoch: -1}},
		{"a loading coordinator is COORDINATOR_LOAD_IN_PROGRESS",
			func(w *world) { w.c = w.newCoordinator(8) },
			model.InitProducerIDRequest{TransactionalID: "tx", TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1},
			model.InitProducerIDResponse{Error: model.CoordinatorLoadInProgress, ProducerID: -1, ProducerEpoch: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, DefaultConfig())
			if c.setup != nil {
				c.setup(w)
			}
			w.take(w.c.HandleInitProducerID(w.now, client, c.req))
			if got := lastOf[model.InitProducerIDResponse](w); got != c.want {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

// TestInitProducerIDFencesAnOngoingTransaction follows handleInitProducerId's
// Ongoing case: the zombie's transaction is aborted under a bumped epoch
// (prepareFenceProducerEpoch, then endTransaction not from the client),
// the new producer is told CONCURRENT_TRANSACTIONS, and its retry after
// the abort completes bumps the epoch again. The zombie is fenced.
func TestInitProducerIDFencesAnOngoingTransaction(t *testing.T) {
	for _, cfg := range []Config{tv1(), DefaultConfig()} {
		w := newWorld(t, cfg)
		pid, e := w.producer("tx")
		w.add("tx", pid, e, a0, a1)
		if r := w.init("tx", model.NoProducerID, model.NoEpoch); r.Error != model.ConcurrentTransactions {
			t.Fatalf("tv%d: init during the zombie's transaction: %v", cfg.TransactionVersion, r)
		}
		m := w.c.Metadata("tx")
		// Version 1 aborts at the fence's epoch; version 2 bumps once more.
		abortEpoch := e + 1
		if cfg.tv2() {
			abortEpoch = e + 2
		}
		if m.State != PrepareAbort || m.ProducerEpoch != abortEpoch || len(w.sent) != 2 {
			t.Fatalf("tv%d: after the fence: %+v, %d markers", cfg.TransactionVersion, m.Snapshot, len(w.sent))
		}
		for _, s := range w.sent {
			mk := s.Request.Markers[0]
			if mk.TransactionResult || mk.ProducerEpoch != abortEpoch || mk.CoordinatorEpoch != 7 {
				t.Fatalf("tv%d: marker %v", cfg.TransactionVersion, s.Request)
			}
		}
		w.settle()
		r := w.init("tx", model.NoProducerID, model.NoEpoch)
		if r.Error != model.NoError || r.ProducerEpoch != abortEpoch+1 {
			t.Fatalf("tv%d: retry: %v", cfg.TransactionVersion, r)
		}
		if got := w.endTxn("tx", pid, e, true); got.Error != model.ProducerFenced {
			t.Fatalf("tv%d: zombie's commit: %v", cfg.TransactionVersion, got)
		}
	}
}

// TestAddPartitionsToTxn covers handleAddPartitionsToTransaction's
// checks in Kafka's order.
func TestAddPartitionsToTxn(t *testing.T) {
	cases := []struct {
		name       string
		setup      func(w *world)
		id         string
		pid        model.ProducerID
		epoch      model.Epoch
		want       model.ErrorCode
		wantWrites int
	}{
		{"an unknown transactional id is INVALID_PRODUCER_ID_MAPPING", nil, "nope", 101, 0, model.InvalidProducerIDMapping, 0},
		{"another producer id is INVALID_PRODUCER_ID_MAPPING", nil, "tx", 55, 0, model.InvalidProducerIDMapping, 0},
		{"another epoch is PRODUCER_FENCED", nil, "tx", 101, 3, model.ProducerFenced, 0},
		{"an empty transactional id is INVALID_REQUEST", nil, "", 101, 0, model.InvalidRequest, 0},
		{"partitions start the transaction once written", nil, "tx", 101, 0, model.NoError, 1},
		{"partitions already in the transaction are NONE without a write",
			func(w *world) { w.add("tx", 101, 0, a0, a1) }, "tx", 101, 0, model.NoError, 0},
		{"a transaction being completed is CONCURRENT_TRANSACTIONS",
			func(w *world) { w.add("tx", 101, 0, b0); w.endTxn("tx", 101, 0, false) }, "tx", 101, 0, model.ConcurrentTransactions, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tv1())
			w.producer("tx")
			if c.setup != nil {
				c.setup(w)
			}
			e := w.take(w.c.HandleAddPartitionsToTxn(w.now, client, model.AddPartitionsToTxnRequest{TransactionalID: c.id,
				ProducerID: c.pid, ProducerEpoch: c.epoch, Partitions: []model.TopicPartition{a1, a0}}))
			if len(e.Writes) != c.wantWrites {
				t.Fatalf("%d writes, want %d", len(e.Writes), c.wantWrites)
			}
			r := lastOf[model.AddPartitionsToTxnResponse](w)
			want := []model.TxnPartitionResult{{TP: a1, Error: c.want}, {TP: a0, Error: c.want}}
			if !reflect.DeepEqual(r.Results, want) {
				t.Fatalf("got %v, want %v", r.Results, want)
			}
		})
	}
}

// TestAddOffsetsToTxn follows KafkaApis.handleAddOffsetsToTxnRequest:
// the group's __consumer_offsets partition joins the transaction and
// gets a marker from the group coordinator's leader.
func TestAddOffsetsToTxn(t *testing.T) {
	w := newWorld(t, tv1())
	pid, e := w.producer("tx")
	w.take(w.c.HandleAddOffsetsToTxn(w.now, client, model.AddOffsetsToTxnRequest{TransactionalID: "tx",
		ProducerID: pid, ProducerEpoch: e, GroupID: "g"}))
	if r := lastOf[model.AddOffsetsToTxnResponse](w); r.Error != model.NoError {
		t.Fatalf("AddOffsetsToTxn: %v", r)
	}
	offsets := model.TP(model.ConsumerOffsetsTopic, model.CoordinatorPartition("g", 50))
	if m := w.c.Metadata("tx"); m.State != Ongoing || !reflect.DeepEqual(m.Partitions, []model.TopicPartition{offsets}) {
		t.Fatalf("after AddOffsetsToTxn: %+v", m.Snapshot)
	}
	w.endTxn("tx", pid, e, true)
	if len(w.sent) != 1 || w.sent[0].To != 3 {
		t.Fatalf("markers %v", w.sent)
	}
}

// TestEndTxnTV1 covers endTransactionWithTV1's answers.
func TestEndTxnTV1(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world, pid model.ProducerID)
		epoch  model.Epoch
		commit bool
		want   model.ErrorCode
	}{
		{"a commit of an ongoing transaction", func(w *world, pid model.ProducerID) { w.add("tx", pid, 0, a0) }, 0, true, model.NoError},
		{"a commit with no transaction is INVALID_TXN_STATE", nil, 0, true, model.InvalidTxnState},
		{"an abort with no transaction is INVALID_TXN_STATE", nil, 0, false, model.InvalidTxnState},
		{"another epoch is PRODUCER_FENCED", func(w *world, pid model.ProducerID) { w.add("tx", pid, 0, a0) }, 1, true, model.ProducerFenced},
		{"a retried commit of a completed commit is NONE", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
			w.settle()
		}, 0, true, model.NoError},
		{"an abort after a completed commit is INVALID_TXN_STATE", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
			w.settle()
		}, 0, false, model.InvalidTxnState},
		{"a retried commit while its markers are written is CONCURRENT_TRANSACTIONS", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
		}, 0, true, model.ConcurrentTransactions},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, tv1())
			pid, _ := w.producer("tx")
			if c.setup != nil {
				c.setup(w, pid)
			}
			r := w.endTxn("tx", pid, c.epoch, c.commit)
			want := model.EndTxnResponse{Error: c.want, ProducerID: -1, ProducerEpoch: -1}
			if r != want {
				t.Fatalf("got %v, want %v", r, want)
			}
		})
	}
}

// TestEndTxnTV2 covers endTransaction's table for transaction version 2
// (KIP-890 part 2): every end bumps the epoch and answers it; a retry is
// the epoch one below; an abort is accepted from Empty.
func TestEndTxnTV2(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(w *world, pid model.ProducerID)
		epoch  model.Epoch
		commit bool
		want   model.EndTxnResponse
	}{
		{"a commit bumps the epoch", func(w *world, pid model.ProducerID) { w.add("tx", pid, 0, a0) }, 0, true,
			model.EndTxnResponse{ProducerID: 101, ProducerEpoch: 1}},
		{"an abort from Empty bumps the epoch", nil, 0, false, model.EndTxnResponse{ProducerID: 101, ProducerEpoch: 1}},
		{"a commit from Empty is INVALID_TXN_STATE", nil, 0, true,
			model.EndTxnResponse{Error: model.InvalidTxnState, ProducerID: -1, ProducerEpoch: -1}},
		{"a retried commit (the old epoch) after completion is NONE", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
			w.settle()
		}, 0, true, model.EndTxnResponse{ProducerID: 101, ProducerEpoch: 1}},
		{"a retried abort of a commit is INVALID_TXN_STATE", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
			w.settle()
		}, 0, false, model.EndTxnResponse{Error: model.InvalidTxnState, ProducerID: -1, ProducerEpoch: -1}},
		{"a late request of the ended transaction's epoch is PRODUCER_FENCED", func(w *world, pid model.ProducerID) {
			w.add("tx", pid, 0, a0)
			w.endTxn("tx", pid, 0, true)
			w.settle()
			w.add("tx", pid, 1, b0)
		}, 0, true, model.EndTxnResponse{Error: model.ProducerFenced, ProducerID: -1, ProducerEpoch: -1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t, DefaultConfig())
			pid, _ := w.producer("tx")
			if c.setup != nil {
				c.setup(w, pid)
			}
			if r := w.endTxn("tx", pid, c.epoch, c.commit); r != c.want {
				t.Fatalf("got %v, want %v", r, c.want)
			}
		})
	}
}

// TestMarkers follows TransactionMarkerChannelManager and its completion
// handler: markers go to each partition's leader, the completion is
// written only once every marker is, and failures are retried.
func TestMarkers(t *testing.T) {
	w := newWorld(t, tv1())
	pid, e := w.producer("tx")
	w.add("tx", pid, e, a0, a1, b0)
	w.endTxn("tx", pid, e, true)
	if len(w.sent) != 2 || w.sent[0].To != 1 || w.sent[1].To != 2 ||
		!reflect.DeepEqual(w.sent[0].Request.Markers[0].Partitions, []model.TopicPartition{a0, b0}) {
		t.Fatalf("markers %v", w.sent)
	}
	// b1 answers, b2's connection breaks: no completion yet.
	first, second := w.sent[0], w.sent[1]
	w.sent = []MarkerRequest{first}
	w.answerMarkers(model.NoError, false)
	w.sent = []MarkerRequest{second}
	w.leaders[a1] = model.NoBroker // and a1 has no leader for now
	w.answerMarkers(model.NoError, true)
	if len(w.held) != 0 || w.c.Metadata("tx").State != PrepareCommit {
		t.Fatalf("completion before every marker: %+v", w.c.Metadata("tx").Snapshot)
	}
	w.advance(100 * time.Millisecond) // no leader: waits again
	if len(w.sent) != 0 {
		t.Fatalf("marker sent without a leader: %v", w.sent)
	}
	w.leaders[a1] = 3
	w.advance(100 * time.Millisecond)
	if len(w.sent) != 1 || w.sent[0].To != 3 {
		t.Fatalf("retry to the new leader: %v", w.sent)
	}
	w.answerMarkers(model.NotLeaderOrFollower, false) // retriable
	w.advance(100 * time.Millisecond)
	w.answerMarkers(model.NoError, false)
	// The completion's append finds too few replicas: it is appended again.
	w.ackWrites(model.NotEnoughReplicas)
	if w.c.Metadata("tx").State != PrepareCommit {
		t.Fatal("completion applied although its write failed")
	}
	w.advance(100 * time.Millisecond)
	w.ackWrites(model.NoError)
	if m := w.c.Metadata("tx"); m.State != CompleteCommit || m.Pending() {
		t.Fatalf("after every marker: %+v", m.Snapshot)
	}
}

// TestMarkersStopAndSkip: a partition that no longer exists leaves the
// transaction; INVALID_PRODUCER_EPOCH stops the transaction's markers.
func TestMarkersStopAndSkip(t *testing.T) {
	w := newWorld(t, tv1())
	pid, e := w.producer("tx")
	w.add("tx", pid, e, a0, b0)
	delete(w.leaders, b0)
	w.endTxn("tx", pid, e, false)
	if len(w.sent) != 1 || !reflect.DeepEqual(w.sent[0].Request.Markers[0].Partitions, []model.TopicPartition{a0}) {
		t.Fatalf("markers %v", w.sent)
	}
	w.answerMarkers(model.InvalidProducerEpoch, false)
	w.advance(time.Second)
	if len(w.sent) != 0 || len(w.held) != 0 || w.c.Metadata("tx").State != PrepareAbort {
		t.Fatalf("after INVALID_PRODUCER_EPOCH: %v %v %+v", w.sent, w.held, w.c.Metadata("tx").Snapshot)
	}
}

// TestTransactionTimeout follows abortTimedOutTransactions: an Ongoing
// transaction older than its transaction.timeout.ms is aborted under a
// bumped epoch at the next check, so the producer's commit is fenced.
func TestTransactionTimeout(t *testing.T) {
	for _, cfg := range []Config{tv1(), DefaultConfig()} {
		w := newWorld(t, cfg)
		pid, e := w.producer("tx")
		w.add("tx", pid, e, a0)
		w.advance(50 * time.Second) // the checks at 10 s .. 50 s: not yet past 1 minute
		w.settle()
		if m := w.c.Metadata("tx"); m.State != Ongoing || m.ProducerEpoch != e {
			t.Fatalf("tv%d: aborted early", cfg.TransactionVersion)
		}
		w.advance(20 * time.Second)
		w.settle()
		m := w.c.Metadata("tx")
		if m.State != CompleteAbort || m.ProducerEpoch <= e {
			t.Fatalf("tv%d: after the timeout: %+v", cfg.TransactionVersion, m.Snapshot)
		}
		if r := w.endTxn("tx", pid, e, true); r.Error != model.ProducerFenced {
			t.Fatalf("tv%d: the producer's commit: %v", cfg.TransactionVersion, r)
		}
	}
}

// TestTransactionalIDExpiration follows removeExpiredTransactionalIds:
// an idle transactional id is forgotten after transactional.id.expiration.ms
// (its tombstone written), one with a transaction in flight is not.
func TestTransactionalIDExpiration(t *testing.T) {
	cfg := DefaultConfig()
	cfg.TransactionalIDExpiration = 2 * time.Hour
	cfg.TransactionMaxTimeout = 10 * time.Hour
	w := newWorld(t, cfg)
	w.producer("idle")
	w.take(w.c.HandleInitProducerID(w.now, client, model.InitProducerIDRequest{TransactionalID: "busy",
		TransactionTimeout: 9 * time.Hour, ProducerID: -1, ProducerEpoch: -1}))
	w.settle()
	w.add("busy", 102, 0, a0)
	w.advance(time.Hour)
	w.settle()
	if w.c.Metadata("idle") == nil {
		t.Fatal("expired too early")
	}
	w.advance(2 * time.Hour)
	w.settle()
	if w.c.Metadata("idle") != nil || w.c.Metadata("busy") == nil {
		t.Fatalf("after expiration: %v", w.c.TransactionalIDs())
	}
	if last := w.log[len(w.log)-1]; last.Value != "" {
		t.Fatalf("no tombstone: %q", last.Key)
	}
	if r := w.init("idle", model.NoProducerID, model.NoEpoch); r.ProducerID == 101 {
		t.Fatalf("an expired id kept its producer id: %v", r)
	}
}

// TestReplayGivesTheSameState follows loadTransactionsForTxnTopicPartition:
// a coordinator that replays the log answers as the one that wrote it,
// with the same state for every transactional id except the last epoch,
// which the record does not hold (nor, in value version 0, the previous
// and next producer ids), and it completes a transaction the log leaves
// prepared.
func TestReplayGivesTheSameState(t *testing.T) {
	for _, cfg := range []Config{tv1(), DefaultConfig()} {
		w := newWorld(t, cfg)
		p1, e1 := w.producer("one")
		w.add("one", p1, e1, a0, b0)
		w.endTxn("one", p1, e1, true)
		w.settle()
		p2, e2 := w.producer("two")
		w.add("two", p2, e2, a1)
		p3, e3 := w.producer("three")
		w.add("three", p3, e3, a0)
		w.endTxn("three", p3, e3, false) // prepared, markers unanswered
		w.sent = nil
		w.producer("four")
		w.producer("four")

		loaded := w.newCoordinator(8)
		for _, r := range w.log {
			if err := loaded.Replay(r); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(loaded.TransactionalIDs(), w.c.TransactionalIDs()) {
			t.Fatalf("ids %v, want %v", loaded.TransactionalIDs(), w.c.TransactionalIDs())
		}
		for _, id := range w.c.TransactionalIDs() {
			want := w.c.Metadata(id).Snapshot
			want.LastProducerEpoch = model.NoEpoch
			if cfg.logValueVersion() == 0 {
				// Value version 0 has no field for them.
				want.PrevProducerID, want.NextProducerID = model.NoProducerID, model.NoProducerID
			}
			if got := loaded.Metadata(id).Snapshot; !reflect.DeepEqual(got, want) {
				t.Errorf("tv%d %s: replayed %+v\nwritten %+v", cfg.TransactionVersion, id, got, want)
			}
		}
		// The loaded coordinator answers as the writer would.
		w.c.Close(w.now)
		w.c = loaded
		w.take(loaded.Loaded(w.now))
		if len(w.sent) != 1 || w.sent[0].Request.Markers[0].CoordinatorEpoch != 8 {
			t.Fatalf("tv%d: the prepared abort's markers: %v", cfg.TransactionVersion, w.sent)
		}
		w.settle()
		if m := loaded.Metadata("three"); m.State != CompleteAbort {
			t.Fatalf("tv%d: three: %+v", cfg.TransactionVersion, m.Snapshot)
		}
		if r := w.add("two", p2, e2, a1); r != model.NoError {
			t.Fatalf("tv%d: two's add: %v", cfg.TransactionVersion, r)
		}
		if r := w.endTxn("one", p1, e1, false); r.Error != model.InvalidTxnState {
			t.Fatalf("tv%d: one's abort after its commit: %v", cfg.TransactionVersion, r)
		}
	}
}

// TestFailedEpochFenceIsNotBumpedAgain follows endTransaction's
// hasFailedEpochFence: a fence whose write fails keeps its bump in
// memory (the caller is told COORDINATOR_NOT_AVAILABLE), and the next
// fence aborts at that epoch instead of bumping again.
func TestFailedEpochFenceIsNotBumpedAgain(t *testing.T) {
	w := newWorld(t, tv1())
	pid, e := w.producer("tx")
	w.add("tx", pid, e, a0)
	w.take(w.c.HandleInitProducerID(w.now, client, model.InitProducerIDRequest{TransactionalID: "tx",
		TransactionTimeout: time.Minute, ProducerID: -1, ProducerEpoch: -1}))
	w.ackWrites(model.NotEnoughReplicas)
	if r, _ := find[model.InitProducerIDResponse](w.last); r.Error != model.CoordinatorNotAvailable {
		t.Fatalf("failed fence: %v", r)
	}
	if m := w.c.Metadata("tx"); m.State != Ongoing || m.ProducerEpoch != e+1 || m.Pending() {
		t.Fatalf("after the failed fence: %+v", m.Snapshot)
	}
	w.init("tx", model.NoProducerID, model.NoEpoch)
	if len(w.sent) != 1 || w.sent[0].Request.Markers[0].ProducerEpoch != e+1 {
		t.Fatalf("second fence's markers: %v", w.sent)
	}
}

// TestEpochExhaustion follows prepareInitProducerIdTransit's rotation
// (a new producer id at epoch 0 once the epochs are exhausted) and, under
// transaction version 2, endTransaction's next producer id for an end
// that would exhaust them (prepareComplete moves to it).
func TestEpochExhaustion(t *testing.T) {
	w := newWorld(t, tv1())
	w.producer("tx")
	w.c.Metadata("tx").ProducerEpoch = maxEpoch - 1
	if r := w.init("tx", 101, maxEpoch-1); r.Error != model.NoError || r.ProducerID != 102 || r.ProducerEpoch != 0 {
		t.Fatalf("rotation: %v", r)
	}
	w = newWorld(t, DefaultConfig())
	pid, _ := w.producer("tx")
	w.c.Metadata("tx").ProducerEpoch = maxEpoch - 1
	w.add("tx", pid, maxEpoch-1, a0)
	r := w.endTxn("tx", pid, maxEpoch-1, true)
	w.settle()
	m := w.c.Metadata("tx")
	if r.Error != model.NoError || m.State != CompleteCommit || m.ProducerID != 102 || m.ProducerEpoch != 0 {
		t.Fatalf("end at the last epoch: %v, then %+v", r, m.Snapshot)
	}
	// The client's retry of that end, with the old id, is recognised.
	if r := w.endTxn("tx", pid, maxEpoch-1, true); r.Error != model.NoError || r.ProducerID != 102 {
		t.Fatalf("retry after the overflow: %v", r)
	}
}
