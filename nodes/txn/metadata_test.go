package txn

import (
	"errors"
	"testing"
	"time"

	"kafkasim/model"
)

const timeout = time.Minute

// apply prepares with f and completes the transition, failing the test on
// any error.
func apply(t *testing.T, m *Metadata, f func() (Snapshot, error)) {
	t.Helper()
	to, err := f()
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	if err := m.CompleteTransitionTo(to); err != nil {
		t.Fatalf("complete: %v", err)
	}
}

func newProducer(t *testing.T) *Metadata {
	m := NewMetadata("tx", 7, timeout, 0)
	apply(t, m, func() (Snapshot, error) { return m.PrepareIncrementProducerEpoch(timeout, model.NoEpoch, 1) })
	return m
}

// TestInitializeEpoch follows TransactionMetadataTest.testInitializeEpoch:
// a new producer gets epoch 0 and no last epoch.
func TestInitializeEpoch(t *testing.T) {
	m := newProducer(t)
	if m.ProducerEpoch != 0 || m.LastProducerEpoch != model.NoEpoch || m.State != Empty || m.Pending() {
		t.Fatalf("after init: %+v", m.Snapshot)
	}
}

// TestNormalEpochBump follows testNormalEpochBump: a producer that says
// its current epoch gets the next, with the old one as its last epoch.
func TestNormalEpochBump(t *testing.T) {
	m := newProducer(t)
	apply(t, m, func() (Snapshot, error) { return m.PrepareIncrementProducerEpoch(timeout, 0, 2) })
	if m.ProducerEpoch != 1 || m.LastProducerEpoch != 0 {
		t.Fatalf("after bump: %+v", m.Snapshot)
	}
	// testAttemptedEpochBumpWithLastEpoch: the retry of that bump keeps it.
	apply(t, m, func() (Snapshot, error) { return m.PrepareIncrementProducerEpoch(timeout, 0, 3) })
	if m.ProducerEpoch != 1 || m.LastProducerEpoch != 0 {
		t.Fatalf("after retry: %+v", m.Snapshot)
	}
}

// TestAttemptedEpochBumpWithNewerEpoch follows
// testAttemptedEpochBumpWithNewerEpoch and the zombie case: an epoch that
// is neither current nor last is PRODUCER_FENCED, and nothing is pending.
func TestAttemptedEpochBumpWithNewerEpoch(t *testing.T) {
	m := newProducer(t)
	for _, e := range []model.Epoch{5, 3} {
		if _, err := m.PrepareIncrementProducerEpoch(timeout, e, 2); !errors.Is(err, ErrProducerFenced) {
			t.Fatalf("expected epoch %d: err %v, want PRODUCER_FENCED", e, err)
		}
	}
	if m.Pending() {
		t.Fatal("a fenced bump left a pending state")
	}
}

// TestBumpEpochNotAllowedIfEpochsExhausted follows the Kafka test of that
// name; TestRotateProducerID follows testRotateProducerId.
func TestBumpEpochNotAllowedIfEpochsExhausted(t *testing.T) {
	m := newProducer(t)
	m.ProducerEpoch = maxEpoch - 1
	if _, err := m.PrepareIncrementProducerEpoch(timeout, maxEpoch-1, 2); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("bump at Short.MaxValue-1: %v", err)
	}
}

func TestRotateProducerID(t *testing.T) {
	m := newProducer(t)
	m.ProducerEpoch = maxEpoch - 1
	apply(t, m, func() (Snapshot, error) { return m.PrepareProducerIDRotation(8, timeout, 2, true) })
	if m.ProducerID != 8 || m.ProducerEpoch != 0 || m.LastProducerEpoch != maxEpoch-1 || m.PrevProducerID != 7 {
		t.Fatalf("after rotation: %+v", m.Snapshot)
	}
	// testRotateProducerIdInOngoingState: not while a transaction runs.
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAddPartitions([]model.TopicPartition{model.TP("t", 0)}, 3, false)
	})
	if _, err := m.PrepareProducerIDRotation(9, timeout, 4, false); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("rotation while Ongoing: %v", err)
	}
}

// TestFenceProducerNotAllowedIfItWouldOverflow follows the Kafka test:
// at Short.MaxValue the fence keeps the epoch instead of wrapping.
func TestFenceProducerNotAllowedIfItWouldOverflow(t *testing.T) {
	m := newProducer(t)
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAddPartitions([]model.TopicPartition{model.TP("t", 0)}, 2, false)
	})
	m.ProducerEpoch = maxEpoch
	to, err := m.PrepareFenceProducerEpoch()
	if err != nil || to.ProducerEpoch != maxEpoch {
		t.Fatalf("fence at max: %+v %v", to, err)
	}
	// Only one transition may be pending at a time.
	if _, err := m.PrepareAbortOrCommit(PrepareAbort, false, model.NoProducerID, 3, false); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("second prepare while pending: %v", err)
	}
	// PrepareEpochFence is never completed: the fence goes on as an abort.
	if err := m.CompleteTransitionTo(to); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("completing PrepareEpochFence: %v", err)
	}
}

// TestInvalidTransitions follows TransactionMetadataTest's invalid
// transition cases: each state accepts only its valid previous states.
func TestInvalidTransitions(t *testing.T) {
	m := newProducer(t) // Empty
	if _, err := m.PrepareAbortOrCommit(PrepareCommit, false, model.NoProducerID, 2, false); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("Empty to PrepareCommit: %v", err)
	}
	if _, err := m.PrepareComplete(2); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("Empty to CompleteAbort: %v", err)
	}
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAddPartitions([]model.TopicPartition{model.TP("t", 1)}, 2, false)
	})
	if _, err := m.PrepareDead(); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("Ongoing to Dead: %v", err)
	}
	if _, err := m.PrepareIncrementProducerEpoch(timeout, 0, 3); !errors.Is(err, ErrIllegalTransition) {
		t.Fatalf("Ongoing to Empty: %v", err)
	}
}

// TestCommitLifecycle walks Empty, Ongoing, PrepareCommit, CompleteCommit
// under transaction version 1: the epoch stays and the partitions empty
// at the end.
func TestCommitLifecycle(t *testing.T) {
	m := newProducer(t)
	tps := []model.TopicPartition{model.TP("b", 0), model.TP("a", 2)}
	apply(t, m, func() (Snapshot, error) { return m.PrepareAddPartitions(tps, 5, false) })
	apply(t, m, func() (Snapshot, error) { return m.PrepareAddPartitions(tps[:1], 6, false) })
	if m.StartTime != 5 || len(m.Partitions) != 2 || m.Partitions[0] != model.TP("a", 2) {
		t.Fatalf("ongoing: %+v", m.Snapshot)
	}
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAbortOrCommit(PrepareCommit, false, model.NoProducerID, 7, false)
	})
	apply(t, m, func() (Snapshot, error) { return m.PrepareComplete(8) })
	if m.State != CompleteCommit || m.ProducerEpoch != 0 || len(m.Partitions) != 0 {
		t.Fatalf("complete: %+v", m.Snapshot)
	}
}

// TestEpochBumpOnEndTxnForTV2 follows testEpochBumpOnEndTxnForTV2 (KIP-890
// part 2): ending a transaction bumps the epoch, last epoch the old one.
func TestEpochBumpOnEndTxnForTV2(t *testing.T) {
	m := newProducer(t)
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAddPartitions([]model.TopicPartition{model.TP("t", 0)}, 2, true)
	})
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAbortOrCommit(PrepareCommit, true, model.NoProducerID, 3, false)
	})
	if m.ProducerEpoch != 1 || m.LastProducerEpoch != 0 {
		t.Fatalf("prepare commit: %+v", m.Snapshot)
	}
	apply(t, m, func() (Snapshot, error) { return m.PrepareComplete(4) })
	if m.State != CompleteCommit || m.ProducerEpoch != 1 || m.ProducerID != 7 {
		t.Fatalf("complete: %+v", m.Snapshot)
	}
}

// TestEpochBumpOnEndTxnForTV2WithOverflow follows the Kafka test of that
// name: at Short.MaxValue-1 the end allocates the next producer id, and
// completion moves to it at epoch 0.
func TestEpochBumpOnEndTxnForTV2WithOverflow(t *testing.T) {
	m := newProducer(t)
	m.ProducerEpoch = maxEpoch - 1
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAddPartitions([]model.TopicPartition{model.TP("t", 0)}, 2, true)
	})
	apply(t, m, func() (Snapshot, error) { return m.PrepareAbortOrCommit(PrepareCommit, true, 9, 3, false) })
	if m.ProducerEpoch != maxEpoch || m.NextProducerID != 9 {
		t.Fatalf("prepare commit: %+v", m.Snapshot)
	}
	apply(t, m, func() (Snapshot, error) { return m.PrepareComplete(4) })
	if m.ProducerID != 9 || m.ProducerEpoch != 0 || m.PrevProducerID != 7 || m.LastProducerEpoch != maxEpoch-1 {
		t.Fatalf("complete: %+v", m.Snapshot)
	}
}

// TestEmptyAbortForTV2: with version 2 a client may abort from Empty.
func TestEmptyAbortForTV2(t *testing.T) {
	m := newProducer(t)
	apply(t, m, func() (Snapshot, error) {
		return m.PrepareAbortOrCommit(PrepareAbort, true, model.NoProducerID, 3, true)
	})
	apply(t, m, func() (Snapshot, error) { return m.PrepareComplete(4) })
	if m.State != CompleteAbort || m.ProducerEpoch != 1 {
		t.Fatalf("complete: %+v", m.Snapshot)
	}
}

// TestPartitionFor pins the partition of a transactional.id to Kafka's
// Utils.abs(String.hashCode) % n, including the Integer.MIN_VALUE case
// ("polygenelubricants".hashCode() is Integer.MIN_VALUE).
func TestPartitionFor(t *testing.T) {
	cases := []struct {
		id   string
		n    int32
		want int32
	}{
		{"tx", 50, 3716 % 50}, // "tx".hashCode() = 116*31+120
		{"polygenelubricants", 50, 0},
		{"", 50, 0},
	}
	for _, c := range cases {
		if got := PartitionFor(c.id, c.n); got != c.want {
			t.Errorf("PartitionFor(%q, %d) = %d, want %d", c.id, c.n, got, c.want)
		}
	}
}
