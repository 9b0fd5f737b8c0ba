package checkers_test

import (
	"bytes"
	"fmt"
	"os"
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
