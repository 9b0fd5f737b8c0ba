package model

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sampleHistory has one op of every kind, recorded the way a simulated
// client would record them.
func sampleHistory() History {
	var r Recorder
	ms := time.Millisecond
	t0 := TP("t", 0)
	a := r.Invoke(Op{Process: 0, F: FAssign, Time: 0, Partitions: []TopicPartition{t0}})
	r.OK(a, ms)
	s := r.Invoke(Op{Process: 1, F: FSend, Time: 1 * ms, TP: t0, Key: "k", Value: "v0"})
	s2 := r.Invoke(Op{Process: 1, F: FSend, Time: 2 * ms, TP: t0, Value: "v1"})
	r.SendOK(s, 3*ms, t0, 0)
	r.Resequenced(s2, t0, Resequence{At: 4 * ms, FromEpoch: 0, FromSeq: 1, ToEpoch: 1, ToSeq: 0})
	r.Info(s2, 9*ms, "timeout")
	p := r.Invoke(Op{Process: 0, F: FPoll, Time: 4 * ms})
	r.PollOK(p, 5*ms, []PartitionRecords{
		{TP: TP("t", 1), Records: []OffsetValue{{Offset: 0, Value: "w0"}}},
		{TP: t0, Records: []OffsetValue{{Offset: 0, Value: "v0"}, {Offset: 1, Value: "v1"}}},
	})
	c := r.Invoke(Op{Process: 2, F: FCommit, Time: 6 * ms, Group: "g", Generation: 0,
		Offsets: []PartitionOffset{{TP: t0, Offset: 2, From: NoOffset}}})
	r.OK(c, 7*ms)
	sub := r.Invoke(Op{Process: 2, F: FSubscribe, Time: 7 * ms, Topics: []string{"t"}})
	r.Fail(sub, 8*ms, "COORDINATOR_NOT_AVAILABLE")
	r.Event(Op{Process: 2, F: FRebalance, Time: 8 * ms, Group: "g", Generation: 3,
		Gained: []TopicPartition{t0}, Lost: []TopicPartition{TP("t", 1)}})
	sk := r.Invoke(Op{Process: 0, F: FSeek, Time: 9 * ms, Offsets: []PartitionOffset{{TP: t0, Offset: 0, From: NoOffset}}})
	r.OK(sk, 9*ms)
	r.Event(Op{Process: 0, F: FReset, Time: 10 * ms, Offsets: []PartitionOffset{{TP: t0, Offset: 5, From: 1}}})
	r.Invoke(Op{Process: 3, F: FPoll, Time: 11 * ms})
	return r.History()
}

func TestRecorderHistoryValidates(t *testing.T) {
	h := sampleHistory()
	if err := h.Validate(); err != nil {
		t.Fatal(err)
	}
	if h[1].Type != OpOK || h[1].Offset != 0 || h[1].End != 3*time.Millisecond {
		t.Errorf("send: %s", &h[1])
	}
	if h[2].Type != OpInfo || h[2].Offset != NoOffset || h[2].Error != "timeout" {
		t.Errorf("info send: %s", &h[2])
	}
	if h[3].Records[0].TP != TP("t", 0) {
		t.Errorf("poll partitions not sorted: %s", &h[3])
	}
	last := h[len(h)-1]
	if last.Completed() || last.Type != OpInvoke {
		t.Errorf("pending poll: %s", &last)
	}
}

func TestRecorderPanicsOnDoubleCompletion(t *testing.T) {
	var r Recorder
	i := r.Invoke(Op{F: FPoll})
	r.OK(i, 0)
	defer func() {
		if recover() == nil {
			t.Fatal("completing twice did not panic")
		}
	}()
	r.OK(i, 0)
}

func TestHistoryRoundTrip(t *testing.T) {
	h := sampleHistory()
	var buf bytes.Buffer
	if err := WriteHistory(&buf, h); err != nil {
		t.Fatal(err)
	}
	got, err := ReadHistory(&buf, "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Non-send ops read back with Offset NoOffset, which the recorder
	// leaves at zero: only a send's Offset is part of the format.
	for i := range h {
		if h[i].F != FSend {
			h[i].Offset = NoOffset
		}
	}
	if !reflect.DeepEqual(got, h) {
		t.Fatalf("round trip differs:\n got %v\nwant %v", got, h)
	}
}

func TestHistoryLineFormat(t *testing.T) {
	var r Recorder
	i := r.Invoke(Op{Process: 0, F: FSend, Time: 1000, TP: TP("t", 0), Value: "v0"})
	r.SendOK(i, 2000, TP("t", 0), 0)
	var buf bytes.Buffer
	if err := WriteHistory(&buf, r.History()); err != nil {
		t.Fatal(err)
	}
	want := `{"index":0,"process":0,"type":"ok","f":"send","time":1000,"end":2000,"tp":"t/0","value":"v0","offset":0}` + "\n"
	if buf.String() != want {
		t.Fatalf("got  %s\nwant %s", buf.String(), want)
	}
}

func TestReadHistoryIntegerValues(t *testing.T) {
	in := `{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":17,"offset":3}
{"process":1,"type":"ok","f":"poll","time":3,"end":4,"records":{"t/0":[[3,17]]}}
`
	h, err := ReadHistory(strings.NewReader(in), "x")
	if err != nil {
		t.Fatal(err)
	}
	if h[0].Value != "17" || h[1].Records[0].Records[0] != (OffsetValue{Offset: 3, Value: "17"}) {
		t.Fatalf("got %v", h)
	}
}

// A send acknowledged by an attempt sent before an epoch bump rewrote it
// keeps that attempt's identity through the recorder and the JSON form.
func TestAckedAsRoundTrips(t *testing.T) {
	var r Recorder
	t0 := TP("t", 0)
	s := r.Invoke(Op{Process: 1, F: FSend, Time: 1, TP: t0, Value: "v"})
	r.Resequenced(s, t0, Resequence{At: 2, FromEpoch: 0, FromSeq: 7, ToEpoch: 1, ToSeq: 0})
	r.AckedAs(s, SentAs{Epoch: 0, Seq: 7})
	r.SendOK(s, 3, t0, 4)
	h := r.History()
	if a := h[0].AckedAs; a == nil || *a != (SentAs{Epoch: 0, Seq: 7}) {
		t.Fatalf("recorded %+v", h[0])
	}
	var buf strings.Builder
	if err := WriteHistory(&buf, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"acked_as":{"epoch":0,"seq":7}`) {
		t.Fatalf("written %s", buf.String())
	}
	back, err := ReadHistory(strings.NewReader(buf.String()), "h.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if a := back[0].AckedAs; a == nil || *a != (SentAs{Epoch: 0, Seq: 7}) {
		t.Fatalf("read back %+v", back[0])
	}
}

func TestReadHistoryErrors(t *testing.T) {
	ok := `{"index":0,"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":"a","offset":0}` + "\n"
	cases := []struct{ in, want string }{
		{ok + `{"process":0,"type":"okk","f":"send","time":1,"end":2,"value":"b"}`, `h.jsonl:2: unknown op type "okk"`},
		{ok + "\n" + `{"process":0,"type":"ok","f":"sned","time":1,"end":2}`, `h.jsonl:3: unknown op f "sned"`},
		{`{"process":0,`, `h.jsonl:1: `},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"vlaue":1}`, `h.jsonl:1: unknown field "vlaue"`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":2,"value":"a"}`, `h.jsonl:1: ok send without a partition`},
		{`{"process":0,"type":"invoke","f":"send","time":1,"tp":"t/0","value":"a","offset":3}`, `h.jsonl:1: send with offset 3 that never completed`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":-1}`, `h.jsonl:1: negative txn -1`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":1}` + "\n" + `{"process":1,"type":"ok","f":"poll","time":1,"end":2,"txn":1}`, `h.jsonl:2: txn 1: process 1, but its op 0 has process 0`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":1}` + "\n" + `{"process":0,"type":"fail","f":"poll","time":1,"end":2,"txn":1}`, `h.jsonl:2: txn 1: type fail, but its op 0 has type ok`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":1}` + "\n" + `{"process":0,"type":"ok","f":"poll","time":1,"end":3,"txn":1}`, `h.jsonl:2: txn 1: times [1ns,3ns], but its op 0 has [1ns,2ns]`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":1}` + "\n" + `{"process":0,"type":"ok","f":"poll","time":3,"end":4}` + "\n" + `{"process":0,"type":"ok","f":"poll","time":1,"end":2,"txn":1}`, `h.jsonl:3: txn 1: its ops are not consecutive`},
		{`{"process":0,"type":"ok","f":"poll","time":5,"end":2}`, `h.jsonl:1: ends at 2ns before it starts at 5ns`},
		{`{"process":0,"type":"ok","f":"poll","time":1}`, `h.jsonl:1: ok op without "end"`},
		{`{"index":4,"process":0,"type":"invoke","f":"poll","time":1}`, `h.jsonl:1: index 4, want 0`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"records":{"t0":[[0,"a"]]}}`, `h.jsonl:1: records: topic-partition "t0"`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"records":{"t/0":[[0]]}}`, `h.jsonl:1: records t/0[0]: want [offset, value]`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":1.5,"offset":0}`, `h.jsonl:1: value 1.5: want a string or an integer`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":2} {}`, `h.jsonl:1: more than one JSON value`},
		{`{"process":"p","type":"ok","f":"poll","time":1,"end":2}`, `h.jsonl:1: field "process"`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"resequenced":[{"at":5,"from_epoch":0,"from_seq":4,"to_epoch":1}]}`, `h.jsonl:1: resequenced[0]: want "at", "from_epoch", "from_seq", "to_epoch" and "to_seq"`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"resequenced":[{"at":5,"from_epoch":1,"from_seq":4,"to_epoch":1,"to_seq":0}]}`, `h.jsonl:1: resequenced[0]: epoch 1 to 1`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"resequenced":[{"at":10,"from_epoch":0,"from_seq":4,"to_epoch":1,"to_seq":0}]}`, `h.jsonl:1: resequenced[0] at 10ns, outside the send's [1ns, 9ns]`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":9,"resequenced":[{"at":5,"from_epoch":0,"from_seq":4,"to_epoch":1,"to_seq":0}]}`, `h.jsonl:1: poll op with "resequenced"`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"resequenced":[{"at":5,"from_epoch":0,"from_seq":4,"to_epoch":1,"to_seq":0}],"acked_as":{"epoch":0}}`, `h.jsonl:1: acked_as: want "epoch" and "seq"`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"acked_as":{"epoch":0,"seq":4}}`, `h.jsonl:1: "acked_as" on a send that is not ok and resequenced`},
		{`{"process":0,"type":"info","f":"send","time":1,"end":9,"tp":"t/0","value":"a","resequenced":[{"at":5,"from_epoch":0,"from_seq":4,"to_epoch":1,"to_seq":0}],"acked_as":{"epoch":0,"seq":4}}`, `h.jsonl:1: "acked_as" on a send that is not ok and resequenced`},
		{`{"process":0,"type":"ok","f":"send","time":1,"end":9,"tp":"t/0","value":"a","offset":3,"resequenced":[{"at":5,"from_epoch":0,"from_seq":4,"to_epoch":1,"to_seq":0}],"acked_as":{"epoch":0,"seq":5}}`, `h.jsonl:1: "acked_as" epoch 0 sequence 5 is none of the identities an epoch bump rewrote`},
		{`{"process":0,"type":"ok","f":"poll","time":1,"end":9,"acked_as":{"epoch":0,"seq":4}}`, `h.jsonl:1: poll op with "resequenced" or "acked_as"`},
	}
	for _, c := range cases {
		_, err := ReadHistory(strings.NewReader(c.in), "h.jsonl")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("input %q:\n got error %v\nwant prefix %q", c.in, err, c.want)
		}
	}
}

func TestValidateRejects(t *testing.T) {
	h := History{{Index: 0, Type: OpOK, F: FPoll, Records: []PartitionRecords{{TP: TP("t", 1)}, {TP: TP("t", 0)}}}}
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "out of order") {
		t.Errorf("unsorted poll partitions: %v", err)
	}
	h = History{{Index: 0, Type: OpFail, F: FSend, Value: "v", Offset: 3}}
	if err := h.Validate(); err == nil || !strings.Contains(err.Error(), "without a partition") {
		t.Errorf("failed send with an offset but no partition: %v", err)
	}
	// A failed or indeterminate send may keep the offset it was told
	// (Jepsen's clients do); an ok send may lack one.
	h = History{
		{Index: 0, Type: OpFail, F: FSend, TP: TP("t", 0), Value: "v", Offset: 3},
		{Index: 1, Type: OpInfo, F: FSend, TP: TP("t", 0), Value: "w", Offset: 4},
		{Index: 2, Type: OpOK, F: FSend, TP: TP("t", 0), Value: "x", Offset: NoOffset},
	}
	if err := h.Validate(); err != nil {
		t.Errorf("sends with the offsets they were told: %v", err)
	}
	// The micro-ops of one operation agree and are consecutive.
	txn := func(i, p, txn int, typ OpType) Op {
		return Op{Index: i, Process: p, Type: typ, F: FPoll, Time: 1, End: 2, Txn: txn}
	}
	for _, c := range []struct {
		h    History
		want string
	}{
		{History{txn(0, 0, 1, OpOK), txn(1, 0, 1, OpOK), txn(2, 0, 2, OpOK)}, ""},
		{History{txn(0, 0, 1, OpOK), txn(1, 1, 1, OpOK)}, "op 1: txn 1: process 1"},
		{History{txn(0, 0, 1, OpOK), txn(1, 0, 1, OpInfo)}, "op 1: txn 1: type info"},
		{History{txn(0, 0, 1, OpOK), txn(1, 0, 0, OpOK), txn(2, 0, 1, OpOK)}, "op 2: txn 1: its ops are not consecutive"},
		// Txns that end in ascending order, a lower one returning among them,
		// and the same once one has ended out of order (TxnCheck keeps a
		// sorted slice until then, a set after).
		{History{txn(0, 0, 2, OpOK), txn(1, 0, 5, OpOK), txn(2, 0, 7, OpOK), txn(3, 0, 9, OpOK)}, ""},
		{History{txn(0, 0, 2, OpOK), txn(1, 0, 5, OpOK), txn(2, 0, 7, OpOK), txn(3, 0, 5, OpOK)}, "op 3: txn 5: its ops are not consecutive"},
		{History{txn(0, 0, 5, OpOK), txn(1, 0, 2, OpOK), txn(2, 0, 7, OpOK), txn(3, 0, 3, OpOK), txn(4, 0, 8, OpOK)}, ""},
		{History{txn(0, 0, 5, OpOK), txn(1, 0, 2, OpOK), txn(2, 0, 7, OpOK), txn(3, 0, 5, OpOK)}, "op 3: txn 5: its ops are not consecutive"},
		{History{txn(0, 0, 5, OpOK), txn(1, 0, 2, OpOK), txn(2, 0, 7, OpOK), txn(3, 0, 2, OpOK)}, "op 3: txn 2: its ops are not consecutive"},
	} {
		err := c.h.Validate()
		if (c.want == "") != (err == nil) || (err != nil && !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("%v: got %v, want %q", c.h, err, c.want)
		}
	}
}

func FuzzReadHistory(f *testing.F) {
	var buf bytes.Buffer
	WriteHistory(&buf, sampleHistory())
	f.Add(buf.String())
	f.Add(`{"process":0,"type":"ok","f":"poll","time":1,"end":2,"records":{"t/0":[[0,1],[1,"x"]]}}`)
	f.Add(`{"process":0,"type":"ok","f":"reset","time":1,"end":2,"offsets":{"t/0":4},"from":{"t/0":1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ReadHistory(strings.NewReader(s), "fuzz")
		if err != nil {
			return
		}
		if verr := h.Validate(); verr != nil {
			t.Fatalf("ReadHistory accepted an invalid history: %v", verr)
		}
		// What was read must write and read back to the same history.
		var out bytes.Buffer
		if err := WriteHistory(&out, h); err != nil {
			t.Fatal(err)
		}
		h2, err := ReadHistory(&out, "again")
		if err != nil {
			t.Fatalf("re-reading written history: %v", err)
		}
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("round trip differs:\n%v\n%v", h, h2)
		}
	})
}
