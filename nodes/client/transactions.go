package client

import (
	"cmp"
	"slices"
	"time"

	"kafkasim/model"
)

// transactions is the transactional half of Kafka's TransactionManager
// (clients/.../producer/internals/TransactionManager.java): the state
// machine of a producer with a transactional.id, its queue of requests to
// the transaction coordinator, and the partitions of the transaction under
// way. The producer id and epoch, and the sequences, stay in idempotence:
// a transactional producer is an idempotent one whose identity comes from
// its coordinator.
//
// The protocol spoken is transaction version 1's for adding partitions
// (the client sends AddPartitionsToTxn before a partition's first batch;
// KIP-890 part 1's leader-side add is not modelled), and an EndTxn answer
// that carries a producer id and epoch (EndTxn version 5, transaction
// version 2's bump at every end) is taken as the identity to go on with
// (endTxnIdentity), as EndTxnHandler does.
type transactions struct {
	id      string
	timeout time.Duration // transaction.timeout.ms, sent with InitProducerId
	backoff time.Duration // retry.backoff.ms: TransactionManager's retryBackoffMs

	state txnState
	// lastErr is why the state is ABORTABLE_ERROR or FATAL_ERROR (Kafka's
	// lastError), as the error code that caused it, or NoError for a
	// client-side cause (an expired batch, see resolveSequences);
	// lastReason says it in words for the history.
	lastErr    model.ErrorCode
	lastReason string

	coordinator model.BrokerID // NoBroker: unknown
	// pending are the requests waiting to be sent, by priority and then in
	// the order enqueued (Kafka's PriorityQueue by Priority); inFlight is
	// the one sent and not answered (at most one: hasInFlightRequest).
	pending  []*txnRequest
	inFlight *txnRequest
	order    uint64

	// The partitions of the transaction under way: newParts are not yet
	// asked for, pendingParts are in the AddPartitionsToTxn in flight,
	// parts are in the transaction. Each is sorted.
	newParts, pendingParts, parts []model.TopicPartition
	// started is transactionStarted: some partition was added, so EndTxn
	// must go to the coordinator.
	started bool
	// bumpRequired is epochBumpRequired: the transaction's end is followed
	// by an InitProducerId that bumps the epoch (KIP-360), unless the
	// EndTxn answer already gave a bumped one.
	bumpRequired bool

	// groupCoordinator is the coordinator of groupKey, the group whose
	// offsets the transaction commits (consumerGroupCoordinator);
	// offsets is the sendOffsetsToTransaction call under way, nil when
	// none is (txn_offsets.go).
	groupCoordinator model.BrokerID
	groupKey         string
	offsets          *txnOffsets
}

// txnState is TransactionManager.State.
type txnState uint8

const (
	txnUninitialized txnState = iota
	txnInitializing
	txnReady
	txnInTransaction
	txnCommitting
	txnAborting
	txnAbortableError
	txnFatalError
)

var txnStateNames = [...]string{"UNINITIALIZED", "INITIALIZING", "READY", "IN_TRANSACTION",
	"COMMITTING_TRANSACTION", "ABORTING_TRANSACTION", "ABORTABLE_ERROR", "FATAL_ERROR"}

func (s txnState) String() string { return txnStateNames[s] }

// validTransition is State.isTransitionValid.
func validTransition(from, to txnState) bool {
	switch to {
	case txnUninitialized:
		return from == txnReady
	case txnInitializing:
		return from == txnUninitialized || from == txnAborting
	case txnReady:
		return from == txnInitializing || from == txnCommitting || from == txnAborting
	case txnInTransaction:
		return from == txnReady
	case txnCommitting:
		return from == txnInTransaction
	case txnAborting:
		return from == txnInTransaction || from == txnAbortableError
	case txnAbortableError:
		return from == txnInTransaction || from == txnCommitting || from == txnAbortableError
	}
	return true // FATAL_ERROR is reachable from anywhere
}

// txnKind is which TxnRequestHandler a request is, in the order of
// TransactionManager.Priority: FindCoordinator first, then InitProducerId,
// AddPartitionsToTxn, EndTxn, and last the InitProducerId that bumps the
// epoch after an EndTxn. AddOffsetsToTxn and TxnOffsetCommit come after
// them in the list but share AddPartitionsToTxn's priority
// (ADD_PARTITIONS_OR_OFFSETS): see priority.
type txnKind uint8

const (
	txnFindCoordinator txnKind = iota
	txnInitProducerID
	txnAddPartitions
	txnEndTxn
	txnEpochBump
	txnAddOffsets   // AddOffsetsToTxnHandler
	txnOffsetCommit // TxnOffsetCommitHandler, sent to the group coordinator
)

// priority is TxnRequestHandler.priority().
func (k txnKind) priority() txnKind {
	if k == txnAddOffsets || k == txnOffsetCommit {
		return txnAddPartitions
	}
	return k
}

// txnRequest is one TxnRequestHandler with the request it sends: the
// producer identity is taken when the request is built, as Kafka's
// builders take it.
type txnRequest struct {
	kind   txnKind
	pid    model.ProducerID
	epoch  model.Epoch
	commit bool                   // EndTxn
	parts  []model.TopicPartition // AddPartitionsToTxn
	// offsets is sendOffsetsToTransaction's call (AddOffsetsToTxn,
	// TxnOffsetCommit); group, for FindCoordinator, is the group whose
	// coordinator it looks up ("": the transaction coordinator).
	offsets *txnOffsets
	group   string
	retry   bool // reenqueued: waits backoff before it goes
	// backoff is the wait of a retry: retry.backoff.ms, or 20 ms for the
	// first AddPartitionsToTxn of a transaction that met
	// CONCURRENT_TRANSACTIONS (ADD_PARTITIONS_RETRY_BACKOFF_MS).
	backoff time.Duration
	order   uint64
}

// addPartitionsRetryBackoff is ADD_PARTITIONS_RETRY_BACKOFF_MS.
const addPartitionsRetryBackoff = 20 * time.Millisecond

func newTransactions(id string, timeout, backoff time.Duration) *transactions {
	return &transactions{id: id, timeout: timeout, backoff: backoff, coordinator: model.NoBroker, groupCoordinator: model.NoBroker}
}

// needsCoordinator: every request but FindCoordinator goes to the
// transaction coordinator (TxnRequestHandler.needsCoordinator).
func (r *txnRequest) needsCoordinator() bool { return r.kind != txnFindCoordinator }

func (t *txnRequest) isEndTxn() bool { return t.kind == txnEndTxn }

// transition is transitionTo: an invalid transition is a programmer error
// of the application side (Kafka throws KafkaException to the caller).
func (t *transactions) transition(to txnState) {
	if !validTransition(t.state, to) {
		panic("client: transactional id " + t.id + ": invalid transition from " + t.state.String() + " to " + to.String())
	}
	t.state = to
	if to != txnAbortableError && to != txnFatalError {
		t.lastErr, t.lastReason = model.NoError, ""
	}
}

func (t *transactions) hasError() bool {
	return t.state == txnAbortableError || t.state == txnFatalError
}

func (t *transactions) isCompleting() bool {
	return t.state == txnCommitting || t.state == txnAborting
}

// abortableError is transitionToAbortableError: skipped while aborting
// already, and never out of FATAL_ERROR.
func (t *transactions) abortableError(err model.ErrorCode, reason string) {
	if t.state == txnAborting || t.state == txnFatalError {
		return
	}
	if !validTransition(t.state, txnAbortableError) {
		return // no transaction under way: nothing to abort
	}
	t.state, t.lastErr, t.lastReason = txnAbortableError, err, reason
}

// fatalError is transitionToFatalError: the producer can do nothing
// transactional any more; the application must close it.
func (t *transactions) fatalError(err model.ErrorCode, reason string) {
	t.state, t.lastErr, t.lastReason = txnFatalError, err, reason
}

// abortableErrorIfPossible is TxnRequestHandler.abortableErrorIfPossible:
// the coordinator supports bumping the epoch (InitProducerId version 3,
// every coordinator kafkasim has), so the abort is followed by a bump.
func (t *transactions) abortableErrorIfPossible(err model.ErrorCode) {
	t.bumpRequired = true
	t.abortableError(err, err.String())
}

// batchFailed is maybeTransitionToErrorState for a batch that failed
// (handleFailedBatch) or a send refused before it was batched
// (KafkaProducer.doSend): PRODUCER_FENCED (and the authorization and
// version errors kafkasim has none of) are fatal; anything else makes
// the transaction abortable, with an epoch bump unless it is completing
// already.
func (t *transactions) batchFailed(err model.ErrorCode, reason string) {
	if err == model.ProducerFenced {
		t.fatalError(err, reason)
		return
	}
	if !t.isCompleting() {
		t.bumpRequired = true
	}
	t.abortableError(err, reason)
}

// enqueue is enqueueRequest: kept sorted by priority, then arrival.
func (t *transactions) enqueue(r *txnRequest) {
	t.order++
	r.order = t.order
	t.requeue(r)
}

// requeue puts back a request taken from the queue but not sent, in its
// place.
func (t *transactions) requeue(r *txnRequest) {
	i, _ := slices.BinarySearchFunc(t.pending, r, func(a, b *txnRequest) int {
		if a.kind.priority() != b.kind.priority() {
			return cmp.Compare(a.kind.priority(), b.kind.priority())
		}
		return cmp.Compare(a.order, b.order)
	})
	t.pending = slices.Insert(t.pending, i, r)
}

// reenqueue is TxnRequestHandler.reenqueue: the request goes back, and
// waits its backoff before it is sent again.
func (t *transactions) reenqueue(r *txnRequest) {
	r.retry = true
	if r.backoff == 0 {
		r.backoff = t.backoff
	}
	t.enqueue(r)
}

// lookupCoordinator forgets the coordinator and asks for it again
// (TransactionManager.lookupCoordinator). Kafka enqueues a FindCoordinator
// each time; one waiting or in flight is enough here, and its answer
// serves every request waiting for it.
func (t *transactions) lookupCoordinator() { t.lookup("") }

// lookup forgets the coordinator of group ("": the transaction
// coordinator) and enqueues its FindCoordinator, unless one for it waits
// or is in flight.
func (t *transactions) lookup(group string) {
	if group == "" {
		t.coordinator = model.NoBroker
	} else {
		t.groupCoordinator, t.groupKey = model.NoBroker, group
	}
	finding := func(r *txnRequest) bool { return r != nil && r.kind == txnFindCoordinator && r.group == group }
	if finding(t.inFlight) {
		return
	}
	for _, r := range t.pending {
		if finding(r) {
			return
		}
	}
	t.enqueue(&txnRequest{kind: txnFindCoordinator, group: group})
}

// coordinatorOf is the broker request r goes to (NoBroker: unknown):
// TxnOffsetCommit to the group's coordinator (coordinatorType GROUP), the
// rest to the transaction coordinator.
func (t *transactions) coordinatorOf(r *txnRequest) model.BrokerID {
	if r.kind == txnOffsetCommit {
		if t.groupKey != r.offsets.GroupID {
			return model.NoBroker
		}
		return t.groupCoordinator
	}
	return t.coordinator
}

// initialize is initializeTransactions (initTransactions), which a
// transactional producer does once at start: InitProducerId with the
// transactional id, to the coordinator.
func (t *transactions) initialize() {
	t.transition(txnInitializing)
	t.enqueue(&txnRequest{kind: txnInitProducerID, pid: model.NoProducerID, epoch: model.NoEpoch})
}

// maybeAddPartition is maybeAddPartitionToTransaction: a send to a
// partition not yet in the transaction asks for it to be added.
func (t *transactions) maybeAddPartition(tp model.TopicPartition) {
	if containsTP(t.parts, tp) || containsTP(t.newParts, tp) || containsTP(t.pendingParts, tp) {
		return
	}
	t.newParts = insertTP(t.newParts, tp)
}

// sendAllowed is isSendToPartitionAllowed: a batch leaves only for a
// partition in the transaction (RecordAccumulator's
// shouldStopDrainBatchesForPartition asks it first).
func (t *transactions) sendAllowed(tp model.TopicPartition) bool {
	return t.state != txnFatalError && containsTP(t.parts, tp)
}

// addPartitionsRequest is addPartitionsToTransactionHandler: the new
// partitions join those in flight, all in one request.
func (t *transactions) addPartitionsRequest(pid model.ProducerID, epoch model.Epoch) *txnRequest {
	for _, tp := range t.newParts {
		t.pendingParts = insertTP(t.pendingParts, tp)
	}
	t.newParts = t.newParts[:0]
	return &txnRequest{kind: txnAddPartitions, pid: pid, epoch: epoch, parts: slices.Clone(t.pendingParts)}
}

// completeTransaction ends the transaction on the client: READY, or
// INITIALIZING when an epoch bump must come first.
func (t *transactions) completeTransaction(pid model.ProducerID, epoch model.Epoch) {
	if t.bumpRequired {
		t.transition(txnInitializing)
		t.enqueue(&txnRequest{kind: txnEpochBump, pid: pid, epoch: epoch})
	} else {
		t.transition(txnReady)
	}
	t.bumpRequired, t.started = false, false
	t.offsets = nil
	t.newParts, t.pendingParts, t.parts = t.newParts[:0], t.pendingParts[:0], t.parts[:0]
}

func containsTP(tps []model.TopicPartition, tp model.TopicPartition) bool {
	_, ok := slices.BinarySearchFunc(tps, tp, model.TopicPartition.Compare)
	return ok
}

func insertTP(tps []model.TopicPartition, tp model.TopicPartition) []model.TopicPartition {
	i, ok := slices.BinarySearchFunc(tps, tp, model.TopicPartition.Compare)
	if ok {
		return tps
	}
	return slices.Insert(tps, i, tp)
}

func removeTPs(tps, gone []model.TopicPartition) []model.TopicPartition {
	return slices.DeleteFunc(tps, func(tp model.TopicPartition) bool { return containsTP(gone, tp) })
}
