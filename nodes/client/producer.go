package client

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Producer is a simulated Kafka producer node: KafkaProducer with its
// RecordAccumulator, Sender and TransactionManager folded into one
// synchronous state machine. Records come from Send (called by a Workload
// on a timer, or by harness code) and every one is recorded in the history
// as a send op: invoked when the application sends it, completed ok with
// its offset, fail when it certainly was not written, info when it may or
// may not have been.
type Producer struct {
	opts    ProducerOptions
	cfg     model.ProducerConfig
	cl      model.ClientConfig
	rec     *model.Recorder
	process int
	env     *sim.Env

	net  network
	md   metadata
	acc  accumulator
	idem idempotence
	// txn is the transaction manager of a producer with a transactional
	// id (nil otherwise), cur the transaction under way and
	// txnSleepUntil the end of the sender's sleep before a retried
	// transactional request (transactions.go, txn_sender.go, txn_app.go).
	txn           *transactions
	cur           *openTxn
	txnSleepUntil time.Duration
	// lastCommitted says the last transaction to end committed (a
	// Pipeline rewinds its consumer after any other end).
	lastCommitted bool
	sticky        map[string]*sticky // per topic (lookup only)
	waiting       []waitingSend      // sends whose topic's metadata is not known yet
	muted         map[model.TopicPartition]bool

	wake   wake
	tickID sim.TimerID
	// tickAt is when the armed workload tick fires. A deadline at or after
	// it needs no wake timer of its own: the tick runs the sender anyway,
	// and with a send every millisecond or so, a wake per lingering batch
	// would nearly double the producer's events. dueAt is such a deadline
	// left to the tick (model.Never when none); the tick acts on it before
	// it appends its record, as the wake it replaces would have.
	tickAt time.Duration
	dueAt  time.Duration

	// fast is what only saves work: caches, skip flags, scratch buffers
	// and the free list of produce requests (fastpath.go).
	fast producerFastPath
}

// waitingSend is a send blocked on metadata, as KafkaProducer.send blocks in
// waitOnMetadata, for at most max.block.ms.
type waitingSend struct {
	m        Message
	op       int
	deadline time.Duration
}

// Timer kinds.
const (
	timerWake = "wake" // the sender's next deadline
	timerTick = "tick" // the workload's next send
)

// NewProducer builds a producer. Use it inside the node's factory, so that
// each incarnation starts from nothing, as a restarted process does:
//
//	s.AddNode(1000, "producer", func() sim.Node { return client.NewProducer(opts) })
func NewProducer(opts ProducerOptions) *Producer {
	checkProducer(&opts)
	if opts.MaxBlock <= 0 {
		opts.MaxBlock = defaultMaxBlock
	}
	p := &Producer{
		opts: opts,
		cfg:  opts.Config.Producer,
		cl:   opts.Config.Client,
		rec:  opts.Recorder,

		dueAt: model.Never,
		fast:  producerFastPath{expireAt: model.Never},
	}
	p.md = newMetadata(opts.Bootstrap, p.cl)
	p.acc = newAccumulator(p.cfg)
	p.idem = newIdempotence(p.cfg.Idempotence)
	if opts.TransactionalID != "" {
		p.idem.txn = true
		p.txn = newTransactions(opts.TransactionalID, p.cfg.TransactionTimeout, p.cl.RetryBackoff)
	}
	p.sticky = map[string]*sticky{}
	p.muted = map[model.TopicPartition]bool{}
	return p
}

// Start boots the producer: it arms the workload and, with idempotence,
// asks for a producer id right away, as KafkaProducer's Sender does on its
// first pass. Nothing is recovered: a producer keeps no disk state, and a
// new incarnation is a new producer session with a new producer id. The
// sends its previous incarnation left unfinished stay invoke in the
// history: nobody will ever learn their fate.
func (p *Producer) Start(env *sim.Env) {
	p.env = env
	p.net = newNetwork(env, p.cl)
	p.process = p.opts.Process
	if p.process == 0 {
		p.process = int(env.ID())
	}
	for _, t := range p.opts.Topics {
		p.md.addTopic(t)
	}
	if p.txn != nil {
		// The application's initTransactions, before anything else.
		p.txn.initialize()
	}
	if p.opts.Workload != nil || p.opts.TxnWorkload != nil {
		p.armTick(env)
	}
	p.run(env)
}

// Send hands one record to the producer, as KafkaProducer.send does: it is
// recorded as invoked now, partitioned, and appended to a batch; its
// outcome is recorded when known. It returns the history op index (-1
// without a recorder). env is the producer's own Env (a Workload's Next
// receives it); harness code outside the node's events may pass nil to use
// the current incarnation's. Harness code must call it on the current
// incarnation (sim.Sim.Node), never on a value kept from before a crash:
// that one's sends would be recorded and never completed.
func (p *Producer) Send(env *sim.Env, m Message) int {
	if env == nil {
		env = p.env
	}
	if env == nil {
		panic("client.Producer.Send before Start")
	}
	if m.Value == "" {
		panic("client.Producer.Send: a record needs a value (values must be unique within the run)")
	}
	now := env.Now()
	op := -1
	var tp model.TopicPartition
	known := false
	if n, ok := p.partitions(m.Topic); ok {
		tp, known = p.partition(env, m, n)
	} else if m.HasPartition {
		tp = model.TP(m.Topic, m.Partition)
	}
	switch {
	case p.txn != nil:
		if p.cur == nil {
			panic("client.Producer.Send: a transactional producer sends inside a transaction (BeginTransaction)")
		}
		op = p.txnInvoke(env, tp, m)
	case p.rec != nil:
		op = p.rec.InvokeSend(p.process, env.ObserverNow(), tp, m.Key, m.Value)
	}
	if p.txn != nil && known {
		p.txn.maybeAddPartition(tp)
	}
	switch {
	case p.txn != nil && p.txn.hasError():
		// failIfNotReadyForSend: the send throws, and the record is
		// never batched.
		p.finishOne(env, op, false, "transaction in error: "+p.txn.lastReason)
	case p.idem.state == idemFatal:
		p.finishOne(env, op, false, "fatal: "+p.idem.fatalReason())
	case known:
		how := p.appendRecord(env, tp, pendingRecord{op: op, key: m.Key, value: m.Value, ts: now})
		if p.appendQuiet(env, tp, how) {
			return op
		}
	default:
		p.md.addTopic(m.Topic)
		p.waiting = append(p.waiting, waitingSend{m: m, op: op, deadline: satAdd(now, p.opts.MaxBlock)})
	}
	if p.txn != nil {
		// A transaction's sends are made within one event and reach the
		// sender together, at the commit, the abort or the event's end
		// (txnTick): one AddPartitionsToTxn then asks for every new
		// partition of them, where a pass per send would ask for the
		// first partition alone and the rest after its answer.
		return op
	}
	p.run(env)
	return op
}

// partition chooses the record's partition (Kafka's
// KafkaProducer.partition and BuiltInPartitioner): explicit, by key hash, or
// sticky for a record without a key. ok is false when an explicit partition
// is not (yet) in the metadata.
func (p *Producer) partition(env *sim.Env, m Message, n int32) (model.TopicPartition, bool) {
	switch {
	case m.HasPartition:
		return model.TP(m.Topic, m.Partition), m.Partition >= 0 && m.Partition < n
	case n <= 0:
		return model.TopicPartition{}, false
	case m.Key != "":
		return model.TP(m.Topic, keyPartition(m.Key, n)), true
	}
	st := p.stickyFor(m.Topic)
	part := st.partition(env, &p.md, m.Topic, n, p.acc.batchSize)
	st.bytes += recordBytes(m.Key, m.Value)
	return model.TP(m.Topic, part), true
}

// appendRecord adds a record to its partition's queue and says what that
// did to the queue (see appended).
func (p *Producer) appendRecord(env *sim.Env, tp model.TopicPartition, r pendingRecord) appended {
	if p.addTopic(tp.Topic) {
		p.fast.settled = false // a metadata refresh is due
	}
	now := env.Now()
	how := p.acc.append(tp, r, now)
	// The record's batch was created at or before now.
	p.fast.expireAt = min(p.fast.expireAt, satAdd(now, p.cfg.DeliveryTimeout))
	return how
}

// unblockWaiting appends the sends whose metadata arrived, in send order,
// and fails those that waited max.block.ms: KafkaProducer.send throws
// TimeoutException to the caller then, before the record reaches any
// broker, so the send certainly failed.
func (p *Producer) unblockWaiting(env *sim.Env) {
	if len(p.waiting) == 0 {
		return
	}
	now := env.Now()
	kept := p.waiting[:0]
	for _, w := range p.waiting {
		if n, ok := p.md.partitions(w.m.Topic); ok {
			if tp, ok := p.partition(env, w.m, n); ok {
				// Kafka stamps the record after the metadata wait.
				if p.txn != nil {
					p.txn.maybeAddPartition(tp)
				}
				p.appendRecord(env, tp, pendingRecord{op: w.op, key: w.m.Key, value: w.m.Value, ts: now})
				continue
			}
		}
		if now >= w.deadline {
			reason := "timeout: no metadata for " + w.m.Topic + " after max.block.ms"
			if p.txn != nil {
				p.txn.batchFailed(model.RequestTimedOut, reason) // doSend's maybeTransitionToErrorState
			}
			p.finishOne(env, w.op, false, reason)
			continue
		}
		kept = append(kept, w)
	}
	clear(p.waiting[len(kept):])
	p.waiting = kept
}

// Receive handles a broker's answer.
func (p *Producer) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	broker := model.BrokerID(from)
	if p.net.heard(broker, m) {
		p.run(env)
		return
	}
	switch r := m.(type) {
	case model.MetadataResponse:
		if req := p.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqMetadata {
			p.md.apply(r, env.Now())
			p.unblockWaiting(env)
		}
	case model.InitProducerIDResponse:
		if p.txn != nil {
			if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
				p.handleTxnInitProducerID(env, t, r)
			}
		} else if req := p.net.complete(broker, r.CorrelationID); req != nil && req.kind == reqInitProducerID {
			p.handleInitProducerID(env, r)
		}
	case model.FindCoordinatorResponse:
		if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
			p.handleTxnFindCoordinator(t, r)
		}
	case model.AddPartitionsToTxnResponse:
		if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
			p.handleTxnAddPartitions(t, r)
		}
	case model.EndTxnResponse:
		if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
			p.handleTxnEndTxn(env, t, r)
		}
	case model.AddOffsetsToTxnResponse:
		if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
			p.handleTxnAddOffsets(t, r)
		}
	case model.TxnOffsetCommitResponse:
		if t := p.txnAnswered(broker, r.CorrelationID); t != nil {
			p.handleTxnOffsetCommit(t, r)
		}
	case *model.ProduceResponse:
		p.produceAnswered(env, broker, *r) // a copy: r lives in a request that may be reused
	case model.ProduceResponse:
		p.produceAnswered(env, broker, r)
	}
	if p.fast.answered {
		p.fast.answered = false
		p.fast.answersSkipped++
		return
	}
	p.run(env)
}

// Fire handles the producer's timers.
func (p *Producer) Fire(env *sim.Env, t sim.Timer) {
	switch t.Kind {
	case timerWake:
		p.wake.fired(t)
	case timerTick:
		if p.dueAt <= env.Now() {
			// A deadline left to this tick (see tickAt) comes first, as
			// its wake would have fired before this tick: a batch whose
			// linger ends now leaves without the record sent now. Later
			// deadlines are left to the next tick; should the workload
			// end here instead, the run below arms a wake for them.
			p.tickAt = env.Now() + p.opts.SendInterval
			p.run(env)
		}
		if p.opts.TxnWorkload != nil && p.txn != nil {
			if p.txnTick(env, p.opts.TxnWorkload) {
				p.armTick(env)
				return
			}
		} else if p.tickBurst(env) {
			return
		}
		p.tickID = 0
	}
	p.run(env)
}

// tickBurst takes up to SendBurst records from the workload and sends
// them back to back, arming the next tick once the first is there. It
// reports whether the workload gave any; when it ends partway through a
// burst, the armed tick is cancelled, since ok=false ends the workload for
// this incarnation.
func (p *Producer) tickBurst(env *sim.Env) bool {
	burst := max(p.opts.SendBurst, 1)
	for i := range burst {
		m, ok := p.opts.Workload.Next(env)
		if !ok {
			if i > 0 {
				env.Cancel(p.tickID)
				p.tickID = 0
				p.run(env)
			}
			return i > 0
		}
		if i == 0 {
			p.armTick(env)
		}
		p.Send(env, m)
	}
	return true
}

// armTick arms the workload's next tick.
func (p *Producer) armTick(env *sim.Env) {
	p.tickAt = env.Now() + p.opts.SendInterval
	p.tickID = env.After(p.opts.SendInterval, timerTick, 0)
}

// Disconnected fails every request in flight to the peer (their outcome is
// unknown), puts it in reconnect backoff and refreshes metadata, as
// Kafka's NetworkClient does when a connection breaks.
func (p *Producer) Disconnected(env *sim.Env, peer sim.NodeID) {
	p.brokerFailed(env, model.BrokerID(peer), model.NetworkException)
	p.run(env)
}

// ProducerID returns the producer id and epoch in use (NoProducerID without
// idempotence or before InitProducerId is answered).
func (p *Producer) ProducerID() (model.ProducerID, model.Epoch) { return p.idem.pid, p.idem.epoch }

// Idle reports whether the producer has nothing left to do: no record
// waiting, batched or in flight. A harness can wait for it before the
// final reads of a run.
func (p *Producer) Idle() bool {
	if len(p.waiting) > 0 || !p.acc.empty() || p.cur != nil {
		return false
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce {
			return false
		}
	}
	return true
}

// finishOne completes one send op as fail, or as info when it may have been
// appended.
func (p *Producer) finishOne(env *sim.Env, op int, maybe bool, reason string) {
	if p.rec == nil || op < 0 || p.txnOwns(op) {
		return // a transaction's sends end with it (txnEnded)
	}
	if maybe {
		p.rec.Info(op, env.ObserverNow(), reason)
	} else {
		p.rec.Fail(op, env.ObserverNow(), reason)
	}
}

// schedule makes sure a wake timer is armed no later than the earliest
// future deadline, moving it only when that deadline comes earlier, so a
// busy producer does not churn timers.
func (p *Producer) schedule(env *sim.Env, next time.Duration) {
	p.dueAt = model.Never
	if next == model.Never {
		return
	}
	if p.tickID != 0 && p.tickAt <= next {
		// The workload's tick comes no later: it runs the sender then.
		p.dueAt = next
		return
	}
	p.wake.arm(env, next)
}
