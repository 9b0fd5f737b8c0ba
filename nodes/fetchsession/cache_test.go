package fetchsession

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
)

// ids draws session ids 1, 2, 3, ... for tests that name sessions.
func ids() func() int32 {
	n := int32(0)
	return func() int32 { n++; return n }
}

func parts(n int) []model.FetchPartition {
	ps := make([]model.FetchPartition, n)
	for i := range ps {
		ps[i] = model.FetchPartition{TP: model.TP("t", int32(i)), FetchOffset: 0, CurrentLeaderEpoch: 1}
	}
	return ps
}

func answers(ps []model.FetchPartition, hw model.Offset) []model.FetchPartitionResponse {
	rs := make([]model.FetchPartitionResponse, len(ps))
	for i := range ps {
		rs[i] = model.FetchPartitionResponse{TP: ps[i].TP, HighWatermark: hw, LogStartOffset: 0}
	}
	return rs
}

// full runs a full fetch of ps through c as FetchManager would and
// returns the session id the answer carries.
func full(t *testing.T, c *Cache, ps []model.FetchPartition, follower bool, now time.Duration) int32 {
	t.Helper()
	m := &model.FetchRequest{Partitions: ps}
	if !follower {
		m.ReplicaID = model.NoBroker
	}
	ctx, read := c.NewContext(m, follower, now)
	if ctx.Kind != Full {
		t.Fatalf("a full fetch got context kind %d", ctx.Kind)
	}
	resp := &model.FetchResponse{Partitions: answers(read, 0)}
	c.Respond(ctx, read, nil, resp, now)
	return resp.SessionID
}

func TestCacheSlotsZeroKeepsNoSession(t *testing.T) {
	c := NewCache(0, func() int32 { t.Fatal("drew a session id with no slots"); return 0 })
	if id := full(t, c, parts(3), true, 0); id != InvalidSessionID || c.Len() != 0 {
		t.Fatalf("no slots: session %d, %d cached", id, c.Len())
	}
}

// TestCacheEviction checks FetchSessionCache.tryEvict's rules: a
// follower's session evicts a consumer's at once; a consumer's cannot
// evict a young one; a stale session goes first; among old ones the
// smallest goes, unless the new one is smaller still.
func TestCacheEviction(t *testing.T) {
	c := NewCache(2, ids())
	a := full(t, c, parts(5), false, 0)  // consumer, 5 partitions
	b := full(t, c, parts(10), false, 0) // consumer, 10 partitions
	if a != 1 || b != 2 {
		t.Fatalf("sessions %d and %d, want 1 and 2", a, b)
	}
	if id := full(t, c, parts(20), false, time.Second); id != InvalidSessionID {
		t.Errorf("a consumer's session evicted a young one: got %d", id)
	}
	// A follower's evicts the least valuable consumer session at once.
	if id := full(t, c, parts(1), true, time.Second); id != 3 || c.Get(a) != nil || c.Get(b) == nil {
		t.Errorf("follower session %d; session a cached %v, b %v", id, c.Get(a) != nil, c.Get(b) != nil)
	}
	// Followers' young sessions are safe from consumers and followers.
	if id := full(t, c, parts(50), true, 2*time.Second); id != 4 || c.Get(b) != nil {
		t.Errorf("second follower session %d, b cached %v", id, c.Get(b) != nil)
	}
	if id := full(t, c, parts(50), true, 3*time.Second); id != InvalidSessionID {
		t.Errorf("a follower evicted a young follower session: got %d", id)
	}
	// Touch session 4 late, so that 3 is the stale one; past the
	// eviction time a consumer's may replace it.
	touchSession(t, c, 4, 200*time.Second)
	if id := full(t, c, parts(1), false, 3*time.Second+EvictionTime+time.Millisecond); id != 5 || c.Get(3) != nil || c.Get(4) == nil {
		t.Errorf("stale eviction: new %d, 3 cached %v, 4 cached %v", id, c.Get(3) != nil, c.Get(4) != nil)
	}
	// Session 4 (follower, 50 partitions, old now) vs a new follower of
	// 60: the least valuable evictable one is the consumer's session 5.
	if id := full(t, c, parts(60), true, 240*time.Second); id != 6 || c.Get(5) != nil {
		t.Errorf("value eviction: new %d, 5 cached %v", id, c.Get(5) != nil)
	}
	// A consumer's session is less valuable than the old follower
	// session 4, the only one it could evict: no session.
	if id := full(t, c, parts(10), false, 241*time.Second); id != InvalidSessionID || c.Len() != 2 {
		t.Errorf("a less valuable session evicted: new %d, %d cached", id, c.Len())
	}
	if c.Evictions != 4 {
		t.Errorf("%d evictions, want 4", c.Evictions)
	}
}

// touchSession runs an unchanged incremental fetch in session id at now.
func touchSession(t *testing.T, c *Cache, id int32, now time.Duration) {
	t.Helper()
	s := c.Get(id)
	ctx, _ := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: s.Epoch}, true, now)
	if ctx.Kind != Incremental {
		t.Fatalf("session %d: context kind %d", id, ctx.Kind)
	}
}

// TestSessionEpochsAndErrors checks FetchManager.newContext's session
// errors and epochs, and that a full fetch naming a session closes it.
func TestSessionEpochsAndErrors(t *testing.T) {
	c := NewCache(10, ids())
	id := full(t, c, parts(2), true, 0)
	inc := func(epoch int32) Context {
		ctx, _ := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: epoch}, true, 0)
		return ctx
	}
	if ctx := inc(2); ctx.Kind != SessionError || ctx.Error != model.InvalidFetchSessionEpoch {
		t.Errorf("epoch 2 before 1: %+v", ctx)
	}
	if ctx := inc(1); ctx.Kind != Incremental {
		t.Errorf("epoch 1: %+v", ctx)
	}
	if ctx := inc(1); ctx.Kind != SessionError || ctx.Error != model.InvalidFetchSessionEpoch {
		t.Errorf("epoch 1 again (a duplicate): %+v", ctx)
	}
	// A context made at epoch 2 whose session moved on before it was
	// answered (a second fetch in the session) answers the epoch error.
	ctx2 := inc(2)
	if ctx := inc(3); ctx.Kind != Incremental {
		t.Fatalf("epoch 3: %+v", ctx)
	}
	resp := &model.FetchResponse{Partitions: answers(parts(2), 5)}
	c.Respond(ctx2, nil, nil, resp, 0)
	if resp.Error != model.InvalidFetchSessionEpoch || len(resp.Partitions) != 0 {
		t.Errorf("a stale incremental context answered %v", resp)
	}
	ctx, _ := c.NewContext(&model.FetchRequest{SessionID: 77, SessionEpoch: 1}, true, 0)
	if ctx.Kind != SessionError || ctx.Error != model.FetchSessionIDNotFound {
		t.Errorf("unknown session: %+v", ctx)
	}
	// A full fetch naming the session closes it.
	if c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: InitialEpoch, Partitions: parts(1)}, true, 0); c.Get(id) != nil {
		t.Errorf("a full fetch naming session %d left it cached", id)
	}
	if NextEpoch(2147483647) != 1 || NextEpoch(FinalEpoch) != FinalEpoch {
		t.Error("NextEpoch does not wrap to 1 or leaves the final epoch")
	}
}

// TestIncrementalAnswer checks IncrementalFetchContext's pruning:
// partitions without records and with the high watermark and log start
// last answered are left out; errors are always answered, and once more
// after they clear.
func TestIncrementalAnswer(t *testing.T) {
	c := NewCache(10, ids())
	ps := parts(4)
	id := full(t, c, ps, true, 0) // answered hw 0, logStart 0
	answer := func(epoch int32, change func(rs []model.FetchPartitionResponse)) []model.TopicPartition {
		ctx, read := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: epoch}, true, 0)
		if len(read) != 4 {
			t.Fatalf("an incremental fetch reads %d partitions, want the session's 4", len(read))
		}
		rs := answers(read, 0)
		change(rs)
		resp := &model.FetchResponse{Partitions: rs}
		c.Respond(ctx, read, nil, resp, 0)
		if resp.SessionID != id {
			t.Errorf("answer in session %d, want %d", resp.SessionID, id)
		}
		var tps []model.TopicPartition
		for _, pr := range resp.Partitions {
			tps = append(tps, pr.TP)
		}
		return tps
	}
	got := answer(1, func(rs []model.FetchPartitionResponse) {
		rs[1].HighWatermark = 3
		rs[2].Batches = []*model.Batch{{BaseOffset: 0}}
		rs[3].Error = model.NotLeaderOrFollower
	})
	if len(got) != 3 || got[0].Partition != 1 || got[1].Partition != 2 || got[2].Partition != 3 {
		t.Errorf("first answer lists %v, want t/1 t/2 t/3", got)
	}
	got = answer(2, func(rs []model.FetchPartitionResponse) { rs[1].HighWatermark = 3 })
	if len(got) != 1 || got[0].Partition != 3 {
		t.Errorf("second answer lists %v, want t/3 only (its error cleared)", got)
	}
	if got = answer(3, func(rs []model.FetchPartitionResponse) { rs[1].HighWatermark = 3 }); len(got) != 0 {
		t.Errorf("third answer lists %v, want none", got)
	}
}

// TestSessionUpdate checks that an incremental fetch's partitions
// replace their parameters or join the session, and forgotten ones leave;
// forgetting every partition ends the session.
func TestSessionUpdate(t *testing.T) {
	c := NewCache(10, ids())
	id := full(t, c, parts(3), true, 0)
	moved := model.FetchPartition{TP: model.TP("t", 1), FetchOffset: 9, CurrentLeaderEpoch: 1}
	added := model.FetchPartition{TP: model.TP("u", 0), FetchOffset: 4}
	ctx, read := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: 1,
		Partitions: []model.FetchPartition{moved, added}, Forgotten: []model.TopicPartition{model.TP("t", 0)}}, true, 0)
	if ctx.Kind != Incremental || len(read) != 3 || read[0] != moved || read[1].TP != model.TP("t", 2) || read[2] != added {
		t.Fatalf("session after the update: %+v", read)
	}
	ctx, _ = c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: 2,
		Forgotten: []model.TopicPartition{model.TP("t", 1), model.TP("t", 2), model.TP("u", 0)}}, true, 0)
	if ctx.Kind != Sessionless || c.Get(id) != nil {
		t.Errorf("forgetting every partition: kind %d, session cached %v", ctx.Kind, c.Get(id) != nil)
	}
}

// TestDetachKeepsAParkedView checks that the partitions an incremental
// context read stay as they were once the session is detached and
// updated, while the session moves on.
func TestDetachKeepsAParkedView(t *testing.T) {
	c := NewCache(10, ids())
	id := full(t, c, parts(2), true, 0)
	_, view := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: 1}, true, 0)
	c.Get(id).Detach()
	moved := model.FetchPartition{TP: model.TP("t", 0), FetchOffset: 7}
	_, now := c.NewContext(&model.FetchRequest{SessionID: id, SessionEpoch: 2, Partitions: []model.FetchPartition{moved}}, true, 0)
	if view[0].FetchOffset != 0 || now[0].FetchOffset != 7 {
		t.Errorf("the parked view reads offset %d, the session %d; want 0 and 7", view[0].FetchOffset, now[0].FetchOffset)
	}
}

// TestDirtyPartitions checks what a tracked incremental fetch reads: after
// a full answer only the partitions it answered with something; then a
// partition the cache is told changed, one whose fetch parameters the
// fetch changed, and one added, in the session's order; a partition read
// quiet is clean again, and one read with records stays dirty.
func TestDirtyPartitions(t *testing.T) {
	c := NewCache(10, ids())
	ps := parts(4)
	m := &model.FetchRequest{Partitions: ps}
	ctx, read := c.NewContext(m, true, 0)
	resp := &model.FetchResponse{Partitions: answers(read, 0)}
	resp.Partitions[2].Batches = []*model.Batch{{BaseOffset: 0}}
	c.Respond(ctx, read, nil, resp, 0)
	s := c.Get(resp.SessionID)
	dirty := func() []int {
		_, pos := s.Dirty(nil, nil)
		return pos
	}
	if got := dirty(); !slices.Equal(got, []int{2}) {
		t.Fatalf("after the full answer dirty %v, want [2]", got)
	}
	c.Changed(model.TP("t", 3))
	c.Changed(model.TP("t", 3))
	moved := model.FetchPartition{TP: model.TP("t", 0), FetchOffset: 5, CurrentLeaderEpoch: 1}
	added := model.FetchPartition{TP: model.TP("u", 0)}
	ctx, _ = c.NewContext(&model.FetchRequest{SessionID: s.ID, SessionEpoch: s.Epoch, Partitions: []model.FetchPartition{moved, added}}, true, 0)
	if !ctx.Tracked() {
		t.Fatal("a current incremental context is not tracked")
	}
	fps, pos := s.Dirty(nil, nil)
	if !slices.Equal(pos, []int{0, 2, 3, 4}) || fps[0] != moved || fps[3] != added {
		t.Fatalf("dirty %v %v, want places 0 2 3 4 with the new parameters", pos, fps)
	}
	// Read: t/0 and t/3 quiet, t/2 records again, u/0 a new high watermark.
	rs := make([]model.FetchPartitionResponse, len(fps))
	for i := range fps {
		rs[i] = model.FetchPartitionResponse{TP: fps[i].TP, HighWatermark: 0, LogStartOffset: 0}
	}
	rs[1].Batches = []*model.Batch{{BaseOffset: 0}}
	r := &model.FetchResponse{Partitions: rs}
	c.Respond(ctx, nil, pos, r, 0)
	if len(r.Partitions) != 2 || r.Partitions[0].TP != model.TP("t", 2) || r.Partitions[1].TP != model.TP("u", 0) {
		t.Fatalf("answer %v, want t/2 and u/0", r.Partitions)
	}
	if got := dirty(); !slices.Equal(got, []int{2}) {
		t.Errorf("after the answer dirty %v, want [2] (records answered)", got)
	}
	// Forgetting renumbers the session; the dirty places follow.
	c.NewContext(&model.FetchRequest{SessionID: s.ID, SessionEpoch: s.Epoch, Forgotten: []model.TopicPartition{model.TP("t", 0)}}, true, 0)
	if got := dirty(); !slices.Equal(got, []int{1}) {
		t.Errorf("after forgetting t/0 dirty %v, want [1]", got)
	}
	if len(c.Holders(model.TP("t", 0))) != 0 || len(c.Holders(model.TP("u", 0))) != 1 {
		t.Errorf("holders of t/0 %d, of u/0 %d; want 0 and 1", len(c.Holders(model.TP("t", 0))), len(c.Holders(model.TP("u", 0))))
	}
	removed := 0
	c.OnRemove = func(*Session) { removed++ }
	c.Remove(s.ID)
	if removed != 1 || len(c.Holders(model.TP("t", 1))) != 0 {
		t.Errorf("removal: OnRemove called %d times, holders of t/1 %d", removed, len(c.Holders(model.TP("t", 1))))
	}
}
