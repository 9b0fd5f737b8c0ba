package txn

import (
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
)

// Reply is a response to send now to the client that asked.
type Reply struct {
	To  model.BrokerID
	Msg model.Message
}

// Write is records the host must append to the coordinator's
// __transaction_state partition as its leader with acks=all, calling
// WriteDone with ID once the high watermark passes them or the append
// fails.
type Write struct {
	ID      int64
	Records []model.Record
}

// MarkerRequest is a WriteTxnMarkers request to send to a partition
// leader; the host calls MarkersDone with ID and the answer, or with nil
// when the connection broke or the request timed out.
type MarkerRequest struct {
	ID      int64
	To      model.BrokerID
	Request model.WriteTxnMarkersRequest
}

// Effects is everything one input asks the host to do, in order.
type Effects struct {
	Replies []Reply
	Writes  []Write
	Markers []MarkerRequest
}

// Host is what the coordinator asks of the broker that hosts it.
type Host struct {
	// NewProducerID allocates a producer id never given out before
	// (Kafka's ProducerIdManager.generateProducerId).
	NewProducerID func() model.ProducerID
	// LeaderOf is the metadata cache's leader of a partition: NoBroker
	// while it has none, and exists false once the partition is gone
	// (MetadataCache.getPartitionLeaderEndpoint's Node.noNode and None).
	LeaderOf func(tp model.TopicPartition) (leader model.BrokerID, exists bool)
}

// Coordinator is the transaction coordinator of one __transaction_state
// partition (Kafka's TransactionCoordinator with the TransactionStateManager
// cache entry and the TransactionMarkerChannelManager queues of that
// partition), for one leadership of it: the host builds one when it
// becomes the partition's leader at a leader epoch (the coordinator
// epoch), replays the partition into it, calls Loaded, and Closes it when
// it resigns. It is a pure state machine: requests, time, write outcomes
// and marker answers in; Effects out.
type Coordinator struct {
	cfg       Config
	host      Host
	partition int32
	epoch     int32

	txns    map[string]*Metadata
	loaded  bool
	closed  bool
	writes  map[int64]func(code model.ErrorCode)
	markers map[int64]inflightMarker
	// pendingMarkers is transactionsWithPendingMarkers: the completion
	// each transaction waits to write once its markers are written.
	pendingMarkers map[string]*pendingComplete
	retries        []retry
	nextID         int64

	nextAbortCheck, nextExpireCheck time.Duration

	now time.Duration // the input's time, in whole milliseconds as Kafka's clock
	out *Effects
}

// NewCoordinator is the coordinator of partition at coordinator epoch
// epoch, loading: it answers COORDINATOR_LOAD_IN_PROGRESS until Loaded.
func NewCoordinator(cfg Config, host Host, partition, epoch int32) *Coordinator {
	return &Coordinator{cfg: cfg, host: host, partition: partition, epoch: epoch,
		txns: map[string]*Metadata{}, writes: map[int64]func(model.ErrorCode){},
		markers: map[int64]inflightMarker{}, pendingMarkers: map[string]*pendingComplete{}}
}

// Metadata is a transactional id's current state, for the host's
// observations and for tests; nil when the coordinator has none.
func (c *Coordinator) Metadata(transactionalID string) *Metadata { return c.txns[transactionalID] }

// TransactionalIDs lists the ids the coordinator holds, sorted.
func (c *Coordinator) TransactionalIDs() []string {
	ids := make([]string, 0, len(c.txns))
	for id := range c.txns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (c *Coordinator) begin(now time.Duration) {
	c.now = now.Truncate(time.Millisecond)
	c.out = &Effects{}
}

func (c *Coordinator) end() Effects {
	out := *c.out
	c.out = nil
	return out
}

func (c *Coordinator) reply(to model.BrokerID, m model.Message) {
	c.out.Replies = append(c.out.Replies, Reply{To: to, Msg: m})
}

func (c *Coordinator) id() int64 {
	c.nextID++
	return c.nextID
}

// state is TransactionStateManager.getTransactionState for this
// partition: the transactional id's metadata (nil if unknown), or the
// error a request gets while the coordinator loads or after it resigned.
func (c *Coordinator) state(transactionalID string) (*Metadata, model.ErrorCode) {
	switch {
	case c.closed:
		return nil, model.NotCoordinator
	case !c.loaded:
		return nil, model.CoordinatorLoadInProgress
	}
	return c.txns[transactionalID], model.NoError
}

// appendTransactionToLog is TransactionStateManager.appendTransactionToLog:
// write the transition's record; once it is committed, complete the
// transition and call done with NONE; if the append fails, map its error
// to the coordinator's and drop the pending transition (unless
// keepPendingOn says the caller retries on that error).
func (c *Coordinator) appendTransactionToLog(id string, to Snapshot, done func(model.ErrorCode), keepPendingOn model.ErrorCode) {
	if c.closed {
		done(model.NotCoordinator)
		return
	}
	record := model.TransactionLogRecord(id, logValue(to), c.cfg.logValueVersion())
	record.Timestamp = c.now
	c.write([]model.Record{record}, func(code model.ErrorCode) {
		m, err := c.state(id)
		code = model.CoordinatorAppendError(code)
		switch {
		case code == model.NoError && err != model.NoError:
			code = err
		case code == model.NoError && m == nil:
			code = model.NotCoordinator
		case code == model.NoError:
			if e := m.CompleteTransitionTo(to); e != nil {
				panic(fmt.Sprintf("txn: %s: %v", id, e))
			}
		case m != nil && code != keepPendingOn:
			m.Abandon()
		}
		done(code)
	})
}

func (c *Coordinator) write(records []model.Record, done func(model.ErrorCode)) {
	id := c.id()
	c.writes[id] = done
	c.out.Writes = append(c.out.Writes, Write{ID: id, Records: records})
}

// WriteDone reports a write's outcome: NONE once committed, or the
// partition error that failed it. An unknown id is ignored.
func (c *Coordinator) WriteDone(now time.Duration, id int64, code model.ErrorCode) Effects {
	c.begin(now)
	if done, ok := c.writes[id]; ok {
		delete(c.writes, id)
		done(code)
	}
	return c.end()
}

// Close unloads the coordinator (TransactionCoordinator.onResignation):
// pending writes fail with NOT_COORDINATOR (their clients are answered
// so), markers in flight and queued are dropped, and the coordinator
// answers NOT_COORDINATOR from now on. The next leader completes what
// was prepared, from the log.
func (c *Coordinator) Close(now time.Duration) Effects {
	c.begin(now)
	c.closed = true
	ids := make([]int64, 0, len(c.writes))
	for id := range c.writes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		done := c.writes[id]
		delete(c.writes, id)
		done(model.NotLeaderOrFollower)
	}
	clear(c.markers)
	clear(c.pendingMarkers)
	c.retries = nil
	return c.end()
}

// startMillis is a transaction's start time in the record's milliseconds.
// Kafka's clock is milliseconds since 1970 and never negative, but a
// simulated node's clock starts at 0 and a backward skew takes it below:
// a negative start is a start all the same, and only -1 means none, so a
// start that falls in the millisecond before 0 is written one earlier
// (the start time is only compared with transaction.timeout.ms).
func startMillis(t time.Duration) int64 {
	ms := t.Milliseconds()
	if ms == -1 {
		ms = -2
	}
	return ms
}

// logValue is TransactionLog.valueToBytes's TransactionLogValue of a
// transition; times are in milliseconds, -1 for no start.
func logValue(s Snapshot) *model.TransactionLogValue {
	v := &model.TransactionLogValue{ProducerID: s.ProducerID, PreviousProducerID: s.PrevProducerID,
		NextProducerID: s.NextProducerID, ProducerEpoch: s.ProducerEpoch,
		TransactionTimeoutMs: int32(s.Timeout.Milliseconds()), TransactionStatus: int8(s.State),
		TransactionLastUpdateTimestampMs: s.LastUpdate.Milliseconds(), TransactionStartTimestampMs: -1}
	if s.State != Empty {
		v.TransactionPartitions = s.Partitions
	}
	if s.StartTime != -1 {
		v.TransactionStartTimestampMs = startMillis(s.StartTime)
	}
	if s.TV2 {
		v.ClientTransactionVersion = 2
	}
	return v
}
