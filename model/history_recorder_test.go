package model

import (
	"fmt"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// fullOp returns an Op with every field set to a non-zero value, found by
// reflection so that a field added to Op later is covered too.
func fullOp(t *testing.T) Op {
	var op Op
	v := reflect.ValueOf(&op).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Int, reflect.Int32, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.String:
			f.SetString("s" + v.Type().Field(i).Name)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Struct:
			f.Set(reflect.ValueOf(TP("topic", int32(i))))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		default:
			t.Fatalf("fullOp: field %s of kind %v: teach the test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	op.Type = OpOK
	return op
}

// TestRecorderKeepsEveryField records an op with every field set and
// requires the history to give all of it back: the recorder's compact
// form must not drop a field.
func TestRecorderKeepsEveryField(t *testing.T) {
	op := fullOp(t)
	var r Recorder
	r.Event(Op{Process: 1, F: FSend, Value: "first"})
	i := r.Event(op)
	got := r.History()[i]
	want := op
	want.Index, want.Type, want.End = i, OpOK, op.Time
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("recorded\n%#v\ngot back\n%#v", want, got)
	}
}

// TestRecorderCompletions checks each way of completing an op, and that
// nil and empty lists stay apart.
func TestRecorderCompletions(t *testing.T) {
	var r Recorder
	send := r.Invoke(Op{Process: 1, F: FSend, Time: 1, TP: TP("t", 0), Value: "a"})
	fail := r.Invoke(Op{Process: 1, F: FSend, Time: 2, Value: "b"})
	info := r.Invoke(Op{Process: 1, F: FSend, Time: 3, Value: "c"})
	empty := r.Invoke(Op{Process: 2, F: FPoll, Time: 4})
	none := r.Invoke(Op{Process: 2, F: FPoll, Time: 5})
	r.SendOK(send, 10, TP("t", 2), 42)
	r.Fail(fail, 11, "NOT_LEADER_OR_FOLLOWER")
	r.Info(info, 12, "timeout")
	r.PollOK(empty, 13, []PartitionRecords{})
	r.PollOK(none, 14, nil)
	h := r.History()
	if op := h[send]; op.Type != OpOK || op.End != 10 || op.TP != TP("t", 2) || op.Offset != 42 || op.Value != "a" {
		t.Errorf("send: %+v", op)
	}
	if op := h[fail]; op.Type != OpFail || op.End != 11 || op.Error != "NOT_LEADER_OR_FOLLOWER" || op.Offset != NoOffset {
		t.Errorf("fail: %+v", op)
	}
	if op := h[info]; op.Type != OpInfo || op.End != 12 || op.Error != "timeout" {
		t.Errorf("info: %+v", op)
	}
	if op := h[empty]; op.Type != OpOK || op.Records == nil || len(op.Records) != 0 {
		t.Errorf("poll of nothing: %+v, want an empty non-nil list", op)
	}
	if op := h[none]; op.Type != OpOK || op.Records != nil {
		t.Errorf("poll with nil: %+v", op)
	}
	for i, op := range h {
		if op.Index != i {
			t.Errorf("op %d has index %d", i, op.Index)
		}
	}
}

// TestRecorderOpIsHistoryEntry requires Op(i) to be exactly History()[i],
// across a chunk boundary and for ops completed after later ones began.
func TestRecorderOpIsHistoryEntry(t *testing.T) {
	var r Recorder
	var open []int
	for i := range recorderChunk + 10 {
		open = append(open, r.Invoke(Op{Process: i % 3, F: FSend, Time: 1, TP: TP("t", int32(i%2)), Value: "v"}))
		if i%7 == 0 {
			r.SendOK(open[0], 2, TP("t", 0), 5)
			open = open[1:]
		}
	}
	r.Event(fullOp(t))
	h := r.History()
	for i := range h {
		if got := r.Op(i); !reflect.DeepEqual(got, h[i]) {
			t.Fatalf("Op(%d) = %+v, History()[%d] = %+v", i, got, i, h[i])
		}
		if got := r.Running(i); got != (h[i].Type == OpInvoke) {
			t.Fatalf("Running(%d) = %v for an op of type %v", i, got, h[i].Type)
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("Op past the end did not panic")
		}
	}()
	r.Op(len(h))
}

// TestRecorderOversizedFieldsGoToExt records ops whose process, topic and
// kind do not fit the compact form's inline fields, and requires them
// back whole, beside ops that fit.
func TestRecorderOversizedFieldsGoToExt(t *testing.T) {
	var r Recorder
	var want History
	add := func(op Op) {
		op.Index, op.Type, op.End = r.Event(op), OpOK, op.Time
		want = append(want, op)
	}
	add(Op{Process: 1 << 40, F: FSend, Time: 1, TP: TP("t", 0), Key: "k", Value: "big-process"})
	for i := range 300 {
		add(Op{Process: 2, F: OpF(fmt.Sprintf("kind-%d", i)), Time: 2, Value: fmt.Sprintf("k%d", i)})
	}
	for i := range 1 << 16 {
		add(Op{Process: 3, F: FSend, Time: 3, TP: TP(fmt.Sprintf("topic-%d", i), 1), Value: fmt.Sprintf("t%d", i)})
	}
	// A send whose ack names a topic past the inline range, and one back
	// in range: the flag must follow the topic.
	i := r.Invoke(Op{Process: 4, F: FSend, Time: 4, Value: "late"})
	r.SendOK(i, 5, TP("topic-70000", 2), 9)
	want = append(want, Op{Index: i, Process: 4, Type: OpOK, F: FSend, Time: 4, End: 5, TP: TP("topic-70000", 2), Value: "late", Offset: 9})
	j := r.Invoke(Op{Process: 4, F: FSend, Time: 6, TP: TP("topic-70001", 0), Value: "back"})
	r.SendOK(j, 7, TP("t", 3), 10)
	want = append(want, Op{Index: j, Process: 4, Type: OpOK, F: FSend, Time: 6, End: 7, TP: TP("t", 3), Value: "back", Offset: 10})
	h := r.History()
	if len(h) != len(want) {
		t.Fatalf("%d ops, want %d", len(h), len(want))
	}
	for k := range want {
		if !reflect.DeepEqual(h[k], want[k]) {
			t.Fatalf("op %d:\n got %+v\nwant %+v", k, h[k], want[k])
		}
	}
}

// TestRecorderOpIs64Bytes pins the compact form's size: it is most of a
// long run's memory.
func TestRecorderOpIs64Bytes(t *testing.T) {
	if got := unsafe.Sizeof(opRec{}); got != 64 {
		t.Fatalf("opRec is %d bytes, want 64", got)
	}
}

// InvokeSend records exactly what Invoke records for the same send: with
// and without a key, a process id past int32, topics past the inline
// range and back, and once completed.
func TestInvokeSendIsInvokeOfASend(t *testing.T) {
	var viaOp, direct Recorder
	type send struct {
		process int
		at      time.Duration
		tp      TopicPartition
		key     string
		value   string
	}
	var sends []send
	sends = append(sends, send{1, 1, TP("t", 0), "", "a"}, send{1 << 40, 2, TP("t", 1), "k", "b"}, send{3, 3, TP("", 0), "", "c"})
	for i := range 1<<16 + 2 {
		sends = append(sends, send{2, time.Duration(i), TP(fmt.Sprintf("topic-%d", i), int32(i%3)), fmt.Sprint(i % 2), fmt.Sprintf("v%d", i)})
	}
	sends = append(sends, send{4, 9, TP("t", 2), "", "last"})
	for _, s := range sends {
		i := viaOp.Invoke(Op{Process: s.process, F: FSend, Time: s.at, TP: s.tp, Key: s.key, Value: s.value})
		j := direct.InvokeSend(s.process, s.at, s.tp, s.key, s.value)
		if i != j {
			t.Fatalf("%+v: index %d by Invoke, %d by InvokeSend", s, i, j)
		}
		if i%2 == 0 {
			viaOp.SendOK(i, s.at+1, s.tp, Offset(i))
			direct.SendOK(j, s.at+1, s.tp, Offset(i))
		}
	}
	a, b := viaOp.History(), direct.History()
	for k := range a {
		if !reflect.DeepEqual(a[k], b[k]) {
			t.Fatalf("op %d:\n Invoke     %+v\n InvokeSend %+v", k, a[k], b[k])
		}
	}
}
