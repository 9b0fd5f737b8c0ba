package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// jepsenSample is shaped like a Jepsen Kafka-workload history.edn: a
// nemesis op, pipelined sends and polls, a txn, an indeterminate send, a
// keyword key, and a tagged record literal.
const jepsenSample = `{:index 0, :time 100, :type :invoke, :process 0, :f :assign, :value [0 1]}
{:index 1, :time 150, :type :ok, :process 0, :f :assign, :value [0 1]}
{:index 2, :time 200, :type :invoke, :process 1, :f :send, :value [[:send 0 1] [:send 1 2]]}
{:index 3, :time 210, :type :info, :process :nemesis, :f :kill, :value nil}
{:index 4, :time 300, :type :ok, :process 1, :f :send, :value [[:send 0 [0 1]] [:send 1 [0 2]]]}
{:index 5, :time 310, :type :invoke, :process 2, :f :send, :value [[:send :x "s"]]}
{:index 6, :time 320, :type :info, :process 2, :f :send, :value [[:send :x "s"]], :error :timeout}
; a comment line
#jepsen.history.Op{:index 7, :time 400, :type :invoke, :process 0, :f :poll, :value [[:poll]]}
{:index 8, :time 500, :type :ok, :process 0, :f :poll, :value [[:poll {0 [[0 1]], 1 [[0 2]]}]]}
{:index 9, :time 600, :type :invoke, :process 3, :f :txn, :value [[:send 0 3] [:poll]]}
{:index 10, :time 700, :type :ok, :process 3, :f :txn, :value [[:send 0 [1 3]] [:poll {0 [[0 1] [1 3]]}]]}
{:index 11, :time 800, :type :invoke, :process 4, :f :send, :value [[:send 1 4]]}
{:index 12, :time 900, :type :fail, :process 4, :f :send, :value [[:send 1 4]], :error [:not-leader "x"]}
{:index 13, :time 950, :type :invoke, :process 5, :f :poll, :value [[:poll]]}
`

func TestReadJepsenEDN(t *testing.T) {
	h, err := ReadJepsenEDN(strings.NewReader(jepsenSample), "history.edn")
	if err != nil {
		t.Fatal(err)
	}
	jp := func(p int32) model.TopicPartition { return model.TP(JepsenTopic, p) }
	want := []string{
		"#0 p0 ok assign [jepsen/0 jepsen/1] [] [100ns,150ns]",
		"#1 p1 ok send jepsen/0 1 @0 [200ns,300ns]",
		"#2 p1 ok send jepsen/1 2 @0 [200ns,300ns]",
		"#3 p2 info send jepsen/2 s [310ns,320ns]",
		"#4 p0 ok poll jepsen/0:[0=1] jepsen/1:[0=2] [400ns,500ns]",
		"#5 p3 ok send jepsen/0 3 @1 [600ns,700ns]",
		"#6 p3 ok poll jepsen/0:[0=1 1=3] [600ns,700ns]",
		"#7 p4 fail send jepsen/1 4 [800ns,900ns]",
		"#8 p5 invoke poll [950ns,…]",
	}
	if len(h) != len(want) {
		t.Fatalf("got %d ops, want %d:\n%v", len(h), len(want), h)
	}
	for i := range want {
		if got := h[i].String(); got != want[i] {
			t.Errorf("op %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if h[3].Error != "timeout" || h[3].TP != jp(2) {
		t.Errorf("keyword key or error: %+v", h[3])
	}
	// The two-send :send and the :txn each stay one operation; the
	// single-micro-op ones are operations of their own.
	wantTxn := []int{0, 1, 1, 0, 0, 2, 2, 0, 0}
	for i, w := range wantTxn {
		if h[i].Txn != w {
			t.Errorf("op %d: txn %d, want %d", i, h[i].Txn, w)
		}
	}
	// The :txn polled the value it sent itself: Jepsen's
	// precommitted-read, and nothing else.
	r := check(t, Input{History: h}, Options{})
	if v := mustFind(t, r, PrecommittedRead, jp(0), 1); len(r.Violations) != 1 || v.Ops[0] != 5 {
		t.Fatalf("want only the precommitted read; got:\n%s", dump(r))
	}
}

func TestReadJepsenEDNFindsLostWrite(t *testing.T) {
	// 1 at offset 0 and 3 at offset 2 were read; 2 at offset 1 never was.
	src := `{:time 1, :type :invoke, :process 0, :f :send, :value [[:send 7 1] [:send 7 2] [:send 7 3]]}
{:time 2, :type :ok, :process 0, :f :send, :value [[:send 7 [0 1]] [:send 7 [1 2]] [:send 7 [2 3]]]}
{:time 3, :type :invoke, :process 1, :f :poll, :value [[:poll]]}
{:time 4, :type :ok, :process 1, :f :poll, :value [[:poll {7 [[0 1]]}]]}
{:time 5, :type :invoke, :process 2, :f :poll, :value [[:poll]]}
{:time 6, :type :ok, :process 2, :f :poll, :value [[:poll {7 [[2 3]]}]]}
`
	h, err := ReadJepsenEDN(strings.NewReader(src), "h.edn")
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, Input{History: h}, Options{})
	if v := mustFind(t, r, LostWrite, model.TP(JepsenTopic, 7), 1); v.Values[0] != "2" {
		t.Fatalf("lost-write: %+v", v)
	}
}

// TestReadJepsenEDNKeepsOutcomes: an info or fail send keeps its type and
// the offset its completion reported; an ok send without one keeps no
// offset and stays ok (kafka.clj must-have-committed? decides later what
// each proves).
func TestReadJepsenEDNKeepsOutcomes(t *testing.T) {
	src := `{:time 1, :type :invoke, :process 0, :f :send, :value [[:send :x 1] [:send :y 1]]}
{:time 2, :type :info, :process 0, :f :send, :value [[:send :x [0 1]] [:send :y 1]]}
{:time 3, :type :invoke, :process 1, :f :send, :value [[:send :x 2]]}
{:time 4, :type :fail, :process 1, :f :send, :value [[:send :x [1 2]]]}
{:time 5, :type :invoke, :process 2, :f :send, :value [[:send :x 3]]}
{:time 6, :type :ok, :process 2, :f :send, :value [[:send :x 3]]}
`
	h, err := ReadJepsenEDN(strings.NewReader(src), "h.edn")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"#0 p0 info send jepsen/0 1 @0 [1ns,2ns]",
		"#1 p0 info send jepsen/1 1 [1ns,2ns]",
		"#2 p1 fail send jepsen/0 2 @1 [3ns,4ns]",
		"#3 p2 ok send jepsen/0 3 [5ns,6ns]",
	}
	for i := range want {
		if got := h[i].String(); got != want[i] {
			t.Errorf("op %d:\n got %s\nwant %s", i, got, want[i])
		}
	}
	if h[0].Txn == 0 || h[1].Txn != h[0].Txn || h[2].Txn != 0 {
		t.Errorf("txns %d %d %d: want the two-send op tied together, the others alone", h[0].Txn, h[1].Txn, h[2].Txn)
	}
}

func TestReadJepsenEDNErrors(t *testing.T) {
	ok := "{:time 1, :type :invoke, :process 0, :f :poll, :value [[:poll]]}\n"
	cases := []struct{ in, want string }{
		{ok + "{:time 2, :type :okk, :process 0, :f :poll}", "h.edn:2: unknown op type :okk"},
		{ok + "\n{:time 2, :type :ok, :process 0, :f :poll, :value [[:poll {0 [[0]]}]]}", "h.edn:3: record [0]: want [offset value]"},
		{"{:time 1, :type :ok, :process 0, :f :poll}", "h.edn:1: ok completion for process 0 without an invocation"},
		{ok + ok, "h.edn:2: process 0 invoked again"},
		{"{:time 1, :type :invoke, :process 0, :f :poll", "h.edn:1: unclosed map"},
		{"{:time 1 :type}", "h.edn:1: map with an odd number of forms"},
		{"[1 2]", "h.edn:1: want an operation map, got a integer"},
		{"{:time 1, :type :invoke, :process 0, :f :send, :value [[:send 0 1.5]]}", "h.edn:1: value 1.5: want an integer, keyword or string"},
		{"{:time 1, :type :invoke, :process 0, :f :send, :value [[:send [1] 1]]}", "h.edn:1: key [1]: want an integer, keyword or string"},
		{"{:time \"x\", :type :invoke, :process 0, :f :poll}", "h.edn:1: operation without a non-negative integer :time"},
		{"\n\n{:s \"abc}", "h.edn:3: unterminated string"},
		{"#<Object>", "h.edn:1: unsupported dispatch #<"},
		{"}", "h.edn:1: unexpected '}'"},
		{strings.Repeat("[", 300), "h.edn:1: nested deeper than 200"},
		{ok + "{:time 2, :type :ok, :process 0, :f :frob}", "h.edn:2: unknown :f :frob"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value :oops}", "h.edn:1: :txn value :oops: want a vector of micro-operations"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value [[:read :x]]}", "h.edn:1: unknown micro-operation :read"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value [42]}", "h.edn:1: micro-operation 42: want [:send k v] or [:poll ...]"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value [[:send :x 1] [:poll]]}\n{:time 2, :type :ok, :process 0, :f :txn, :value [[:send :x [0 1]]]}", "h.edn:2: completion has 1 micro-operations, its invocation on line 1 has 2"},
		{"{:time 1, :type :invoke, :process 0, :f :txn, :value [[:send :x 1] [:poll]]}\n{:time 2, :type :ok, :process 0, :f :txn, :value [[:poll {}] [:send :x [0 1]]]}", "h.edn:2: micro-operation 0 completes as :poll, but line 1 invoked :send"},
		{"{:time 1, :type :invoke, :process 0, :f :send, :value [[:send :x 1]]}\n{:time 2, :type :ok, :process 0, :f :send, :value [[:send :y [0 1]]]}", "h.edn:2: micro-operation 0 sends to key :y, but line 1 invoked it for key :x"},
		{"{:time 1, :type :invoke, :process 0, :f :send, :value [[:send :x 1]]}\n{:time 2, :type :ok, :process 0, :f :poll, :value [[:poll {}]]}", "h.edn:2: completion :poll for process 0 does not match its invocation :send"},
	}
	for _, c := range cases {
		_, err := ReadJepsenEDN(strings.NewReader(c.in), "h.edn")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q:\n got %v\nwant prefix %q", c.in, err, c.want)
		}
	}
}

func TestEDNReaderForms(t *testing.T) {
	rd := &ednReader{src: `#{1 2} (a b) \c #_ 99 ##Inf 12N 1.5 -3 "q\"\u0041" nil true #inst "2024" sym/name :ns/kw`, line: 1}
	want := []string{"#{1 2}", "(a b)", `\c`, "##Inf", "12", "1.5", "-3", `"q\"A"`, "nil", "true", `"2024"`, "sym/name", ":ns/kw"}
	for i, w := range want {
		v, err := rd.next(0)
		if err != nil {
			t.Fatalf("form %d: %v", i, err)
		}
		if v.String() != w {
			t.Errorf("form %d: got %s want %s", i, v.String(), w)
		}
	}
	if _, err := rd.next(0); err != errEOF {
		t.Fatalf("want end of input, got %v", err)
	}
}

func FuzzReadJepsenEDN(f *testing.F) {
	f.Add(jepsenSample)
	f.Add(`[{:time 1, :type :invoke, :process 0, :f :txn, :value [[:send :a "v"] [:poll]]}]`)
	f.Add(`{:a #{1 2} :b (1 2) :c \x :d #_ 1 :e ##NaN}`)
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ReadJepsenEDN(strings.NewReader(s), "fuzz.edn")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.edn") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("accepted an invalid history: %v", err)
		}
		// Whatever was read must be checkable without a panic.
		Check(Input{History: h}, Options{LinearizabilityBudget: -1})
	})
}

// A completion's :rebalance-log excuses the operation's reads of the keys
// it names from the int- order checks, as kafka.clj's
// int-poll-skip+nonmonotonic-cases does; without it the same reads are an
// int-poll-skip. It says nothing about group ownership.
func TestReadJepsenEDNRebalanceLog(t *testing.T) {
	sends := `{:time 0, :type :invoke, :process 0, :f :send, :value [[:send :x :a] [:send :x :b] [:send :x :c]]}
{:time 1, :type :ok, :process 0, :f :send, :value [[:send :x [0 :a]] [:send :x [1 :b]] [:send :x [2 :c]]]}
{:time 2, :type :invoke, :process 2, :f :poll, :value [[:poll]]}
{:time 3, :type :ok, :process 2, :f :poll, :value [[:poll {:x [[0 :a] [1 :b] [2 :c]]}]]}
`
	polls := func(log string) string {
		return sends + `{:time 4, :type :invoke, :process 1, :f :poll, :value [[:poll]]}
{:time 5, :type :ok, :process 1, :f :poll, :value [[:poll {:x [[0 :a] [2 :c]]}]]` + log + `}
{:time 4, :type :invoke, :process 3, :f :poll, :value [[:poll]]}
{:time 6, :type :ok, :process 3, :f :poll, :value [[:poll {:x [[0 :a]]}]]` + log + `}
`
	}
	h, err := ReadJepsenEDN(strings.NewReader(polls(", :rebalance-log [{:keys [:x]}]")), "h.edn")
	if err != nil {
		t.Fatal(err)
	}
	if got := h[4].String(); got != "#4 p1 ok rebalance  gen 0 +[jepsen/0] -[] [4ns,4ns]" {
		t.Fatalf("rebalance op: %s", got)
	}
	r := check(t, Input{History: h}, Options{Subscribe: true})
	mustPass(t, r)
	h, err = ReadJepsenEDN(strings.NewReader(polls("")), "h.edn")
	if err != nil {
		t.Fatal(err)
	}
	mustFind(t, check(t, Input{History: h}, Options{Subscribe: true}), IntPollSkip, model.TP(JepsenTopic, 0), 1)
	if _, err := ReadJepsenEDN(strings.NewReader(polls(", :rebalance-log [:x]")), "h.edn"); err == nil || !strings.HasPrefix(err.Error(), "h.edn:6: rebalance :x: want a map with :keys") {
		t.Fatalf("malformed :rebalance-log: %v", err)
	}
}
