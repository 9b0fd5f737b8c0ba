package client

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// drainHead takes the head batch of tp's queue as the sender does: closed
// for appends, with its wire batch built and sealed in *seal, as the
// producer's sealBuf.
func drainHead(a *accumulator, tp model.TopicPartition, seal *[]byte) (*batch, model.Batch) {
	q := a.queue(tp)
	b := (*q)[0]
	*q = slices.Delete(*q, 0, 1)
	b.full = true
	return b, b.wire(seal)
}

func wireValues(w model.Batch) []string {
	var out []string
	for _, r := range w.Records {
		out = append(out, r.Value)
	}
	return out
}

// A sent batch's records are shared with every attempt's wire batch.
// Whatever the accumulator does afterwards (more batches, open batches
// that grow, released batches reused), a batch released with its records
// still readable keeps them as they were sent: a message in flight still
// carries them.
func TestAccumulatorRecordsOutliveTheirBatch(t *testing.T) {
	c := model.DefaultConfig().Producer
	c.BatchSize = int32(batchOverhead + 5*recordBytes("", "v000")) // 5 records a batch
	a := newAccumulator(c)
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1)}
	type sent struct {
		wire model.Batch
		want []string
	}
	var wires []sent
	var seal []byte
	op := 0
	for round := 0; round < 60; round++ {
		// Records interleave over both partitions.
		for _, tp := range tps {
			for k := 0; k < 1+round%4; k++ {
				a.append(tp, pendingRecord{op: op, value: fmt.Sprintf("v%03d", op%1000), ts: time.Duration(op)}, 0)
				op++
			}
			q := a.queue(tp)
			if len(*q) > 1 { // the head was closed by the record that did not fit
				b, w := drainHead(&a, tp, &seal)
				if !w.Valid() {
					t.Fatalf("round %d: wire batch %v is not valid", round, w)
				}
				for i, o := range b.ops {
					if got, want := w.Records[i].Value, fmt.Sprintf("v%03d", o%1000); got != want {
						t.Fatalf("round %d: record %d of the batch is %s, its op %d sent %s", round, i, got, o, want)
					}
				}
				wires = append(wires, sent{wire: w, want: wireValues(w)})
				a.release(b, false)
			}
		}
	}
	if len(wires) < 40 {
		t.Fatalf("only %d batches sent", len(wires))
	}
	for i, s := range wires {
		if got := wireValues(s.wire); !slices.Equal(got, s.want) || !s.wire.Valid() {
			t.Fatalf("sent batch %d now holds %v (valid %v), was sent with %v", i, got, s.wire.Valid(), s.want)
		}
	}
}

// An open batch that outgrows its arrays moves to larger ones whole: its
// records stay in order, numbered from 0, with their ops, and its wire
// batch leaves no room beyond them.
func TestAccumulatorOpenBatchGrows(t *testing.T) {
	a := newAccumulator(model.DefaultConfig().Producer) // batch.size 16384: one open batch
	tp := model.TP("t", 0)
	n := 3*recsCap + 5
	for i := 0; i < n; i++ {
		a.append(tp, pendingRecord{op: 100 + i, value: fmt.Sprintf("v%d", i)}, 0)
	}
	q := a.queue(tp)
	if len(*q) != 1 {
		t.Fatalf("%d batches, want one open batch", len(*q))
	}
	b := (*q)[0]
	if len(b.recs) != n || len(b.ops) != n {
		t.Fatalf("batch holds %d records and %d ops, want %d", len(b.recs), len(b.ops), n)
	}
	for i := range b.recs {
		if b.recs[i].Offset != model.Offset(i) || b.recs[i].Value != fmt.Sprintf("v%d", i) || b.ops[i] != 100+i {
			t.Fatalf("record %d is %+v with op %d", i, b.recs[i], b.ops[i])
		}
	}
	var buf []byte
	if w := b.wire(&buf); cap(w.Records) != len(w.Records) {
		t.Errorf("the wire batch's records have room beyond them (cap %d, len %d): an append to them would write over the batch's", cap(w.Records), len(w.Records))
	}
}

// A producer that releases its batches with their records free appends
// without allocating at all; one that releases them with their records
// still readable never writes over them, and pays a pair of arrays per
// batch.
func TestAccumulatorReusesReleasedBatches(t *testing.T) {
	c := model.DefaultConfig().Producer
	c.BatchSize = int32(batchOverhead + 2*recordBytes("", "v0")) // 2 records a batch
	for _, free := range []bool{true, false} {
		a := newAccumulator(c)
		tp := model.TP("t", 0)
		rec := pendingRecord{op: 1, value: "v0"}
		var sent []*model.Record // the first record of each released batch
		var seal []byte
		round := func() {
			for k := 0; k < 4; k++ {
				a.append(tp, rec, 0)
			}
			for len(*a.queue(tp)) > 1 {
				b, _ := drainHead(&a, tp, &seal)
				sent = append(sent, &b.recs[0])
				a.release(b, free)
			}
		}
		round()
		avg := testing.AllocsPerRun(160, round)
		arrays := map[*model.Record]bool{}
		for _, r := range sent {
			arrays[r] = true
		}
		switch {
		case free && avg != 0:
			t.Errorf("records free: %.3f allocations per round of 4 records in 2-record batches, want none", avg)
		case free && len(arrays) > 3:
			t.Errorf("records free: %d batches sent from %d arrays, want the same few", len(sent), len(arrays))
		case !free && len(arrays) != len(sent):
			t.Errorf("records readable: %d batches sent from %d arrays, want each its own", len(sent), len(arrays))
		}
	}
}

// The wire batch is the one model.NewBatchOf builds from the batch's
// identity and records, CRC included, with or without idempotence, when
// one seal buffer serves batches of every size in turn; and it stays so
// once the buffer has served later batches (nothing sent refers to it).
// A batch too large for the buffer to be kept leaves it empty.
func TestWireMatchesNewBatchOf(t *testing.T) {
	var seal []byte
	var sent, wants []model.Batch
	huge := strings.Repeat("h", sealKeepMax)
	for i, n := range []int{3, 1, 40, 2, 0, 1} {
		b := &batch{pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence}
		for k := 0; k < n; k++ {
			v := fmt.Sprintf("v%d", k*k)
			if i == 5 {
				v = huge
			}
			b.recs = append(b.recs, model.Record{Offset: model.Offset(k), Timestamp: time.Duration(k), Value: v})
		}
		for _, idem := range []bool{false, true} {
			pid, epoch, seq := model.NoProducerID, model.NoEpoch, model.NoSequence
			if idem {
				pid, epoch, seq = 9, 2, int32(7*i)
				b.pid, b.epoch, b.seq = pid, epoch, seq
			}
			want := model.NewBatch(pid, epoch, seq, b.recs...)
			got := b.wire(&seal)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("batch of %d, idempotent %v: wire %+v, NewBatch %+v", n, idem, got, want)
			}
			sent, wants = append(sent, got), append(wants, want)
			if i == 5 && seal != nil {
				t.Fatalf("the seal buffer kept %d bytes of room after a batch of one %d-byte record, want none past %d", cap(seal), len(huge), sealKeepMax)
			}
		}
	}
	for i := range sent {
		if !sent[i].Valid() || !reflect.DeepEqual(sent[i], wants[i]) {
			t.Fatalf("wire batch %d changed once the seal buffer served later batches: %+v, want %+v", i, sent[i], wants[i])
		}
	}
}
