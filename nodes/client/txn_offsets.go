package client

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// sendOffsetsToTransaction (KIP-98, KIP-447): a consume-transform-produce
// application commits its input offsets inside its transaction, after
// TransactionManager.sendOffsetsToTransaction, AddOffsetsToTxnHandler and
// TxnOffsetCommitHandler. AddOffsetsToTxn asks the transaction
// coordinator to add the group's __consumer_offsets partition to the
// transaction (so the commit or abort marker reaches it); once it is
// added, TxnOffsetCommit goes to the group's coordinator with the
// consumer's generation, member id and group instance id, which the group
// coordinator checks (OffsetMetadataManager.validateTransactionalOffsetCommit),
// so that a zombie of an older generation is refused.

// GroupMetadata is ConsumerGroupMetadata: what KafkaConsumer.groupMetadata()
// hands the producer for sendOffsetsToTransaction.
type GroupMetadata struct {
	GroupID         string
	GenerationID    model.Epoch
	MemberID        string
	GroupInstanceID string
}

// txnOffsets is one sendOffsetsToTransaction call: its group metadata, the
// offsets not yet answered NONE (pendingTxnOffsetCommits), and its
// TransactionalRequestResult.
type txnOffsets struct {
	GroupMetadata
	pending []model.CommitOffset // sorted by partition
	done    bool                 // result.done()
	failed  string               // result.fail(): why, "" while not failed
}

// fail is result.fail: the call is over, with reason.
func (o *txnOffsets) fail(reason string) {
	if !o.done && o.failed == "" {
		o.failed = reason
	}
}

// coordinatorKey is TxnRequestHandler.coordinatorKey: the group for a
// TxnOffsetCommit or a group's FindCoordinator, "" (the transactional
// id) for the rest.
func (r *txnRequest) coordinatorKey() string {
	if r.kind == txnOffsetCommit {
		return r.offsets.GroupID
	}
	if r.kind == txnFindCoordinator {
		return r.group
	}
	return ""
}

// commitRequest is TxnOffsetCommitRequest.Builder's request with the
// offsets still pending.
func (o *txnOffsets) commitRequest(id string, pid model.ProducerID, epoch model.Epoch, corr int32) model.TxnOffsetCommitRequest {
	return model.TxnOffsetCommitRequest{
		CorrelationID: corr, TransactionalID: id, GroupID: o.GroupID, ProducerID: pid, ProducerEpoch: epoch,
		GenerationID: o.GenerationID, MemberID: o.MemberID, GroupInstanceID: o.GroupInstanceID,
		Offsets: slices.Clone(o.pending),
	}
}

// SendOffsetsToTransaction is KafkaProducer.sendOffsetsToTransaction's
// start (TransactionManager.sendOffsetsToTransaction): offsets, the
// positions after the records the transaction consumed, are committed
// for gm's group inside the transaction under way. It reports false when
// there is none or the transaction is in an error state, where Kafka
// throws (maybeFailWithError); TxnOffsetsSent then tells how the call
// ended.
func (p *Producer) SendOffsetsToTransaction(env *sim.Env, offsets []model.CommitOffset, gm GroupMetadata) bool {
	env = p.envOr(env)
	t := p.mustBeInTransaction("SendOffsetsToTransaction")
	if t.state != txnInTransaction {
		return false
	}
	o := &txnOffsets{GroupMetadata: gm, pending: slices.Clone(offsets)}
	slices.SortFunc(o.pending, func(a, b model.CommitOffset) int { return a.TP.Compare(b.TP) })
	t.offsets = o
	t.enqueue(&txnRequest{kind: txnAddOffsets, pid: p.idem.pid, epoch: p.idem.epoch, offsets: o})
	p.run(env)
	return true
}

// TxnOffsetsSent reports how the last SendOffsetsToTransaction of the
// transaction under way ended: done when every offset was committed into
// the transaction, failed (with why) when it failed; neither while it is
// under way, or when there was none.
func (p *Producer) TxnOffsetsSent() (done bool, failed string) {
	if p.txn == nil || p.txn.offsets == nil {
		return false, ""
	}
	return p.txn.offsets.done, p.txn.offsets.failed
}

// handleTxnAddOffsets is AddOffsetsToTxnHandler.handleResponse.
func (p *Producer) handleTxnAddOffsets(r *txnRequest, m model.AddOffsetsToTxnResponse) {
	t := p.txn
	fail := func(reason string) { r.offsets.fail(reason) }
	switch m.Error {
	case model.NoError:
		// The result completes when the TxnOffsetCommit is answered.
		t.enqueue(&txnRequest{kind: txnOffsetCommit, pid: p.idem.pid, epoch: p.idem.epoch, offsets: r.offsets})
		t.started = true
	case model.CoordinatorNotAvailable, model.NotCoordinator:
		t.lookupCoordinator()
		t.reenqueue(r)
	case model.UnknownProducerID, model.InvalidProducerIDMapping:
		fail(m.Error.String())
		t.abortableErrorIfPossible(m.Error)
	case model.InvalidProducerEpoch, model.ProducerFenced:
		// An older coordinator's INVALID_PRODUCER_EPOCH is taken as
		// PRODUCER_FENCED.
		fail(model.ProducerFenced.String())
		t.fatalError(model.ProducerFenced, "AddOffsetsToTxn: "+model.ProducerFenced.String())
	case model.InvalidTxnState:
		fail(m.Error.String())
		t.fatalError(m.Error, "AddOffsetsToTxn: "+m.Error.String())
	case model.TransactionAbortable:
		fail(m.Error.String())
		t.abortableError(m.Error, "AddOffsetsToTxn: "+m.Error.String())
	default:
		if m.Error.Retriable() {
			t.reenqueue(r) // CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, ...
			return
		}
		fail(m.Error.String())
		t.fatalError(m.Error, "AddOffsetsToTxn: unexpected "+m.Error.String())
	}
}

// handleTxnOffsetCommit is TxnOffsetCommitHandler.handleResponse: each
// partition answered NONE leaves the pending offsets; a coordinator error
// looks the group's coordinator up again (once) and, with any retriable
// error, the rest are sent again; a fenced instance, an unknown member or
// an illegal generation (the consumer's group metadata no longer matches:
// Kafka's CommitFailedException) make the transaction abortable; a fenced
// producer and anything unexpected are fatal.
func (p *Producer) handleTxnOffsetCommit(r *txnRequest, m model.TxnOffsetCommitResponse) {
	t, o := p.txn, r.offsets
	reloaded := false
results:
	for _, res := range m.Results {
		e := res.Error
		switch {
		case e == model.NoError:
			o.pending = slices.DeleteFunc(o.pending, func(c model.CommitOffset) bool { return c.TP == res.TP })
			continue
		case e == model.CoordinatorNotAvailable || e == model.NotCoordinator || e == model.RequestTimedOut:
			if !reloaded {
				reloaded = true
				t.lookup(o.GroupID)
			}
			continue
		case e.Retriable():
			continue // unknown partition, coordinator loading: retry with this coordinator
		case e == model.FencedInstanceID || e == model.TransactionAbortable:
			o.fail(e.String())
			t.abortableError(e, "TxnOffsetCommit: "+e.String())
		case e == model.UnknownMemberID || e == model.IllegalGeneration:
			o.fail(e.String())
			t.abortableError(e, "TxnOffsetCommit failed due to consumer group metadata mismatch: "+e.String())
		case e == model.InvalidProducerEpoch || e == model.ProducerFenced:
			o.fail(model.ProducerFenced.String())
			t.fatalError(model.ProducerFenced, "TxnOffsetCommit: "+model.ProducerFenced.String())
		default:
			o.fail(e.String())
			t.fatalError(e, "TxnOffsetCommit: unexpected "+e.String())
		}
		break results
	}
	switch {
	case o.failed != "":
		o.pending = nil
	case len(o.pending) == 0:
		o.done = true
	default:
		t.reenqueue(r) // the commits that failed with a retriable error
	}
}
