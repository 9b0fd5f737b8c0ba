package checkers

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"kafkasim/model"
)

// The tests in this file are the transactional cases of Jepsen's Kafka
// checker tests (jepsen/test/jepsen/tests/kafka_test.clj), each named
// after the Jepsen test it follows. Each history is our own EDN file in
// testdata/jepsen, read by ReadJepsenEDN, and each test asserts what the
// Jepsen test asserts under its key: the findings, their key, value(s),
// operation, and for a cycle its operations and steps. Jepsen's keys :x
// and :y become partitions jepsen/0 and jepsen/1 (numbered in order of
// first appearance), its values :a, :b become ":a", ":b", and an
// operation is named by the index of its first micro-operation here (two
// per operation below, so Jepsen's completions 2 and 3 are our 0 and 2).
// Each case has a neighbour, the same history changed just enough to be
// fine, which must not get the finding.

var (
	jx = model.TP(JepsenTopic, 0)
	jy = model.TP(JepsenTopic, 1)
)

func readJepsenFile(t *testing.T, name string) model.History {
	t.Helper()
	path := filepath.Join("testdata", "jepsen", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ReadJepsenEDN(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// jepsenFinding is what a Jepsen error map under one key says.
type jepsenFinding struct {
	Partition model.TopicPartition
	Values    []string
	Ops       []int
	Txn       *TxnDetail
}

// mustFindExactly asserts that r's findings under anomaly are exactly
// want, in order.
func mustFindExactly(t *testing.T, r Result, anomaly string, want ...jepsenFinding) []Violation {
	t.Helper()
	vs := find(r, anomaly)
	got := make([]jepsenFinding, len(vs))
	for i, v := range vs {
		got[i] = jepsenFinding{v.Partition, v.Values, v.Ops, v.Txn}
		if v.Detail == "" {
			t.Errorf("%s without a detail", anomaly)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v\nall findings:\n%s", anomaly, got, want, dump(r))
	}
	return vs
}

// mustJepsenClass asserts Jepsen's key and classification of v: each
// transactional finding is filed under its own name.
func mustJepsenClass(t *testing.T, v Violation, class string) {
	t.Helper()
	if v.Jepsen != v.Anomaly || v.JepsenClass != class {
		t.Errorf("%s: Jepsen key %q class %q, want %q %q", v.Anomaly, v.Jepsen, v.JepsenClass, v.Anomaly, class)
	}
}

func checkJepsenFile(t *testing.T, name string, opts Options) Result {
	t.Helper()
	return check(t, Input{History: readJepsenFile(t, name)}, opts)
}

func TestJepsenG0(t *testing.T) {
	// Jepsen: cycle [wb' wa' wb'], steps ww on :y (:b then :a, both the
	// second micro-op), then ww on :x (:a then :b, both the first).
	r := checkJepsenFile(t, "g0.edn", Options{})
	vs := mustFindExactly(t, r, G0, jepsenFinding{Partition: jy, Ops: []int{2, 0}, Txn: &TxnDetail{Steps: []Step{
		{Type: "ww", From: 2, To: 0, Partition: jy, Value: ":b", Value2: ":a", FromMop: 1, ToMop: 1},
		{Type: "ww", From: 0, To: 2, Partition: jx, Value: ":a", Value2: ":b", FromMop: 0, ToMop: 0},
	}}})
	if vs[0].Error {
		t.Errorf("G0 is allowed (Kafka does not isolate writes): %s", vs[0].String())
	}
	mustJepsenClass(t, vs[0], JepsenAllowed)
	mustNotFind(t, r, G1c)
	mustNotFind(t, checkJepsenFile(t, "g0-fine.edn", Options{}), G0)
}

func TestJepsenG1cPureWR(t *testing.T) {
	// Jepsen: cycle [t2' t1' t2'], steps wr on :y (:b, sent by t2's
	// micro-op 0, polled by t1's 1), then wr on :x.
	r := checkJepsenFile(t, "g1c-pure-wr.edn", Options{})
	vs := mustFindExactly(t, r, G1c, jepsenFinding{Partition: jy, Ops: []int{2, 0}, Txn: &TxnDetail{Steps: []Step{
		{Type: "wr", From: 2, To: 0, Partition: jy, Value: ":b", FromMop: 0, ToMop: 1},
		{Type: "wr", From: 0, To: 2, Partition: jx, Value: ":a", FromMop: 0, ToMop: 1},
	}}})
	if !vs[0].Error || vs[0].Promise != PromiseWriteRead {
		t.Errorf("a pure write-read cycle is an error: %s", vs[0].String())
	}
	mustJepsenClass(t, vs[0], JepsenError)
	mustNotFind(t, r, G0)
	mustNotFind(t, checkJepsenFile(t, "g1c-pure-wr-fine.edn", Options{}), G1c)
}

func TestJepsenG1cWWWR(t *testing.T) {
	// Jepsen (with :ww-deps): cycle [t1' t2' t1'], steps wr on :x (:a),
	// then ww on :y (:b then :c, both second micro-ops).
	r := checkJepsenFile(t, "g1c-ww-wr.edn", Options{})
	vs := mustFindExactly(t, r, G1c, jepsenFinding{Partition: jx, Ops: []int{0, 2}, Txn: &TxnDetail{Steps: []Step{
		{Type: "wr", From: 0, To: 2, Partition: jx, Value: ":a", FromMop: 0, ToMop: 0},
		{Type: "ww", From: 2, To: 0, Partition: jy, Value: ":b", Value2: ":c", FromMop: 1, ToMop: 1},
	}}})
	if vs[0].Error {
		t.Errorf("a G1c through a write-write edge is allowed: %s", vs[0].String())
	}
	mustJepsenClass(t, vs[0], JepsenAllowed) // Jepsen allows G1c with :ww-deps
	mustNotFind(t, r, G0)
	mustNotFind(t, checkJepsenFile(t, "g1c-ww-wr-fine.edn", Options{}), G1c)
}

func TestJepsenIntSendSkip(t *testing.T) {
	// Jepsen: {:key :x, :values [:a :c], :skipped [:b], :delta 2, :op send-13'}.
	r := checkJepsenFile(t, "int-send-skip.edn", Options{})
	vs := mustFindExactly(t, r, IntSendSkip, jepsenFinding{Partition: jx, Values: []string{":a", ":c"}, Ops: []int{0},
		Txn: &TxnDetail{Delta: 2, Skipped: []string{":b"}}})
	if vs[0].Error {
		t.Errorf("int-send-skip is allowed: %s", vs[0].String())
	}
	mustJepsenClass(t, vs[0], JepsenAllowed)
	fine := checkJepsenFile(t, "int-send-skip-fine.edn", Options{})
	mustNotFind(t, fine, IntSendSkip)
	mustNotFind(t, fine, IntNonmonotonicSend)
}

func TestJepsenIntNonmonotonicSend(t *testing.T) {
	// Jepsen: {:key :x, :values [:c :a], :delta -1, :op send-31a'} and
	// {:key :y, :values [:d :b], :delta -2, :op send-42b'}.
	want := []jepsenFinding{
		{Partition: jx, Values: []string{":c", ":a"}, Ops: []int{0}, Txn: &TxnDetail{Delta: -1}},
		{Partition: jy, Values: []string{":d", ":b"}, Ops: []int{2}, Txn: &TxnDetail{Delta: -2}},
	}
	// An error where the producer promises its order (an idempotent or
	// transactional one), allowed where retries may reorder.
	for _, idem := range []bool{true, false} {
		r := checkJepsenFile(t, "int-nonmonotonic-send.edn", Options{Idempotent: idem})
		for _, v := range mustFindExactly(t, r, IntNonmonotonicSend, want...) {
			if v.Error != idem {
				t.Errorf("idempotent=%v: %s", idem, v.String())
			}
			mustJepsenClass(t, v, JepsenError)
		}
	}
	fine := checkJepsenFile(t, "int-nonmonotonic-send-fine.edn", Options{Idempotent: true})
	mustNotFind(t, fine, IntNonmonotonicSend)
	mustFindExactly(t, fine, IntSendSkip, jepsenFinding{Partition: jy, Values: []string{":b", ":d"}, Ops: []int{2},
		Txn: &TxnDetail{Delta: 2, Skipped: []string{":c"}}})
}

func TestJepsenPrecommittedRead(t *testing.T) {
	// Jepsen: {:op t1', :key :x, :value :a}.
	r := checkJepsenFile(t, "precommitted-read.edn", Options{})
	vs := mustFindExactly(t, r, PrecommittedRead, jepsenFinding{Partition: jx, Values: []string{":a"}, Ops: []int{0}})
	if !vs[0].Error {
		t.Errorf("precommitted-read is an error: %s", vs[0].String())
	}
	mustJepsenClass(t, vs[0], JepsenError)
	mustNotFind(t, checkJepsenFile(t, "precommitted-read-fine.edn", Options{}), PrecommittedRead)
}
