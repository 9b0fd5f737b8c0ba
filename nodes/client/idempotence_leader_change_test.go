package client

import (
	"fmt"
	"testing"

	"kafkasim/model"
	"kafkasim/nodes/storage"
	"kafkasim/sim"
)

// quiet is a node that does nothing: the test only needs its disk.
type quiet struct{}

func (quiet) Start(*sim.Env)                            {}
func (quiet) Receive(*sim.Env, sim.NodeID, sim.Message) {}
func (quiet) Fire(*sim.Env, sim.Timer)                  {}
func (quiet) Disconnected(*sim.Env, sim.NodeID)         {}

// The chain behind coordinator-failover seed 500017's duplicate (seen once
// the liveness phase runs past the 120 s delivery timeout), step by step
// against Kafka's own rules, with a partition log's producer state as the
// new leader's. Each step is what Kafka's producer does, so the duplicate
// is Kafka's behaviour, not a flaw of the simulation:
//
//  1. Batches A, B, C are written on the old leader (and replicated), but
//     their answers do not come back: the old leader is cut from the other
//     brokers, not from the producer, and answers NOT_LEADER_OR_FOLLOWER
//     only once it hears of the new leader.
//  2. Meanwhile a new batch D goes to the new leader: with A, B, C in
//     flight under the same epoch and nothing unresolved,
//     RecordAccumulator.shouldStopDrainBatchesForPartition lets it go. D
//     and four more batches are acknowledged: the broker keeps only the
//     last five (ProducerStateManager's NUM_BATCHES_TO_RETAIN), so A, B, C
//     are no longer recognised as duplicates.
//  3. A's retry gets OUT_OF_ORDER_SEQUENCE_NUMBER; it is not the next
//     sequence after the last acknowledged one, so
//     TransactionManager.canRetry retries it without a bump, until
//     delivery.timeout.ms expires it: its partition is then unresolved,
//     with B's sequence as the next (markSequenceUnresolved).
//  4. B's retry gets OUT_OF_ORDER too, and B is the next sequence of the
//     unresolved partition: canRetry takes that for a gap and asks for an
//     epoch bump, which rewrites B and C from sequence 0 under the new
//     epoch (bumpIdempotentProducerEpoch, startSequencesAtBeginning).
//  5. The broker takes a new epoch at sequence 0 as a new producer epoch
//     (ProducerAppendInfo.checkSequence) and appends B a second time.
//
// Kafka's producer had the evidence that A, B and C were written (the
// broker accepted D, which follows them in sequence) but does not use it.
func TestIdempotenceWritesABatchTwiceAfterALeaderChangeAsKafkaDoes(t *testing.T) {
	s := sim.New(sim.Config{Seed: 1, EventLimit: 100})
	s.AddNode(0, "b0", func() sim.Node { return quiet{} })
	s.Start(0)
	leader, _ := storage.Open(s.Disk(0), "t-0/", storage.DefaultConfig(), 0)

	tp := model.TP("t", 0)
	idem := newIdempotence(true)
	idem.setID(7, 0)
	n := 0
	newBatch := func(records int) *batch {
		b := &batch{tp: tp, pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence}
		for range records {
			b.recs = append(b.recs, model.Record{Value: fmt.Sprintf("v%d", n)})
			n++
		}
		return b
	}
	wire := func(b *batch) model.Batch { return model.NewBatch(b.pid, b.epoch, b.seq, b.recs...) }
	appendAt := func(b *batch) model.Offset {
		t.Helper()
		w := wire(b)
		dup, code := leader.Producers().CheckAppend(w)
		if code != model.NoError || dup != nil {
			t.Fatalf("batch at sequence %d epoch %d: %v (duplicate %v), want a new append", b.seq, b.epoch, code, dup != nil)
		}
		return leader.AppendAsLeader(&w, 1, 0).BaseOffset
	}

	// 1. A, B, C are written, their answers lost.
	a, b, c := newBatch(3), newBatch(1), newBatch(1)
	for _, x := range []*batch{a, b, c} {
		idem.assign(x)
		appendAt(x)
	}
	bFirst := model.Offset(3)
	// 2. A new batch may leave while they are in flight.
	d := newBatch(2)
	if idem.stopDrain(d) {
		t.Fatal("a new batch was held back while earlier ones were in flight under the same epoch; Kafka drains it")
	}
	idem.assign(d)
	idem.completed(d, appendAt(d))
	for range 4 {
		e := newBatch(1)
		idem.assign(e)
		idem.completed(e, appendAt(e))
	}
	// The old leader's NOT_LEADER_OR_FOLLOWER answers: retried as they are.
	for _, x := range []*batch{a, b, c} {
		if !idem.canRetry(x, model.NotLeaderOrFollower, 0) || idem.bumpRequired {
			t.Fatalf("NOT_LEADER_OR_FOLLOWER: retry %v, bump %v; want a retry without a bump", idem.canRetry(x, model.NotLeaderOrFollower, 0), idem.bumpRequired)
		}
	}

	// 3. A's retry is out of order, and retried without a bump until it
	// expires.
	if _, code := leader.Producers().CheckAppend(wire(a)); code != model.OutOfOrderSequenceNumber {
		t.Fatalf("A's retry: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER (the broker keeps five batches)", code)
	}
	if !idem.canRetry(a, model.OutOfOrderSequenceNumber, 0) || idem.bumpRequired {
		t.Fatal("A's OUT_OF_ORDER_SEQUENCE_NUMBER: Kafka retries a batch that is not the next sequence without a bump")
	}
	idem.failed(a, model.RequestTimedOut, false)
	idem.markUnresolved(a)
	idem.resolveSequences()
	if idem.bumpRequired {
		t.Fatal("resolving with B and C still in flight bumped the epoch; Kafka waits for them")
	}

	// 4. B's retry is out of order too, and as the unresolved partition's
	// next sequence it bumps the epoch and is rewritten from 0.
	if _, code := leader.Producers().CheckAppend(wire(b)); code != model.OutOfOrderSequenceNumber {
		t.Fatalf("B's retry: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", code)
	}
	if !idem.canRetry(b, model.OutOfOrderSequenceNumber, 0) || !idem.bumpRequired {
		t.Fatal("B's OUT_OF_ORDER_SEQUENCE_NUMBER right after the expired batch: Kafka asks for an epoch bump")
	}
	idem.bumpIfNeeded()
	if b.epoch != 1 || b.seq != 0 || c.epoch != 1 || c.seq != 1 {
		t.Fatalf("after the bump B is epoch %d seq %d and C epoch %d seq %d, want epoch 1 with sequences 0 and 1", b.epoch, b.seq, c.epoch, c.seq)
	}
	// The producer keeps what it rewrote, for the history: B and C, from
	// epoch 0 sequences 3 and 4. A, expired, is no longer in flight.
	got := idem.takeRewritten()
	want := []rewrite{{b: b, epoch: 0, seq: 3}, {b: c, epoch: 0, seq: 4}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("rewritten %+v, want B and C from epoch 0 sequences 3 and 4", got)
	}
	if again := idem.takeRewritten(); again != nil {
		t.Fatalf("rewritten is reported twice: %+v", again)
	}

	// 5. The broker appends B again.
	again := appendAt(b)
	if again == bFirst {
		t.Fatalf("B's rewritten retry went to its first offset %d", bFirst)
	}
	batches := leader.Read(0, 1<<20)
	copies := 0
	for _, x := range batches {
		for _, r := range x.Records {
			if r.Value == b.recs[0].Value {
				copies++
			}
		}
	}
	if copies != 2 {
		t.Fatalf("B's record %q is in the log %d times, want twice (offsets %d and %d)", b.recs[0].Value, copies, bFirst, again)
	}
}
