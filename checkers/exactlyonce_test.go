package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

var (
	eosIn  = model.TP("in", 0)
	eosOut = model.TP("out", 0)
)

// out is input v's output written by transaction txn.
func out(v string, txn int) string { return model.PipelineOutput(v, txn) }

// eosBase is a pipeline's history up to its first abort: the source
// wrote a, b, c, d to in/0; the worker's first transaction consumed a and
// b and committed their outputs; its second consumed c and aborted.
func eosBase() [][]model.Op {
	return [][]model.Op{
		one(sendOK(1, eosIn, "a", 0, 0, 1)), one(sendOK(1, eosIn, "b", 1, 0, 1)),
		one(sendOK(1, eosIn, "c", 2, 0, 1)), one(sendOK(1, eosIn, "d", 3, 0, 1)),
		txn(1, 10, model.OpOK, 2, 5, poll(10, 2, 5, recs(eosIn, 0, "a", 1, "b")),
			sendOK(10, eosOut, out("a", 1), 0, 2, 5), sendOK(10, eosOut, out("b", 1), 1, 2, 5)),
		txn(2, 10, model.OpFail, 6, 9, poll(10, 6, 9, recs(eosIn, 2, "c")), sendFail(10, eosOut, out("c", 2), 6, 9)),
	}
}

// A pipeline that aborted a transaction and consumed its input again in
// the next one, whose output a read_committed reader saw without the
// aborted copy (offset 2, and its abort marker at 3), is exactly-once.
func TestExactlyOnceFineWithAnAbortedRetry(t *testing.T) {
	h := flat(append(eosBase(),
		txn(3, 10, model.OpOK, 10, 13, poll(10, 10, 13, recs(eosIn, 2, "c", 3, "d")),
			sendOK(10, eosOut, out("c", 3), 4, 10, 13), sendOK(10, eosOut, out("d", 3), 5, 10, 13)),
		one(poll(20, 14, 15, recs(eosOut, 0, out("a", 1), 1, out("b", 1), 4, out("c", 3), 5, out("d", 3)))),
	)...)
	r := check(t, Input{History: h}, Options{Idempotent: true})
	mustNotFind(t, r, ExactlyOnceOutput)
	if got := exactlyOnce(h); got != nil {
		t.Fatalf("findings: %v", got)
	}
}

// c consumed in two committed transactions: its output is there twice.
func TestExactlyOnceCatchesADuplicate(t *testing.T) {
	h := flat(append(eosBase(),
		txn(3, 10, model.OpOK, 10, 13, poll(10, 10, 13, recs(eosIn, 2, "c")), sendOK(10, eosOut, out("c", 3), 4, 10, 13)),
		txn(4, 11, model.OpOK, 14, 17, poll(11, 14, 17, recs(eosIn, 2, "c", 3, "d")),
			sendOK(11, eosOut, out("c", 4), 6, 14, 17), sendOK(11, eosOut, out("d", 4), 7, 14, 17)),
	)...)
	v := mustFind(t, check(t, Input{History: h}, Options{Idempotent: true}), ExactlyOnceOutput, eosOut, 4, 6)
	if !v.Error || !strings.HasPrefix(v.Detail, "duplicate") || v.Values[0] != out("c", 3) || v.Values[1] != out("c", 4) {
		t.Fatalf("duplicate: %+v", v)
	}
}

// The worker went on past the aborted c without consuming it again: the
// committed offset (4) passed c, whose output is nowhere.
func TestExactlyOnceCatchesAMissingOutput(t *testing.T) {
	h := flat(append(eosBase(),
		txn(3, 10, model.OpOK, 10, 13, poll(10, 10, 13, recs(eosIn, 3, "d")), sendOK(10, eosOut, out("d", 3), 4, 10, 13)),
		one(poll(20, 14, 15, recs(eosOut, 0, out("a", 1), 1, out("b", 1), 4, out("d", 3)))),
	)...)
	v := mustFind(t, check(t, Input{History: h}, Options{Idempotent: true}), ExactlyOnceOutput, eosIn, 2)
	if !v.Error || !strings.HasPrefix(v.Detail, "missing") || v.Values[0] != "c" {
		t.Fatalf("missing: %+v", v)
	}
}

// A reader saw the aborted transaction's output.
func TestExactlyOnceCatchesAnAbortedOutput(t *testing.T) {
	h := flat(append(eosBase(),
		one(poll(20, 14, 15, recs(eosOut, 0, out("a", 2), 1, out("b", 2), 2, out("c", 2)))),
	)...)
	v := mustFind(t, check(t, Input{History: h}, Options{Idempotent: true}), ExactlyOnceOutput, eosOut, 2)
	if !strings.HasPrefix(v.Detail, "aborted") {
		t.Fatalf("aborted: %+v", v)
	}
}

// Without pipeline transactions (a transactional producer's sends only)
// there is nothing to judge.
func TestExactlyOnceSkipsPlainTransactions(t *testing.T) {
	h := flat(
		txn(1, 10, model.OpOK, 0, 2, sendOK(10, eosOut, out("a", 1), 0, 0, 2)),
		one(sendOK(1, eosOut, out("a", 1), 1, 3, 4)),
	)
	if got := exactlyOnce(h); got != nil {
		t.Fatalf("findings: %v", got)
	}
}

// A Jepsen transaction polls and sends, but no pipeline outputs: it is no
// pipeline's, and reading past what it wrote proves nothing missing.
func TestExactlyOnceSkipsJepsenTransactions(t *testing.T) {
	h := flat(
		one(sendOK(1, eosIn, "1", 0, 0, 1)),
		txn(1, 10, model.OpOK, 2, 4, poll(10, 2, 4, recs(eosIn, 0, "1")), sendOK(10, eosOut, "2", 0, 2, 4)),
	)
	if got := exactlyOnce(h); got != nil {
		t.Fatalf("findings: %v", got)
	}
}

// A worker crashed after EndTxn(commit) went out: its transaction's polls
// are info, without records. Its output of a, read, proves the group
// received a; b, whose output no one read, is still unseen by the group.
func TestGroupUnseenTakesAPipelineOutputAsProof(t *testing.T) {
	info := func(op model.Op) model.Op { op.Error = "crash after EndTxn(commit) was sent"; return op }
	pollInfo := model.Op{F: model.FPoll, Offset: model.NoOffset}
	h := flat(
		one(sendOK(1, eosIn, "a", 0, 0, 1)), one(sendOK(1, eosIn, "b", 1, 0, 1)),
		one(subscribe(10, 0, "eos", "in")), one(rebalance(10, 1, "eos", 1, tps(eosIn), nil)),
		txn(1, 10, model.OpInfo, 2, 5, info(pollInfo), info(sendInfo(10, eosOut, out("a", 1), 2, 5)), info(sendInfo(10, eosOut, out("b", 1), 2, 5))),
		one(poll(20, 6, 7, recs(eosOut, 0, out("a", 1)))),
	)
	r := check(t, Input{History: h}, Options{Subscribe: true, Idempotent: true})
	v := mustFind(t, r, GroupUnseen, eosIn)
	if len(v.Values) != 1 || v.Values[0] != "b" {
		t.Fatalf("group-unseen %v, want b only", v.Values)
	}
}
