package broker

import (
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/fetchsession"
)

// TestFetchClockReadsInVisitOrder checks what a follower state riding a
// fetch clock reads: while a fetch visits the session, a partition the
// visit has passed reads the fetch's time and epoch and one ahead of it
// the previous fetch's, as a visit of every partition in order would leave
// them; once the visit is over all read the latest; a frozen state keeps
// what it read when the clock moves on.
func TestFetchClockReadsInVisitOrder(t *testing.T) {
	c := fetchsession.NewCache(10, func() int32 { return 7 })
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1), model.TP("t", 2)}
	var parts []model.FetchPartition
	var rs []model.FetchPartitionResponse
	for _, tp := range tps {
		parts = append(parts, model.FetchPartition{TP: tp})
		rs = append(rs, model.FetchPartitionResponse{TP: tp})
	}
	ctx, read := c.NewContext(&model.FetchRequest{Partitions: parts}, true, 0)
	resp := &model.FetchResponse{Partitions: rs}
	c.Respond(ctx, read, nil, resp, 0)
	s := c.Get(resp.SessionID)
	if s == nil {
		t.Fatal("no session made")
	}
	clk := &fetchClock{session: s, prevTime: time.Second, prevEpoch: 1, curTime: 2 * time.Second, curEpoch: 2, visiting: true, at: 1}
	passed := &followerState{tp: tps[0], clock: clk}
	ahead := &followerState{tp: tps[2], clock: clk}
	check := func(what string, fs *followerState, wantTime time.Duration, wantEpoch model.Epoch) {
		t.Helper()
		caughtUp, fetched, epoch := fs.fetchTimes()
		if caughtUp != wantTime || fetched != wantTime || epoch != wantEpoch {
			t.Errorf("%s: reads %v %v epoch %d, want %v epoch %d", what, caughtUp, fetched, epoch, wantTime, wantEpoch)
		}
	}
	check("passed by the visit", passed, 2*time.Second, 2)
	check("ahead of the visit", ahead, time.Second, 1)
	ahead.freeze()
	clk.visiting = false
	check("after the visit", passed, 2*time.Second, 2)
	clk.prevTime, clk.prevEpoch, clk.curTime, clk.curEpoch = clk.curTime, clk.curEpoch, 3*time.Second, 3
	check("riding, the clock moved on", passed, 3*time.Second, 3)
	check("frozen ahead of the visit", ahead, time.Second, 1)
	if ahead.clock != nil {
		t.Error("a frozen state still rides the clock")
	}
}
