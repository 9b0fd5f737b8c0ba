package checkers_test

import (
	"fmt"
	"time"

	"kafkasim/checkers"
	"kafkasim/model"
)

// A producer's send of "b" was acknowledged at offset 1, yet the consumer
// read offsets 0 and 2 only: the consumer skipped a record inside one poll
// and nobody ever read b.
func ExampleCheck() {
	var rec model.Recorder
	tp := model.TP("orders", 0)
	ms := time.Millisecond
	for i, v := range []string{"a", "b", "c"} {
		s := rec.Invoke(model.Op{Process: 0, F: model.FSend, Time: time.Duration(i) * ms, TP: tp, Value: v})
		rec.SendOK(s, time.Duration(i)*ms+ms/2, tp, model.Offset(i))
	}
	p := rec.Invoke(model.Op{Process: 1, F: model.FPoll, Time: 5 * ms})
	rec.PollOK(p, 6*ms, []model.PartitionRecords{{TP: tp, Records: []model.OffsetValue{{Offset: 0, Value: "a"}, {Offset: 2, Value: "c"}}}})

	res := checkers.Check(checkers.Input{History: rec.History()}, checkers.Options{Idempotent: true})
	fmt.Println(res.Valid)
	for _, v := range res.Violations {
		fmt.Println(v.Anomaly, v.Partition, v.Offsets, v.Error)
	}
	// Output:
	// violation
	// int-poll-skip orders/0 [1] true
	// lost-write orders/0 [1] true
}
