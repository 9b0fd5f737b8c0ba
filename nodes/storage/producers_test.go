package storage

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

const pid model.ProducerID = 42

// produce is the leader's path: check, then stamp and append unless the
// batch is a duplicate or rejected. It returns the offsets the producer is
// answered with.
func produce(t *testing.T, l *Log, b model.Batch) (model.Offset, model.ErrorCode) {
	t.Helper()
	dup, err := l.Producers().CheckAppend(b)
	if err != model.NoError {
		return model.NoOffset, err
	}
	if dup != nil {
		return dup.FirstOffset, model.NoError
	}
	stamped := b.Rebase(l.LEO(), 0)
	l.Append(stamped, 0)
	return stamped.BaseOffset, model.NoError
}

// seqBatch is a producer's unstamped batch of n records from sequence seq.
func seqBatch(pepoch model.Epoch, seq int32, n int) model.Batch {
	recs := make([]model.Record, n)
	for i := range recs {
		recs[i] = model.Record{Value: "x"}
	}
	return model.NewBatch(pid, pepoch, seq, recs...)
}

func TestDuplicateOfEachOfTheLastFiveGetsItsOriginalOffsets(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	l.Append(plain(0, 0, 3), 0) // other traffic, so offsets and sequences differ
	var offsets []model.Offset
	for i := 0; i < 7; i++ {
		off, err := produce(t, l, seqBatch(0, int32(2*i), 2))
		if err != model.NoError {
			t.Fatalf("batch %d: %v", i, err)
		}
		offsets = append(offsets, off)
	}
	leo := l.LEO()
	for i := 2; i < 7; i++ { // the last five
		off, err := produce(t, l, seqBatch(0, int32(2*i), 2))
		if err != model.NoError || off != offsets[i] {
			t.Fatalf("retry of batch %d: offset %d err %v, want its original offset %d", i, off, err, offsets[i])
		}
	}
	if l.LEO() != leo {
		t.Fatalf("duplicates were appended: LEO %d, was %d", l.LEO(), leo)
	}
	// The sixth-newest is forgotten: modern Kafka answers OUT_OF_ORDER
	// (only Kafka before 1.0 answered DUPLICATE_SEQUENCE_NUMBER).
	if _, err := produce(t, l, seqBatch(0, 2, 2)); err != model.OutOfOrderSequenceNumber {
		t.Fatalf("retry of the sixth-newest batch: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", err)
	}
	// A batch that overlaps a retained one without matching its range is
	// not a duplicate either.
	if _, err := produce(t, l, seqBatch(0, 12, 1)); err != model.OutOfOrderSequenceNumber {
		t.Fatalf("partial overlap: %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", err)
	}
}

func TestSequenceGapsAndEpochs(t *testing.T) {
	w := newWorld(t, 1)
	l, _ := w.open(smallSegments(1 << 20))
	// A producer the partition does not know is accepted at any sequence
	// (KIP-360: its state may have been deleted by retention).
	if _, err := produce(t, l, seqBatch(3, 17, 2)); err != model.NoError {
		t.Fatalf("unknown producer at sequence 17: %v, want accepted", err)
	}
	if _, err := produce(t, l, seqBatch(3, 20, 1)); err != model.OutOfOrderSequenceNumber {
		t.Fatalf("gap 19 -> 20: %v", err)
	}
	if _, err := produce(t, l, seqBatch(3, 19, 1)); err != model.NoError {
		t.Fatalf("next sequence 19: %v", err)
	}
	if _, err := produce(t, l, seqBatch(2, 20, 1)); err != model.InvalidProducerEpoch {
		t.Fatalf("older producer epoch: %v, want INVALID_PRODUCER_EPOCH", err)
	}
	if _, err := produce(t, l, seqBatch(4, 5, 1)); err != model.OutOfOrderSequenceNumber {
		t.Fatalf("new epoch not at sequence 0: %v", err)
	}
	if _, err := produce(t, l, seqBatch(4, 0, 3)); err != model.NoError {
		t.Fatalf("new epoch at sequence 0: %v", err)
	}
	// The new epoch forgot the old epoch's batches and continues at 3.
	e, _ := l.Producers().Lookup(pid)
	if e.ProducerEpoch != 4 || len(e.Batches) != 1 || e.Batches[0].LastSeq != 2 {
		t.Fatalf("entry after epoch bump %+v", e)
	}
	if _, err := produce(t, l, seqBatch(3, 19, 1)); err != model.InvalidProducerEpoch {
		t.Fatalf("retry from the fenced epoch: %v", err)
	}
	if _, err := produce(t, l, seqBatch(4, 3, 1)); err != model.NoError {
		t.Fatalf("sequence 3 in epoch 4: %v", err)
	}
	// Batches without idempotence skip every check.
	if dup, err := l.Producers().CheckAppend(plain(0, 0, 1)); dup != nil || err != model.NoError {
		t.Fatalf("non-idempotent batch: %v %v", dup, err)
	}
}

func TestSequenceWrapsAfterMaxInt32(t *testing.T) {
	if !inSequence(1<<31-1, 0) || inSequence(1<<31-1, 1) || !inSequence(-1, 0) || inSequence(4, 4) {
		t.Fatalf("inSequence does not follow Kafka's wrap")
	}
}

// producerSnapshot is every producer's state, for comparing two logs.
func producerSnapshot(p *ProducerState) map[model.ProducerID]ProducerEntry {
	m := map[model.ProducerID]ProducerEntry{}
	for _, id := range p.IDs() {
		m[id], _ = p.Lookup(id)
	}
	return m
}

// threeProducers appends nine rounds of a batch of two records from each
// of producers 1, 2 and 3; producer epoch 0 for rounds 0-4, 1 after.
func threeProducers(l *Log) {
	for i := 0; i < 9; i++ {
		for p := model.ProducerID(1); p <= 3; p++ {
			l.Append(batch(l.LEO(), model.Epoch(i/3), p, model.Epoch(i/5), int32(2*(i%5)), 2, 0), 0)
		}
	}
}

// A crash before any snapshot was written leaves nothing to start from:
// the load replays the whole log (rebuildProducerState from the log start)
// and arrives at the state the log had, every retained batch included.
func TestCrashWithoutASnapshotRebuildsFromTheLog(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(1 << 20) // one segment: no roll, so no snapshot
	l, _ := w.open(cfg)
	threeProducers(l)
	before := producerSnapshot(l.Producers())
	if len(before) != 3 || len(before[1].Batches) != 4 || before[1].ProducerEpoch != 1 {
		t.Fatalf("producer state %+v", before)
	}
	if n := len(l.Producers().SnapshotOffsets()); n != 0 {
		t.Fatalf("%d snapshots before the crash, want none", n)
	}
	w.crash()
	l2, _ := w.open(cfg)
	if after := producerSnapshot(l2.Producers()); !reflect.DeepEqual(after, before) {
		t.Fatalf("after reopen:\n%+v\nwant\n%+v", after, before)
	}
	// The load ends with a snapshot at the log end (rebuildProducerState).
	if got := l2.Producers().SnapshotOffsets(); !reflect.DeepEqual(got, []model.Offset{l2.LEO()}) {
		t.Fatalf("snapshots after the load %v, want one at the log end %d", got, l2.LEO())
	}
}

// A crash after segment rolls loads the snapshot of the last roll and
// replays the batches after it. By default the snapshot keeps every
// retained batch, so the state is the one before the crash.
func TestProducerStateReloadKeepsTheRetainedBatches(t *testing.T) {
	w := newWorld(t, 1)
	size := int64(len(model.AppendBatch(nil, batch(0, 0, 1, 0, 0, 2, 0))))
	cfg := smallSegments(4 * size) // four batches, eight offsets, per segment
	l, _ := w.open(cfg)
	threeProducers(l)
	before := producerSnapshot(l.Producers())
	w.crash()
	l2, _ := w.open(cfg)
	if after := producerSnapshot(l2.Producers()); !reflect.DeepEqual(after, before) {
		t.Fatalf("after reopen:\n%+v\nwant\n%+v", after, before)
	}
	if dup, code := l2.Producers().CheckAppend(seqBatchOf(1, 1, 2, 2)); dup == nil || code != model.NoError || dup.FirstOffset != 36 {
		t.Fatalf("retry of round 6 after the reload: %v %v, want the duplicate at 36", dup, code)
	}
}

// With Kafka's snapshot format (producer.snapshot.last.batch.only), the
// snapshot of the last roll keeps each producer's last batch only, and
// the load replays the batches after it; truncating and fetching the same
// batches again then reloads from the newest snapshot at or below the cut
// and replays the rest.
func TestProducerStateReloadsFromTheNewestSnapshot(t *testing.T) {
	w := newWorld(t, 1)
	size := int64(len(model.AppendBatch(nil, batch(0, 0, 1, 0, 0, 2, 0))))
	cfg := smallSegments(4 * size) // four batches, eight offsets, per segment
	cfg.SnapshotLastBatchOnly = true
	l, _ := w.open(cfg)
	threeProducers(l)
	before := producerSnapshot(l.Producers())
	if got, want := l.Producers().SnapshotOffsets(), []model.Offset{8, 16, 24, 32, 40, 48}; !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshots %v, want one at each roll %v", got, want)
	}
	w.crash()
	l2, _ := w.open(cfg)
	after := producerSnapshot(l2.Producers())
	for p := model.ProducerID(1); p <= 3; p++ {
		// Round 7's batch is in the snapshot at 48, round 8's after it.
		want := ProducerEntry{ProducerEpoch: 1, Batches: before[p].Batches[2:]}
		if !reflect.DeepEqual(after[p], want) {
			t.Fatalf("producer %d after reopen: %+v, want the snapshot's last batch and the one replayed after it %+v", p, after[p], want)
		}
	}
	// The retry of round 7's batch is still a duplicate; round 6's is no
	// longer recognised (Kafka answers OUT_OF_ORDER_SEQUENCE_NUMBER).
	if dup, code := l2.Producers().CheckAppend(seqBatchOf(1, 1, 4, 2)); dup == nil || code != model.NoError || dup.FirstOffset != 42 {
		t.Fatalf("retry of round 7: %v %v, want the duplicate at 42", dup, code)
	}
	if dup, code := l2.Producers().CheckAppend(seqBatchOf(1, 1, 2, 2)); dup != nil || code != model.OutOfOrderSequenceNumber {
		t.Fatalf("retry of round 6: %v %v, want OUT_OF_ORDER_SEQUENCE_NUMBER", dup, code)
	}

	var tail []model.Batch
	for off := model.Offset(20); off < l2.LEO(); {
		b, _ := l2.BatchAt(off)
		tail = append(tail, b)
		off = b.NextOffset()
	}
	l2.TruncateTo(20)
	if got, want := l2.Producers().SnapshotOffsets(), []model.Offset{8, 16, 20}; !reflect.DeepEqual(got, want) {
		t.Fatalf("snapshots after truncating to 20: %v, want %v (those past 20 deleted, one taken at 20)", got, want)
	}
	mid := producerSnapshot(l2.Producers())
	// From the snapshot at 16 (round 2 of producers 1 and 2, round 1 of
	// producer 3 as their last batches) and the batches at 16 and 18.
	if len(mid[1].Batches) != 2 || mid[1].Batches[1].FirstOffset != 18 || len(mid[3].Batches) != 2 || mid[3].Batches[1].FirstOffset != 16 {
		t.Fatalf("state after truncating to 20: %+v", mid)
	}
	for _, b := range tail {
		l2.Append(b, 0)
	}
	// Producer epoch 1 (round 5) dropped everything before it, so fetching
	// rounds 5-8 again gives the state the log had before the crash.
	if after := producerSnapshot(l2.Producers()); !reflect.DeepEqual(after, before) {
		t.Fatalf("after truncate and refetch:\n%+v\nwant\n%+v", after, before)
	}
}

// seqBatchOf is seqBatch for producer pid.
func seqBatchOf(pid model.ProducerID, pepoch model.Epoch, seq int32, n int) model.Batch {
	b := seqBatch(pepoch, seq, n)
	b.ProducerID = pid
	b.Seal()
	return b
}

// Appends record their batches in the producer state in runs (see
// foldProducers), and nothing can tell: a duplicate of the batch just
// appended is recognised at once, and batches that retention deletes
// before any read of the state still leave their producer known, as they
// did when every append recorded its batch.
func TestProducerStateSeesEveryAppendAndOutlivesRetention(t *testing.T) {
	w := newWorld(t, 1)
	cfg := smallSegments(200) // a few batches per segment
	cfg.RetentionBytes = 0    // delete every segment below the high watermark
	l, _ := w.open(cfg)
	for i := int32(0); i < 20; i++ {
		l.Append(seqBatch(0, 3*i, 3).Rebase(l.LEO(), 0), 0)
		if l.LEO()-l.producers.mapEnd >= foldAfter {
			t.Fatalf("after batch %d, %d offsets are not in the producer state", i, l.LEO()-l.producers.mapEnd)
		}
	}
	if l.producers.mapEnd == l.LEO() {
		t.Fatal("every append recorded its batch at once: nothing was left to fold")
	}
	if n := l.ApplyRetention(0, l.LEO()); n == 0 || l.LogStartOffset() == 0 {
		t.Fatalf("retention deleted %d segments, log start %d", n, l.LogStartOffset())
	}
	e, ok := l.Producers().Lookup(pid)
	if !ok || len(e.Batches) != BatchesRetained || e.Batches[BatchesRetained-1].LastSeq != 59 {
		t.Fatalf("producer state after retention: %+v, %v", e, ok)
	}
	// The retry of the last batch is a duplicate, answered with its
	// offsets; the next batch follows on.
	if off, code := produce(t, l, seqBatch(0, 57, 3)); code != model.NoError || off != 57 {
		t.Fatalf("retry of the last batch: %d, %v", off, code)
	}
	if off, code := produce(t, l, seqBatch(0, 60, 3)); code != model.NoError || off != 60 {
		t.Fatalf("the next batch: %d, %v", off, code)
	}
	if _, code := produce(t, l, seqBatch(0, 60, 3)); code != model.NoError || l.LEO() != 63 {
		t.Fatalf("a retry of the batch just appended: %v, LEO %d", code, l.LEO())
	}
}
