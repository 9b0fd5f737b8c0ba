package client

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// The transactional producer's requests to its coordinator, after
// Sender.maybeSendAndPollTransactionalRequest and the TxnRequestHandlers
// of TransactionManager (InitProducerIdHandler, AddPartitionsToTxnHandler,
// EndTxnHandler, FindCoordinatorHandler).

// txnPass is the transactional part of a sender pass, before any produce
// data: it reports whether the pass must stop there, as runOnce returns
// once maybeSendAndPollTransactionalRequest sent or waits on a
// transactional request, so that no batch leaves meanwhile.
func (p *Producer) txnPass(env *sim.Env) bool {
	t := p.txn
	p.txnResolveSequences()
	if t.state == txnFatalError {
		// Sender.runOnce: a fatal error aborts every batch not complete,
		// and nothing more is sent.
		p.abortBatches(env, "fatal: "+t.lastReason, true)
		p.txnApplication(env)
		return true
	}
	p.txnApplication(env)
	p.acc.completing = t.isCompleting()
	return p.sendTxnRequest(env)
}

// sendTxnRequest is maybeSendAndPollTransactionalRequest.
func (p *Producer) sendTxnRequest(env *sim.Env) bool {
	t := p.txn
	now := env.Now()
	if t.inFlight != nil {
		return true // hasInFlightRequest: wait for it
	}
	if t.hasError() || t.state == txnAborting {
		p.abortBatches(env, "aborted: "+t.abortReason(), false) // abortUndrainedBatches
	}
	if now < p.txnSleepUntil {
		return true // the sender sleeps out a retry's backoff
	}
	r := p.nextTxnRequest(env)
	if r == nil {
		return false
	}
	target := model.NoBroker
	if r.needsCoordinator() {
		if target = t.coordinatorOf(r); target == model.NoBroker {
			// maybeFindCoordinatorAndRetry: the FindCoordinator goes on
			// the next loop, at once.
			t.lookup(r.coordinatorKey())
			t.reenqueue(r)
			return p.sendTxnRequest(env)
		}
		if !p.net.ready(target, now) {
			// awaitNodeReady: the sender waits for the connection.
			t.requeue(r)
			return true
		}
	} else {
		b, ok := p.net.leastLoaded(p.md.brokers, now, &p.md.rr)
		if !ok {
			b, ok = p.net.leastLoaded(p.md.bootstrap, now, &p.md.rr)
		}
		if !ok {
			// No broker to ask: maybeFindCoordinatorAndRetry sleeps
			// retry.backoff.ms and retries.
			t.reenqueue(r)
			p.txnSleepUntil = now + t.backoff
			return true
		}
		target = b
	}
	if r.retry {
		// `if (nextRequestHandler.isRetry()) time.sleep(retryBackoffMs)`:
		// the sender thread sleeps, then sends.
		r.retry = false
		p.txnSleepUntil = now + r.backoff
		t.requeue(r)
		return true
	}
	req := p.net.send(env, target, reqTxn, p.cl.RequestTimeout, func(corr int32) sim.Message { return p.txnMessage(r, corr) })
	req.txn = r
	t.inFlight = r
	if r.kind == txnEndTxn && r.commit && p.cur != nil {
		p.cur.commitSent = true
	}
	return true
}

// nextTxnRequest is TransactionManager.nextRequest: new partitions are
// asked for first; EndTxn waits until every batch is complete; in an
// error state only FindCoordinator may go (the rest fail, and the
// application sees the error); and an EndTxn for a transaction that added
// nothing completes on the client.
func (p *Producer) nextTxnRequest(env *sim.Env) *txnRequest {
	t := p.txn
	if len(t.newParts) > 0 {
		t.enqueue(t.addPartitionsRequest(p.idem.pid, p.idem.epoch))
	}
	for len(t.pending) > 0 {
		r := t.pending[0]
		if r.isEndTxn() && p.hasIncomplete() {
			return nil
		}
		t.pending = t.pending[1:]
		if t.hasError() && !(t.state == txnAbortableError && r.kind == txnFindCoordinator) {
			if r.offsets != nil {
				r.offsets.fail(t.abortReason()) // maybeTerminateRequestWithError fails its result
			}
			continue // maybeTerminateRequestWithError
		}
		if r.isEndTxn() && !t.started {
			// Nothing reached the coordinator: the end is the client's.
			t.completeTransaction(p.idem.pid, p.idem.epoch)
			p.txnEnded(env, r.commit, "")
			continue
		}
		return r
	}
	return nil
}

// txnMessage builds the request of handler r under correlation id corr.
func (p *Producer) txnMessage(r *txnRequest, corr int32) sim.Message {
	t := p.txn
	switch r.kind {
	case txnFindCoordinator:
		if r.group != "" {
			return model.FindCoordinatorRequest{CorrelationID: corr, GroupID: r.group, KeyType: model.CoordinatorGroup}
		}
		return model.FindCoordinatorRequest{CorrelationID: corr, GroupID: t.id, KeyType: model.CoordinatorTransaction}
	case txnAddOffsets:
		return model.AddOffsetsToTxnRequest{CorrelationID: corr, TransactionalID: t.id, ProducerID: r.pid, ProducerEpoch: r.epoch, GroupID: r.offsets.GroupID}
	case txnOffsetCommit:
		return r.offsets.commitRequest(t.id, r.pid, r.epoch, corr)
	case txnInitProducerID, txnEpochBump:
		return model.InitProducerIDRequest{CorrelationID: corr, TransactionalID: t.id, TransactionTimeout: t.timeout, ProducerID: r.pid, ProducerEpoch: r.epoch}
	case txnAddPartitions:
		return model.AddPartitionsToTxnRequest{CorrelationID: corr, TransactionalID: t.id, ProducerID: r.pid, ProducerEpoch: r.epoch, Partitions: r.parts}
	default:
		return model.EndTxnRequest{CorrelationID: corr, TransactionalID: t.id, ProducerID: r.pid, ProducerEpoch: r.epoch, Committed: r.commit}
	}
}

// txnAnswered takes the answer to the transactional request in flight;
// it reports false for an answer to nothing (a late one).
func (p *Producer) txnAnswered(broker model.BrokerID, corr int32) *txnRequest {
	req := p.net.complete(broker, corr)
	if req == nil || req.kind != reqTxn || p.txn == nil || req.txn != p.txn.inFlight {
		return nil
	}
	p.txn.inFlight = nil
	return req.txn
}

// txnFailed is TxnRequestHandler.onComplete for a broken connection or a
// timeout: rediscover the coordinator if the request needed it, and retry.
func (p *Producer) txnFailed(r *txnRequest) {
	t := p.txn
	if t == nil || r != t.inFlight {
		return
	}
	t.inFlight = nil
	if r.needsCoordinator() {
		t.lookup(r.coordinatorKey())
	}
	t.reenqueue(r)
}

// handleTxnFindCoordinator is FindCoordinatorHandler.handleResponse.
func (p *Producer) handleTxnFindCoordinator(r *txnRequest, m model.FindCoordinatorResponse) {
	t := p.txn
	switch {
	case m.Error == model.NoError && m.Coordinator != model.NoBroker && r.group != "":
		t.groupCoordinator, t.groupKey = m.Coordinator, r.group
	case m.Error == model.NoError && m.Coordinator != model.NoBroker:
		t.coordinator = m.Coordinator
	case m.Error == model.NoError, m.Error == model.CoordinatorNotAvailable:
		t.reenqueue(r)
	default:
		t.fatalError(m.Error, "FindCoordinator: "+m.Error.String())
	}
}

// handleTxnInitProducerID is InitProducerIdHandler.handleResponse.
func (p *Producer) handleTxnInitProducerID(env *sim.Env, r *txnRequest, m model.InitProducerIDResponse) {
	t := p.txn
	switch m.Error {
	case model.NoError:
		aborting := t.state == txnAborting
		p.idem.setID(m.ProducerID, m.ProducerEpoch)
		if r.kind == txnEpochBump {
			p.idem.resetSequences()
		}
		t.transition(txnReady)
		if aborting {
			// The bump that replaced an EndTxn the coordinator would not
			// take (INVALID_PRODUCER_ID_MAPPING): the transaction is over.
			t.bumpRequired = false
			t.completeTransaction(p.idem.pid, p.idem.epoch)
			p.txnEnded(env, false, "")
		}
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		t.lookupCoordinator()
		t.reenqueue(r)
	case model.CoordinatorLoadInProgress, model.ConcurrentTransactions:
		t.reenqueue(r)
	case model.InvalidProducerEpoch, model.ProducerFenced:
		t.fatalError(model.ProducerFenced, "InitProducerId: "+model.ProducerFenced.String())
	default:
		t.fatalError(m.Error, "InitProducerId: "+m.Error.String())
	}
}

// handleTxnAddPartitions is AddPartitionsToTxnHandler.handleResponse.
func (p *Producer) handleTxnAddPartitions(r *txnRequest, m model.AddPartitionsToTxnResponse) {
	t := p.txn
	partitionErrors := false
	for _, res := range m.Results {
		switch res.Error {
		case model.NoError:
			continue
		case model.CoordinatorNotAvailable, model.NotCoordinator:
			t.lookupCoordinator()
			t.reenqueue(r)
			return
		case model.ConcurrentTransactions:
			// maybeOverrideRetryBackoffMs: the previous transaction is
			// still completing; the first add of the next one retries
			// sooner.
			if len(t.parts) == 0 {
				r.backoff = min(t.backoff, addPartitionsRetryBackoff)
			}
			t.reenqueue(r)
			return
		case model.CoordinatorLoadInProgress, model.UnknownTopicOrPartition:
			t.reenqueue(r)
			return
		case model.InvalidProducerEpoch, model.ProducerFenced:
			t.fatalError(model.ProducerFenced, "AddPartitionsToTxn: "+model.ProducerFenced.String())
			return
		case model.InvalidTxnState:
			t.fatalError(res.Error, "AddPartitionsToTxn: "+res.Error.String())
			return
		case model.UnknownProducerID, model.InvalidProducerIDMapping:
			t.abortableErrorIfPossible(res.Error)
			return
		default:
			partitionErrors = true
		}
	}
	// The partitions leave the pending set whatever the outcome.
	t.pendingParts = removeTPs(t.pendingParts, r.parts)
	if partitionErrors {
		t.abortableError(model.UnknownServerError, "AddPartitionsToTxn: "+model.ListString(m.Results))
		return
	}
	for _, tp := range r.parts {
		t.parts = insertTP(t.parts, tp)
	}
	t.started = true
}

// handleTxnEndTxn is EndTxnHandler.handleResponse.
func (p *Producer) handleTxnEndTxn(env *sim.Env, r *txnRequest, m model.EndTxnResponse) {
	t := p.txn
	switch m.Error {
	case model.NoError:
		p.endTxnIdentity(m)
		t.completeTransaction(p.idem.pid, p.idem.epoch)
		p.txnEnded(env, r.commit, "")
	case model.CoordinatorNotAvailable, model.NotCoordinator:
		t.lookupCoordinator()
		t.reenqueue(r)
	case model.InvalidProducerEpoch, model.ProducerFenced:
		t.fatalError(model.ProducerFenced, "EndTxn: "+model.ProducerFenced.String())
	case model.InvalidTxnState:
		t.fatalError(m.Error, "EndTxn: "+m.Error.String())
	case model.UnknownProducerID, model.InvalidProducerIDMapping:
		t.abortableErrorIfPossible(m.Error)
	default:
		if m.Error.Retriable() {
			// CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS and
			// the other retriable errors (RetriableException).
			t.reenqueue(r)
			return
		}
		t.fatalError(m.Error, "EndTxn: "+m.Error.String())
	}
}

// endTxnIdentity takes the producer id and epoch an EndTxn answer gives
// (EndTxn version 5, transaction version 2: the coordinator bumps the
// epoch at every end, and gives a new producer id when the epoch is
// exhausted), with sequences from 0 under it; an answer without one
// (NoProducerID, versions below 5) leaves the identity as it is. The bump
// the end did is the one an abortable error asked for, so none follows.
// This is the one place the client learns its identity from an end.
func (p *Producer) endTxnIdentity(m model.EndTxnResponse) {
	if m.ProducerID == model.NoProducerID {
		return
	}
	p.idem.setID(m.ProducerID, m.ProducerEpoch)
	p.idem.resetSequences()
	p.txn.bumpRequired = false
}

// txnResolveSequences is maybeResolveSequences for a transactional
// producer: a partition whose expired batches leave its sequences
// unknown makes the transaction abortable, with an epoch bump, instead of
// the idempotent producer's bump.
func (p *Producer) txnResolveSequences() {
	if p.idem.resolveUnknown() {
		p.txn.bumpRequired = true
		p.txn.abortableError(model.NoError, "unacknowledged batches can no longer be retried")
	}
}

// hasIncomplete is RecordAccumulator.hasIncomplete: a record sent and not
// yet acknowledged or failed, batched or waiting for metadata.
func (p *Producer) hasIncomplete() bool {
	if len(p.waiting) > 0 || !p.acc.empty() {
		return true
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce && !r.batch.done {
			return true
		}
	}
	return false
}

// abortBatches fails batches that will not be sent: those still in the
// accumulator (abortUndrainedBatches), and with all, those in flight too
// (abortBatches, on a fatal error). Their records fail with reason; the
// transaction's outcome decides the history.
func (p *Producer) abortBatches(env *sim.Env, reason string, all bool) {
	for _, q := range p.acc.queues {
		for _, b := range *q {
			p.failBatch(env, b, model.NoError, reason, false)
		}
		*q = nil
	}
	for _, w := range p.waiting {
		p.finishOne(env, w.op, false, reason)
	}
	p.waiting = nil
	if !all {
		return
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce && !r.batch.done {
			p.failBatch(env, r.batch, model.NoError, reason, false)
		}
	}
}

// txnDeadline is the earliest instant the transactional side has
// something to do without an event: the end of the sender's sleep.
func (p *Producer) txnDeadline() time.Duration {
	if p.txn == nil || p.txnSleepUntil == 0 {
		return model.Never
	}
	return p.txnSleepUntil
}
