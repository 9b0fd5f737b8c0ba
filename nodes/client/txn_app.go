package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// The application side of a transactional producer (KafkaProducer's
// initTransactions, beginTransaction, send, commitTransaction,
// abortTransaction) and its history: each transaction is one Jepsen :txn
// operation, its sends micro-operations sharing one model.Op.Txn, with
// one outcome for all of them once the transaction ends: ok with every
// offset when it committed, fail when it aborted (an aborted transaction's
// records are never visible to read_committed readers), info when its
// outcome is unknown (the producer was fenced or failed after an EndTxn
// commit was sent). A transaction the producer's crash cut short stays
// invoke.

// TxnWorkload feeds a transactional producer: every SendInterval, while
// no transaction is under way, the producer asks it for the next
// transaction, begins it, sends its records and commits it, or, when
// commit is false, waits for the records' acknowledgements (flush) and
// aborts it, as an application that changed its mind does. ok=false ends
// the workload for this incarnation. Like Workload, it lives outside the
// node.
type TxnWorkload interface {
	NextTxn(env *sim.Env) (msgs []Message, commit bool, ok bool)
}

// openTxn is the transaction under way, as the history knows it.
type openTxn struct {
	txn int // model.Op.Txn (0 without a recorder)
	// ops are the history ops of its sends, consecutive from ops[0];
	// tps, offsets and unknown their partitions, their acknowledged
	// offsets (NoOffset until acknowledged) and whether one was written
	// without its offset being known.
	ops []int
	// polls are the history ops of the records the transaction consumed
	// (a consume-transform-produce worker's, TxnPoll), recorded before
	// its sends, with what each returned.
	polls    []int
	pollRecs [][]model.PartitionRecords
	tps      []model.TopicPartition
	offsets  []model.Offset
	unknown  bool
	// abortWhenFlushed: the application aborts once every record is
	// acknowledged or failed. commitSent: an EndTxn(commit) went out, so
	// the coordinator may have committed whatever comes next.
	abortWhenFlushed bool
	commitSent       bool
}

// index is i's position among the transaction's sends, or -1.
func (o *openTxn) index(op int) int {
	if len(o.ops) == 0 || op < o.ops[0] || op > o.ops[len(o.ops)-1] {
		return -1
	}
	return op - o.ops[0]
}

// Transactional reports whether the producer has a transactional id.
func (p *Producer) Transactional() bool { return p.txn != nil }

// TxnState names the transaction manager's state (TransactionManager's
// State), "" for a producer without a transactional id.
func (p *Producer) TxnState() string {
	if p.txn == nil {
		return ""
	}
	return p.txn.state.String()
}

// BeginTransaction is KafkaProducer.beginTransaction. It reports false
// when the producer is not READY (initTransactions not done yet, or a
// transaction still completing), where Kafka would throw.
func (p *Producer) BeginTransaction() bool {
	if p.txn == nil {
		panic("client.Producer.BeginTransaction: no transactional id")
	}
	if p.txn.state != txnReady {
		return false
	}
	p.txn.transition(txnInTransaction)
	p.cur = &openTxn{}
	if p.rec != nil {
		p.cur.txn = p.rec.NewTxn()
	}
	return true
}

// CommitTransaction is KafkaProducer.commitTransaction's start
// (TransactionManager.beginCommit): the records are flushed, then EndTxn
// commits. Its outcome goes to the history when the EndTxn is answered.
func (p *Producer) CommitTransaction(env *sim.Env) {
	env = p.envOr(env)
	t := p.mustBeInTransaction("CommitTransaction")
	if t.hasError() {
		// maybeFailWithError: the commit throws, and the application
		// aborts (txnApplication).
		p.run(env)
		return
	}
	t.transition(txnCommitting)
	p.beginCompleting(true)
	p.run(env)
}

// AbortTransaction is KafkaProducer.abortTransaction's start
// (TransactionManager.beginAbort): records not yet sent are dropped, and
// EndTxn aborts once those in flight are answered.
func (p *Producer) AbortTransaction(env *sim.Env) {
	env = p.envOr(env)
	p.mustBeInTransaction("AbortTransaction")
	p.beginAbort()
	p.run(env)
}

func (p *Producer) mustBeInTransaction(what string) *transactions {
	if p.txn == nil || p.cur == nil {
		panic("client.Producer." + what + ": no transaction under way")
	}
	return p.txn
}

func (p *Producer) envOr(env *sim.Env) *sim.Env {
	if env == nil {
		env = p.env
	}
	if env == nil {
		panic("client.Producer: used before Start")
	}
	return env
}

// beginAbort is TransactionManager.beginAbort. An EndTxn(commit) still
// queued is dropped first: the application aborts because its commit
// failed, which Kafka's nextRequest does when it dequeues that EndTxn in
// an error state (maybeTerminateRequestWithError).
func (p *Producer) beginAbort() {
	t := p.txn
	t.pending = slices.DeleteFunc(t.pending, func(r *txnRequest) bool { return r.isEndTxn() })
	t.transition(txnAborting)
	t.newParts = t.newParts[:0]
	p.beginCompleting(false)
}

// beginCompleting is beginCompletingTransaction: the partitions still to
// add, then EndTxn with the identity of now; after an
// INVALID_PRODUCER_ID_MAPPING the coordinator takes no EndTxn, and an
// InitProducerId bumping the epoch ends the transaction instead.
func (p *Producer) beginCompleting(commit bool) {
	t := p.txn
	if len(t.newParts) > 0 {
		t.enqueue(t.addPartitionsRequest(p.idem.pid, p.idem.epoch))
	}
	if t.lastErr == model.InvalidProducerIDMapping {
		t.enqueue(&txnRequest{kind: txnEpochBump, pid: p.idem.pid, epoch: p.idem.epoch})
		return
	}
	t.enqueue(&txnRequest{kind: txnEndTxn, pid: p.idem.pid, epoch: p.idem.epoch, commit: commit})
}

// abortReason is what an undrained record of an aborted transaction is
// failed with.
func (t *transactions) abortReason() string {
	if t.lastReason != "" {
		return t.lastReason
	}
	return "abortTransaction"
}

// txnApplication is what the application does when a call of its
// returns: an abortable error (thrown by commitTransaction or flush)
// makes it abort; a planned abort goes once the flush is over; a fatal
// error ends the transaction in the history (the producer is closed and a
// new one made on the next tick, txnTick).
func (p *Producer) txnApplication(env *sim.Env) {
	t, o := p.txn, p.cur
	if o == nil {
		return
	}
	switch {
	case t.state == txnFatalError:
		p.txnEnded(env, false, "fatal: "+t.lastReason)
	case t.state == txnAbortableError:
		p.beginAbort()
	case t.state == txnInTransaction && o.abortWhenFlushed && !p.hasIncomplete():
		p.beginAbort()
	}
}

// txnEnded writes the transaction's outcome into the history and forgets
// it: committed, aborted, or (fatal, with reason) unknown once a commit
// was sent and failed otherwise.
func (p *Producer) txnEnded(env *sim.Env, committed bool, fatal string) {
	o := p.cur
	p.cur = nil
	p.lastCommitted = committed && fatal == ""
	if o == nil || p.rec == nil || len(o.ops)+len(o.polls) == 0 {
		return
	}
	at := env.ObserverNow()
	all := func(end func(op int, at time.Duration, reason string), reason string) {
		for _, op := range o.polls {
			end(op, at, reason)
		}
		for _, op := range o.ops {
			end(op, at, reason)
		}
	}
	switch {
	case fatal != "" && o.commitSent:
		all(p.rec.Info, fatal+" after EndTxn(commit) was sent")
	case fatal != "":
		all(p.rec.Fail, fatal+" before commit: the transaction is aborted")
	case !committed:
		all(p.rec.Fail, "transaction aborted")
	case o.unknown || slicesContainsOffset(o.offsets, model.NoOffset):
		all(p.rec.Info, "committed, an offset unknown")
	default:
		for i, op := range o.polls {
			p.rec.PollOK(op, at, o.pollRecs[i])
		}
		for i, op := range o.ops {
			p.rec.SendOK(op, at, o.tps[i], o.offsets[i])
		}
	}
}

// TxnPoll records records the transaction under way consumed as one of
// its :poll micro-operations; a consume-transform-produce worker calls it
// before it sends the transaction's records, within the same event, so
// that the transaction's ops are consecutive. Its outcome is the
// transaction's. It returns the history op (-1 without a recorder).
func (p *Producer) TxnPoll(env *sim.Env, recs []model.PartitionRecords) int {
	env = p.envOr(env)
	p.mustBeInTransaction("TxnPoll")
	if p.rec == nil {
		return -1
	}
	o := p.cur
	if len(o.ops) > 0 {
		panic("client.Producer.TxnPoll: a transaction's polls come before its sends")
	}
	op := p.rec.Invoke(model.Op{Process: p.process, F: model.FPoll, Time: env.ObserverNow(), Txn: o.txn})
	if n := len(o.polls); n > 0 && op != o.polls[n-1]+1 {
		panic("client.Producer.TxnPoll: a transaction's polls must be consecutive in the history (record them within one event)")
	}
	o.polls = append(o.polls, op)
	o.pollRecs = append(o.pollRecs, recs)
	return op
}

func slicesContainsOffset(os []model.Offset, v model.Offset) bool {
	for _, o := range os {
		if o == v {
			return true
		}
	}
	return false
}

// txnInvoke records a send of the transaction under way as one of its
// micro-operations. The sends of one transaction must be consecutive in
// the history (model.Op.Txn's contract): a transaction's records are sent
// within one event, as TxnWorkload's are.
func (p *Producer) txnInvoke(env *sim.Env, tp model.TopicPartition, m Message) int {
	o := p.cur
	if p.rec == nil {
		return -1
	}
	op := p.rec.Invoke(model.Op{Process: p.process, F: model.FSend, Time: env.ObserverNow(), TP: tp, Key: m.Key, Value: m.Value, Txn: o.txn})
	if n := len(o.polls); len(o.ops) == 0 && n > 0 && op != o.polls[n-1]+1 {
		panic("client.Producer.Send: a transaction's sends must follow its polls in the history (send them within one event)")
	}
	if n := len(o.ops); n > 0 && op != o.ops[n-1]+1 {
		panic("client.Producer.Send: a transaction's sends must be consecutive in the history (send them within one event)")
	}
	o.ops = append(o.ops, op)
	o.tps = append(o.tps, tp)
	o.offsets = append(o.offsets, model.NoOffset)
	return op
}

// txnOwns says op is a send of the transaction under way.
func (p *Producer) txnOwns(op int) bool {
	return p.cur != nil && op >= 0 && p.cur.index(op) >= 0
}

// txnAcked notes where a send of the transaction landed (its outcome
// waits for the end); base is NoOffset when it was written at an unknown
// place.
func (p *Producer) txnAcked(b *batch, base model.Offset) {
	for i, op := range b.ops {
		if !p.txnOwns(op) {
			continue
		}
		k := p.cur.index(op)
		p.cur.tps[k] = b.tp
		if base < 0 {
			p.cur.unknown = true
			continue
		}
		p.cur.offsets[k] = base + model.Offset(i)
	}
}

// txnTick is a workload tick of a transactional producer: when no
// transaction is under way and the producer is READY, the next one begins,
// is sent and is committed or (after its flush) aborted; a producer in
// FATAL_ERROR is closed and made anew first, as an application does with
// a producer it can no longer use. It reports whether the workload gave
// a transaction or the producer is busy (so that the tick goes on).
func (p *Producer) txnTick(env *sim.Env, w TxnWorkload) bool {
	if p.txn.state == txnFatalError {
		p.reopen(env)
		return true
	}
	if p.cur != nil || p.txn.state != txnReady {
		// Blocked in initTransactions, commit or abort; the tick runs
		// the sender all the same (the wake timer leaves it to the tick).
		p.run(env)
		return true
	}
	msgs, commit, ok := w.NextTxn(env)
	if !ok {
		p.run(env)
		return false
	}
	p.BeginTransaction()
	for _, m := range msgs {
		p.Send(env, m)
	}
	if commit {
		p.CommitTransaction(env)
	} else {
		p.cur.abortWhenFlushed = true
		p.run(env)
	}
	return true
}

// reopen is the application closing a producer in FATAL_ERROR and making
// a new one with the same transactional id, which initializes
// transactions again (and so fences whatever its predecessor left). What
// the old one held is dropped: answers to its requests are ignored.
func (p *Producer) reopen(env *sim.Env) {
	p.abortBatches(env, "producer closed", true)
	// The requests are forgotten, their answers dropped: a metadata
	// refresh among them would otherwise be awaited for ever, and the
	// new producer never learn of a leader that moved (a partition then
	// answers NOT_LEADER_OR_FOLLOWER to every attempt of its batches
	// until delivery.timeout.ms, eos-pipeline seed 91600041 with worker
	// isolations). Kafka's new producer has a metadata cache of its own.
	for _, r := range p.net.reqs {
		if r.kind == reqMetadata {
			p.md.failed(env.Now())
		}
	}
	p.net.reqs = nil
	p.acc = newAccumulator(p.cfg)
	p.idem = newIdempotence(true)
	p.idem.txn = true
	p.muted = map[model.TopicPartition]bool{}
	p.sticky = map[string]*sticky{}
	// The caches of the closed producer describe its accumulator and its
	// partitioners: the topic cache points at a sticky partitioner no
	// longer in p.sticky, and the leader cache is by queue position, which
	// the new accumulator numbers afresh.
	p.fast.forgetProducer()
	p.txn = newTransactions(p.txn.id, p.txn.timeout, p.txn.backoff)
	p.txnSleepUntil = 0
	p.txn.initialize()
	p.run(env)
}

// txnRetryAt is for nextDeadline: a retry's sleep ends then.
func (p *Producer) txnRetryAt(now time.Duration) time.Duration {
	if d := p.txnDeadline(); d > now {
		return d
	}
	return model.Never
}

// EndTxnOnCrash writes into the history the outcome of the transaction
// a crash cut short, for harness code that kills the producer's process
// (a kill hook), which the dead producer can no longer do: without an
// EndTxn(commit) sent, its coordinator can only abort it (on its timeout,
// or when the next incarnation's InitProducerId fences it), so it failed;
// after one, its outcome is unknown.
func (p *Producer) EndTxnOnCrash(at time.Duration, how string) {
	o := p.cur
	p.cur = nil
	if o == nil || p.rec == nil {
		return
	}
	end := p.rec.Fail
	reason := how + " before EndTxn(commit) was sent: the transaction is aborted"
	if o.commitSent {
		end, reason = p.rec.Info, how+" after EndTxn(commit) was sent"
	}
	for _, op := range o.polls {
		end(op, at, reason)
	}
	for _, op := range o.ops {
		end(op, at, reason)
	}
}
