package txn

import (
	"slices"
	"time"

	"kafkasim/model"
)

// The marker writer (Kafka's TransactionMarkerChannelManager and
// TransactionMarkerRequestCompletionHandler): once a transaction's
// Prepare record is committed, a marker goes to the leader of each of
// its partitions; a partition whose marker is written leaves the
// transaction; once none is left the Complete record is written. kafkasim
// sends one WriteTxnMarkers request per transaction and leader, where
// Kafka's sender thread batches the markers queued for a broker.

// pendingComplete is PendingCompleteTxn: the completion a transaction
// writes after its markers.
type pendingComplete struct {
	id     string
	commit bool
	to     Snapshot
}

// inflightMarker is PendingCompleteTxnAndMarkerEntry: a sent marker.
type inflightMarker struct {
	pc     *pendingComplete
	marker model.WritableTxnMarker
}

// retry is a marker waiting to be sent again, or (marker nil) a
// completion waiting to be appended again.
type retry struct {
	at     time.Duration
	pc     *pendingComplete
	marker *model.WritableTxnMarker
}

// addTxnMarkersToSend is TransactionMarkerChannelManager.addTxnMarkersToSend:
// markers with the transaction's current producer id and epoch (bumped
// by a version 2 end) to the leaders of its partitions.
func (c *Coordinator) addTxnMarkersToSend(id string, commit bool, complete Snapshot) {
	pc := &pendingComplete{id: id, commit: commit, to: complete}
	c.pendingMarkers[id] = pc
	m := c.txns[id]
	c.queueMarkers(pc, model.WritableTxnMarker{ProducerID: m.ProducerID, ProducerEpoch: m.ProducerEpoch,
		TransactionResult: commit, Partitions: slices.Clone(m.Partitions), CoordinatorEpoch: c.epoch})
	c.maybeWriteTxnCompletion(id)
}

// queueMarkers is addTxnMarkersToBrokerQueue: the marker's partitions,
// grouped by leader (in broker order), each group sent at once. A
// partition without a leader now waits the retry backoff; a partition
// that no longer exists leaves the transaction, since nothing can have
// been written to it.
func (c *Coordinator) queueMarkers(pc *pendingComplete, w model.WritableTxnMarker) {
	byLeader := map[model.BrokerID][]model.TopicPartition{}
	var leaders []model.BrokerID
	var gone []model.TopicPartition
	for _, tp := range w.Partitions {
		leader, exists := c.host.LeaderOf(tp)
		switch {
		case !exists:
			gone = append(gone, tp)
			continue
		case byLeader[leader] == nil:
			leaders = append(leaders, leader)
		}
		byLeader[leader] = append(byLeader[leader], tp)
	}
	slices.Sort(leaders)
	for _, leader := range leaders {
		part := w
		part.Partitions = byLeader[leader]
		if leader == model.NoBroker {
			c.retryLater(pc, &part)
			continue
		}
		id := c.id()
		c.markers[id] = inflightMarker{pc: pc, marker: part}
		c.out.Markers = append(c.out.Markers, MarkerRequest{ID: id, To: leader,
			Request: model.WriteTxnMarkersRequest{Markers: []model.WritableTxnMarker{part}}})
	}
	if len(gone) > 0 {
		m := c.txns[pc.id]
		for _, tp := range gone {
			m.removePartition(tp)
		}
		c.maybeWriteTxnCompletion(pc.id)
	}
}

func (c *Coordinator) retryLater(pc *pendingComplete, w *model.WritableTxnMarker) {
	c.retries = append(c.retries, retry{at: c.now + c.cfg.MarkerRetryBackoff, pc: pc, marker: w})
}

// removePartition is TransactionMetadata.removePartition: its marker is
// written.
func (m *Metadata) removePartition(tp model.TopicPartition) {
	if m.State != PrepareCommit && m.State != PrepareAbort {
		panic("txn: removing a partition of " + m.ID + " in state " + m.State.String())
	}
	if i, ok := slices.BinarySearchFunc(m.Partitions, tp, model.TopicPartition.Compare); ok {
		m.Partitions = slices.Delete(slices.Clone(m.Partitions), i, i+1)
	}
}

// MarkersDone reports a WriteTxnMarkers answer (TransactionMarkerRequestCompletionHandler.onComplete),
// nil when the request got none (a broken connection or a timeout): the
// marker is then sent again, to the partitions' leaders as they are now.
// Written partitions leave the transaction; a retriable error sends the
// marker again after the backoff; INVALID_PRODUCER_EPOCH or
// TRANSACTION_COORDINATOR_FENCED mean a newer producer epoch or
// coordinator took over, so this transaction's markers stop. An unknown
// id, or an answer for a transaction this coordinator no longer
// completes, is ignored.
func (c *Coordinator) MarkersDone(now time.Duration, id int64, resp *model.WriteTxnMarkersResponse) Effects {
	c.begin(now)
	sent, ok := c.markers[id]
	delete(c.markers, id)
	if !ok || c.closed || c.pendingMarkers[sent.pc.id] != sent.pc {
		return c.end()
	}
	if resp == nil {
		c.retryLater(sent.pc, &sent.marker)
		return c.end()
	}
	m := c.txns[sent.pc.id]
	var again []model.TopicPartition
	for _, r := range resp.Markers {
		if r.ProducerID != sent.marker.ProducerID {
			continue
		}
		for _, p := range r.Partitions {
			switch p.Error {
			case model.NoError:
				m.removePartition(p.TP)
			case model.UnknownTopicOrPartition, model.NotLeaderOrFollower, model.NotEnoughReplicas,
				model.NotEnoughReplicasAfterAppend, model.RequestTimedOut, model.KafkaStorageError:
				again = append(again, p.TP)
			case model.InvalidProducerEpoch, model.TransactionCoordinatorFenced:
				delete(c.pendingMarkers, sent.pc.id)
				return c.end()
			default:
				panic("txn: marker for " + sent.pc.id + " failed with " + p.Error.String())
			}
		}
	}
	if len(again) > 0 {
		w := sent.marker
		w.Partitions = again
		c.retryLater(sent.pc, &w)
		return c.end()
	}
	c.maybeWriteTxnCompletion(sent.pc.id)
	return c.end()
}

// maybeWriteTxnCompletion writes the completion once no partition waits
// for its marker.
func (c *Coordinator) maybeWriteTxnCompletion(id string) {
	pc := c.pendingMarkers[id]
	if pc == nil || len(c.txns[id].Partitions) > 0 {
		return
	}
	delete(c.pendingMarkers, id)
	c.tryAppendCompletion(pc)
}

// tryAppendCompletion is TransactionMarkerChannelManager.tryAppendToLog:
// a completion that finds the partition unable to take it
// (COORDINATOR_NOT_AVAILABLE) keeps its pending state and is appended
// again after the backoff; any other failure drops it, for the next
// leader of the partition to complete from the log.
func (c *Coordinator) tryAppendCompletion(pc *pendingComplete) {
	c.appendTransactionToLog(pc.id, pc.to, func(code model.ErrorCode) {
		if code == model.CoordinatorNotAvailable && !c.closed {
			c.retries = append(c.retries, retry{at: c.now + c.cfg.MarkerRetryBackoff, pc: pc})
		}
	}, model.CoordinatorNotAvailable)
}

// fireRetries sends again every marker and completion whose backoff ends
// by now, in the order they were queued.
func (c *Coordinator) fireRetries(now time.Duration) {
	var due []retry
	c.retries = slices.DeleteFunc(c.retries, func(r retry) bool {
		if r.at <= now {
			due = append(due, r)
			return true
		}
		return false
	})
	for _, r := range due {
		if r.marker == nil {
			c.tryAppendCompletion(r.pc)
		} else if c.pendingMarkers[r.pc.id] == r.pc {
			c.queueMarkers(r.pc, *r.marker)
		}
	}
}
