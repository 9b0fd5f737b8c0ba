package checkers_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/checkers"
	"kafkasim/model"
)

// A transaction of two sends and a poll that read one of them: one :txn
// operation, an invocation and a completion, with partition orders/1 as
// key 0 (the comments at the top say so). ReadJepsenEDN reads it back.
func ExampleWriteJepsenEDN() {
	ms := time.Millisecond
	tp := model.TP("orders", 1)
	h := model.History{
		{Index: 0, Process: 0, Type: model.OpOK, F: model.FSend, Time: ms, End: 3 * ms, TP: tp, Value: "a", Offset: 0, Txn: 1},
		{Index: 1, Process: 0, Type: model.OpOK, F: model.FSend, Time: ms, End: 3 * ms, TP: tp, Value: "b \"quoted\"", Offset: 1, Txn: 1},
		{Index: 2, Process: 1, Type: model.OpOK, F: model.FPoll, Time: 4 * ms, End: 5 * ms, Offset: model.NoOffset,
			Records: []model.PartitionRecords{{TP: tp, Records: []model.OffsetValue{{Offset: 0, Value: "a"}}}}},
	}
	var buf bytes.Buffer
	if err := checkers.WriteJepsenEDN(&buf, h); err != nil {
		panic(err)
	}
	os.Stdout.Write(buf.Bytes())
	back, err := checkers.ReadJepsenEDN(&buf, "history.edn")
	if err != nil {
		panic(err)
	}
	for i := range back {
		fmt.Println(back[i].String())
	}
	// Output:
	// ; key 0 is orders/1
	// {:index 0, :type :invoke, :f :txn, :process 0, :time 1000000, :value [[:send 0 "a"] [:send 0 "b \"quoted\""]]}
	// {:index 1, :type :ok, :f :txn, :process 0, :time 3000000, :value [[:send 0 [0 "a"]] [:send 0 [1 "b \"quoted\""]]]}
	// {:index 2, :type :invoke, :f :poll, :process 1, :time 4000000, :value [[:poll]]}
	// {:index 3, :type :ok, :f :poll, :process 1, :time 5000000, :value [[:poll {0 [[0 "a"]]}]]}
	// #0 p0 ok send jepsen/0 a @0 [1ms,3ms]
	// #1 p0 ok send jepsen/0 b "quoted" @1 [1ms,3ms]
	// #2 p1 ok poll jepsen/0:[0=a] [4ms,5ms]
}

// The writer's harder cases come back through ReadJepsenEDN: values
// needing escapes, a failed transaction with its error, an operation
// still running at the end, a subscription to a topic, and a rebalance,
// carried by the process's next completed operation.
func TestWriteJepsenEDNRoundTrip(t *testing.T) {
	ms := time.Millisecond
	a, b := model.TP("in", 0), model.TP("out", 3)
	h := model.History{
		{Process: 2, Type: model.OpOK, F: model.FSubscribe, Time: 0, End: ms, Topics: []string{"in"}, Offset: model.NoOffset},
		{Process: 2, Type: model.OpOK, F: model.FRebalance, Time: ms, End: ms, Group: "g", Generation: 1, Gained: []model.TopicPartition{a}, Offset: model.NoOffset},
		{Process: 0, Type: model.OpFail, F: model.FSend, Time: ms, End: 2 * ms, TP: b, Value: "tab\t\"q\" \\ é \x01", Offset: model.NoOffset, Error: "PRODUCER_FENCED", Txn: 1},
		{Process: 0, Type: model.OpFail, F: model.FSend, Time: ms, End: 2 * ms, TP: a, Value: "x", Offset: 4, Error: "PRODUCER_FENCED", Txn: 1},
		{Process: 2, Type: model.OpOK, F: model.FPoll, Time: 3 * ms, End: 4 * ms, Offset: model.NoOffset},
		{Process: 1, Type: model.OpInvoke, F: model.FSend, Time: 5 * ms, TP: b, Value: "late", Offset: model.NoOffset},
	}
	for i := range h {
		h[i].Index = i
	}
	var buf bytes.Buffer
	if err := checkers.WriteJepsenEDN(&buf, h); err != nil {
		t.Fatal(err)
	}
	back, err := checkers.ReadJepsenEDN(bytes.NewReader(buf.Bytes()), "history.edn")
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	var got []string
	for i := range back {
		got = append(got, back[i].String()+" "+back[i].Error)
	}
	want := []string{
		"#0 p2 ok subscribe [jepsen/0] [] [0s,1ms] ",
		"#1 p0 fail send jepsen/1 tab\t\"q\" \\ é \x01 [1ms,2ms] PRODUCER_FENCED",
		"#2 p0 fail send jepsen/0 x @4 [1ms,2ms] PRODUCER_FENCED",
		"#3 p2 ok rebalance  gen 0 +[jepsen/0] -[] [3ms,3ms] ",
		"#4 p2 ok poll [3ms,4ms] ",
		"#5 p1 invoke send jepsen/1 late [5ms,…] ",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("read back:\n%s\nwant:\n%s\nfrom:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), buf.String())
	}
	if back[1].Txn == 0 || back[1].Txn != back[2].Txn {
		t.Fatalf("the transaction's sends came back as Txn %d and %d", back[1].Txn, back[2].Txn)
	}
}
