package client

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

var t0 = model.TP("t", 0)

// polled lists what the poll ops returned from tp, in order, as
// "offset=value".
func (w *world) polled(tp model.TopicPartition) []string {
	var out []string
	for _, op := range w.ops(model.FPoll) {
		for _, pr := range op.Records {
			if pr.TP == tp {
				for _, r := range pr.Records {
					out = append(out, fmt.Sprintf("%d=%s", r.Offset, r.Value))
				}
			}
		}
	}
	return out
}

func want(from, to int, prefix string) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%d=%s%d", i, prefix, i))
	}
	return out
}

func values(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func assignT0(o *ConsumerOptions) { o.Assignment = []model.TopicPartition{t0} }

// Polls return at most max.poll.records, in offset order, and advance the
// position; records appended later are fetched and polled too. The
// history has the assign, the reset that gave the partition its first
// position, and one poll op per non-empty poll, invoked and completed at
// the poll's instant.
func TestConsumerPollsAdvancePosition(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	p := w.c.part(t0)
	p.appendValues(values("a", 0, 3)...)
	p.appendValues(values("a", 3, 7)...)
	w.consumer(cfg(t, "auto.offset.reset=earliest", "max.poll.records=3"), assignT0)
	w.at(time.Second, func() { p.appendValues("a7") })
	w.run(3 * time.Second)

	if got := w.polled(t0); !slices.Equal(got, want(0, 8, "a")) {
		t.Errorf("polled %v, want %v", got, want(0, 8, "a"))
	}
	if pos := w.cons().Position(t0); pos != 8 {
		t.Errorf("position %d, want 8", pos)
	}
	h := w.history()
	if len(h) < 2 || h[0].F != model.FAssign || !slices.Equal(h[0].Partitions, []model.TopicPartition{t0}) || h[0].Time != 0 || h[0].Type != model.OpOK {
		t.Fatalf("first op %s, want ok assign [t/0] at 0", h[0].String())
	}
	if r := h[1]; r.F != model.FReset || r.Error != ResetNoOffset || len(r.Offsets) != 1 ||
		r.Offsets[0] != (model.PartitionOffset{TP: t0, Offset: 0, From: model.NoOffset}) || r.Time != r.End {
		t.Errorf("second op %s (%q), want reset t/0 none→0 for %q", r.String(), r.Error, ResetNoOffset)
	}
	polls := w.ops(model.FPoll)
	if len(polls) != 4 {
		t.Fatalf("%d poll ops, want 4 (3+3+1, then the late record):\n%s", len(polls), dump(h))
	}
	for i, op := range polls {
		if op.Type != model.OpOK || op.Time != op.End || op.Time%(100*ms) != 0 || op.Process != int(clientID) {
			t.Errorf("poll %d: %s, want ok at a poll tick, invoked and completed at once", i, op.String())
		}
		if i < 3 && len(op.Records[0].Records) != []int{3, 3, 1}[i] {
			t.Errorf("poll %d returned %d records, want %d", i, len(op.Records[0].Records), []int{3, 3, 1}[i])
		}
	}
}

// Seek moves the position, is recorded, and the next poll starts there.
func TestConsumerSeek(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.part(t0).appendValues(values("a", 0, 5)...)
	w.consumer(cfg(t, "auto.offset.reset=earliest"), assignT0)
	w.at(550*ms, func() { w.cons().Seek(nil, t0, 2) })
	w.run(2 * time.Second)

	if got, exp := w.polled(t0), append(want(0, 5, "a"), want(2, 5, "a")...); !slices.Equal(got, exp) {
		t.Errorf("polled %v, want %v", got, exp)
	}
	seeks := w.ops(model.FSeek)
	if len(seeks) != 1 || seeks[0].Time != 550*ms || seeks[0].Offsets[0] != (model.PartitionOffset{TP: t0, Offset: 2, From: model.NoOffset}) {
		t.Errorf("seek ops %v, want one seek t/0=2 at 550ms", seeks)
	}
}

// auto.offset.reset: earliest starts at the log start, latest at the end
// (only records appended later are read); each is a reset op.
func TestConsumerAutoOffsetReset(t *testing.T) {
	for _, tc := range []struct {
		policy string
		start  model.Offset
		polled []string
	}{
		{"earliest", 2, []string{"2=a2", "3=a3", "4=a4", "5=new"}},
		{"latest", 5, []string{"5=new"}},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			w := newWorld(t, 1)
			w.c.topic("t", 1)
			p := w.c.part(t0)
			p.logStart = 2 // retention removed offsets 0 and 1
			p.appendValues(values("a", 2, 5)...)
			w.consumer(cfg(t, "auto.offset.reset="+tc.policy), assignT0)
			w.at(time.Second, func() { p.appendValues("new") })
			w.run(3 * time.Second)

			resets := w.ops(model.FReset)
			if len(resets) != 1 || resets[0].Offsets[0] != (model.PartitionOffset{TP: t0, Offset: tc.start, From: model.NoOffset}) || resets[0].Error != ResetNoOffset {
				t.Errorf("resets %v, want one t/0 none→%d", resets, tc.start)
			}
			if got := w.polled(t0); !slices.Equal(got, tc.polled) {
				t.Errorf("polled %v, want %v", got, tc.polled)
			}
		})
	}
}

// OFFSET_OUT_OF_RANGE applies auto.offset.reset and records a reset op
// whose reason tells retention (the position fell below the log start)
// from a position past the end.
func TestConsumerOutOfRangeResets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		seek   model.Offset
		reason string
	}{
		{"below the log start", 1, ResetRetention},
		{"past the end", 100, ResetOutOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 1)
			w.c.topic("t", 1)
			p := w.c.part(t0)
			p.logStart = 3
			p.appendValues(values("a", 3, 6)...)
			w.consumer(cfg(t, "auto.offset.reset=earliest"), assignT0)
			w.at(550*ms, func() { w.cons().Seek(nil, t0, tc.seek) })
			w.run(2 * time.Second)

			resets := w.ops(model.FReset)
			if len(resets) != 2 {
				t.Fatalf("resets %v, want the first position and the out-of-range one", resets)
			}
			r := resets[1]
			if r.Error != tc.reason || r.Offsets[0] != (model.PartitionOffset{TP: t0, Offset: 3, From: tc.seek}) || r.Time < 550*ms {
				t.Errorf("reset %s (%q), want t/0 %d→3 for %q", r.String(), r.Error, tc.seek, tc.reason)
			}
			if got, exp := w.polled(t0), append(want(3, 6, "a"), want(3, 6, "a")...); !slices.Equal(got, exp) {
				t.Errorf("polled %v, want %v", got, exp)
			}
		})
	}
}

// With auto.offset.reset=none a partition without a position (or out of
// range) makes the next poll fail with the error, once, and waits for a
// seek.
func TestConsumerResetNoneFailsPoll(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.part(t0).appendValues(values("a", 0, 3)...)
	w.consumer(cfg(t, "auto.offset.reset=none"), assignT0)
	w.at(550*ms, func() { w.cons().Seek(nil, t0, 1) })
	w.at(1050*ms, func() { w.cons().Seek(nil, t0, 50) })
	w.run(2 * time.Second)

	var fails []string
	for _, op := range w.ops(model.FPoll) {
		if op.Type == model.OpFail {
			fails = append(fails, op.Error)
		}
	}
	if exp := []string{"NoOffsetForPartition t/0", "OFFSET_OUT_OF_RANGE t/0"}; !slices.Equal(fails, exp) {
		t.Errorf("failed polls %q, want %q", fails, exp)
	}
	if got := w.polled(t0); !slices.Equal(got, want(1, 3, "a")) {
		t.Errorf("polled %v, want %v", got, want(1, 3, "a"))
	}
	if n := len(w.ops(model.FReset)); n != 0 {
		t.Errorf("%d reset ops, want none (nothing was reset)", n)
	}
}

// KIP-320: after a leader change the consumer validates its position with
// OffsetsForLeaderEpoch for the epoch of the last record it read. If the
// new leader's log ends that epoch below the position (the records were
// truncated away), the position moves back to the divergence point and a
// reset op says so; if not, consumption simply continues.
func TestConsumerValidatesPositionAfterLeaderChange(t *testing.T) {
	for _, tc := range []struct {
		name      string
		truncated bool
		polled    []string
		reset     bool
	}{
		{"truncated", true, append(want(0, 10, "a"), "8=b8", "9=b9"), true},
		{"same log", false, append(want(0, 10, "a"), "10=b10", "11=b11"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t, 2)
			w.c.topic("t", 1)
			p := w.c.part(t0)
			p.appendValues(values("a", 0, 10)...)
			w.consumer(cfg(t, "auto.offset.reset=earliest"), assignT0)
			w.at(time.Second, func() {
				// b2 becomes leader in epoch 2; in the truncated case its
				// log lacked a8 and a9 and it took new records there.
				p.leader, p.epoch = 2, 2
				if tc.truncated {
					p.truncate(8)
					p.appendValues("b8", "b9")
				} else {
					p.appendValues("b10", "b11")
				}
			})
			w.run(4 * time.Second)

			if got := w.polled(t0); !slices.Equal(got, tc.polled) {
				t.Errorf("polled %v, want %v", got, tc.polled)
			}
			var queries []model.LeaderEpochQuery
			for _, r := range w.c.received {
				if q, ok := r.msg.(model.OffsetsForLeaderEpochRequest); ok && r.broker == 2 {
					queries = append(queries, q.Partitions...)
				}
			}
			if len(queries) != 1 || queries[0].LeaderEpoch != 1 || queries[0].CurrentLeaderEpoch != 2 {
				t.Errorf("validation queries %v, want one for epoch 1 under leader epoch 2", queries)
			}
			var truncations []model.Op
			for _, r := range w.ops(model.FReset) {
				if r.Error == ResetTruncation {
					truncations = append(truncations, r)
				}
			}
			if !tc.reset {
				if len(truncations) != 0 {
					t.Errorf("reset ops %v, want none", truncations)
				}
				return
			}
			if len(truncations) != 1 || truncations[0].Offsets[0] != (model.PartitionOffset{TP: t0, Offset: 8, From: 10}) {
				t.Errorf("truncation resets %v, want one t/0 10→8", truncations)
			}
		})
	}
}

// One FetchRequest per leader covers every partition it leads that has a
// position, each with the consumer's leader epoch for it; consumers
// identify as ReplicaID -1 and long-poll with fetch.max.wait.ms; a leader
// has one fetch in flight at a time.
func TestConsumerOneFetchPerBroker(t *testing.T) {
	w := newWorld(t, 2)
	w.c.topic("t", 1, 2, 1)
	w.consumer(cfg(t, "auto.offset.reset=earliest"), func(o *ConsumerOptions) {
		o.Assignment = []model.TopicPartition{model.TP("t", 2), model.TP("t", 0), model.TP("t", 1)}
	})
	w.run(1200 * ms)

	got := map[model.BrokerID][]string{}
	for _, r := range w.c.received {
		f, ok := r.msg.(model.FetchRequest)
		if !ok {
			continue
		}
		if f.ReplicaID != model.NoBroker || f.MaxWait != 500*ms {
			t.Errorf("fetch %v: want a consumer fetch with fetch.max.wait.ms", f)
		}
		var ps []string
		for _, p := range f.Partitions {
			ps = append(ps, fmt.Sprintf("%v@%d/e%d", p.TP, p.FetchOffset, p.CurrentLeaderEpoch))
		}
		got[r.broker] = append(got[r.broker], fmt.Sprint(ps))
	}
	// The positions arrive one answer at a time, so b1's first fetch holds
	// t/0 alone; t/2 joins once it returns (after its 500 ms long poll).
	if exp := []string{"[t/0@0/e1]", "[t/0@0/e1 t/2@0/e1]", "[t/0@0/e1 t/2@0/e1]"}; !slices.Equal(got[1], exp) {
		t.Errorf("fetches to b1 %v, want %v", got[1], exp)
	}
	if exp := []string{"[t/1@0/e1]", "[t/1@0/e1]", "[t/1@0/e1]"}; !slices.Equal(got[2], exp) {
		t.Errorf("fetches to b2 %v, want %v", got[2], exp)
	}
	if h := w.history(); h[0].F != model.FAssign || !slices.IsSortedFunc(h[0].Partitions, model.TopicPartition.Compare) {
		t.Errorf("assign %s, want the partitions sorted", h[0].String())
	}
}

// A consumer that restarts assigns itself again and starts over from
// auto.offset.reset: the history shows assign and reset before the reads
// that repeat.
func TestConsumerRestartReassigns(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1)
	w.c.part(t0).appendValues(values("a", 0, 3)...)
	w.consumer(cfg(t, "auto.offset.reset=earliest"), assignT0)
	w.at(500*ms, func() { w.s.Crash(clientID) })
	w.at(600*ms, func() { w.s.Restart(clientID) })
	w.run(2 * time.Second)

	var fs []string
	for _, op := range w.history() {
		fs = append(fs, string(op.F))
	}
	if exp := []string{"assign", "reset", "poll", "assign", "reset", "poll"}; !slices.Equal(fs, exp) {
		t.Errorf("ops %v, want %v", fs, exp)
	}
}

// The consumer reuses a fetch request once its answer is handled, over a
// connection and over links that deliver every message twice, where each
// delivery is the network's own clone (sim.Cloner): a fetch is then
// delivered exactly twice with what it was sent with, where a duplicate
// sharing the reused request would arrive as a third delivery of the next
// fetch. Every record is polled either way.
func TestConsumerReusesItsFetchAlsoOverALinkThatDuplicates(t *testing.T) {
	// dup: none, the requests' link, or the answers' link (an answer is
	// written into its request's room).
	for _, dup := range []string{"none", "requests", "answers"} {
		w := newWorld(t, 1)
		w.c.topic("t", 1)
		w.consumer(cfg(t, "auto.offset.reset=earliest", "fetch.max.wait.ms=5"), assignT0)
		p := w.c.part(t0)
		for i := 0; i < 50; i++ {
			w.at(time.Duration(10+10*i)*ms, func() { p.appendValues(fmt.Sprintf("a%d", i)) })
		}
		// Set before the first fetch, which waits for metadata and a
		// position.
		duplicating := sim.LinkConfig{Latency: sim.Latency{Min: ms, Max: 20 * ms}, Datagram: &sim.Datagram{DupProb: 1}}
		switch dup {
		case "requests":
			w.s.SetLink(clientID, 1, duplicating)
		case "answers":
			w.s.SetLink(1, clientID, duplicating)
		}
		w.run(time.Second)
		if got := w.polled(t0); !slices.Equal(got, want(0, 50, "a")) {
			t.Fatalf("dup=%v: polled %v, want a0..a49 at offsets 0..49", dup, got)
		}
		deliveries := map[int32]int{}
		for _, r := range w.c.received {
			if f, ok := r.msg.(model.FetchRequest); ok {
				deliveries[f.CorrelationID]++
			}
		}
		want := 1
		if dup == "requests" {
			want = 2
		}
		for corr, n := range deliveries {
			if n != want {
				t.Errorf("dup=%v: fetch corr=%d delivered %d times, want %d", dup, corr, n, want)
			}
		}
		// The broker sees the consumer's own objects unless the
		// requests' link duplicates, which delivers clones only.
		if objects := len(w.c.fetchObjects); dup != "requests" && (len(deliveries) < 20 || objects > 2) {
			t.Errorf("dup=%v: %d fetches in %d objects, want at least 20 in at most 2", dup, len(deliveries), objects)
		}
	}
}

// A poll takes up to max.poll.records from the partitions in turn, each
// poll starting one partition further, and returns each partition's
// records in a list of its own, although they share one array: appending
// to one partition's records leaves the next one's alone.
func TestConsumerPollSharesOneArrayAcrossPartitions(t *testing.T) {
	w := newWorld(t, 1)
	w.c.topic("t", 1, 1, 1)
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1), model.TP("t", 2)}
	for i, tp := range tps {
		w.c.part(tp).appendValues(values(fmt.Sprintf("p%d-", i), 0, 4)...)
	}
	w.consumer(cfg(t, "auto.offset.reset=earliest", "max.poll.records=5"), func(o *ConsumerOptions) { o.Assignment = tps })
	w.run(2 * time.Second)
	for i, tp := range tps {
		if got, want := w.polled(tp), want(0, 4, fmt.Sprintf("p%d-", i)); !slices.Equal(got, want) {
			t.Errorf("%v: polled %v, want %v", tp, got, want)
		}
	}
	shared := 0
	for _, op := range w.ops(model.FPoll) {
		if n := 0; len(op.Records) > 1 {
			for _, pr := range op.Records {
				n += len(pr.Records)
			}
			if n > 5 {
				t.Errorf("poll %s returned %d records, want at most max.poll.records=5", op.String(), n)
			}
			shared++
			first, next := op.Records[0].Records, op.Records[1].Records
			before := next[0]
			_ = append(first, model.OffsetValue{Offset: -1, Value: "overwritten"})
			if next[0] != before {
				t.Fatalf("appending to %v's records of poll %s changed %v's first record to %v", op.Records[0].TP, op.String(), op.Records[1].TP, next[0])
			}
		}
	}
	if shared == 0 {
		t.Fatalf("no poll returned records of several partitions: the test needs one")
	}
}
