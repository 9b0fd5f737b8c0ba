package broker

import (
	"slices"

	"kafkasim/model"
	"kafkasim/sim"
)

// KIP-890 part 1: before a partition leader appends the first batch of a
// transaction in a partition, it asks the transaction coordinator
// whether the partition is in the producer's ongoing transaction
// (ReplicaManager.handleProduceAppend, maybeStartTransactionVerificationForPartitions;
// AddPartitionsToTxnManager.verifyTransaction sends AddPartitionsToTxn
// version 4 with verifyOnly). A late produce of an ended transaction is
// refused instead of opening a transaction the coordinator does not
// know, which would hold the last stable offset back forever (a hanging
// transaction). The produce waits meanwhile with a verification guard
// (ProducerStateManager.maybeCreateVerificationStateEntry): a unique
// number per (partition, producer), dropped when a transactional batch or
// marker of the producer is appended, so that a verification answered
// after the transaction ended (its marker written, ABA) cannot let the
// batch in (UnifiedLog.analyzeAndValidateProducerState's
// batchMissingRequiredVerification: INVALID_TXN_STATE).
// transaction.partition.verification.enable=false turns it all off.

// timerVerifyTimeout fires a verification's request timeout; arg = corr.
const timerVerifyTimeout = "txn-verify-timeout"

// verifyHost is the broker's AddPartitionsToTxnManager.
type verifyHost struct {
	inflight map[int32]*pendingVerify // by correlation id
	// guards is each leader partition's verification state: the guard of
	// each producer being verified (VerificationStateEntry).
	guards    map[model.TopicPartition]map[model.ProducerID]int64
	nextGuard int64
}

// pendingVerify is a request waiting for its coordinator's answer: done
// continues it with the outcome and the guard it was started under.
type pendingVerify struct {
	from  model.BrokerID // who sent the request that waits
	to    model.BrokerID // the coordinator asked
	tp    model.TopicPartition
	guard int64
	timer sim.TimerID // the request timeout, cancelled on the answer
	done  func(code model.ErrorCode, guard int64)
}

// needsVerification is maybeStartTransactionVerification's condition: a
// transactional batch of a transactional producer in a partition where
// the producer has no transaction under way yet.
func (b *Broker) needsVerification(p *partition, m *model.ProduceRequest) bool {
	bt := &m.Batch
	return b.cfg.Kafka.Txn.PartitionVerification && m.TransactionalID != "" && bt.IsTransactional() &&
		!bt.IsControl() && !p.log.HasOngoingTxn(bt.ProducerID)
}

// guardFor is maybeCreateVerificationStateEntry: the producer's guard in
// the partition, made if it has none.
func (b *Broker) guardFor(tp model.TopicPartition, pid model.ProducerID) int64 {
	v := &b.verify
	if v.guards == nil {
		v.guards = map[model.TopicPartition]map[model.ProducerID]int64{}
	}
	byPID := v.guards[tp]
	if byPID == nil {
		byPID = map[model.ProducerID]int64{}
		v.guards[tp] = byPID
	}
	if g, ok := byPID[pid]; ok {
		return g
	}
	v.nextGuard++
	byPID[pid] = v.nextGuard
	return v.nextGuard
}

// missingVerification is batchMissingRequiredVerification for a leader
// append: with verification on, a transactional batch that opens a
// transaction must carry the producer's current guard (0, the sentinel,
// never matches).
func (b *Broker) missingVerification(p *partition, bt *model.Batch, guard int64) bool {
	if !b.cfg.Kafka.Txn.PartitionVerification || !bt.IsTransactional() || bt.IsControl() || p.log.HasOngoingTxn(bt.ProducerID) {
		return false
	}
	return !b.guardHolds(p.tp, bt.ProducerID, guard)
}

// clearGuard is clearVerificationStateEntry, after a transactional batch
// or marker of the producer is appended: the transaction either has its
// first offset here now or is over.
func (b *Broker) clearGuard(tp model.TopicPartition, bt *model.Batch) {
	if bt.IsTransactional() {
		delete(b.verify.guards[tp], bt.ProducerID)
	}
}

// startVerification parks the produce and asks the coordinator of its
// transactional id.
func (b *Broker) startVerification(from model.BrokerID, m *model.ProduceRequest, p *partition) {
	b.verifyPartition(from, p.tp, m.TransactionalID, m.Batch.ProducerID, m.Batch.ProducerEpoch,
		func(code model.ErrorCode, guard int64) { b.produceVerified(from, m, guard, code) })
}

// verifyPartition is maybeStartTransactionVerificationForPartition with
// AddPartitionsToTxnManager.verifyTransaction: make the producer's guard
// in tp and ask the transactional id's coordinator whether tp is in the
// ongoing transaction; done gets the answer. Without a known coordinator
// done gets COORDINATOR_NOT_AVAILABLE at once.
func (b *Broker) verifyPartition(from model.BrokerID, tp model.TopicPartition, txnID string, pid model.ProducerID, epoch model.Epoch,
	done func(code model.ErrorCode, guard int64)) {
	guard := b.guardFor(tp, pid)
	coordTP := model.TP(TransactionStateTopic, model.CoordinatorPartition(txnID, b.txnPartitions()))
	ps, ok := b.meta[coordTP]
	if !ok || ps.Leader == model.NoBroker {
		done(model.CoordinatorNotAvailable, guard)
		return
	}
	corr := b.nextCorr()
	if b.verify.inflight == nil {
		b.verify.inflight = map[int32]*pendingVerify{}
	}
	b.verify.inflight[corr] = &pendingVerify{from: from, to: ps.Leader, tp: tp, guard: guard, done: done,
		timer: b.env.After(b.cfg.Kafka.Client.RequestTimeout, timerVerifyTimeout, int64(corr))}
	b.send(ps.Leader, model.AddPartitionsToTxnRequest{CorrelationID: corr, TransactionalID: txnID,
		ProducerID: pid, ProducerEpoch: epoch, Partitions: []model.TopicPartition{tp}, VerifyOnly: true})
}

// guardHolds says whether guard is still the producer's verification
// guard in tp: no transactional batch or marker of it was appended since
// the verification started.
func (b *Broker) guardHolds(tp model.TopicPartition, pid model.ProducerID, guard int64) bool {
	g, ok := b.verify.guards[tp][pid]
	return ok && g == guard
}

// handleVerifyResponse is AddPartitionsToTxnHandler.onComplete for one
// partition's answer; nil is a broken connection or a timeout
// (NETWORK_EXCEPTION).
func (b *Broker) handleVerifyResponse(corr int32, resp *model.AddPartitionsToTxnResponse) {
	pv, ok := b.verify.inflight[corr]
	if !ok {
		return
	}
	delete(b.verify.inflight, corr)
	b.env.Cancel(pv.timer)
	code := model.NetworkException
	if resp != nil {
		code = model.NoError
		for _, r := range resp.Results {
			if r.TP == pv.tp {
				code = r.Error
			}
		}
		if code == model.ProducerFenced {
			// "Producers expect to handle INVALID_PRODUCER_EPOCH in
			// this scenario."
			code = model.InvalidProducerEpoch
		}
	}
	pv.done(code, pv.guard)
}

// produceVerified continues a produce after its verification: an error
// is answered as handleProduceAppend's postVerificationCallback
// translates it (the coordinator's retriable errors, which older clients
// would not retry, become NOT_ENOUGH_REPLICAS); NONE appends with the
// guard, every check run again (leadership may have moved meanwhile).
func (b *Broker) produceVerified(from model.BrokerID, m *model.ProduceRequest, guard int64, code model.ErrorCode) {
	switch code {
	case model.NoError:
		b.produce(from, m, guard, true)
		return
	case model.ConcurrentTransactions, model.NetworkException, model.CoordinatorLoadInProgress,
		model.CoordinatorNotAvailable, model.NotCoordinator:
		code = model.NotEnoughReplicas
	}
	b.replyProduce(from, m, code, model.NoOffset)
}

// verifyPeerGone fails the verifications asked of a broker whose
// connection broke and forgets the produces parked for a client that
// went away.
func (b *Broker) verifyPeerGone(peer model.BrokerID) {
	var corrs []int32
	for corr, pv := range b.verify.inflight {
		if pv.to == peer || pv.from == peer {
			corrs = append(corrs, corr)
		}
	}
	slices.Sort(corrs)
	for _, corr := range corrs {
		if pv := b.verify.inflight[corr]; pv.from == peer {
			delete(b.verify.inflight, corr)
			b.env.Cancel(pv.timer)
			continue
		}
		b.handleVerifyResponse(corr, nil)
	}
}

// dropGuards forgets a partition's verification state when this broker
// stops leading it.
func (b *Broker) dropGuards(tp model.TopicPartition) { delete(b.verify.guards, tp) }
