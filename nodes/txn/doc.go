// Package txn is the transaction coordinator (KIP-98, KIP-890): the
// metadata Kafka keeps per transactional.id, its states and their legal
// transitions (metadata.go, state.go), and Coordinator, the coordinator
// of one __transaction_state partition for one leadership of it
// (coordinator.go), with the request handlers InitProducerId
// (initproducerid.go), AddPartitionsToTxn and AddOffsetsToTxn
// (addpartitions.go) and EndTxn (endtxn.go), the marker writer
// (markers.go), the proactive abort of timed-out transactions and the
// expiration of transactional ids (timers.go), and loading by replay of
// the partition's records (load.go). The records are model's
// TransactionLogValue.
//
// nodes/broker hosts it (txn_coordinator.go, txn_requests.go) the way it
// hosts nodes/group: a broker builds a Coordinator when it becomes
// leader of a __transaction_state partition (PartitionFor maps a
// transactional.id to it), with its leader epoch as the coordinator epoch
// and a Host giving producer ids and the metadata cache's partition
// leaders; it replays the partition's records (Replay) and calls Loaded
// once the high watermark covers them; it hands the coordinator requests
// (Handle*), time (Expire at NextDeadline), the outcomes of its writes
// (WriteDone, after an acks=all append to the partition) and the answers
// to its WriteTxnMarkers requests (MarkersDone); it carries out the
// Effects: replies, writes and marker requests. It Closes the
// coordinator when it resigns.
//
// Where Kafka's code is followed: TransactionCoordinator
// (handleInitProducerId with prepareInitProducerIdTransit,
// handleAddPartitionsToTransaction, endTransaction and
// endTransactionWithTV1, abortTimedOutTransactions), TransactionStateManager
// (appendTransactionToLog with its error mapping, timedOutTransactions,
// removeExpiredTransactionalIds, loadTransactionsForTxnTopicPartition,
// partitionFor), TransactionLog (the records), TransactionMarkerChannelManager
// (addTxnMarkersToSend, addTxnMarkersToBrokerQueue, maybeWriteTxnCompletion,
// tryAppendToLog) and TransactionMarkerRequestCompletionHandler, and
// TransactionMetadata's transitions. docs/kafka.md lists the rules.
//
// Everything here is a pure function of its inputs: no goroutines,
// channels, real time, randomness, I/O, or map order reaching a result
// (transactional ids are walked sorted, partitions kept sorted, markers
// grouped by leader in broker order). It imports only the standard
// library and kafkasim/model.
package txn
