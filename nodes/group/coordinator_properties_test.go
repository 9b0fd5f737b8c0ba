package group

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"kafkasim/model"

	"pgregory.net/rapid"
)

// coordClient is one consumer process as the state machine test plays
// it: what it learned from the coordinator so far.
type coordClient struct {
	id       model.BrokerID
	instance string // "" for a dynamic member
	member   string
	gen      model.Epoch
	leader   bool
	members  []model.GroupMember // the leader's view of the generation
	topics   []string
}

// coordMachine drives one coordinator shard with random requests, time
// and write outcomes, against a model of what must hold.
type coordMachine struct {
	c       *Coordinator
	now     time.Duration
	clients []*coordClient
	writes  []Write        // asked for, not yet completed, in append order
	log     []model.Record // committed records
	corr    int32

	// The model.
	commits  map[int32]pendingCommit                           // commit requests in flight, by correlation id
	acked    map[string]map[model.TopicPartition]model.Offset  // last acknowledged commit per group and partition
	assigned map[model.Epoch]map[string][]model.TopicPartition // the leader's assignment per generation, by instance or member id
	maxGen   model.Epoch
}

// pendingCommit is a commit request waiting for its answer.
type pendingCommit struct {
	group   string
	offsets []model.CommitOffset
}

var machinePartitions = map[string]int32{"t": 3, "u": 2}

func newCoordMachine() *coordMachine {
	m := &coordMachine{
		c:        NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "m"}),
		commits:  map[int32]pendingCommit{},
		acked:    map[string]map[model.TopicPartition]model.Offset{},
		assigned: map[model.Epoch]map[string][]model.TopicPartition{},
	}
	for i := 1; i <= 4; i++ {
		cl := &coordClient{id: model.BrokerID(i), gen: -1, topics: []string{"t"}}
		if i > 2 {
			cl.instance = fmt.Sprintf("i%d", i)
		}
		m.clients = append(m.clients, cl)
	}
	return m
}

func (m *coordMachine) nextCorr() int32 { m.corr++; return m.corr }

func (m *coordMachine) client(t *rapid.T) *coordClient {
	return m.clients[rapid.IntRange(0, len(m.clients)-1).Draw(t, "client")]
}

// take routes replies to the clients and records writes.
func (m *coordMachine) take(t *rapid.T, e Effects) {
	m.writes = append(m.writes, e.Writes...)
	for _, r := range e.Replies {
		cl := m.clients[r.To-1]
		switch resp := r.Msg.(type) {
		case model.JoinGroupResponse:
			switch resp.Error {
			case model.NoError:
				cl.member, cl.gen, cl.leader, cl.members = resp.MemberID, resp.GenerationID, resp.LeaderID == resp.MemberID, resp.Members
			case model.MemberIDRequired:
				cl.member = resp.MemberID
			case model.UnknownMemberID, model.FencedInstanceID:
				cl.member, cl.gen = "", -1
			}
		case model.HeartbeatResponse:
			if resp.Error == model.UnknownMemberID || resp.Error == model.FencedInstanceID {
				cl.member, cl.gen = "", -1
			}
		case model.OffsetCommitResponse:
			pc, ok := m.commits[resp.CorrelationID]
			if !ok {
				t.Fatalf("commit answer without a request: %v", resp)
			}
			delete(m.commits, resp.CorrelationID)
			if resp.Results[0].Error == model.NoError {
				if m.acked[pc.group] == nil {
					m.acked[pc.group] = map[model.TopicPartition]model.Offset{}
				}
				for _, o := range pc.offsets {
					m.acked[pc.group][o.TP] = o.Offset
				}
			}
		}
	}
}

func (m *coordMachine) join(t *rapid.T) {
	cl := m.client(t)
	if rapid.IntRange(0, 9).Draw(t, "change topics") == 0 {
		cl.topics = rapid.SampledFrom([][]string{{"t"}, {"t", "u"}}).Draw(t, "topics")
	}
	if cl.instance != "" && rapid.Bool().Draw(t, "restart") {
		cl.member, cl.gen = "", -1 // a static member restarts without its id
	}
	r := joinReq("g", cl.member, cl.instance, cl.topics...)
	r.CorrelationID = m.nextCorr()
	m.take(t, m.c.HandleJoinGroup(m.now, cl.id, r))
}

// ready lists the clients that hold a generation, the leader first.
func (m *coordMachine) ready() []*coordClient {
	var out []*coordClient
	for _, cl := range m.clients {
		if cl.gen >= 0 && cl.member != "" {
			out = append(out, cl)
		}
	}
	slices.SortStableFunc(out, func(a, b *coordClient) int {
		switch {
		case a.leader && !b.leader:
			return -1
		case b.leader && !a.leader:
			return 1
		}
		return 0
	})
	return out
}

func (m *coordMachine) sync(t *rapid.T) {
	ready := m.ready()
	if len(ready) == 0 {
		t.Skip("no client has a generation")
	}
	m.syncClient(t, rapid.SampledFrom(ready).Draw(t, "syncing client"))
}

// settle is the well-behaved path: every client with a generation syncs,
// the leader first, heartbeats, and every pending write commits.
func (m *coordMachine) settle(t *rapid.T) {
	for _, cl := range m.ready() {
		m.syncClient(t, cl)
		m.heartbeatClient(t, cl)
	}
	for len(m.writes) > 0 {
		w := m.writes[0]
		m.writes = m.writes[1:]
		m.log = append(m.log, w.Records...)
		m.take(t, m.c.WriteDone(m.now, w.ID, model.NoError))
	}
}

func (m *coordMachine) syncClient(t *rapid.T, cl *coordClient) {
	r := model.SyncGroupRequest{CorrelationID: m.nextCorr(), GroupID: "g", GenerationID: cl.gen, MemberID: cl.member, GroupInstanceID: cl.instance}
	if cl.leader {
		var ms []Member
		for _, gm := range cl.members {
			ms = append(ms, Member{ID: gm.MemberID, InstanceID: gm.GroupInstanceID, Subscription: gm.Topics})
		}
		a := Range{}.Assign(ms, machinePartitions)
		byKey := map[string][]model.TopicPartition{}
		for _, gm := range cl.members {
			r.Assignments = append(r.Assignments, model.MemberAssignment{MemberID: gm.MemberID, Partitions: a[gm.MemberID]})
			byKey[memberKey(gm.MemberID, gm.GroupInstanceID)] = a[gm.MemberID]
		}
		if _, ok := m.assigned[cl.gen]; !ok {
			m.assigned[cl.gen] = byKey
		}
	}
	m.take(t, m.c.HandleSyncGroup(m.now, cl.id, r))
}

// memberKey names a member across static replacements: by instance id
// when it has one.
func memberKey(member, instance string) string {
	if instance != "" {
		return "instance:" + instance
	}
	return member
}

// restartStatic restarts a static member: it joins with its instance id
// and no member id, and should take its old place (KIP-345).
func (m *coordMachine) restartStatic(t *rapid.T) {
	cl := m.clients[rapid.IntRange(2, 3).Draw(t, "static client")]
	cl.member, cl.gen = "", -1
	r := joinReq("g", "", cl.instance, cl.topics...)
	r.CorrelationID = m.nextCorr()
	m.take(t, m.c.HandleJoinGroup(m.now, cl.id, r))
}

func (m *coordMachine) heartbeat(t *rapid.T) { m.heartbeatClient(t, m.client(t)) }

func (m *coordMachine) heartbeatClient(t *rapid.T, cl *coordClient) {
	m.take(t, m.c.HandleHeartbeat(m.now, cl.id, model.HeartbeatRequest{CorrelationID: m.nextCorr(), GroupID: "g", GenerationID: cl.gen, MemberID: cl.member, GroupInstanceID: cl.instance}))
}

func (m *coordMachine) leave(t *rapid.T) {
	cl := m.client(t)
	m.take(t, m.c.HandleLeaveGroup(m.now, cl.id, model.LeaveGroupRequest{CorrelationID: m.nextCorr(), GroupID: "g", MemberID: cl.member, GroupInstanceID: cl.instance}))
	cl.member, cl.gen = "", -1
}

func (m *coordMachine) commit(t *rapid.T) {
	cl := m.client(t)
	group, gen, member, instance := "g", cl.gen, cl.member, cl.instance
	if rapid.IntRange(0, 3).Draw(t, "simple") == 0 {
		group, gen, member, instance = "s", -1, "", "" // a consumer that assigns partitions itself
	}
	tp := model.TP("t", rapid.Int32Range(0, 2).Draw(t, "partition"))
	o := model.CommitOffset{TP: tp, Offset: model.Offset(rapid.Int64Range(0, 1000).Draw(t, "offset")), LeaderEpoch: 1}
	corr := m.nextCorr()
	m.commits[corr] = pendingCommit{group: group, offsets: []model.CommitOffset{o}}
	before := m.c.Offsets(group)
	e := m.c.HandleOffsetCommit(m.now, cl.id, model.OffsetCommitRequest{CorrelationID: corr, GroupID: group, GenerationID: gen, MemberID: member, GroupInstanceID: instance, Offsets: []model.CommitOffset{o}})
	if after := m.c.Offsets(group); !slices.Equal(before, after) {
		t.Fatalf("a commit changed the offsets before its write committed: %v -> %v", before, after)
	}
	m.take(t, e)
}

func (m *coordMachine) advance(t *rapid.T) {
	m.now += time.Duration(rapid.Int64Range(1, 5_000).Draw(t, "ms")) * time.Millisecond
	m.take(t, m.c.Expire(m.now))
}

// completeWrite completes the oldest pending write, as the high watermark
// would, or fails it as the host can: a write that never commits holds
// back every write appended after it (the high watermark passes offsets
// in order), so they all fail with it; and a refusal before the append
// (NOT_ENOUGH_REPLICAS) comes as the write is issued, when no later write
// exists yet.
func (m *coordMachine) completeWrite(t *rapid.T) {
	if len(m.writes) == 0 {
		t.Skip("no write pending")
	}
	if rapid.IntRange(0, 3).Draw(t, "fail") != 0 {
		w := m.writes[0]
		m.writes = m.writes[1:]
		m.log = append(m.log, w.Records...)
		m.take(t, m.c.WriteDone(m.now, w.ID, model.NoError))
		return
	}
	codes := []model.ErrorCode{model.RequestTimedOut, model.NotLeaderOrFollower}
	if len(m.writes) == 1 {
		codes = append(codes, model.NotEnoughReplicas)
	}
	code := rapid.SampledFrom(codes).Draw(t, "error")
	failed := m.writes
	m.writes = nil
	for _, w := range failed {
		m.take(t, m.c.WriteDone(m.now, w.ID, code))
	}
}

func (m *coordMachine) Check(t *rapid.T) {
	v, ok := m.c.Group("g")
	if !ok {
		return
	}
	if v.Generation < m.maxGen {
		t.Fatalf("generation went back from %d to %d", m.maxGen, v.Generation)
	}
	m.maxGen = v.Generation
	if v.State == Stable {
		owner := map[model.TopicPartition]string{}
		for _, mv := range v.Members {
			want := m.assigned[v.Generation][memberKey(mv.ID, mv.InstanceID)]
			if !slices.Equal(mv.Assignment, want) {
				t.Fatalf("Stable gen %d: %s has %v, the leader gave it %v", v.Generation, mv.ID, mv.Assignment, want)
			}
			for _, tp := range mv.Assignment {
				if prev, dup := owner[tp]; dup {
					t.Fatalf("%v assigned to %s and %s", tp, prev, mv.ID)
				}
				owner[tp] = mv.ID
			}
		}
	}
	// Replaying the committed records gives the live offsets, and the
	// live group whenever it is Stable with nothing in flight.
	r := NewCoordinator(Config{Group: testGroupConfig()})
	for _, rec := range m.log {
		if err := r.Replay(rec); err != nil {
			t.Fatal(err)
		}
	}
	for _, g := range []string{"g", "s"} {
		live := m.c.Offsets(g)
		if got := r.Offsets(g); !slices.Equal(got, live) {
			t.Fatalf("group %s: replayed offsets %v, live %v", g, got, live)
		}
		// Committed offsets change only by acknowledged commits.
		if len(live) != len(m.acked[g]) {
			t.Fatalf("group %s: offsets %v, acknowledged %v", g, live, m.acked[g])
		}
		for _, o := range live {
			if a, ok := m.acked[g][o.TP]; !ok || a != o.Offset {
				t.Fatalf("group %s: %v at %d, last acknowledged %d", g, o.TP, o.Offset, a)
			}
		}
	}
	if v.State == Stable && v.Writing == 0 {
		rv, ok := r.Group("g")
		if !ok || rv.Generation != v.Generation || rv.Leader != v.Leader || rv.Protocol != v.Protocol || len(rv.Members) != len(v.Members) {
			t.Fatalf("replayed group %+v, live %+v", rv, v)
		}
		for i := range rv.Members {
			a, b := rv.Members[i], v.Members[i]
			if a.ID != b.ID || a.InstanceID != b.InstanceID || !slices.Equal(a.Assignment, b.Assignment) || !slices.Equal(a.Topics, b.Topics) {
				t.Fatalf("replayed member %+v, live %+v", a, b)
			}
		}
	}
}

// TestCoordinatorMachine drives a shard with random joins, syncs,
// heartbeats, leaves, commits, time and write outcomes: generations never
// go back, a Stable group holds exactly the leader's assignment of its
// generation, offsets change only by acknowledged commits, and replaying
// the committed records gives the live offsets and the live Stable group.
func TestCoordinatorMachine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := newCoordMachine()
		t.Repeat(map[string]func(*rapid.T){
			"join":      m.join,
			"restart":   m.restartStatic,
			"settle":    m.settle,
			"sync":      m.sync,
			"heartbeat": m.heartbeat,
			"leave":     m.leave,
			"commit":    m.commit,
			"advance":   m.advance,
			"write":     m.completeWrite,
			"":          m.Check,
		})
	})
}
