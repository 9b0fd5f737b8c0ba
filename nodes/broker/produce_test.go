package broker

import (
	"testing"
	"time"

	"kafkasim/model"
)

// A batch whose CRC does not match its content, or whose records are
// misnumbered, is refused with CORRUPT_MESSAGE before anything else, and
// nothing of it reaches the log; an intact one after it is appended.
func TestACorruptBatchIsRefusedAndNotAppended(t *testing.T) {
	r := newRig(t, testConfig())
	send := func(at time.Duration, b model.Batch) {
		r.s.At(at, "produce", func() {
			r.s.SendAs(clientID, 1, model.ProduceRequest{CorrelationID: 1, Acks: model.AcksLeader, Timeout: 30 * time.Second, TP: r.tp, Batch: b})
		})
	}
	flipped := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "a"}, model.Record{Value: "b"})
	flipped.Records[1].Value = "c" // after sealing: the CRC no longer matches
	misnumbered := model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "a"}, model.Record{Value: "b"})
	misnumbered.Records[1].Offset = 5
	misnumbered.Seal() // the CRC matches, the offsets do not follow
	send(2*time.Second, flipped)
	send(2*time.Second+10*time.Millisecond, misnumbered)
	send(2*time.Second+20*time.Millisecond, model.NewBatch(model.NoProducerID, model.NoEpoch, model.NoSequence, model.Record{Value: "ok"}))
	r.s.Run(3 * time.Second)

	got := *r.answers
	if len(got) != 3 || got[0].Error != model.CorruptMessage || got[1].Error != model.CorruptMessage || got[2].Error != model.NoError {
		t.Fatalf("answers %v: want CORRUPT_MESSAGE twice, then NONE", got)
	}
	if got[2].BaseOffset != 0 {
		t.Fatalf("the intact batch went to %d: a refused batch took offsets", got[2].BaseOffset)
	}
	if v := r.replica(1); v.LEO != 1 {
		t.Fatalf("leader LEO %d, want 1", v.LEO)
	}
}
