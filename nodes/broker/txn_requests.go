package broker

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/txn"
	"kafkasim/sim"
)

// The transaction APIs a coordinator serves (KafkaApis.handleInitProducerIdRequest
// with a transactional id, handleAddPartitionToTxnRequest,
// handleAddOffsetsToTxnRequest, handleEndTxnRequest), FindCoordinator
// for a transactional id, and the marker channel that sends
// WriteTxnMarkers to partition leaders (TransactionMarkerChannelManager).

func (b *Broker) handleTxnInitProducerID(from model.BrokerID, m model.InitProducerIDRequest) {
	serveTxn(b, from, m.TransactionalID, m, (*txn.Coordinator).HandleInitProducerID)
}

func (b *Broker) handleAddPartitionsToTxn(from model.BrokerID, m model.AddPartitionsToTxnRequest) {
	if m.VerifyOnly {
		// A partition leader's verification (KIP-890 part 1).
		serveTxn(b, from, m.TransactionalID, m, (*txn.Coordinator).HandleVerifyPartitions)
		return
	}
	serveTxn(b, from, m.TransactionalID, m, (*txn.Coordinator).HandleAddPartitionsToTxn)
}

func (b *Broker) handleAddOffsetsToTxn(from model.BrokerID, m model.AddOffsetsToTxnRequest) {
	serveTxn(b, from, m.TransactionalID, m, (*txn.Coordinator).HandleAddOffsetsToTxn)
}

func (b *Broker) handleEndTxn(from model.BrokerID, m model.EndTxnRequest) {
	serveTxn(b, from, m.TransactionalID, m, (*txn.Coordinator).HandleEndTxn)
}

// serveTxn hands a request to the shard of the transactional id's
// partition, loaded or loading (a loading coordinator answers
// COORDINATOR_LOAD_IN_PROGRESS itself); without one this broker is not
// the coordinator (TransactionStateManager.getTransactionState's
// NOT_COORDINATOR for a partition it does not own).
func serveTxn[M sim.Message](b *Broker, from model.BrokerID, id string, m M,
	handle func(*txn.Coordinator, time.Duration, model.BrokerID, M) txn.Effects) {
	s := b.txn.shards[model.CoordinatorPartition(id, b.txnPartitions())]
	if s == nil {
		b.send(from, txnErrorResponse(m, model.NotCoordinator))
		return
	}
	b.applyTxnEffects(s, handle(s.c, b.now(), from, m))
}

// txnErrorResponse is a transaction request's answer when it failed as a
// whole.
func txnErrorResponse(req sim.Message, code model.ErrorCode) sim.Message {
	switch r := req.(type) {
	case model.InitProducerIDRequest:
		return model.InitProducerIDResponse{CorrelationID: r.CorrelationID, Error: code, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}
	case model.AddPartitionsToTxnRequest:
		resp := model.AddPartitionsToTxnResponse{CorrelationID: r.CorrelationID, Results: make([]model.TxnPartitionResult, len(r.Partitions))}
		for i, tp := range r.Partitions {
			resp.Results[i] = model.TxnPartitionResult{TP: tp, Error: code}
		}
		return resp
	case model.AddOffsetsToTxnRequest:
		return model.AddOffsetsToTxnResponse{CorrelationID: r.CorrelationID, Error: code}
	case model.EndTxnRequest:
		return model.EndTxnResponse{CorrelationID: r.CorrelationID, Error: code, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}
	}
	panic("broker: no transaction error response for " + req.(interface{ String() string }).String())
}

// handleFindTxnCoordinator names the leader of the transactional id's
// __transaction_state partition (KafkaApis.getCoordinator with
// CoordinatorType.TRANSACTION). The topic is created on first need, as
// Kafka's AutoTopicCreationManager creates internal topics, and the
// answer is COORDINATOR_NOT_AVAILABLE until its partition has a leader.
func (b *Broker) handleFindTxnCoordinator(from model.BrokerID, m model.FindCoordinatorRequest) {
	b.answerFindCoordinator(from, m, TransactionStateTopic, b.txnPartitions, b.createTxnStateTopic)
}

// createTxnStateTopic asks the controller for __transaction_state with
// transaction.state.log.num.partitions and .replication.factor, and
// min.insync.replicas set to transaction.state.log.min.isr
// (AutoTopicCreationManager.creatableTopic with
// TransactionLog's topic configs). Like the offsets topic, the
// replication factor is not lowered to the brokers there are: a
// simulated cluster smaller than it sets it lower.
func (b *Broker) createTxnStateTopic() {
	if b.txn.createOut {
		return
	}
	tc := b.cfg.Kafka.Txn
	b.txn.createOut = true
	b.txn.createCorr = b.nextCorr()
	b.sendController(model.CreateTopicsRequest{
		CorrelationID: b.txn.createCorr,
		Topics: []model.TopicSpec{{Name: TransactionStateTopic, Partitions: tc.StateLogPartitions, ReplicationFactor: tc.StateLogReplicationFactor,
			Configs: []model.ConfigEntry{{Name: "min.insync.replicas", Value: itoa(int64(tc.StateLogMinISR))}}}},
	})
	b.env.After(controllerTimeout, timerTxnTopicCreate, int64(b.txn.createCorr))
}

// txnStateTopicCreated ends the request to create __transaction_state if
// the answer is to the request in flight; false if it is not ours.
func (b *Broker) txnStateTopicCreated(m model.CreateTopicsResponse) bool {
	if !b.txn.createOut || m.CorrelationID != b.txn.createCorr {
		return false
	}
	b.txn.createOut = false
	for _, t := range m.Topics {
		b.env.Trace("txn-state-topic-create", t.Name+" "+t.Error.String())
	}
	return true
}

// txnMarkerOut is a WriteTxnMarkers request in flight from a shard.
type txnMarkerOut struct {
	shard *txnShard
	id    int64
	to    model.BrokerID
	timer sim.TimerID
}

// sendTxnMarkers sends a shard's marker request to the partition leader
// under a correlation id of its own, with the channel's request timeout.
func (b *Broker) sendTxnMarkers(s *txnShard, m txn.MarkerRequest) {
	if b.txn.markers == nil {
		b.txn.markers = map[int32]*txnMarkerOut{}
	}
	corr := b.nextCorr()
	m.Request.CorrelationID = corr
	b.txn.markers[corr] = &txnMarkerOut{shard: s, id: m.ID, to: m.To,
		timer: b.env.After(txnMarkerTimeout, timerTxnMarkerTimeout, int64(corr))}
	b.send(m.To, m.Request)
}

// txnMarkersAnswered hands a marker answer (nil: none came) to the shard
// that sent the request, if it still serves.
func (b *Broker) txnMarkersAnswered(corr int32, resp *model.WriteTxnMarkersResponse) {
	out := b.txn.markers[corr]
	if out == nil {
		return
	}
	delete(b.txn.markers, corr)
	b.env.Cancel(out.timer)
	s := out.shard
	if b.txn.shards[s.p.tp.Partition] != s {
		return
	}
	b.applyTxnEffects(s, s.c.MarkersDone(b.now(), out.id, resp))
}

func (b *Broker) handleWriteTxnMarkersResponse(_ model.BrokerID, m model.WriteTxnMarkersResponse) {
	b.txnMarkersAnswered(m.CorrelationID, &m)
}

// txnPeerGone fails the marker requests in flight to a peer whose
// connection broke: the shard sends them again
// (TransactionMarkerRequestCompletionHandler on a disconnected response).
func (b *Broker) txnPeerGone(peer model.BrokerID) {
	var corrs []int32
	for corr, out := range b.txn.markers {
		if out.to == peer {
			corrs = append(corrs, corr)
		}
	}
	slices.Sort(corrs)
	for _, corr := range corrs {
		b.txnMarkersAnswered(corr, nil)
	}
}

// dropTxnMarkers forgets the requests in flight of a shard being unloaded.
func (b *Broker) dropTxnMarkers(s *txnShard) {
	var corrs []int32
	for corr, out := range b.txn.markers {
		if out.shard == s {
			corrs = append(corrs, corr)
		}
	}
	slices.Sort(corrs)
	for _, corr := range corrs {
		b.env.Cancel(b.txn.markers[corr].timer)
		delete(b.txn.markers, corr)
	}
}
