package group

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/model"
)

// harness drives one coordinator shard as a host would: it collects the
// replies per client, keeps the writes the coordinator asked for until the
// test commits or fails them, and keeps the committed records as the log.
type harness struct {
	t       *testing.T
	c       *Coordinator
	now     time.Duration
	replies map[model.BrokerID][]Message
	writes  []Write
	log     []model.Record
	traces  []Trace
	corr    int32
}

const (
	testSession   = 10 * time.Second
	testRebalance = 30 * time.Second
)

func testGroupConfig() model.GroupConfig {
	return model.DefaultConfig().Group
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return &harness{t: t, c: NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "m"}), replies: map[model.BrokerID][]Message{}}
}

func (h *harness) take(e Effects) {
	for _, r := range e.Replies {
		h.replies[r.To] = append(h.replies[r.To], r.Msg)
	}
	h.writes = append(h.writes, e.Writes...)
	h.traces = append(h.traces, e.Traces...)
}

// advance moves the clock and fires what is due.
func (h *harness) advance(d time.Duration) {
	h.now += d
	h.take(h.c.Expire(h.now))
}

// commit completes every pending write successfully, in order, and
// appends its records to the log.
func (h *harness) commit() {
	ws := h.writes
	h.writes = nil
	for _, w := range ws {
		h.log = append(h.log, w.Records...)
		h.take(h.c.WriteDone(h.now, w.ID, model.NoError))
	}
}

// fail fails every pending write with code; nothing reaches the log.
func (h *harness) fail(code model.ErrorCode) {
	ws := h.writes
	h.writes = nil
	for _, w := range ws {
		h.take(h.c.WriteDone(h.now, w.ID, code))
	}
}

// drain returns and forgets what client got.
func (h *harness) drain(client model.BrokerID) []Message {
	out := h.replies[client]
	delete(h.replies, client)
	return out
}

// one returns the single reply client got, failing otherwise.
func one[T Message](h *harness, client model.BrokerID) T {
	h.t.Helper()
	got := h.drain(client)
	if len(got) != 1 {
		h.t.Fatalf("client %d: want one reply, got %d: %v", client, len(got), got)
	}
	r, ok := got[0].(T)
	if !ok {
		h.t.Fatalf("client %d: reply %v is a %T", client, got[0], got[0])
	}
	return r
}

// none fails if client got anything.
func (h *harness) none(client model.BrokerID) {
	h.t.Helper()
	if got := h.replies[client]; len(got) > 0 {
		h.t.Fatalf("client %d: want no reply yet, got %v", client, got)
	}
}

func (h *harness) nextCorr() int32 { h.corr++; return h.corr }

// joinReq builds a JoinGroup for group g with range and roundrobin.
func joinReq(g, member, instance string, topics ...string) model.JoinGroupRequest {
	return model.JoinGroupRequest{
		GroupID: g, MemberID: member, GroupInstanceID: instance,
		SessionTimeout: testSession, RebalanceTimeout: testRebalance,
		Assignors: []model.Assignor{model.AssignRange, model.AssignRoundRobin},
		Topics:    topics,
	}
}

func (h *harness) join(client model.BrokerID, r model.JoinGroupRequest) {
	r.CorrelationID = h.nextCorr()
	h.take(h.c.HandleJoinGroup(h.now, client, r))
}

// joinDynamic runs the KIP-394 round trip and parks the second JoinGroup;
// it returns the member id.
func (h *harness) joinDynamic(client model.BrokerID, g string, topics ...string) string {
	h.t.Helper()
	h.join(client, joinReq(g, "", "", topics...))
	r := one[model.JoinGroupResponse](h, client)
	if r.Error != model.MemberIDRequired || r.MemberID == "" {
		h.t.Fatalf("first join: %v, want MEMBER_ID_REQUIRED with an id", r)
	}
	h.join(client, joinReq(g, r.MemberID, "", topics...))
	return r.MemberID
}

func (h *harness) sync(client model.BrokerID, g string, gen model.Epoch, member, instance string, assign ...model.MemberAssignment) {
	h.take(h.c.HandleSyncGroup(h.now, client, model.SyncGroupRequest{CorrelationID: h.nextCorr(), GroupID: g, GenerationID: gen, MemberID: member, GroupInstanceID: instance, Assignments: assign}))
}

func (h *harness) heartbeat(client model.BrokerID, g string, gen model.Epoch, member, instance string) model.ErrorCode {
	h.t.Helper()
	h.take(h.c.HandleHeartbeat(h.now, client, model.HeartbeatRequest{CorrelationID: h.nextCorr(), GroupID: g, GenerationID: gen, MemberID: member, GroupInstanceID: instance}))
	return one[model.HeartbeatResponse](h, client).Error
}

func (h *harness) leave(client model.BrokerID, g, member, instance string) model.ErrorCode {
	h.t.Helper()
	h.take(h.c.HandleLeaveGroup(h.now, client, model.LeaveGroupRequest{CorrelationID: h.nextCorr(), GroupID: g, MemberID: member, GroupInstanceID: instance}))
	return one[model.LeaveGroupResponse](h, client).Error
}

func (h *harness) commitOffsets(client model.BrokerID, g string, gen model.Epoch, member string, offsets ...model.CommitOffset) {
	h.take(h.c.HandleOffsetCommit(h.now, client, model.OffsetCommitRequest{CorrelationID: h.nextCorr(), GroupID: g, GenerationID: gen, MemberID: member, Offsets: offsets}))
}

// commitError commits one offset and, once the write (if any) commits,
// returns the answer.
func (h *harness) commitError(client model.BrokerID, g string, gen model.Epoch, member, instance string) model.ErrorCode {
	h.t.Helper()
	h.take(h.c.HandleOffsetCommit(h.now, client, model.OffsetCommitRequest{CorrelationID: h.nextCorr(), GroupID: g, GenerationID: gen, MemberID: member, GroupInstanceID: instance,
		Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 5, LeaderEpoch: 1}}}))
	h.commit()
	return one[model.OffsetCommitResponse](h, client).Results[0].Error
}

func (h *harness) fetch(client model.BrokerID, g string, tps ...model.TopicPartition) model.OffsetFetchResponse {
	h.t.Helper()
	h.take(h.c.HandleOffsetFetch(h.now, client, model.OffsetFetchRequest{CorrelationID: h.nextCorr(), GroupID: g, Partitions: tps}))
	return one[model.OffsetFetchResponse](h, client)
}

func (h *harness) group(id string) GroupView {
	h.t.Helper()
	v, ok := h.c.Group(id)
	if !ok {
		h.t.Fatalf("no group %q", id)
	}
	return v
}

// stableGroup builds group g with n dynamic members (clients 1..n) that
// joined during the initial delay, synced (the leader gives partition i
// to member i) and committed: generation 1, Stable. It returns the
// member ids by client.
func (h *harness) stableGroup(g string, n int) map[model.BrokerID]string {
	h.t.Helper()
	ids := map[model.BrokerID]string{}
	for i := 1; i <= n; i++ {
		ids[model.BrokerID(i)] = h.joinDynamic(model.BrokerID(i), g, "t")
	}
	// Members that arrive during the initial delay extend it once.
	h.advance(testGroupConfig().InitialRebalanceDelay)
	if len(h.replies[1]) == 0 {
		h.advance(testGroupConfig().InitialRebalanceDelay)
	}
	var leader string
	for i := 1; i <= n; i++ {
		r := one[model.JoinGroupResponse](h, model.BrokerID(i))
		if r.Error != model.NoError || r.GenerationID != 1 {
			h.t.Fatalf("join of client %d: %v", i, r)
		}
		leader = r.LeaderID
	}
	var assign []model.MemberAssignment
	for i := 1; i <= n; i++ {
		assign = append(assign, model.MemberAssignment{MemberID: ids[model.BrokerID(i)], Partitions: []model.TopicPartition{model.TP("t", int32(i-1))}})
	}
	for i := 1; i <= n; i++ {
		id := ids[model.BrokerID(i)]
		if id == leader {
			h.sync(model.BrokerID(i), g, 1, id, "", assign...)
		} else {
			h.sync(model.BrokerID(i), g, 1, id, "")
		}
	}
	h.commit()
	for i := 1; i <= n; i++ {
		r := one[model.SyncGroupResponse](h, model.BrokerID(i))
		if r.Error != model.NoError || len(r.Partitions) != 1 || r.Partitions[0] != model.TP("t", int32(i-1)) {
			h.t.Fatalf("sync of client %d: %v", i, r)
		}
	}
	if v := h.group(g); v.State != Stable || v.Generation != 1 {
		h.t.Fatalf("group %s: %s gen %d, want Stable gen 1", g, v.State, v.Generation)
	}
	return ids
}

func (h *harness) String() string { return fmt.Sprintf("harness at %v", h.now) }
