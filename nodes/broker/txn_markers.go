package broker

import (
	"time"

	"kafkasim/model"
)

// The partition leader's side of WriteTxnMarkers
// (KafkaApis.handleWriteTxnMarkersRequest): each marker is appended to
// each of its partitions as a control batch, through
// ReplicaManager.appendRecords with acks=all and AppendOrigin.COORDINATOR,
// and the request is answered once every partition's append is committed
// or failed. Kafka's checks, per partition: a partition this broker does
// not know is UNKNOWN_TOPIC_OR_PARTITION, one it does not lead
// NOT_LEADER_OR_FOLLOWER, a committed ISR below min.insync.replicas
// NOT_ENOUGH_REPLICAS (Partition.appendRecordsToLeader), and a marker
// whose producer epoch is older than the partition's producer state
// INVALID_PRODUCER_EPOCH (ProducerAppendInfo.appendEndTxnMarker's
// checkProducerEpoch), and one whose coordinator epoch is older than that
// of the producer's last marker in the partition
// TRANSACTION_COORDINATOR_FENCED (checkCoordinatorEpoch). What a marker
// completes (the open transaction, the last stable offset, the aborted
// transactions) is the log's transaction index (storage/txnindex.go).

// markerAppendTimeout bounds the wait for a marker's append to commit:
// KafkaApis appends markers with timeout config.requestTimeoutMs.
const markerAppendTimeout = 30 * time.Second

// timerMarkerAppend fires a pending marker request's timeout.
const timerMarkerAppend = "txn-marker-append-timeout"

// pendingMarkers is a WriteTxnMarkers request waiting for its appends.
type pendingMarkers struct {
	from     model.BrokerID
	resp     model.WriteTxnMarkersResponse
	waits    []markerWait
	deadline time.Duration
}

// markerWait is one partition's append waiting for the high watermark.
type markerWait struct {
	marker, result int // indexes into resp
	p              *partition
	epoch          model.Epoch // the leader epoch it was appended under
	required       model.Offset
}

func (b *Broker) handleWriteTxnMarkers(from model.BrokerID, m model.WriteTxnMarkersRequest) {
	pm := &pendingMarkers{from: from, resp: model.WriteTxnMarkersResponse{CorrelationID: m.CorrelationID}}
	for i, w := range m.Markers {
		r := model.WritableTxnMarkerResult{ProducerID: w.ProducerID, Partitions: make([]model.TxnPartitionResult, len(w.Partitions))}
		for j, tp := range w.Partitions {
			r.Partitions[j] = model.TxnPartitionResult{TP: tp, Error: b.appendMarker(pm, i, j, tp, w)}
		}
		pm.resp.Markers = append(pm.resp.Markers, r)
	}
	if len(pm.waits) == 0 {
		b.send(from, pm.resp)
		return
	}
	pm.deadline = b.now() + markerAppendTimeout
	b.markerWaits = append(b.markerWaits, pm)
	b.env.After(markerAppendTimeout, timerMarkerAppend, 0)
	b.checkMarkerWaits()
}

// appendMarker appends one marker to one partition, or says why not.
func (b *Broker) appendMarker(pm *pendingMarkers, i, j int, tp model.TopicPartition, w model.WritableTxnMarker) model.ErrorCode {
	p := b.part(tp)
	switch {
	case p == nil && !b.knows(tp):
		return model.UnknownTopicOrPartition
	case p == nil || !p.isLeader:
		return model.NotLeaderOrFollower
	case p.underMinISR():
		return model.NotEnoughReplicas
	case tp.Topic == OffsetsTopic && !b.offsetsShardServes(p):
		// The group coordinator writes the markers of its partitions
		// (GroupCoordinator.completeTransaction); until its shard is
		// loaded KafkaApis answers COORDINATOR_LOAD_IN_PROGRESS as
		// NOT_LEADER_OR_FOLLOWER, and the marker is sent again.
		return model.NotLeaderOrFollower
	}
	if e, ok := p.log.Producers().Lookup(w.ProducerID); ok && w.ProducerEpoch < e.ProducerEpoch {
		return model.InvalidProducerEpoch
	}
	// checkCoordinatorEpoch: a marker from a coordinator older than the
	// one that wrote the producer's last marker here is a deposed one's.
	if e, ok := p.log.CoordinatorEpoch(w.ProducerID); ok && w.CoordinatorEpoch < e {
		return model.TransactionCoordinatorFenced
	}
	batch := model.EndTxnMarkerBatch(w.ProducerID, w.ProducerEpoch, w.TransactionResult, w.CoordinatorEpoch, b.now())
	stamped := p.log.AppendAsLeader(&batch, p.leaderEpoch, b.now())
	b.env.Trace("txn-marker", tp.String()+" "+stamped.String())
	b.noteOffsetsMarker(p, stamped)
	b.clearGuard(tp, stamped)
	pm.waits = append(pm.waits, markerWait{marker: i, result: j, p: p, epoch: p.leaderEpoch, required: stamped.NextOffset()})
	b.wakeFetches(p)
	b.maybeIncrementHW(p)
	return model.NoError
}

// checkMarkerWaits answers every pending marker request whose appends are
// all committed or failed: committed once the high watermark passes the
// marker (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR fell below the
// minimum meanwhile), NOT_LEADER_OR_FOLLOWER once the partition's
// leadership moved, REQUEST_TIMED_OUT after the timeout.
func (b *Broker) checkMarkerWaits() {
	if len(b.markerWaits) == 0 {
		return
	}
	now := b.now()
	k := 0
	for _, pm := range b.markerWaits {
		open := 0
		for wi := range pm.waits {
			w := &pm.waits[wi]
			res := &pm.resp.Markers[w.marker].Partitions[w.result]
			if res.Error != model.NoError || w.required < 0 {
				continue
			}
			switch {
			case !w.p.isLeader || w.p.leaderEpoch != w.epoch:
				res.Error = model.NotLeaderOrFollower
			case w.p.hw >= w.required:
				if w.p.underMinISR() {
					res.Error = model.NotEnoughReplicasAfterAppend
				}
				w.required = -1 // committed
			case now >= pm.deadline:
				res.Error = model.RequestTimedOut
			default:
				open++
			}
		}
		if open > 0 {
			b.markerWaits[k] = pm
			k++
			continue
		}
		b.send(pm.from, pm.resp)
	}
	clear(b.markerWaits[k:])
	b.markerWaits = b.markerWaits[:k]
}

// markerPeerGone drops the pending marker requests of a coordinator whose
// connection broke: it sends them again.
func (b *Broker) markerPeerGone(peer model.BrokerID) {
	k := 0
	for _, pm := range b.markerWaits {
		if pm.from != peer {
			b.markerWaits[k] = pm
			k++
		}
	}
	clear(b.markerWaits[k:])
	b.markerWaits = b.markerWaits[:k]
}
