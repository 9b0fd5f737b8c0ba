package client

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Pipeline is a consume-transform-produce worker (KIP-447), the loop of an
// exactly-once application such as a Kafka Streams thread: a consumer in
// a group, reading Input with isolation.level=read_committed and without
// auto-commit, and a transactional producer. Each turn takes what the
// consumer has, and within one transaction writes each input record's
// transformed value (model.PipelineOutput, which names the transaction
// too) to the same partition of
// Output, commits the consumer's positions with sendOffsetsToTransaction
// and, once they are in the transaction, commits it. When the transaction
// aborts (an abortable error: the group's generation moved on, a
// coordinator refused), the positions are rewound to the group's
// committed offsets and the records consumed again; when the producer is
// fenced or fails fatally it is closed and made anew (initTransactions
// again) and the positions rewound, as Kafka Streams does on a
// TaskMigratedException.
//
// Each transaction is one :txn operation of the history: its :poll
// micro-operations (what it consumed) then its :send ones, with the
// transaction's outcome. The consumer's group ops (subscribe, rebalance)
// are recorded under the same process.
//
// The two clients share the node: answers go to the one that asked
// (by message kind, and by correlation id for the kinds both send), timers
// to the one that armed them.
type Pipeline struct {
	opts PipelineOptions
	c    *Consumer
	p    *Producer
	tick sim.TimerID
	// open says a transaction of this worker is under way; committing
	// that its CommitTransaction was called.
	open, committing bool
}

// PipelineOptions configures a Pipeline.
type PipelineOptions struct {
	Bootstrap []model.BrokerID
	// Config supplies the clients' settings; the consumer reads
	// read_committed and never auto-commits, whatever it says.
	Config   model.Config
	Recorder *model.Recorder
	// Process is the worker's process id in the history; 0 means the
	// node id.
	Process int
	// GroupID, Input and Output: the group reading Input, and the topic
	// written, which must have at least Input's partitions.
	GroupID, Input, Output string
	// TransactionalID is the producer's transactional.id.
	TransactionalID string
	// Interval is the period of the worker's loop; 0 means 100 ms.
	Interval time.Duration

	_ struct{}
}

const timerPipeline = "pipeline"

// NewPipeline builds a worker. Use it inside the node's factory.
func NewPipeline(opts PipelineOptions) *Pipeline {
	if opts.GroupID == "" || opts.Input == "" || opts.Output == "" || opts.TransactionalID == "" {
		panic("client.NewPipeline: GroupID, Input, Output and TransactionalID are required")
	}
	if opts.Interval <= 0 {
		opts.Interval = defaultPollInterval
	}
	return &Pipeline{opts: opts}
}

// Start boots the worker: a new consumer joins the group, a new producer
// initializes transactions (fencing whatever its predecessor left open).
func (w *Pipeline) Start(env *sim.Env) {
	process := w.opts.Process
	if process == 0 {
		process = int(env.ID())
	}
	cc := w.opts.Config
	cc.Consumer.IsolationLevel = model.ReadCommitted
	cc.Consumer.AutoCommit = false
	w.c = NewConsumer(ConsumerOptions{Bootstrap: w.opts.Bootstrap, Config: cc, Recorder: w.opts.Recorder, Process: process,
		GroupID: w.opts.GroupID, Topics: []string{w.opts.Input}, ManualPoll: true})
	w.p = NewProducer(ProducerOptions{Bootstrap: w.opts.Bootstrap, Config: w.opts.Config, Recorder: w.opts.Recorder, Process: process,
		Topics: []string{w.opts.Output}, TransactionalID: w.opts.TransactionalID})
	w.open, w.committing = false, false
	w.c.Start(env)
	w.p.Start(env)
	w.tick = env.After(w.opts.Interval, timerPipeline, 0)
}

// Consumer is the worker's consumer, for observers and kill hooks (nil
// before Start).
func (w *Pipeline) Consumer() *Consumer { return w.c }

// Producer is the worker's transactional producer (nil before Start).
func (w *Pipeline) Producer() *Producer { return w.p }

// Receive hands an answer to the client that asked for it.
func (w *Pipeline) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	toConsumer, toProducer := w.route(model.BrokerID(from), m)
	if toConsumer {
		w.c.Receive(env, from, m)
	}
	if toProducer {
		w.p.Receive(env, from, m)
	}
	w.step(env)
}

// route says who gets m: the kinds only one client sends go to it; a
// Metadata or FindCoordinator answer to the one whose request it answers;
// a handshake answer to each whose connection to the broker awaits one.
func (w *Pipeline) route(broker model.BrokerID, m sim.Message) (consumer, producer bool) {
	asked := func(n *network, corr int32) bool {
		for _, r := range n.reqs {
			if r.corr == corr && r.broker == broker {
				return true
			}
		}
		return false
	}
	switch r := m.(type) {
	case model.ApiVersionsResponse:
		c, p := w.c.net.conn(broker).state == connSetup, w.p.net.conn(broker).state == connSetup
		return c || !p, p
	case model.MetadataResponse:
		return asked(&w.c.net, r.CorrelationID), asked(&w.p.net, r.CorrelationID)
	case model.FindCoordinatorResponse:
		return asked(&w.c.net, r.CorrelationID), asked(&w.p.net, r.CorrelationID)
	case model.ProduceResponse, *model.ProduceResponse, model.InitProducerIDResponse, model.AddPartitionsToTxnResponse,
		model.EndTxnResponse, model.AddOffsetsToTxnResponse, model.TxnOffsetCommitResponse:
		return false, true
	}
	return true, false
}

// Fire hands a timer to the client that armed it, or runs the loop.
func (w *Pipeline) Fire(env *sim.Env, t sim.Timer) {
	switch {
	case t.Kind == timerPipeline:
		w.tick = env.After(w.opts.Interval, timerPipeline, 0)
		w.turn(env)
	case t.Kind == timerWake && t.ID == w.p.wake.id:
		w.p.Fire(env, t)
	case t.Kind == timerWake && t.ID == w.c.wake.id:
		w.c.Fire(env, t)
	}
	w.step(env)
}

// Disconnected tells both clients.
func (w *Pipeline) Disconnected(env *sim.Env, peer sim.NodeID) {
	w.c.Disconnected(env, peer)
	w.p.Disconnected(env, peer)
	w.step(env)
}

// Stop is a clean shutdown: the member leaves its group; the producer's
// open transaction is left for the coordinator's timeout or the next
// incarnation's fencing.
func (w *Pipeline) Stop(env *sim.Env) { w.c.Stop(env) }

// turn is one iteration of the application's loop: a producer that can
// no longer be used is closed and made anew; with no transaction under
// way, what the consumer has is consumed, transformed and written in a new
// one.
func (w *Pipeline) turn(env *sim.Env) {
	if w.p.txn.state == txnFatalError {
		w.p.reopen(env)
		w.c.RewindToCommitted(env)
		return
	}
	if w.open || w.p.txn.state != txnReady {
		return
	}
	recs := w.c.PollRecords(env)
	if len(recs) == 0 {
		return
	}
	w.p.BeginTransaction()
	w.open, w.committing = true, false
	w.p.TxnPoll(env, recs)
	for _, pr := range recs {
		for _, r := range pr.Records {
			w.p.Send(env, Message{Topic: w.opts.Output, Value: model.PipelineOutput(r.Value, w.p.cur.txn), Partition: pr.TP.Partition, HasPartition: true})
		}
	}
	w.p.SendOffsetsToTransaction(env, w.c.Positions(), w.c.GroupMetadata())
}

// step follows the transaction under way after every event: once its
// offsets are in it, it is committed; once it is over, an abort rewinds
// the consumer to the committed offsets.
func (w *Pipeline) step(env *sim.Env) {
	if !w.open {
		return
	}
	if w.p.cur == nil {
		w.open = false
		if !w.p.lastCommitted {
			w.c.RewindToCommitted(env)
		}
		return
	}
	if done, _ := w.p.TxnOffsetsSent(); done && !w.committing && w.p.txn.state == txnInTransaction {
		w.committing = true
		w.p.CommitTransaction(env)
	}
}
