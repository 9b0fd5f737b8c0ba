package broker

import (
	"kafkasim/model"
	"kafkasim/nodes/group"
)

// The group coordinator's part in transactions (KIP-98, KIP-447):
// TxnOffsetCommit is served by the group's shard, which writes the
// offsets as the producer's transactional batch; the transaction's
// marker is written into the __consumer_offsets partition by
// WriteTxnMarkers like into any other (txn_markers.go), and the shard
// applies it once it is committed (GroupCoordinatorService.completeTransaction,
// OffsetMetadataManager.replayEndTransactionMarker). A new coordinator
// gets the same state by replaying the partition, markers included.

// handleTxnOffsetCommit serves a TxnOffsetCommit; with
// transaction.partition.verification.enable the shard's partition is
// first verified to be in the producer's transaction, as for a produce
// (CoordinatorRuntime.scheduleTransactionalWriteOperation through
// CoordinatorPartitionWriter.maybeStartTransactionVerification).
func (b *Broker) handleTxnOffsetCommit(from model.BrokerID, m model.TxnOffsetCommitRequest) {
	s := b.groupShard(from, m.GroupID, m)
	if s == nil {
		return
	}
	if !b.cfg.Kafka.Txn.PartitionVerification || m.GroupID == "" || m.TransactionalID == "" || s.p.log.HasOngoingTxn(m.ProducerID) {
		b.applyEffects(s, s.c.HandleTxnOffsetCommit(b.now(), from, m))
		return
	}
	tp := s.p.tp
	b.verifyPartition(from, tp, m.TransactionalID, m.ProducerID, m.ProducerEpoch, func(code model.ErrorCode, guard int64) {
		switch {
		case code == model.NoError && !b.guardHolds(tp, m.ProducerID, guard):
			// The transaction ended while the verification was out.
			code = model.InvalidTxnState
		case code == model.NoError:
			// The write is appended within this event, before anything
			// else can reach the partition, so the guard holds for it.
			serveGroup(b, from, m.GroupID, m, (*group.Coordinator).HandleTxnOffsetCommit, (*Broker).applyEffects)
			return
		}
		b.send(from, groupErrorResponse(m, model.CoordinatorAppendError(code))) // handleOperationException
	})
}

// coordMarker is a marker appended to a shard's partition, waiting for
// the high watermark.
type coordMarker struct {
	pid      model.ProducerID
	commit   bool
	required model.Offset
}

// replayGroupBatch hands a group coordinator the records of a replayed
// batch: a marker completes the producer's transactional offsets, a
// producer's offset commit is a transactional one.
func replayGroupBatch(c *group.Coordinator) func(*model.Batch, model.Record) error {
	return func(batch *model.Batch, r model.Record) error {
		if batch.IsControl() {
			if commit, _, ok := model.EndTxnMarker(batch); ok {
				c.ReplayEndTxnMarker(batch.ProducerID, commit)
			}
			return nil
		}
		return c.ReplayRecord(r, batch.ProducerID)
	}
}

// offsetsShardServes says whether this broker's shard of the
// __consumer_offsets partition p is loaded.
func (b *Broker) offsetsShardServes(p *partition) bool {
	s := b.coord.shards[p.tp.Partition]
	return s != nil && s.p == p && !s.loading
}

// noteOffsetsMarker queues a marker just appended to p for its shard, if
// p is a __consumer_offsets partition this broker serves.
func (b *Broker) noteOffsetsMarker(p *partition, stamped *model.Batch) {
	if p.tp.Topic != OffsetsTopic {
		return
	}
	s := b.coord.shards[p.tp.Partition]
	if s == nil || s.p != p {
		return
	}
	commit, _, ok := model.EndTxnMarker(stamped)
	if !ok {
		return
	}
	s.markers = append(s.markers, coordMarker{pid: stamped.ProducerID, commit: commit, required: stamped.NextOffset()})
}

// applyCoveredMarker applies the shard's first queued marker if the high
// watermark covers it and no write appended before it waits: the shard
// takes writes and markers in the order of the log.
func (b *Broker) applyCoveredMarker(s *coordShard) bool {
	if len(s.markers) == 0 || s.markers[0].required > s.p.hw {
		return false
	}
	if len(s.writes) > 0 && s.writes[0].required < s.markers[0].required {
		return false
	}
	m := s.markers[0]
	s.markers = s.markers[1:]
	s.c.ReplayEndTxnMarker(m.pid, m.commit)
	b.env.Trace("coordinator-txn-marker", s.p.tp.String()+" pid="+itoa(int64(m.pid))+" commit="+boolWord(m.commit))
	return true
}

func boolWord(v bool) string {
	if v {
		return "true"
	}
	return "false"
}
