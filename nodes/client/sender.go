package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// run is one pass of Kafka's Sender.runOnce, made after every event the
// producer handles: time out requests, settle idempotence (resolve
// sequences, bump the epoch, get a producer id), expire batches past
// delivery.timeout.ms, send the batches that are ready, refresh metadata if
// due, and arm the wake timer for the next deadline.
func (p *Producer) run(env *sim.Env) {
	now := env.Now()
	// A request unanswered for request.timeout.ms closes its connection
	// (NetworkClient.handleTimedOutRequests): every request on it fails,
	// and their writes' outcomes are unknown.
	for {
		b, ok := p.net.timedOut(now)
		if !ok {
			break
		}
		p.brokerFailed(env, b, model.RequestTimedOut)
	}
	if p.idem.on && p.txn == nil {
		p.idem.resolveSequences()
		p.idem.bumpIfNeeded()
		p.recordRewrites(env)
		p.maybeInitProducerID(env)
	}
	if p.txn != nil && p.txnPass(env) {
		// A transactional request goes first, and no batch while it
		// flies (Sender.runOnce returns after it).
		p.md.maybeSend(env, &p.net)
		p.fast.nextAt = p.nextDeadline(now)
		p.fast.settled = false
		p.schedule(env, p.fast.nextAt)
		return
	}
	p.expire(env)
	p.unblockWaiting(env)
	p.drain(env)
	p.md.maybeSend(env, &p.net)
	p.fast.nextAt = p.nextDeadline(now)
	p.fast.settled = p.isSettled(now)
	p.schedule(env, p.fast.nextAt)
}

// recordRewrites writes into the history what the last epoch bump did to
// the records still waiting for an acknowledgement: their (epoch,
// sequence) before and after (model.Resequence). Only a bump that kept the
// producer id is recorded: one that exhausted the epoch asks for a new id
// instead, and the rewrite under it is not a bump of this epoch.
func (p *Producer) recordRewrites(env *sim.Env) {
	rs := p.idem.takeRewritten()
	if p.rec == nil {
		return
	}
	at := env.ObserverNow()
	for _, r := range rs {
		b := r.b
		if b.done || b.epoch <= r.epoch || b.pid != p.idem.pid {
			continue
		}
		for i, op := range b.ops {
			if op >= 0 && p.rec.Running(op) {
				p.rec.Resequenced(op, b.tp, model.Resequence{
					At: at, FromEpoch: r.epoch, FromSeq: model.IncrementSequence(r.seq, int32(i)), ToEpoch: b.epoch, ToSeq: model.IncrementSequence(b.seq, int32(i)),
				})
			}
		}
	}
}

// isSettled reports whether another pass at a later instant before nextAt,
// with no event in between, would change nothing: everything due was done
// or waits for an event (an answer, a disconnect), and nothing acts on
// every pass regardless. Passes that would act are those that ask again
// for the metadata of a leaderless partition (drain does so on every pass,
// after the previous pass's refresh cleared the request), retry a metadata
// refresh or a producer id that no broker could take (each try moves the
// least-loaded rotation), or settle the sequences of a partition left
// unresolved by an expired batch (expire runs after resolveSequences, and
// an answer that comes in between changes what they decide). Sends blocked
// on metadata are left to a pass too, though a pass only acts on them at
// their deadline or once metadata came. (An epoch bump a pass left
// pending waits for a producer id, which only an event brings.)
func (p *Producer) isSettled(now time.Duration) bool {
	if len(p.waiting) > 0 || p.fast.leaderless || p.md.dueAt() <= now || p.txn != nil {
		return false // a transactional producer runs every pass
	}
	if p.idem.on && (p.idem.state == idemNeedID || len(p.idem.unresolvedTP) > 0) {
		return false
	}
	return true
}

// appendQuiet ends Send without a sender pass when the append cannot have
// given the pass anything to do, which is most appends of a busy producer:
// the record joined the open batch of its partition, or started a batch
// that lingers, and the last pass left nothing due before nextAt (see
// isSettled). Only the wake timer may need to move: to the new batch's
// deadlines, or off the workload tick that was to run the sender (Fire
// arms the next tick before it sends). It does what run's schedule would,
// with the deadline nextDeadline would compute: nextAt, or one of the new
// batch's deadlines if earlier. It reports whether it handled the append.
func (p *Producer) appendQuiet(env *sim.Env, tp model.TopicPartition, how appended) bool {
	now := env.Now()
	if p.fast.runEveryEvent || !p.fast.settled || now >= p.fast.nextAt || how == appendedOther {
		return false
	}
	next := p.fast.nextAt
	if how == appendedFirst {
		i := p.acc.index(tp)
		leader, epoch := p.queueLeader(i)
		if leader == model.NoBroker {
			return false // drain asks for metadata
		}
		if p.muted[tp] {
			p.fast.blocked = true // it waits for the partition's answer
		} else {
			ready := p.acc.readyAt(*p.acc.queues[i], epoch)
			if ready <= now {
				return false // linger.ms=0: it leaves now
			}
			next = min(next, ready)
		}
		// Never earlier than its linger deadline or the request deadline
		// that mutes it while delivery.timeout.ms covers linger.ms and
		// request.timeout.ms, as a validated configuration's does; taken
		// anyway, as nextDeadline takes it.
		if exp := satAdd(now, p.cfg.DeliveryTimeout); exp > now {
			next = min(next, exp)
		}
	}
	p.fast.nextAt = next
	p.schedule(env, next)
	p.fast.passesSkipped++
	return true
}

// answerQuiet reports whether the sender pass after a batch's successful
// answer can be skipped (Receive checks answered), which is the case for
// most answers of a busy producer: the last pass left nothing due before
// nextAt and nothing that acts on every pass (see isSettled), and no batch
// that the answer could let go: none ready but held back (by the leader's
// requests in flight, by an idempotent partition's batches in flight, or
// by a reconnect backoff) and none behind a muted partition. The answer
// then only removes deadlines, its request's and its batch's delivery
// timeout, so the pass's next deadline stays nextAt when neither was it
// (nor its connection's setup deadline, gone if this answer made the
// connection ready), and the wake timer needs no move: schedule was last
// called with nextAt, by the pass or appendQuiet. It must be called before
// the answer changes the batch.
func (p *Producer) answerQuiet(env *sim.Env, b *batch) bool {
	if p.fast.runEveryEvent || !p.fast.settled || p.fast.blocked || p.net.readied || env.Now() >= p.fast.nextAt {
		return false
	}
	if b.attempt.deadline <= p.fast.nextAt {
		return false
	}
	return b.done || satAdd(b.created, p.cfg.DeliveryTimeout) > p.fast.nextAt
}

// drain sends every batch that is ready, to its partition's leader, while
// the leader's connection has room (max.in.flight.requests.per.connection):
// Kafka's RecordAccumulator.ready and drain. Each batch is one
// ProduceRequest here, so each counts as one request in flight.
func (p *Producer) drain(env *sim.Env) {
	now := env.Now()
	leaders := p.fast.leadersBuf[:0]
	p.fast.leaderless = false
	for _, i := range p.acc.busyQueues() {
		tp := p.acc.tps[i]
		q := *p.acc.queues[i]
		if len(q) == 0 {
			continue
		}
		leader, epoch := p.queueLeader(i)
		if leader == model.NoBroker {
			p.md.requestUpdate() // unknownLeaderTopics in Sender.sendProducerData
			p.fast.leaderless = true
			continue
		}
		if p.muted[tp] || p.acc.readyAt(q, epoch) > now {
			continue
		}
		if i, found := slices.BinarySearch(leaders, leader); !found {
			leaders = slices.Insert(leaders, i, leader)
		}
	}
	p.fast.leadersBuf = leaders
	for _, b := range leaders {
		if p.net.ready(b, now) {
			p.drainNode(env, b)
		}
	}
}

// drainNode takes ready batches for one leader, one per partition per
// round, starting where the last drain for this leader stopped (Kafka's
// per-node drainIndex), so that no partition starves another.
func (p *Producer) drainNode(env *sim.Env, leader model.BrokerID) {
	now := env.Now()
	// Indexes into p.acc.tps and p.acc.queues; nothing here changes the
	// metadata or adds a queue, so the list stays as it is.
	parts := p.queuesOf(leader)
	n := len(parts)
	if n == 0 {
		return
	}
	// The places in parts of the queues holding batches: a round visits
	// those, from the rotation's start on, as a round of every place
	// would meet them; none fills up while drainNode runs.
	held := p.fast.heldBuf[:0]
	for _, k := range p.acc.busyQueues() {
		if l, _ := p.queueLeader(k); l == leader {
			j, _ := slices.BinarySearch(parts, k)
			held = append(held, j)
		}
	}
	p.fast.heldBuf = held
	limit := int(p.cfg.MaxInFlight)
	for progress := true; progress; {
		progress = false
		start := p.acc.drainIdx[leader] % n
		from, _ := slices.BinarySearch(held, start)
		for h := range held {
			if p.cfg.Acks != model.AcksNone && p.net.inFlight(leader) >= limit {
				return
			}
			j := held[(from+h)%len(held)]
			k := parts[j]
			tp, q := p.acc.tps[k], p.acc.queues[k]
			if len(*q) == 0 || p.muted[tp] {
				continue
			}
			_, epoch := p.queueLeader(k)
			if p.acc.readyAt(*q, epoch) > now {
				continue
			}
			b := (*q)[0]
			if p.txn != nil && !p.txn.sendAllowed(tp) {
				continue // not yet added to the transaction
			}
			if p.idem.on && p.idem.stopDrain(b) {
				continue
			}
			*q = slices.Delete(*q, 0, 1)
			if p.idem.on && b.seq == model.NoSequence {
				p.idem.assign(b)
			}
			b.transactional = p.txn != nil
			p.acc.drainIdx[leader] = (j + 1) % n
			if p.cfg.MaxInFlight == 1 {
				// guaranteeMessageOrder: one batch per partition in flight.
				p.muted[tp] = true
			}
			p.sendBatch(env, leader, b)
			progress = true
		}
	}
}

// sendBatch sends one attempt of a batch to the leader.
func (p *Producer) sendBatch(env *sim.Env, leader model.BrokerID, b *batch) {
	b.full = true // closed for appends once drained
	wire := b.wire(&p.fast.sealBuf)
	if p.cfg.Acks == model.AcksNone {
		// acks=0: the broker never answers, and Kafka completes the batch
		// as soon as it is sent, without an offset. Whether it was written
		// is unknown.
		p.net.sendOneWay(env, leader, func(corr int32) sim.Message {
			return model.ProduceRequest{CorrelationID: corr, Acks: p.cfg.Acks, Timeout: p.cl.RequestTimeout, TP: b.tp, Batch: wire}
		})
		delete(p.muted, b.tp)
		b.maybeAppended = true
		p.failBatch(env, b, model.NoError, "acks=0: no answer", false)
		return
	}
	b.inFlight = true
	b.sentPID, b.sentEpoch, b.sentSeq = b.pid, b.epoch, b.seq
	// Draining closes the batch (RecordAccumulator.drainBatchesForOneNode
	// calls ProducerBatch.close, which clears reopened): once sent under
	// its new sequence, a re-sequenced batch is an ordinary one, and a
	// refusal of it as the next sequence bumps the epoch
	// (TransactionManager.canRetry) instead of being retried unchanged
	// until delivery.timeout.ms (slow-follower seed 94000762).
	b.seqReset = false
	// The batch keeps the record of its attempt in flight: a batch has at
	// most one (a retry is sent only after the last attempt failed and
	// left the network's list).
	r := &b.attempt
	corr := p.net.track(env, r, leader, reqProduce, p.cl.RequestTimeout)
	r.batch = b
	m := p.produceRequest()
	m.CorrelationID, m.Acks, m.Timeout, m.TP, m.Batch = corr, p.cfg.Acks, p.cl.RequestTimeout, b.tp, wire
	// A transactional producer names its transactional.id in every
	// produce (Sender.sendProduceRequest), which the leader needs to
	// verify the transaction with its coordinator (KIP-890 part 1).
	m.TransactionalID = ""
	if p.txn != nil {
		m.TransactionalID = p.txn.id
	}
	r.msg = m
	env.Send(sim.NodeID(leader), m)
}

// reqPoolMax bounds the produce requests kept for reuse: about as many as
// can be in flight.
const reqPoolMax = 16

// produceRequest returns a produce request to fill in: one whose answer
// came back (produceAnswered), or a new one.
func (p *Producer) produceRequest() *model.ProduceRequest {
	if m := popFree(&p.fast.reqPool); m != nil {
		return model.ReuseProduceRequest(m)
	}
	return model.NewProduceRequest()
}

// produceAnswered handles a leader's answer to a produce request. The
// request's memory (which holds the answer too) is then free, and the
// next attempt of any batch reuses it: a leader keeps nothing of a request
// it answered, and a link that duplicates delivers its own clone the
// second time (sim.Cloner). The same goes for the batch's records, which
// every attempt carried, if this was its only attempt: an earlier one,
// failed by a timeout or a disconnect rather than answered, may still be
// on its way to a broker.
func (p *Producer) produceAnswered(env *sim.Env, broker model.BrokerID, r model.ProduceResponse) {
	req := p.net.complete(broker, r.CorrelationID)
	if req == nil || req.kind != reqProduce {
		return
	}
	m := req.msg // completeBatch may release the batch, and req with it
	p.completeBatch(env, req.batch, r.Error, r.BaseOffset, r.LogStartOffset, req.batch.attempts == 0)
	if m != nil && len(p.fast.reqPool) < reqPoolMax {
		p.fast.reqPool = append(p.fast.reqPool, m)
	}
}

// completeBatch handles one answer (or one failure) of a batch's attempt:
// Sender.completeBatch. Success records each record's offset (base offset
// plus its index); a retriable error puts the batch back in the queue while
// retries and delivery time remain; anything else ends it. recsFree says
// that no request carrying the batch's records can be read any more (see
// produceAnswered), so that a batch that ends here may hand its records'
// memory on.
func (p *Producer) completeBatch(env *sim.Env, b *batch, err model.ErrorCode, base, logStart model.Offset, recsFree bool) {
	b.inFlight = false
	if p.cfg.MaxInFlight == 1 {
		delete(p.muted, b.tp)
	}
	if err == model.NoError && base < 0 {
		// A leader must say where it put an acknowledged batch; without an
		// offset the history cannot say ok, only that it was written.
		if p.idem.on {
			p.acknowledged(env, b, base)
		}
		if p.txn != nil {
			p.txnAcked(b, model.NoOffset)
		}
		b.maybeAppended = true
		p.failBatch(env, b, model.NoError, "NONE without an offset", false)
		return
	}
	if err == model.NoError {
		p.fast.answered = p.answerQuiet(env, b)
		if p.idem.on {
			p.acknowledged(env, b, base)
		}
		if !b.done && p.txn != nil {
			b.done = true
			p.txnAcked(b, base)
		}
		if !b.done {
			b.done = true
			if p.rec != nil {
				at := env.ObserverNow()
				// An answer to an attempt sent before an epoch bump
				// rewrote the batch (recordRewrites wrote the rewrite
				// only under the same producer id).
				stale := p.idem.on && b.sentSeq != model.NoSequence && b.sentPID == b.pid && b.sentEpoch < b.epoch
				for i, op := range b.ops {
					if op >= 0 {
						if stale {
							p.rec.AckedAs(op, model.SentAs{Epoch: b.sentEpoch, Seq: model.IncrementSequence(b.sentSeq, int32(i))})
						}
						p.rec.SendOK(op, at, b.tp, base+model.Offset(i))
					}
				}
			}
		}
		// Nothing refers to the batch any more: its attempt came back (the
		// caller took it off the network's list), a batch in flight is in
		// no queue, and completed took it off the idempotent list.
		p.acc.release(b, recsFree)
		return
	}
	if mayHaveAppended(err) {
		b.maybeAppended = true
	}
	b.lastError = err
	switch {
	case p.canRetry(env, b, err, logStart):
		p.reenqueue(env, b)
	case err == model.DuplicateSequenceNumber:
		// The broker has the batch but no longer remembers where: Kafka
		// reports success without an offset. The history cannot say ok
		// without one, so it says info.
		if p.idem.on {
			p.acknowledged(env, b, model.NoOffset)
		}
		if p.txn != nil {
			p.txnAcked(b, model.NoOffset)
		}
		b.maybeAppended = true
		p.failBatch(env, b, model.NoError, err.String()+": written, offset unknown", false)
	default:
		// Only a batch that still had retries left failed for sure on the
		// broker; after the last retry its sequence may have been taken.
		p.failBatch(env, b, err, err.String(), b.attempts < p.cfg.Retries)
	}
	if invalidMetadata(err) {
		p.md.requestUpdate()
	}
}

// acknowledged is handleCompletedBatch (idempotence.completed), noting
// when the acknowledgement ends a hold behind the acknowledged sequence
// (HeldBehindAcknowledged).
func (p *Producer) acknowledged(env *sim.Env, b *batch, base model.Offset) {
	st := p.idem.find(b.tp)
	held := st != nil && st.held
	p.idem.completed(b, base)
	if held {
		st.released, st.releasedAt = true, env.ObserverNow()
	}
}

// canRetry is Sender.canRetry: within delivery.timeout.ms and retries, not
// already given up, and an error the producer may retry (with idempotence,
// TransactionManager.canRetry decides).
func (p *Producer) canRetry(env *sim.Env, b *batch, err model.ErrorCode, logStart model.Offset) bool {
	if b.done || b.attempts >= p.cfg.Retries || env.Now()-b.created >= p.cfg.DeliveryTimeout {
		return false
	}
	if p.idem.on {
		return p.idem.canRetry(b, err, logStart)
	}
	return err.Retriable()
}

// reenqueue puts a batch back for another attempt after an exponential
// backoff with jitter (retry.backoff.ms doubling to retry.backoff.max.ms,
// KIP-580).
func (p *Producer) reenqueue(env *sim.Env, b *batch) {
	b.attempts++
	b.lastAttempt = env.Now()
	b.backoff = jitter(env, expBackoff(p.cl.RetryBackoff, p.cl.RetryBackoffMax, int(b.attempts)-1))
	_, b.retryEpoch = p.md.leader(b.tp)
	p.acc.reenqueue(b, p.idem.on)
}

// failBatch ends a batch that will not be retried: Sender.failBatch. Its
// sends become info if any attempt may have been appended, fail otherwise.
func (p *Producer) failBatch(env *sim.Env, b *batch, err model.ErrorCode, reason string, adjust bool) {
	if p.idem.on && err != model.NoError {
		p.idem.failed(b, err, adjust)
	}
	if p.txn != nil && err != model.NoError && !b.done {
		p.txn.batchFailed(err, reason) // handleFailedBatch's maybeTransitionToErrorState
	}
	if b.done {
		return
	}
	b.done = true
	maybe := b.maybeAppended || b.inFlight
	for _, op := range b.ops {
		p.finishOne(env, op, maybe, reason)
	}
}

// expire ends the batches that reached delivery.timeout.ms, waiting or in
// flight (Sender.sendProducerData: accumulator.expiredBatches and
// getExpiredInflightBatches). An in-flight one keeps its request: the
// connection still counts it, and its answer, when it comes, still
// informs the idempotent sequences.
func (p *Producer) expire(env *sim.Env) {
	now := env.Now()
	if now < p.fast.expireAt {
		return // no batch is old enough yet
	}
	for _, b := range p.acc.expired(now, p.cfg.DeliveryTimeout) {
		p.expireBatch(env, b)
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce && !r.batch.done && now-r.batch.created >= p.cfg.DeliveryTimeout {
			p.expireBatch(env, r.batch)
		}
	}
	// What is left expires no earlier than this.
	p.fast.expireAt = model.Never
	for _, i := range p.acc.busyQueues() {
		for _, b := range *p.acc.queues[i] {
			p.fast.expireAt = min(p.fast.expireAt, satAdd(b.created, p.cfg.DeliveryTimeout))
		}
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce && !r.batch.done {
			p.fast.expireAt = min(p.fast.expireAt, satAdd(r.batch.created, p.cfg.DeliveryTimeout))
		}
	}
}

func (p *Producer) expireBatch(env *sim.Env, b *batch) {
	reason := "timeout"
	if b.lastError != model.NoError {
		reason += " after " + b.lastError.String()
	}
	p.failBatch(env, b, model.RequestTimedOut, reason, false)
	if p.idem.on && b.attempts > 0 {
		// Sent at least once and now abandoned: until later answers show
		// whether it made it, its partition's sequence is unresolved.
		p.idem.markUnresolved(b)
	}
}

// brokerFailed closes the connection to a broker after a timeout or a
// disconnect: every request on it fails with code, metadata is refreshed.
func (p *Producer) brokerFailed(env *sim.Env, broker model.BrokerID, code model.ErrorCode) {
	now := env.Now()
	p.md.requestUpdate()
	for _, r := range p.net.disconnect(env, broker) {
		switch r.kind {
		case reqMetadata:
			p.md.failed(now)
		case reqInitProducerID:
			p.initFailed(env)
		case reqTxn:
			p.txnFailed(r.txn)
		case reqProduce:
			// The request may have reached the leader and been appended.
			r.batch.maybeAppended = true
			// It may also still arrive: its records stay as they are.
			p.completeBatch(env, r.batch, code, model.NoOffset, model.NoOffset, false)
		}
	}
}

// maybeInitProducerID asks any broker for a producer id (KIP-98) when the
// producer needs one.
func (p *Producer) maybeInitProducerID(env *sim.Env) {
	now := env.Now()
	if p.idem.state != idemNeedID || now < p.idem.initAt {
		return
	}
	b, ok := p.net.leastLoaded(p.md.brokers, now, &p.md.rr)
	if !ok {
		b, ok = p.net.leastLoaded(p.md.bootstrap, now, &p.md.rr)
	}
	if !ok {
		return
	}
	p.net.send(env, b, reqInitProducerID, p.cl.RequestTimeout, func(corr int32) sim.Message {
		return model.InitProducerIDRequest{CorrelationID: corr, ProducerID: model.NoProducerID, ProducerEpoch: model.NoEpoch}
	})
	p.idem.state = idemInitializing
}

func (p *Producer) initFailed(env *sim.Env) {
	p.idem.state = idemNeedID
	p.idem.initFailures++
	p.idem.initAt = env.Now() + jitter(env, expBackoff(p.cl.RetryBackoff, p.cl.RetryBackoffMax, p.idem.initFailures-1))
}

// handleInitProducerID installs the producer id, retries a retriable
// error, and otherwise stops the producer for good, failing what it holds
// (TransactionManager's fatal error state).
func (p *Producer) handleInitProducerID(env *sim.Env, r model.InitProducerIDResponse) {
	switch {
	case r.Error == model.NoError:
		p.idem.setID(r.ProducerID, r.ProducerEpoch)
	case r.Error.Retriable():
		p.initFailed(env)
	default:
		p.idem.state, p.idem.fatal = idemFatal, r.Error
		reason := "fatal: " + r.Error.String()
		for _, q := range p.acc.queues {
			for _, b := range *q {
				p.failBatch(env, b, model.NoError, reason, false)
			}
			*q = nil
		}
		for _, w := range p.waiting {
			p.finishOne(env, w.op, false, reason)
		}
		p.waiting = nil
	}
}

// nextDeadline is the earliest instant after now at which the producer has
// something to do without being told: a lingering batch becomes ready, a
// backoff ends, a request or a batch times out, metadata is due, a
// reconnect backoff ends. Things due now that could not proceed wait for
// an event instead (an answer, a timeout), so the producer never spins;
// it notes in blocked whether there are such things (called after drain).
// The one exception is a pass that would settle a sequence (below): it is
// due now.
func (p *Producer) nextDeadline(now time.Duration) time.Duration {
	d := model.Never
	later := func(t time.Duration) {
		if t > now && t < d {
			d = t
		}
	}
	later(p.net.nextDeadline())
	later(p.md.dueAt())
	later(p.net.nextUnblock(now))
	if p.idem.on && p.idem.state == idemNeedID && p.txn == nil {
		later(p.idem.initAt)
	}
	later(p.txnRetryAt(now))
	p.fast.blocked = false
	readyNow := false // a batch that could leave now waits (stopDrain)
	for _, i := range p.acc.busyQueues() {
		tp := p.acc.tps[i]
		q := *p.acc.queues[i]
		if len(q) == 0 {
			continue
		}
		if leader, epoch := p.queueLeader(i); leader != model.NoBroker {
			if p.muted[tp] {
				p.fast.blocked = true
			} else {
				t := p.acc.readyAt(q, epoch)
				if t <= now {
					p.fast.blocked = true // drain, just before, could not send it
					readyNow = readyNow || p.net.ready(leader, now)
				}
				later(t)
			}
		}
		for _, b := range q {
			later(satAdd(b.created, p.cfg.DeliveryTimeout))
		}
	}
	for _, r := range p.net.reqs {
		if r.kind == reqProduce && !r.batch.done {
			later(satAdd(r.batch.created, p.cfg.DeliveryTimeout))
		}
	}
	for _, w := range p.waiting {
		later(w.deadline)
	}
	// Kafka's sender does not sleep while a node has a batch ready to
	// send: Sender.sendProducerData returns a poll timeout of 0, and the
	// next runOnce comes at once, even when the batch is held back
	// (RecordAccumulator.shouldStopDrainBatchesForPartition). If that
	// next pass would settle an unresolved sequence, it must come now:
	// otherwise nothing may wake the producer (a stopped workload sends
	// nothing), and a batch held behind the unresolved sequence expires
	// unsent (chaos seed 94000918: 373 records on orders/2).
	if readyNow && p.idem.on && p.idem.resolvable() {
		return now
	}
	return d
}

// mayHaveAppended reports whether a leader can give this answer after it
// appended the batch. NOT_ENOUGH_REPLICAS_AFTER_APPEND and REQUEST_TIMED_OUT
// say so outright; NOT_LEADER_OR_FOLLOWER is what an acks=all request gets
// when the leader loses leadership while it waits, with the batch already
// in its log (and maybe on followers that keep it). Only errors a leader
// gives before appending anything are definite: they let a failed send be
// reported fail rather than info.
func mayHaveAppended(err model.ErrorCode) bool {
	switch err {
	case model.NotEnoughReplicas, model.UnknownTopicOrPartition, model.LeaderNotAvailable,
		model.CorruptMessage, model.MessageTooLarge, model.InvalidRequiredAcks,
		model.InvalidTopicException, model.InvalidRequest,
		model.OutOfOrderSequenceNumber, model.InvalidProducerEpoch, model.UnknownProducerID,
		model.ProducerFenced, model.FencedLeaderEpoch, model.UnknownLeaderEpoch:
		return false
	}
	return true
}

// invalidMetadata lists the errors whose Kafka exceptions extend
// InvalidMetadataException: they mean the client's view of leadership is
// out of date, and it refreshes metadata.
func invalidMetadata(err model.ErrorCode) bool {
	switch err {
	case model.NotLeaderOrFollower, model.UnknownTopicOrPartition, model.LeaderNotAvailable,
		model.NetworkException, model.KafkaStorageError, model.FencedLeaderEpoch,
		model.UnknownLeaderEpoch, model.RequestTimedOut:
		return true
	}
	return false
}
