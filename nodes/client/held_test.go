package client

import (
	"slices"
	"testing"

	"kafkasim/model"
)

// TestHeldBehindAcknowledged: batches 0-1 and 2-3 leave for a leader; 2-3
// is acknowledged (by a new leader that had 0-1 replicated), and the retry
// of 0-1 is answered OUT_OF_ORDER_SEQUENCE_NUMBER. canRetry retries it as
// it is, without a bump, and the producer reports the partition held. The
// nearby cases are not held: the same retry before the broker refused it
// as out of order, the batch right after the last acknowledged one (a real
// gap, which bumps the epoch), a batch whose sequence a bump rewrote, and
// a producer without idempotence. A bump for another partition leaves the
// hold in place.
func TestHeldBehindAcknowledged(t *testing.T) {
	tp := model.TP("t", 0)
	newBatch := func(n int) *batch {
		return &batch{tp: tp, recs: make([]model.Record, n), pid: model.NoProducerID, epoch: model.NoEpoch, seq: model.NoSequence}
	}
	type setup struct {
		p    *Producer
		a, b *batch
	}
	start := func() setup {
		p := &Producer{idem: newIdempotence(true)}
		p.idem.setID(7, 0)
		p.acc.tps = []model.TopicPartition{tp}
		a, b := newBatch(2), newBatch(2)
		p.idem.assign(a)
		p.idem.assign(b)
		return setup{p, a, b}
	}
	// answer is what completeBatch does with an error answer that canRetry
	// lets the batch retry.
	answer := func(t *testing.T, s setup, b *batch, err model.ErrorCode) {
		t.Helper()
		b.lastError = err
		if !s.p.idem.canRetry(b, err, 0) {
			t.Fatalf("canRetry(%v) refused seq %d", err, b.seq)
		}
		b.attempts++
	}

	t.Run("behind the acknowledged sequence", func(t *testing.T) {
		s := start()
		s.p.idem.completed(s.b, 12)
		answer(t, s, s.a, model.NotLeaderOrFollower)
		if got := s.p.HeldBehindAcknowledged(0); got != nil {
			t.Fatalf("held after NOT_LEADER_OR_FOLLOWER: %v", got)
		}
		answer(t, s, s.a, model.OutOfOrderSequenceNumber)
		if s.p.idem.bumpRequired {
			t.Fatalf("a batch behind the acknowledged one asked for an epoch bump")
		}
		if got := s.p.HeldBehindAcknowledged(0); !slices.Equal(got, []model.TopicPartition{tp}) {
			t.Fatalf("held %v, want [t/0]", got)
		}
	})
	t.Run("until an acknowledgement follows", func(t *testing.T) {
		// The held batch expires and the epoch bump re-sequences what
		// waited: the partition is still held until a batch is
		// acknowledged under the new epoch.
		s := start()
		s.p.idem.completed(s.b, 12)
		answer(t, s, s.a, model.NotLeaderOrFollower)
		answer(t, s, s.a, model.OutOfOrderSequenceNumber)
		s.a.done = true
		s.p.idem.removeInflight(s.a)
		s.p.idem.requestBump(tp)
		s.p.idem.bumpIfNeeded()
		if got := s.p.HeldBehindAcknowledged(0); !slices.Equal(got, []model.TopicPartition{tp}) {
			t.Fatalf("held %v after the held batch expired and the epoch was bumped, want [t/0]", got)
		}
		c := newBatch(2)
		s.p.idem.assign(c)
		s.p.idem.completed(c, 14)
		if got := s.p.HeldBehindAcknowledged(0); got != nil {
			t.Fatalf("held %v after an acknowledgement", got)
		}
	})
	t.Run("the next sequence", func(t *testing.T) {
		s := start()
		s.p.idem.completed(s.a, 10) // 0-1 acknowledged: 2-3 is next
		answer(t, s, s.b, model.OutOfOrderSequenceNumber)
		if !s.p.idem.bumpRequired {
			t.Fatalf("a gap right after the acknowledged sequence did not ask for a bump")
		}
		if got := s.p.HeldBehindAcknowledged(0); got != nil {
			t.Fatalf("held %v for the next sequence", got)
		}
		s.p.idem.bumpIfNeeded()
		if !s.b.seqReset {
			t.Fatalf("the bump did not rewrite the in-flight batch")
		}
		answer(t, s, s.b, model.OutOfOrderSequenceNumber)
		if got := s.p.HeldBehindAcknowledged(0); got != nil {
			t.Fatalf("held %v after the bump rewrote the sequence", got)
		}
	})
	t.Run("after an epoch bump for another partition", func(t *testing.T) {
		// Another partition asks for a bump while 0-1 is still in
		// flight here: this partition's entry and batch stay on epoch
		// 0 (TransactionManager.hasStaleProducerIdAndEpoch), and the
		// retry behind its acknowledged sequence holds it all the same
		// (reassign-under-chaos seed 99506733).
		s := start()
		s.p.idem.completed(s.b, 12)
		s.p.idem.requestBump(model.TP("t", 1))
		s.p.idem.bumpIfNeeded()
		if s.p.idem.epoch != 1 || s.a.epoch != 0 {
			t.Fatalf("epochs: producer %d, batch %d; want 1 and 0", s.p.idem.epoch, s.a.epoch)
		}
		answer(t, s, s.a, model.NotLeaderOrFollower)
		answer(t, s, s.a, model.OutOfOrderSequenceNumber)
		if got := s.p.HeldBehindAcknowledged(0); !slices.Equal(got, []model.TopicPartition{tp}) {
			t.Fatalf("held %v, want [t/0]", got)
		}
	})
	t.Run("not idempotent", func(t *testing.T) {
		s := start()
		s.p.idem.completed(s.b, 12)
		answer(t, s, s.a, model.OutOfOrderSequenceNumber)
		s.p.idem.on = false
		if got := s.p.HeldBehindAcknowledged(0); got != nil {
			t.Fatalf("a producer without idempotence held %v", got)
		}
	})
}
