package scenarios

import (
	"time"

	"testing"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// TestAckWatchFollowsTheHistory drives the watch over a history built
// step by step: sends acknowledged out of order and after later ops,
// reads by a plain consumer and by group members, and a lost partition.
func TestAckWatchFollowsTheHistory(t *testing.T) {
	rec := &model.Recorder{}
	groups := []fixture.GroupSpec{{Name: "g", Members: 1}}
	members := []fixture.Member{{Group: "g", Node: sim.NodeID(7)}}
	w := newAckWatch(rec, groups, members)
	p0, p1 := model.TP("t", 0), model.TP("t", 1)
	send := func(at int64, v string, tp model.TopicPartition) int {
		return rec.Invoke(model.Op{Process: 1, F: model.FSend, Time: ms(at), TP: tp, Value: v})
	}
	poll := func(proc int, at int64, tp model.TopicPartition, vs ...string) {
		var ovs []model.OffsetValue
		for i, v := range vs {
			ovs = append(ovs, model.OffsetValue{Offset: model.Offset(i), Value: v})
		}
		i := rec.Invoke(model.Op{Process: proc, F: model.FPoll, Time: ms(at)})
		rec.PollOK(i, ms(at), []model.PartitionRecords{{TP: tp, Records: ovs}})
	}
	a := send(1, "a", p0)
	b := send(2, "b", p1)
	c := send(3, "c", p0)
	rec.SendOK(c, ms(4), p0, 0)
	w.advance()
	if !w.sendAckedSince(ms(3)) || w.sendAckedSince(ms(4)) {
		t.Fatalf("lastAcked %v, want the send made at 3ms", w.lastAcked)
	}
	if got := w.unreadAcked(nil); got != "acknowledged records not read by the consumer: c" {
		t.Fatalf("unread: %q", got)
	}
	// a and b complete after the watch first saw them running; the
	// message keeps history order.
	rec.SendOK(b, ms(5), p1, 0)
	rec.SendOK(a, ms(6), p0, 1)
	fail := send(7, "f", p0)
	rec.Fail(fail, ms(8), "NOT_ENOUGH_REPLICAS")
	w.advance()
	if got := w.unreadAcked(nil); got != "acknowledged records not read by the consumer: a, b, c" {
		t.Fatalf("unread: %q", got)
	}
	if got := w.unreadAcked([]model.TopicPartition{p0}); got != "acknowledged records not read by the consumer: b" {
		t.Fatalf("unread with t/0 lost: %q", got)
	}
	// On a lost partition, a send still in the leader's log is not
	// excused: only what is gone is.
	w.inLog = func(s ackedSend) bool { return s.value == "a" && s.offset == 1 }
	if got := w.unreadAcked([]model.TopicPartition{p0}); got != "acknowledged records not read by the consumer: a, b" {
		t.Fatalf("unread with t/0 lost and a still in its log: %q", got)
	}
	w.inLog = nil
	// A plain consumer's reads count for the consumer, not for the group.
	poll(2, 9, p0, "c", "a")
	w.advance()
	if got := w.unreadAcked(nil); got != "acknowledged records not read by the consumer: b" {
		t.Fatalf("unread after a poll: %q", got)
	}
	if got := w.unreadByGroups(nil); got != "group g has not read acknowledged records a, b, c" {
		t.Fatalf("group unread: %q", got)
	}
	// A record read before its send is acknowledged is not missing.
	d := send(10, "d", p1)
	poll(7, 11, p1, "b", "d")
	poll(2, 11, p1, "b", "d")
	rec.SendOK(d, ms(12), p1, 1)
	poll(7, 13, p0, "a", "c")
	w.advance()
	if got := w.unreadAcked(nil); got != "" {
		t.Fatalf("consumer unread at the end: %q", got)
	}
	if got := w.unreadByGroups(nil); got != "" {
		t.Fatalf("group unread at the end: %q", got)
	}
	if !w.sendAckedSince(ms(10)) {
		t.Fatal("the send made at 10ms was acknowledged")
	}
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
