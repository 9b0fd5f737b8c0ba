// Package txn holds the transaction coordinator's state machine (KIP-98,
// KIP-890): the metadata Kafka keeps per transactional.id, its states and
// their legal transitions, and the partition of __transaction_state that
// owns a transactional.id. The request handlers (InitProducerId,
// AddPartitionsToTxn, EndTxn, verification), the log records and their
// replay, timeouts and the marker queue are not written yet.
//
// It is not yet hosted: no broker creates __transaction_state or calls
// this package, so no run's trace depends on it. A later step hosts it
// the way nodes/broker hosts nodes/group, and the host must then provide:
// the leadership of the __transaction_state partition that a
// transactional.id maps to (PartitionFor); appends of the records built
// here with acks=all, reporting their outcome; replay of the partition's
// records when it becomes leader (Replay); producer ids; time; and the
// WriteTxnMarkers sends to partition leaders, retried until written.
//
// What follows Kafka (transaction-coordinator's TransactionMetadata,
// TransactionState and TransactionLog; core's TransactionStateManager):
// the eight states and their valid previous states; prepareTransitionTo
// with one pending state at a time; prepareIncrementProducerEpoch,
// prepareProducerIdRotation, prepareFenceProducerEpoch,
// prepareAddPartitions, prepareAbortOrCommit (with the KIP-890 part 2
// epoch bump when the client's transaction version is 2), prepareComplete,
// prepareDead and completeTransitionTo's checks; epoch exhaustion at
// Short.MaxValue-1; TransactionStateManager.partitionFor.
//
// Everything here is a pure function of its inputs: no goroutines,
// channels, real time, randomness, I/O, or map order reaching a result
// (partitions are kept sorted). It imports only the standard library and
// kafkasim/model.
package txn
