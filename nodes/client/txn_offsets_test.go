package client

import (
	"testing"

	"kafkasim/model"
)

// txnInProgress is a transactional producer with a transaction under way
// and a sendOffsetsToTransaction call for two partitions, whose
// AddOffsetsToTxn the coordinator accepted: its TxnOffsetCommit is the
// request r.
func txnInProgress(t *testing.T) (*Producer, *txnRequest) {
	t.Helper()
	p := NewProducer(ProducerOptions{Bootstrap: []model.BrokerID{1}, Config: cfg(t), TransactionalID: "tx"})
	p.idem.setID(7, 3)
	p.txn.state, p.txn.coordinator = txnInTransaction, 1
	p.txn.groupCoordinator, p.txn.groupKey = 2, "g"
	o := &txnOffsets{GroupMetadata: GroupMetadata{GroupID: "g", GenerationID: 4, MemberID: "m-1", GroupInstanceID: "i-1"},
		pending: []model.CommitOffset{{TP: model.TP("in", 0), Offset: 10}, {TP: model.TP("in", 1), Offset: 20}}}
	p.txn.offsets = o
	add := &txnRequest{kind: txnAddOffsets, pid: 7, epoch: 3, offsets: o}
	p.handleTxnAddOffsets(add, model.AddOffsetsToTxnResponse{})
	if len(p.txn.pending) != 1 || p.txn.pending[0].kind != txnOffsetCommit || !p.txn.started {
		t.Fatalf("after AddOffsetsToTxn NONE: pending %+v started %v, want the TxnOffsetCommit", p.txn.pending, p.txn.started)
	}
	r := p.txn.pending[0]
	p.txn.pending = nil
	return p, r
}

func answer(r *txnRequest, codes ...model.ErrorCode) model.TxnOffsetCommitResponse {
	var m model.TxnOffsetCommitResponse
	for i, c := range codes {
		m.Results = append(m.Results, model.PartitionResult{TP: model.TP("in", int32(i)), Error: c})
	}
	return m
}

// The TxnOffsetCommit carries the consumer's group metadata (KIP-447), goes
// to the group's coordinator, and goes before an EndTxn enqueued with it
// (both are ADD_PARTITIONS_OR_OFFSETS, above END_TXN).
func TestTxnOffsetCommitCarriesTheGroupMetadata(t *testing.T) {
	p, r := txnInProgress(t)
	m := p.txnMessage(r, 9).(model.TxnOffsetCommitRequest)
	if m.GroupID != "g" || m.GenerationID != 4 || m.MemberID != "m-1" || m.GroupInstanceID != "i-1" || m.ProducerID != 7 || m.ProducerEpoch != 3 || len(m.Offsets) != 2 {
		t.Fatalf("request %v", m)
	}
	if got := p.txn.coordinatorOf(r); got != 2 {
		t.Fatalf("sent to %v, want the group coordinator 2", got)
	}
	p.txn.enqueue(&txnRequest{kind: txnEndTxn, commit: true})
	p.txn.enqueue(r)
	if p.txn.pending[0] != r {
		t.Fatalf("queue %v: the TxnOffsetCommit must go first", p.txn.pending)
	}
}

// TxnOffsetCommitHandler.handleResponse's classification.
func TestTxnOffsetCommitErrors(t *testing.T) {
	cases := []struct {
		name    string
		codes   []model.ErrorCode
		state   txnState
		done    bool
		failed  bool
		pending int // offsets left to send again
	}{
		{"all committed", []model.ErrorCode{model.NoError, model.NoError}, txnInTransaction, true, false, 0},
		{"coordinator moved", []model.ErrorCode{model.NoError, model.NotCoordinator}, txnInTransaction, false, false, 1},
		{"coordinator loading", []model.ErrorCode{model.CoordinatorLoadInProgress, model.CoordinatorLoadInProgress}, txnInTransaction, false, false, 2},
		{"illegal generation", []model.ErrorCode{model.IllegalGeneration, model.IllegalGeneration}, txnAbortableError, false, true, 0},
		{"unknown member", []model.ErrorCode{model.UnknownMemberID, model.UnknownMemberID}, txnAbortableError, false, true, 0},
		{"fenced instance", []model.ErrorCode{model.FencedInstanceID, model.FencedInstanceID}, txnAbortableError, false, true, 0},
		{"producer fenced", []model.ErrorCode{model.ProducerFenced, model.ProducerFenced}, txnFatalError, false, true, 0},
		{"old coordinator's fencing", []model.ErrorCode{model.InvalidProducerEpoch, model.InvalidProducerEpoch}, txnFatalError, false, true, 0},
		{"unexpected", []model.ErrorCode{model.UnknownServerError, model.NoError}, txnFatalError, false, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, r := txnInProgress(t)
			p.handleTxnOffsetCommit(r, answer(r, c.codes...))
			o := r.offsets
			if p.txn.state != c.state || o.done != c.done || (o.failed != "") != c.failed || len(o.pending) != c.pending {
				t.Fatalf("state %v done %v failed %q pending %v", p.txn.state, o.done, o.failed, o.pending)
			}
			retried := len(p.txn.pending) > 0 && p.txn.pending[len(p.txn.pending)-1] == r
			if retried != (c.pending > 0) {
				t.Fatalf("retried %v, queue %+v", retried, p.txn.pending)
			}
			if c.codes[1] == model.NotCoordinator && (p.txn.groupCoordinator != model.NoBroker || p.txn.pending[0].kind != txnFindCoordinator || p.txn.pending[0].group != "g") {
				t.Fatalf("the group's coordinator is not looked up again: %v %+v", p.txn.groupCoordinator, p.txn.pending[0])
			}
			if c.state == txnFatalError && p.txn.lastErr == model.InvalidProducerEpoch {
				t.Fatalf("INVALID_PRODUCER_EPOCH must be taken as PRODUCER_FENCED")
			}
		})
	}
}

// AddOffsetsToTxnHandler.handleResponse: retriable errors retry, a fenced
// producer is fatal, an unknown producer id makes the transaction
// abortable with an epoch bump.
func TestAddOffsetsToTxnErrors(t *testing.T) {
	for _, c := range []struct {
		code  model.ErrorCode
		state txnState
		retry bool
	}{
		{model.ConcurrentTransactions, txnInTransaction, true},
		{model.CoordinatorLoadInProgress, txnInTransaction, true},
		{model.ProducerFenced, txnFatalError, false},
		{model.InvalidTxnState, txnFatalError, false},
		{model.InvalidProducerIDMapping, txnAbortableError, false},
		{model.TransactionAbortable, txnAbortableError, false},
	} {
		p := NewProducer(ProducerOptions{Bootstrap: []model.BrokerID{1}, Config: cfg(t), TransactionalID: "tx"})
		p.txn.state, p.txn.coordinator = txnInTransaction, 1
		o := &txnOffsets{GroupMetadata: GroupMetadata{GroupID: "g"}}
		r := &txnRequest{kind: txnAddOffsets, offsets: o}
		p.handleTxnAddOffsets(r, model.AddOffsetsToTxnResponse{Error: c.code})
		retried := len(p.txn.pending) == 1 && p.txn.pending[0] == r
		if p.txn.state != c.state || retried != c.retry || (o.failed != "") == c.retry {
			t.Errorf("%v: state %v retried %v failed %q", c.code, p.txn.state, retried, o.failed)
		}
		if c.code == model.InvalidProducerIDMapping && !p.txn.bumpRequired {
			t.Errorf("%v: no epoch bump asked", c.code)
		}
	}
}
