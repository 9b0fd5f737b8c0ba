package client

import (
	"fmt"
	"slices"
	"sort"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// A fake group coordinator for the membership tests: one group, the
// classic protocol reduced to what a member can observe (member ids with
// MEMBER_ID_REQUIRED, generations, a join barrier over the known members,
// the leader's assignment relayed by SyncGroup, session expiry, commits
// checked against the generation). Its state lives outside the broker
// nodes, like fakeCluster's, so a test can script and inspect it. The real
// coordinator is nodes/group's; this one only has to be simple enough to
// trust.

type fakeMember struct {
	id, instance     string
	topics           []string
	owned            []model.TopicPartition
	assignors        []model.Assignor
	rebalanceTimeout time.Duration
	session          time.Duration
	lastSeen         time.Duration
	joined           bool // rejoined in the current rebalance
	joinFrom         sim.NodeID
	joinCorr         int32
	syncFrom         sim.NodeID
	syncCorr         int32
	syncWaiting      bool
}

type fakeCoord struct {
	coordinator model.BrokerID
	// notAvailable answers that many FindCoordinator requests with
	// COORDINATOR_NOT_AVAILABLE first.
	notAvailable int
	// inject, if set, may answer a group request with an error instead
	// (ok=true); it sees every group request the coordinator gets.
	inject func(m sim.Message) (model.ErrorCode, bool)
	// deaf drops group requests from these clients (no answer), dropJoin
	// only their JoinGroups.
	deaf     map[sim.NodeID]bool
	dropJoin map[sim.NodeID]bool

	members   map[string]*fakeMember
	gen       model.Epoch
	state     string // Empty, PreparingRebalance, CompletingRebalance, Stable
	leader    string
	protocol  model.Assignor
	nextID    int
	started   time.Duration // of the current rebalance
	assigned  map[string][]model.TopicPartition
	committed map[model.TopicPartition]model.CommitOffset
	expired   []expiry // members removed for silence, in order
	gens      []model.Epoch
}

type expiry struct {
	id string
	at time.Duration
}

func newFakeCoord(coordinator model.BrokerID) *fakeCoord {
	return &fakeCoord{
		coordinator: coordinator, members: map[string]*fakeMember{}, state: "Empty",
		assigned: map[string][]model.TopicPartition{}, committed: map[model.TopicPartition]model.CommitOffset{},
		deaf: map[sim.NodeID]bool{}, dropJoin: map[sim.NodeID]bool{},
	}
}

func (g *fakeCoord) ids() []string {
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// groupBroker is a fake broker that also hosts the fake coordinator.
type groupBroker struct {
	*fakeBroker
	g *fakeCoord
}

func (b *groupBroker) Start(env *sim.Env) {
	if b.id == b.g.coordinator {
		env.After(50*time.Millisecond, "group-tick", 0)
	}
}

func (b *groupBroker) Fire(env *sim.Env, t sim.Timer) {
	if t.Kind != "group-tick" {
		b.fakeBroker.Fire(env, t)
		return
	}
	env.After(50*time.Millisecond, "group-tick", 0)
	b.g.tick(env)
}

func (b *groupBroker) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	g := b.g
	switch m.(type) {
	case model.FindCoordinatorRequest, model.JoinGroupRequest, model.SyncGroupRequest, model.HeartbeatRequest,
		model.LeaveGroupRequest, model.OffsetCommitRequest, model.OffsetFetchRequest:
	default:
		b.fakeBroker.Receive(env, from, m)
		return
	}
	b.c.received = append(b.c.received, received{at: env.ObserverNow(), broker: b.id, msg: m})
	if _, join := m.(model.JoinGroupRequest); g.deaf[from] || (join && g.dropJoin[from]) {
		return
	}
	if r, ok := m.(model.FindCoordinatorRequest); ok {
		resp := model.FindCoordinatorResponse{CorrelationID: r.CorrelationID, Coordinator: g.coordinator}
		if g.notAvailable > 0 {
			g.notAvailable--
			resp.Error, resp.Coordinator = model.CoordinatorNotAvailable, model.NoBroker
		}
		env.Send(from, resp)
		return
	}
	code, injected := model.NoError, false
	if g.inject != nil {
		code, injected = g.inject(m)
	}
	if b.id != g.coordinator {
		code, injected = model.NotCoordinator, true
	}
	now := env.Now()
	switch r := m.(type) {
	case model.JoinGroupRequest:
		if injected {
			env.Send(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: code, GenerationID: -1})
			return
		}
		g.join(env, from, r)
	case model.SyncGroupRequest:
		if injected {
			env.Send(from, model.SyncGroupResponse{CorrelationID: r.CorrelationID, Error: code})
			return
		}
		g.sync(env, from, r)
	case model.HeartbeatRequest:
		if !injected {
			code = g.check(r.MemberID, r.GenerationID, now)
			if code == model.NoError && g.state != "Stable" && g.state != "CompletingRebalance" {
				code = model.RebalanceInProgress
			}
		}
		env.Send(from, model.HeartbeatResponse{CorrelationID: r.CorrelationID, Error: code})
	case model.LeaveGroupRequest:
		if !injected && g.members[r.MemberID] != nil {
			delete(g.members, r.MemberID)
			g.rebalance(env)
		}
		env.Send(from, model.LeaveGroupResponse{CorrelationID: r.CorrelationID, Error: code})
	case model.OffsetCommitRequest:
		if !injected {
			switch {
			case r.GenerationID < 0 && r.MemberID == "" && g.state == "Empty":
			default:
				code = g.check(r.MemberID, r.GenerationID, now)
				if code == model.NoError && g.state == "CompletingRebalance" {
					code = model.RebalanceInProgress
				}
			}
		}
		resp := model.OffsetCommitResponse{CorrelationID: r.CorrelationID}
		for _, o := range r.Offsets {
			if code == model.NoError {
				g.committed[o.TP] = o
			}
			resp.Results = append(resp.Results, model.PartitionResult{TP: o.TP, Error: code})
		}
		env.Send(from, resp)
	case model.OffsetFetchRequest:
		resp := model.OffsetFetchResponse{CorrelationID: r.CorrelationID, Error: code}
		if !injected {
			for _, tp := range r.Partitions {
				o, ok := g.committed[tp]
				if !ok {
					o = model.CommitOffset{TP: tp, Offset: model.NoOffset, LeaderEpoch: model.NoEpoch}
				}
				resp.Offsets = append(resp.Offsets, model.CommittedOffset{TP: tp, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch})
			}
		}
		env.Send(from, resp)
	}
}

// check validates a member and generation, and counts the request as a
// sign of life.
func (g *fakeCoord) check(id string, gen model.Epoch, now time.Duration) model.ErrorCode {
	m := g.members[id]
	if m == nil {
		return model.UnknownMemberID
	}
	m.lastSeen = now
	if gen != g.gen {
		return model.IllegalGeneration
	}
	return model.NoError
}

func (g *fakeCoord) join(env *sim.Env, from sim.NodeID, r model.JoinGroupRequest) {
	now := env.Now()
	if r.MemberID == "" {
		g.nextID++
		id := fmt.Sprintf("m%d", g.nextID)
		g.members[id] = &fakeMember{id: id, lastSeen: now, session: r.SessionTimeout}
		env.Send(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: model.MemberIDRequired, MemberID: id, GenerationID: -1})
		return
	}
	m := g.members[r.MemberID]
	if m == nil {
		env.Send(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: model.UnknownMemberID, GenerationID: -1})
		return
	}
	m.instance, m.topics, m.owned, m.assignors = r.GroupInstanceID, r.Topics, r.Owned, r.Assignors
	m.rebalanceTimeout, m.session, m.lastSeen = r.RebalanceTimeout, r.SessionTimeout, now
	m.joined, m.joinFrom, m.joinCorr = true, from, r.CorrelationID
	if g.state != "PreparingRebalance" {
		g.rebalance(env)
	}
	g.maybeCompleteJoin(env)
}

// rebalance starts a rebalance: every member must rejoin.
func (g *fakeCoord) rebalance(env *sim.Env) {
	if g.state == "CompletingRebalance" {
		for _, id := range g.ids() {
			if m := g.members[id]; m.syncWaiting {
				m.syncWaiting = false
				env.Send(m.syncFrom, model.SyncGroupResponse{CorrelationID: m.syncCorr, Error: model.RebalanceInProgress})
			}
		}
	}
	if g.state != "PreparingRebalance" {
		for _, m := range g.members {
			if m.joinCorr == 0 {
				m.joined = false
			}
		}
	}
	g.state, g.started = "PreparingRebalance", env.Now()
	if len(g.members) == 0 {
		g.state = "Empty"
	}
	g.maybeCompleteJoin(env)
}

func (g *fakeCoord) maybeCompleteJoin(env *sim.Env) {
	if g.state != "PreparingRebalance" || len(g.members) == 0 {
		return
	}
	for _, m := range g.members {
		if !m.joined {
			return
		}
	}
	g.gen++
	g.gens = append(g.gens, g.gen)
	g.state = "CompletingRebalance"
	g.assigned = map[string][]model.TopicPartition{}
	ids := g.ids()
	g.leader = ids[0]
	g.protocol = g.members[ids[0]].assignors[0]
	var all []model.GroupMember
	for _, id := range ids {
		m := g.members[id]
		all = append(all, model.GroupMember{MemberID: id, GroupInstanceID: m.instance, Topics: m.topics, Owned: m.owned})
	}
	for _, id := range ids {
		m := g.members[id]
		resp := model.JoinGroupResponse{CorrelationID: m.joinCorr, GenerationID: g.gen, Protocol: g.protocol, LeaderID: g.leader, MemberID: id}
		if id == g.leader {
			resp.Members = all
		}
		m.joinCorr = 0
		m.lastSeen = env.Now()
		env.Send(m.joinFrom, resp)
	}
}

func (g *fakeCoord) sync(env *sim.Env, from sim.NodeID, r model.SyncGroupRequest) {
	code := g.check(r.MemberID, r.GenerationID, env.Now())
	if code == model.NoError && g.state == "PreparingRebalance" {
		code = model.RebalanceInProgress
	}
	if code != model.NoError {
		env.Send(from, model.SyncGroupResponse{CorrelationID: r.CorrelationID, Error: code})
		return
	}
	m := g.members[r.MemberID]
	if g.state == "Stable" {
		env.Send(from, model.SyncGroupResponse{CorrelationID: r.CorrelationID, Partitions: g.assigned[m.id]})
		return
	}
	m.syncWaiting, m.syncFrom, m.syncCorr = true, from, r.CorrelationID
	if r.MemberID == g.leader {
		for _, a := range r.Assignments {
			g.assigned[a.MemberID] = a.Partitions
		}
		g.state = "Stable"
	}
	if g.state != "Stable" {
		return
	}
	for _, id := range g.ids() {
		if w := g.members[id]; w.syncWaiting {
			w.syncWaiting = false
			w.lastSeen = env.Now()
			env.Send(w.syncFrom, model.SyncGroupResponse{CorrelationID: w.syncCorr, Partitions: g.assigned[id]})
		}
	}
}

// tick expires silent members (session.timeout.ms) and, in a rebalance,
// members that did not rejoin within the rebalance timeout.
func (g *fakeCoord) tick(env *sim.Env) {
	now := env.Now()
	changed := false
	for _, id := range g.ids() {
		m := g.members[id]
		awaiting := m.joinCorr != 0 || m.syncWaiting
		silent := !awaiting && now-m.lastSeen > m.session
		straggler := g.state == "PreparingRebalance" && !m.joined && now-g.started > m.rebalanceTimeout
		if silent || straggler {
			delete(g.members, id)
			g.expired = append(g.expired, expiry{id: id, at: now})
			changed = true
		}
	}
	if changed {
		g.rebalance(env)
	}
}

// groupWorld is a world whose brokers host a fake coordinator, with
// several consumers at clientID, clientID+1, ...
type groupWorld struct {
	*world
	g       *fakeCoord
	nodes   []sim.NodeID
	started bool
}

// newGroupTest builds a simulation with fake brokers 1..n that also host
// the fake coordinator on broker coordinator.
func newGroupTest(t *testing.T, n int, coordinator model.BrokerID) *groupWorld {
	t.Helper()
	w := newWorld(t, 0)
	var ids []model.BrokerID
	for i := 1; i <= n; i++ {
		ids = append(ids, model.BrokerID(i))
	}
	w.c = newFakeCluster(ids...)
	gw := &groupWorld{world: w, g: newFakeCoord(coordinator)}
	for _, id := range ids {
		id := id
		w.s.AddNode(sim.NodeID(id), fmt.Sprintf("b%d", id), func() sim.Node {
			return &groupBroker{fakeBroker: &fakeBroker{id: id, c: w.c}, g: gw.g}
		})
	}
	return gw
}

// member adds a group consumer (not started) and returns its node id.
func (gw *groupWorld) member(cfg model.Config, mod func(*ConsumerOptions)) sim.NodeID {
	id := clientID + sim.NodeID(len(gw.nodes))
	opts := ConsumerOptions{Bootstrap: gw.c.brokers, Config: cfg, Recorder: gw.rec, GroupID: "g", Topics: []string{"t"}}
	if mod != nil {
		mod(&opts)
	}
	gw.s.AddNode(id, fmt.Sprintf("c%d", len(gw.nodes)), func() sim.Node { return NewConsumer(opts) })
	gw.nodes = append(gw.nodes, id)
	return id
}

// start starts a member at time at; the first call starts the brokers,
// so every member must be added before it.
func (gw *groupWorld) start(at time.Duration, id sim.NodeID) {
	if !gw.started {
		gw.started = true
		gw.startBrokers()
	}
	if at == 0 {
		gw.s.Start(id)
		return
	}
	gw.at(at, func() { gw.s.Start(id) })
}

func (gw *groupWorld) consumerAt(id sim.NodeID) *Consumer { return gw.s.Node(id).(*Consumer) }

// groupMessages returns the group requests received, of type T.
func groupRequests[T any](c *fakeCluster) []T {
	var out []T
	for _, r := range c.received {
		if m, ok := r.msg.(T); ok {
			out = append(out, m)
		}
	}
	return out
}

// opsOf lists the ops of one process and kind.
func opsOf(h model.History, process int, f model.OpF) []model.Op {
	var out []model.Op
	for _, op := range h {
		if op.Process == process && op.F == f {
			out = append(out, op)
		}
	}
	return out
}

// owners replays the rebalance ops of a history into ownership intervals
// and reports the first instant a partition had two owners.
func doubleOwner(h model.History) string {
	owner := map[model.TopicPartition]int{}
	for _, op := range h {
		if op.F != model.FRebalance {
			continue
		}
		for _, tp := range op.Lost {
			if owner[tp] == op.Process {
				delete(owner, tp)
			}
		}
		for _, tp := range op.Gained {
			if o, ok := owner[tp]; ok && o != op.Process {
				return fmt.Sprintf("%v gained by p%d at %v while p%d owns it", tp, op.Process, op.Time, o)
			}
			owner[tp] = op.Process
		}
	}
	return ""
}

// owned replays one process's rebalance ops into what it owns at the end.
func owned(h model.History, process int) []model.TopicPartition {
	var out []model.TopicPartition
	for _, op := range opsOf(h, process, model.FRebalance) {
		out = slices.DeleteFunc(out, func(tp model.TopicPartition) bool { return slices.Contains(op.Lost, tp) })
		out = append(out, op.Gained...)
	}
	slices.SortFunc(out, model.TopicPartition.Compare)
	return out
}
