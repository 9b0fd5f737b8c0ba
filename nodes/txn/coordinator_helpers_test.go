package txn

import (
	"testing"
	"time"

	"kafkasim/model"
)

// world is a coordinator with a fake host: producer ids from 100 up,
// partition leaders from a map (absent: the partition is gone), and the
// records of committed writes in log order.
type world struct {
	t       *testing.T
	c       *Coordinator
	cfg     Config
	nextPID model.ProducerID
	leaders map[model.TopicPartition]model.BrokerID
	log     []model.Record
	now     time.Duration
	// held are writes not yet acknowledged; sent are marker requests not
	// yet answered.
	held []Write
	sent []MarkerRequest
	last Effects
}

const client model.BrokerID = 1000

func newWorld(t *testing.T, cfg Config) *world {
	w := &world{t: t, cfg: cfg, nextPID: 100, now: time.Second,
		leaders: map[model.TopicPartition]model.BrokerID{
			model.TP("a", 0): 1, model.TP("a", 1): 2, model.TP("b", 0): 1,
			model.TP(model.ConsumerOffsetsTopic, model.CoordinatorPartition("g", 50)): 3}}
	w.c = w.newCoordinator(7)
	w.take(w.c.Loaded(w.now))
	return w
}

func (w *world) newCoordinator(epoch int32) *Coordinator {
	return NewCoordinator(w.cfg, Host{
		NewProducerID: func() model.ProducerID { w.nextPID++; return w.nextPID },
		LeaderOf: func(tp model.TopicPartition) (model.BrokerID, bool) {
			b, ok := w.leaders[tp]
			return b, ok
		},
	}, 0, epoch)
}

// take keeps an input's effects for the test to act on.
func (w *world) take(e Effects) Effects {
	w.last = e
	w.held = append(w.held, e.Writes...)
	w.sent = append(w.sent, e.Markers...)
	return e
}

// ackWrites commits every held write (and those the commits cause) with
// code, appending committed records to the log.
func (w *world) ackWrites(code model.ErrorCode) {
	for len(w.held) > 0 {
		wr := w.held[0]
		w.held = w.held[1:]
		if code == model.NoError {
			w.log = append(w.log, wr.Records...)
		}
		w.take(w.c.WriteDone(w.now, wr.ID, code))
	}
}

// answerMarkers answers every sent marker request, each partition with
// code (nil response for disconnected).
func (w *world) answerMarkers(code model.ErrorCode, disconnected bool) {
	sent := w.sent
	w.sent = nil
	for _, m := range sent {
		if disconnected {
			w.take(w.c.MarkersDone(w.now, m.ID, nil))
			continue
		}
		var resp model.WriteTxnMarkersResponse
		for _, mk := range m.Request.Markers {
			r := model.WritableTxnMarkerResult{ProducerID: mk.ProducerID}
			for _, tp := range mk.Partitions {
				r.Partitions = append(r.Partitions, model.TxnPartitionResult{TP: tp, Error: code})
			}
			resp.Markers = append(resp.Markers, r)
		}
		w.take(w.c.MarkersDone(w.now, m.ID, &resp))
	}
}

// settle commits every write and writes every marker until nothing is
// left.
func (w *world) settle() {
	for len(w.held) > 0 || len(w.sent) > 0 {
		w.ackWrites(model.NoError)
		w.answerMarkers(model.NoError, false)
	}
}

func (w *world) advance(d time.Duration) {
	w.now += d
	w.take(w.c.Expire(w.now))
}

// replies are the messages of the effects' replies.
func replies(e Effects) []model.Message {
	out := make([]model.Message, len(e.Replies))
	for i, r := range e.Replies {
		out[i] = r.Msg
	}
	return out
}

// init sends InitProducerId and returns its answer once every write
// settled (zero if none came).
func (w *world) init(id string, pid model.ProducerID, epoch model.Epoch) model.InitProducerIDResponse {
	w.t.Helper()
	w.take(w.c.HandleInitProducerID(w.now, client, model.InitProducerIDRequest{TransactionalID: id,
		TransactionTimeout: time.Minute, ProducerID: pid, ProducerEpoch: epoch}))
	return lastOf[model.InitProducerIDResponse](w)
}

// lastOf returns the first reply of type T among the effects the last
// inputs gave, settling writes one round at a time until one appears.
func lastOf[T model.Message](w *world) T {
	if r, ok := find[T](w.last); ok {
		return r
	}
	for len(w.held) > 0 {
		wr := w.held[0]
		w.held = w.held[1:]
		w.log = append(w.log, wr.Records...)
		if r, ok := find[T](w.take(w.c.WriteDone(w.now, wr.ID, model.NoError))); ok {
			return r
		}
	}
	var zero T
	return zero
}

func find[T model.Message](e Effects) (T, bool) {
	for _, m := range replies(e) {
		if r, ok := m.(T); ok {
			return r, true
		}
	}
	var zero T
	return zero, false
}

func (w *world) add(id string, pid model.ProducerID, epoch model.Epoch, tps ...model.TopicPartition) model.ErrorCode {
	w.t.Helper()
	w.take(w.c.HandleAddPartitionsToTxn(w.now, client, model.AddPartitionsToTxnRequest{TransactionalID: id,
		ProducerID: pid, ProducerEpoch: epoch, Partitions: tps}))
	r := lastOf[model.AddPartitionsToTxnResponse](w)
	if len(r.Results) == 0 {
		w.t.Fatalf("AddPartitionsToTxn %s: no answer", id)
	}
	return r.Results[0].Error
}

func (w *world) endTxn(id string, pid model.ProducerID, epoch model.Epoch, commit bool) model.EndTxnResponse {
	w.t.Helper()
	w.take(w.c.HandleEndTxn(w.now, client, model.EndTxnRequest{TransactionalID: id, ProducerID: pid,
		ProducerEpoch: epoch, Committed: commit}))
	return lastOf[model.EndTxnResponse](w)
}

// producer inits id and returns its producer id and epoch.
func (w *world) producer(id string) (model.ProducerID, model.Epoch) {
	w.t.Helper()
	r := w.init(id, model.NoProducerID, model.NoEpoch)
	if r.Error != model.NoError {
		w.t.Fatalf("init %s: %v", id, r.Error)
	}
	return r.ProducerID, r.ProducerEpoch
}

func tv1() Config {
	c := DefaultConfig()
	c.TransactionVersion = 0
	return c
}

var (
	a0 = model.TP("a", 0)
	a1 = model.TP("a", 1)
	b0 = model.TP("b", 0)
)
