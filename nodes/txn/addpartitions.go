package txn

import (
	"slices"
	"time"

	"kafkasim/model"
)

// HandleAddPartitionsToTxn is TransactionCoordinator.handleAddPartitionsToTransaction,
// answered per partition as KafkaApis.handleAddPartitionsToTxnRequest
// does for a client (version 3 and below): every partition gets the one
// outcome.
func (c *Coordinator) HandleAddPartitionsToTxn(now time.Duration, from model.BrokerID, req model.AddPartitionsToTxnRequest) Effects {
	c.begin(now)
	tps := slices.Clone(req.Partitions)
	slices.SortFunc(tps, model.TopicPartition.Compare)
	tps = slices.Compact(tps)
	c.addPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, tps, func(code model.ErrorCode) {
		results := make([]model.TxnPartitionResult, len(req.Partitions))
		for i, tp := range req.Partitions {
			results[i] = model.TxnPartitionResult{TP: tp, Error: code}
		}
		c.reply(from, model.AddPartitionsToTxnResponse{CorrelationID: req.CorrelationID, Results: results})
	})
	return c.end()
}

// HandleAddOffsetsToTxn is KafkaApis.handleAddOffsetsToTxnRequest: the
// group's __consumer_offsets partition (GroupMetadataManager.partitionFor)
// is added to the transaction as AddPartitionsToTxn adds a partition, so
// that the group coordinator's TxnOffsetCommit takes part in the
// transaction and gets its marker.
func (c *Coordinator) HandleAddOffsetsToTxn(now time.Duration, from model.BrokerID, req model.AddOffsetsToTxnRequest) Effects {
	c.begin(now)
	tp := model.TP(model.ConsumerOffsetsTopic, model.CoordinatorPartition(req.GroupID, c.cfg.OffsetsTopicPartitions))
	c.addPartitions(req.TransactionalID, req.ProducerID, req.ProducerEpoch, []model.TopicPartition{tp}, func(code model.ErrorCode) {
		c.reply(from, model.AddOffsetsToTxnResponse{CorrelationID: req.CorrelationID, Error: code})
	})
	return c.end()
}

// addPartitions is handleAddPartitionsToTransaction's checks, in Kafka's
// order: an unknown transactional id or another producer id is
// INVALID_PRODUCER_ID_MAPPING; another epoch is PRODUCER_FENCED; a
// pending transition or a transaction being completed is
// CONCURRENT_TRANSACTIONS; partitions already in the ongoing transaction
// are NONE without a write; otherwise the transaction becomes Ongoing
// with them, answered once written.
func (c *Coordinator) addPartitions(id string, pid model.ProducerID, epoch model.Epoch, tps []model.TopicPartition, done func(model.ErrorCode)) {
	if id == "" {
		done(model.InvalidRequest)
		return
	}
	m, code := c.state(id)
	switch {
	case code != model.NoError:
	case m == nil || m.ProducerID != pid:
		code = model.InvalidProducerIDMapping
	case m.ProducerEpoch != epoch:
		code = model.ProducerFenced
	case m.Pending() || m.State == PrepareCommit || m.State == PrepareAbort:
		code = model.ConcurrentTransactions
	case m.State == Ongoing && containsAll(m.Partitions, tps):
	default:
		to, err := m.PrepareAddPartitions(tps, c.now, c.cfg.tv2())
		if err != nil {
			panic("txn: AddPartitionsToTxn: " + err.Error())
		}
		c.appendTransactionToLog(id, to, done, model.NoError)
		return
	}
	done(code)
}

// HandleVerifyPartitions is TransactionCoordinator.handleVerifyPartitionsInTransaction,
// for a partition leader's AddPartitionsToTxn with verifyOnly (KIP-890
// part 1): nothing is written; an unknown transactional id or another
// producer id is INVALID_PRODUCER_ID_MAPPING, another epoch
// PRODUCER_FENCED, a transaction being completed CONCURRENT_TRANSACTIONS;
// otherwise each partition is NONE if the transaction has it and
// TRANSACTION_ABORTABLE if not. A pending transition is not checked:
// partitions join the metadata when their record is committed and leave
// it when their marker is written.
func (c *Coordinator) HandleVerifyPartitions(now time.Duration, from model.BrokerID, req model.AddPartitionsToTxnRequest) Effects {
	c.begin(now)
	results := make([]model.TxnPartitionResult, len(req.Partitions))
	all := func(code model.ErrorCode) {
		for i, tp := range req.Partitions {
			results[i] = model.TxnPartitionResult{TP: tp, Error: code}
		}
	}
	m, code := c.state(req.TransactionalID)
	switch {
	case req.TransactionalID == "":
		all(model.InvalidRequest)
	case code != model.NoError:
		all(code)
	case m == nil || m.ProducerID != req.ProducerID:
		all(model.InvalidProducerIDMapping)
	case m.ProducerEpoch != req.ProducerEpoch:
		all(model.ProducerFenced)
	case m.State == PrepareCommit || m.State == PrepareAbort:
		all(model.ConcurrentTransactions)
	default:
		for i, tp := range req.Partitions {
			results[i] = model.TxnPartitionResult{TP: tp, Error: model.TransactionAbortable}
			if containsAll(m.Partitions, []model.TopicPartition{tp}) {
				results[i].Error = model.NoError
			}
		}
	}
	c.reply(from, model.AddPartitionsToTxnResponse{CorrelationID: req.CorrelationID, Results: results})
	return c.end()
}
