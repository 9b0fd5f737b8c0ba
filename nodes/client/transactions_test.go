package client

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// txnWorld is a producer with transactional id "tx" over two brokers,
// topic x's partitions led by b1 and b2, b1 the coordinator.
func txnWorld(t *testing.T, setup func(c *fakeCluster)) *world {
	w := newWorld(t, 2)
	w.c.topic("x", 1, 2)
	if setup != nil {
		setup(w.c)
	}
	w.producer(model.DefaultConfig(), func(o *ProducerOptions) { o.TransactionalID = "tx" })
	return w
}

// transaction begins a transaction at t, sends values round-robin to x's
// partitions and commits it (or aborts it).
func (w *world) transaction(at time.Duration, commit bool, values ...string) {
	w.at(at, func() {
		p := w.prod()
		if !p.BeginTransaction() {
			w.t.Fatalf("not READY at %v: %s", at, p.TxnState())
		}
		for i, v := range values {
			p.Send(nil, Message{Topic: "x", Value: v, Partition: int32(i % 2), HasPartition: true})
		}
		if commit {
			p.CommitTransaction(nil)
		} else {
			p.AbortTransaction(nil)
		}
	})
}

// index is where the first message matching pred was received, -1 if none.
func (c *fakeCluster) index(pred func(sim.Message) bool) int {
	for i, r := range c.received {
		if pred(r.msg) {
			return i
		}
	}
	return -1
}

// A transaction's requests go in TransactionManager's order: the
// coordinator is found and the producer initialized before anything, its
// partitions are added (in one request) before their first batch, which
// carries the transactional attribute, and EndTxn goes once every batch
// is answered. The transaction is one operation of the history: its sends
// share a Txn and are ok with their offsets.
func TestTransactionOrder(t *testing.T) {
	w := txnWorld(t, nil)
	// Aborted before anything was sent: nothing reaches a broker.
	w.transaction(500*time.Millisecond, false, "z")
	w.transaction(time.Second, true, "a", "b", "c")
	w.run(3 * time.Second)
	c := w.c
	if i := c.index(func(m sim.Message) bool { r, ok := m.(model.EndTxnRequest); return ok && !r.Committed }); i >= 0 {
		t.Errorf("an abort of a transaction that sent nothing went to the coordinator")
	}
	find := c.index(func(m sim.Message) bool {
		r, ok := m.(model.FindCoordinatorRequest)
		return ok && r.KeyType == model.CoordinatorTransaction
	})
	init := c.index(func(m sim.Message) bool {
		r, ok := m.(model.InitProducerIDRequest)
		return ok && r.TransactionalID == "tx"
	})
	add := c.index(func(m sim.Message) bool { _, ok := m.(model.AddPartitionsToTxnRequest); return ok })
	produce := c.index(func(m sim.Message) bool { _, ok := m.(model.ProduceRequest); return ok })
	end := c.index(func(m sim.Message) bool { r, ok := m.(model.EndTxnRequest); return ok && r.Committed })
	if !(find >= 0 && find < init && init < add && add < produce && produce < end) {
		t.Fatalf("order: find %d init %d add %d produce %d end %d", find, init, add, produce, end)
	}
	if a := c.received[add].msg.(model.AddPartitionsToTxnRequest); len(a.Partitions) != 2 {
		t.Errorf("AddPartitionsToTxn %v: want both partitions in one request", a)
	}
	for _, r := range c.produces() {
		p := r.msg.(model.ProduceRequest)
		if !p.Batch.IsTransactional() {
			t.Errorf("batch %v without the transactional attribute", p.Batch)
		}
		if r.at > c.received[end].at {
			t.Errorf("a batch sent after EndTxn")
		}
	}
	h := w.history()
	txn := 0
	for _, op := range h {
		if op.F != model.FSend {
			continue
		}
		if op.Value == "z" {
			if op.Type != model.OpFail {
				t.Errorf("send %s of an aborted transaction: want fail", op.String())
			}
			continue
		}
		if op.Txn == 0 || (txn != 0 && op.Txn != txn) || op.Type != model.OpOK || op.Offset == model.NoOffset {
			t.Errorf("send %s: want ok with an offset in one txn", op.String())
		}
		txn = op.Txn
	}
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := w.prod().TxnState(); got != "READY" {
		t.Errorf("after the commit: %s", got)
	}
	if _, epoch := w.prod().ProducerID(); epoch != 1 {
		t.Errorf("epoch %d after one commit: the EndTxn answer's bumped epoch (1) not taken", epoch)
	}
}

// A transactional request answered CONCURRENT_TRANSACTIONS or
// NOT_COORDINATOR is retried (after a new lookup for NOT_COORDINATOR);
// PRODUCER_FENCED on the commit is fatal and leaves the transaction's
// outcome unknown (info).
func TestTransactionErrors(t *testing.T) {
	adds, ends := 0, 0
	w := txnWorld(t, func(c *fakeCluster) {
		c.txnErr = func(m sim.Message) model.ErrorCode {
			switch r := m.(type) {
			case model.AddPartitionsToTxnRequest:
				adds++
				if adds == 1 {
					return model.ConcurrentTransactions
				}
			case model.EndTxnRequest:
				ends++
				switch {
				case ends == 1:
					return model.NotCoordinator
				case r.Committed && ends == 3:
					return model.ProducerFenced
				}
			}
			return model.NoError
		}
	})
	w.transaction(time.Second, true, "a1", "a2")
	w.transaction(2*time.Second, true, "c1", "c2")
	w.run(4 * time.Second)
	finds := w.c.count(func(m sim.Message) bool { _, ok := m.(model.FindCoordinatorRequest); return ok })
	if adds < 3 || ends != 3 || finds < 2 {
		t.Errorf("AddPartitionsToTxn %d, EndTxn %d, FindCoordinator %d: want the retries", adds, ends, finds)
	}
	for _, op := range w.history() {
		want := model.OpOK
		if op.Value[0] == 'c' {
			want = model.OpInfo
		}
		if op.F == model.FSend && op.Type != want {
			t.Errorf("%s: want %s", op.String(), want)
		}
	}
	if got := w.prod().TxnState(); got != "FATAL_ERROR" {
		t.Errorf("after PRODUCER_FENCED: %s", got)
	}
}

// A batch that fails makes the transaction abortable: the commit becomes
// an abort (the EndTxn(commit) queued behind the batches never goes),
// and the sends fail.
func TestTransactionAbortableError(t *testing.T) {
	w := txnWorld(t, func(c *fakeCluster) {
		c.produce = func(b model.BrokerID, r model.ProduceRequest) (action, model.ErrorCode) {
			if b == 2 {
				return actError, model.MessageTooLarge
			}
			return actOK, model.NoError
		}
	})
	w.transaction(time.Second, true, "a", "b")
	w.run(3 * time.Second)
	end := w.c.index(func(m sim.Message) bool { r, ok := m.(model.EndTxnRequest); return ok && !r.Committed })
	commit := w.c.index(func(m sim.Message) bool { r, ok := m.(model.EndTxnRequest); return ok && r.Committed })
	if end < 0 || commit >= 0 {
		t.Fatalf("EndTxn abort at %d, commit at %d: want the abort only", end, commit)
	}
	for _, op := range w.history() {
		if op.F == model.FSend && op.Type != model.OpFail {
			t.Errorf("%s: want fail", op.String())
		}
	}
	if got := w.prod().TxnState(); got != "READY" {
		t.Errorf("after the abort: %s", got)
	}
}
