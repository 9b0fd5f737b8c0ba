package broker_test

import (
	"slices"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/broker"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// rawClient records every message it receives; the test sends raw group
// requests as it and reads the answers.
type rawClient struct {
	got []received
}

type received struct {
	at   time.Duration
	from sim.NodeID
	msg  sim.Message
}

func (c *rawClient) Start(env *sim.Env) {}
func (c *rawClient) Receive(env *sim.Env, from sim.NodeID, m sim.Message) {
	c.got = append(c.got, received{at: env.Now(), from: from, msg: m})
}
func (c *rawClient) Fire(env *sim.Env, t sim.Timer)             {}
func (c *rawClient) Disconnected(env *sim.Env, peer sim.NodeID) {}

type groupRig struct {
	t      *testing.T
	c      *fixture.Cluster
	client *rawClient
	id     sim.NodeID
	corr   int32
}

func groupConfig() model.Config {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	kc.Topic.MinInsyncReplicas = 2
	kc.Group.OffsetsTopicPartitions = 3
	return kc
}

func newGroupRig(t *testing.T, brokers int, kc model.Config) *groupRig {
	t.Helper()
	c, err := fixture.NewCluster(fixture.ClusterOptions{Seed: 7, Brokers: brokers, Config: kc,
		Topics: []model.TopicSpec{{Name: "t", Partitions: 2, ReplicationFactor: int32(brokers)}}})
	if err != nil {
		t.Fatal(err)
	}
	r := &groupRig{t: t, c: c, client: &rawClient{}}
	r.id = c.AddClient("raw", func() sim.Node { return r.client })
	c.Start()
	if err := c.RunUntilReady(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	return r
}

// call sends req (whose correlation id it sets) to a broker and runs the
// simulation until the answer with that id arrives, or fails after wait.
func (r *groupRig) call(to model.BrokerID, req sim.Message, wait time.Duration) sim.Message {
	r.t.Helper()
	r.corr++
	corr := r.corr
	req = withCorr(req, corr)
	r.c.Sim.SendAs(r.id, sim.NodeID(to), req)
	deadline := r.c.Sim.Now() + wait
	for r.c.Sim.Now() < deadline {
		r.c.Sim.Run(r.c.Sim.Now() + time.Millisecond)
		for i, g := range r.client.got {
			if corrOf(g.msg) == corr {
				r.client.got = slices.Delete(r.client.got, i, i+1)
				return g.msg
			}
		}
	}
	r.t.Fatalf("no answer to %v from b%d within %v", req, to, wait)
	return nil
}

func withCorr(m sim.Message, corr int32) sim.Message {
	switch m := m.(type) {
	case model.FindCoordinatorRequest:
		m.CorrelationID = corr
		return m
	case model.JoinGroupRequest:
		m.CorrelationID = corr
		return m
	case model.SyncGroupRequest:
		m.CorrelationID = corr
		return m
	case model.HeartbeatRequest:
		m.CorrelationID = corr
		return m
	case model.LeaveGroupRequest:
		m.CorrelationID = corr
		return m
	case model.OffsetCommitRequest:
		m.CorrelationID = corr
		return m
	case model.OffsetFetchRequest:
		m.CorrelationID = corr
		return m
	case model.InitProducerIDRequest:
		m.CorrelationID = corr
		return m
	case model.AddPartitionsToTxnRequest:
		m.CorrelationID = corr
		return m
	case model.EndTxnRequest:
		m.CorrelationID = corr
		return m
	case model.WriteTxnMarkersRequest:
		m.CorrelationID = corr
		return m
	}
	panic("withCorr: unexpected message")
}

func corrOf(m sim.Message) int32 {
	switch m := m.(type) {
	case model.FindCoordinatorResponse:
		return m.CorrelationID
	case model.JoinGroupResponse:
		return m.CorrelationID
	case model.SyncGroupResponse:
		return m.CorrelationID
	case model.HeartbeatResponse:
		return m.CorrelationID
	case model.LeaveGroupResponse:
		return m.CorrelationID
	case model.OffsetCommitResponse:
		return m.CorrelationID
	case model.OffsetFetchResponse:
		return m.CorrelationID
	case model.InitProducerIDResponse:
		return m.CorrelationID
	case model.AddPartitionsToTxnResponse:
		return m.CorrelationID
	case model.EndTxnResponse:
		return m.CorrelationID
	case model.WriteTxnMarkersResponse:
		return m.CorrelationID
	}
	return -1
}

// findCoordinator asks broker via until it names a coordinator.
func (r *groupRig) findCoordinator(via model.BrokerID, g string) (model.BrokerID, []model.ErrorCode) {
	r.t.Helper()
	var errs []model.ErrorCode
	for range 200 {
		resp := r.call(via, model.FindCoordinatorRequest{GroupID: g}, time.Second).(model.FindCoordinatorResponse)
		if resp.Error == model.NoError {
			return resp.Coordinator, errs
		}
		errs = append(errs, resp.Error)
		r.c.Sim.Run(r.c.Sim.Now() + 50*time.Millisecond)
	}
	r.t.Fatalf("no coordinator for %s: %v", g, errs)
	return 0, nil
}

// joinedGroup finds g's coordinator and runs one member through
// join and sync; it returns the coordinator, member id and generation.
func (r *groupRig) joinedGroup(g string) (model.BrokerID, string, model.Epoch) {
	r.t.Helper()
	coord, _ := r.findCoordinator(1, g)
	join := model.JoinGroupRequest{GroupID: g, SessionTimeout: 45 * time.Second, RebalanceTimeout: 10 * time.Second,
		Assignors: []model.Assignor{model.AssignRange}, Topics: []string{"t"}}
	var jr model.JoinGroupResponse
	for range 100 {
		jr = r.call(coord, join, time.Second).(model.JoinGroupResponse)
		if jr.Error != model.CoordinatorLoadInProgress {
			break
		}
		r.c.Sim.Run(r.c.Sim.Now() + 10*time.Millisecond)
	}
	if jr.Error != model.MemberIDRequired {
		r.t.Fatalf("first join: %v", jr)
	}
	join.MemberID = jr.MemberID
	jr = r.call(coord, join, 10*time.Second).(model.JoinGroupResponse)
	if jr.Error != model.NoError || jr.GenerationID != 1 || jr.LeaderID != join.MemberID {
		r.t.Fatalf("second join: %v", jr)
	}
	assign := []model.MemberAssignment{{MemberID: jr.MemberID, Partitions: []model.TopicPartition{model.TP("t", 0), model.TP("t", 1)}}}
	sr := r.call(coord, model.SyncGroupRequest{GroupID: g, GenerationID: 1, MemberID: jr.MemberID, Assignments: assign}, time.Second).(model.SyncGroupResponse)
	if sr.Error != model.NoError || len(sr.Partitions) != 2 {
		r.t.Fatalf("sync: %v", sr)
	}
	return coord, jr.MemberID, jr.GenerationID
}

func TestFindCoordinatorCreatesTheOffsetsTopicThenNamesItsLeader(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	if _, ok := r.c.Partition(model.TP(broker.OffsetsTopic, 0)); ok {
		t.Fatal("the offsets topic exists before any group used it")
	}
	coord, errs := r.findCoordinator(2, "g")
	if len(errs) == 0 || errs[0] != model.CoordinatorNotAvailable {
		t.Fatalf("errors before the coordinator was found: %v, want COORDINATOR_NOT_AVAILABLE first", errs)
	}
	for p := int32(0); p < 3; p++ {
		ps, ok := r.c.Partition(model.TP(broker.OffsetsTopic, p))
		if !ok || len(ps.Replicas) != 3 {
			t.Fatalf("offsets partition %d: %+v (want replication factor 3)", p, ps)
		}
	}
	want := r.c.Leader(model.TP(broker.OffsetsTopic, broker.PartitionFor("g", 3)))
	if coord != want {
		t.Fatalf("coordinator b%d, want b%d, the leader of the group's partition", coord, want)
	}
	// Any broker names the same one.
	for _, via := range r.c.Brokers {
		if got, _ := r.findCoordinator(via, "g"); got != coord {
			t.Fatalf("b%d names b%d", via, got)
		}
	}
	// A broker that does not lead the partition is not the coordinator.
	other := r.c.Brokers[0]
	if other == coord {
		other = r.c.Brokers[1]
	}
	hb := r.call(other, model.HeartbeatRequest{GroupID: "g", MemberID: "m"}, time.Second).(model.HeartbeatResponse)
	if hb.Error != model.NotCoordinator {
		t.Fatalf("heartbeat to b%d: %v", other, hb)
	}
}

func TestTheOffsetsTopicIsNotCreatedWithFewerBrokersThanItsReplicationFactor(t *testing.T) {
	kc := groupConfig()
	kc.Broker.DefaultReplicationFactor, kc.Topic.MinInsyncReplicas = 1, 1
	r := newGroupRig(t, 1, kc)
	for range 5 {
		resp := r.call(1, model.FindCoordinatorRequest{GroupID: "g"}, time.Second).(model.FindCoordinatorResponse)
		if resp.Error != model.CoordinatorNotAvailable {
			t.Fatalf("got %v with one broker and offsets.topic.replication.factor=3", resp)
		}
		r.c.Sim.Run(r.c.Sim.Now() + 200*time.Millisecond)
	}
	kc.Group.OffsetsTopicReplicationFactor = 1
	r = newGroupRig(t, 1, kc)
	if coord, _ := r.findCoordinator(1, "g"); coord != 1 {
		t.Fatalf("coordinator b%d", coord)
	}
}

func TestJoinSyncHeartbeatCommitFetchThroughTheBroker(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, member, gen := r.joinedGroup("g")
	hb := r.call(coord, model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member}, time.Second).(model.HeartbeatResponse)
	if hb.Error != model.NoError {
		t.Fatalf("heartbeat: %v", hb)
	}
	commit := model.OffsetCommitRequest{GroupID: "g", GenerationID: gen, MemberID: member,
		Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 42, LeaderEpoch: 0}, {TP: model.TP("t", 1), Offset: 7, LeaderEpoch: 0}}}
	cr := r.call(coord, commit, time.Second).(model.OffsetCommitResponse)
	if len(cr.Results) != 2 || cr.Results[0].Error != model.NoError || cr.Results[1].Error != model.NoError {
		t.Fatalf("commit: %v", cr)
	}
	fr := r.call(coord, model.OffsetFetchRequest{GroupID: "g", Partitions: []model.TopicPartition{model.TP("t", 0), model.TP("t", 1), model.TP("t", 2)}}, time.Second).(model.OffsetFetchResponse)
	if fr.Error != model.NoError || fr.Offsets[0].Offset != 42 || fr.Offsets[1].Offset != 7 || fr.Offsets[2].Offset != model.NoOffset {
		t.Fatalf("fetch: %v", fr)
	}
	// The records are in the replicated log: every replica has them.
	tp := model.TP(broker.OffsetsTopic, broker.PartitionFor("g", 3))
	for _, id := range r.c.Brokers {
		v, ok := r.c.Broker(id).Partition(tp)
		if !ok || v.LEO < 3 {
			t.Fatalf("b%d's replica of %v: LEO %d, want the group record and two offsets", id, tp, v.LEO)
		}
	}
	old := r.call(coord, model.OffsetCommitRequest{GroupID: "g", GenerationID: gen - 1, MemberID: member, Offsets: commit.Offsets[:1]}, time.Second).(model.OffsetCommitResponse)
	if old.Results[0].Error != model.IllegalGeneration {
		t.Fatalf("commit with an old generation: %v", old)
	}
}

func TestCoordinatorFailoverLoadsTheGroupAndEveryAcknowledgedCommit(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, member, gen := r.joinedGroup("g")
	acked := map[model.TopicPartition]model.Offset{}
	for i := range 20 {
		tp := model.TP("t", int32(i%2))
		off := model.Offset(10 * (i + 1))
		cr := r.call(coord, model.OffsetCommitRequest{GroupID: "g", GenerationID: gen, MemberID: member, Offsets: []model.CommitOffset{{TP: tp, Offset: off}}}, time.Second).(model.OffsetCommitResponse)
		if cr.Results[0].Error != model.NoError {
			t.Fatalf("commit %d: %v", i, cr)
		}
		acked[tp] = off
	}
	// Crash the coordinator, then ask both survivors for the offsets
	// every 2 ms: the one that takes over answers NOT_COORDINATOR until it
	// leads, COORDINATOR_LOAD_IN_PROGRESS while it loads, then the offsets.
	r.c.Sim.Crash(sim.NodeID(coord))
	var survivors []model.BrokerID
	for _, id := range r.c.Brokers {
		if id != coord {
			survivors = append(survivors, id)
		}
	}
	answers := map[model.BrokerID][]model.OffsetFetchResponse{}
	req := model.OffsetFetchRequest{GroupID: "g", Partitions: []model.TopicPartition{model.TP("t", 0), model.TP("t", 1)}}
	var newCoord model.BrokerID
	for newCoord == 0 {
		if r.c.Sim.Now() > 60*time.Second {
			t.Fatalf("no coordinator served the group after the crash: %v", answers)
		}
		for _, id := range survivors {
			r.c.Sim.SendAs(r.id, sim.NodeID(id), req)
		}
		r.c.Sim.Run(r.c.Sim.Now() + 2*time.Millisecond)
		for _, g := range r.client.got {
			if fr, ok := g.msg.(model.OffsetFetchResponse); ok {
				id := model.BrokerID(g.from)
				answers[id] = append(answers[id], fr)
				if fr.Error == model.NoError {
					newCoord = id
				}
			}
		}
		r.client.got = nil
	}
	var seq []model.ErrorCode
	for _, a := range answers[newCoord] {
		if len(seq) == 0 || seq[len(seq)-1] != a.Error {
			seq = append(seq, a.Error)
		}
	}
	if !slices.Equal(seq, []model.ErrorCode{model.NotCoordinator, model.CoordinatorLoadInProgress, model.NoError}) {
		t.Fatalf("b%d answered %v, want NOT_COORDINATOR, then COORDINATOR_LOAD_IN_PROGRESS, then NONE", newCoord, seq)
	}
	last := answers[newCoord][len(answers[newCoord])-1]
	for _, o := range last.Offsets {
		if o.Offset != acked[o.TP] {
			t.Fatalf("after failover %v = %d, want the last acknowledged %d", o.TP, o.Offset, acked[o.TP])
		}
	}
	if got, _ := r.findCoordinator(survivors[0], "g"); got != newCoord {
		t.Fatalf("FindCoordinator names b%d, want b%d", got, newCoord)
	}
	// The group came back Stable with its member: its heartbeat is fine
	// (the session started at the load), a stranger's is not.
	hb := r.call(newCoord, model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member}, time.Second).(model.HeartbeatResponse)
	if hb.Error != model.NoError {
		t.Fatalf("heartbeat to the new coordinator: %v", hb)
	}
	hb = r.call(newCoord, model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: "stranger"}, time.Second).(model.HeartbeatResponse)
	if hb.Error != model.UnknownMemberID {
		t.Fatalf("a stranger's heartbeat: %v", hb)
	}
}

func TestAHeartbeatToALoadingCoordinatorIsAnsweredNone(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, member, gen := r.joinedGroup("g")
	r.c.Sim.Crash(sim.NodeID(coord))
	seen := map[model.ErrorCode]bool{}
	for r.c.Sim.Now() < 60*time.Second && !seen[model.CoordinatorLoadInProgress] {
		for _, id := range r.c.Brokers {
			if id != coord {
				r.c.Sim.SendAs(r.id, sim.NodeID(id), model.OffsetFetchRequest{GroupID: "g"})
				r.c.Sim.SendAs(r.id, sim.NodeID(id), model.HeartbeatRequest{GroupID: "g", GenerationID: gen, MemberID: member})
			}
		}
		r.c.Sim.Run(r.c.Sim.Now() + time.Millisecond)
		for _, g := range r.client.got {
			if fr, ok := g.msg.(model.OffsetFetchResponse); ok && fr.Error == model.CoordinatorLoadInProgress {
				seen[fr.Error] = true
			}
			if hb, ok := g.msg.(model.HeartbeatResponse); ok {
				seen[hb.Error] = true
			}
		}
		r.client.got = nil
	}
	if !seen[model.CoordinatorLoadInProgress] {
		t.Fatal("never saw the new coordinator loading")
	}
	if seen[model.CoordinatorLoadInProgress] && !seen[model.NoError] {
		t.Fatalf("heartbeats during the load: %v, want NONE among them", seen)
	}
}

func TestPartitionForIsKafkasHash(t *testing.T) {
	// Values of Java's String.hashCode: "hello" is 99162322 and
	// "polygenelubricants" is Integer.MIN_VALUE, which Utils.abs maps to 0.
	cases := []struct {
		group string
		n     int32
		want  int32
	}{
		{"hello", 50, 99162322 % 50},
		{"polygenelubricants", 50, 0},
		{"", 50, 0},
		{"Aa", 7, 2112 % 7},
		{"BB", 7, 2112 % 7},
		{"\U0001F600", 1000, 1772899 % 1000}, // a surrogate pair: 0xD83D*31 + 0xDE00
	}
	for _, c := range cases {
		if got := broker.PartitionFor(c.group, c.n); got != c.want {
			t.Errorf("PartitionFor(%q, %d) = %d, want %d", c.group, c.n, got, c.want)
		}
	}
	// A negative hash: "zzzzzzzzzz" overflows; abs, not a negative index.
	if p := broker.PartitionFor("zzzzzzzzzz", 50); p < 0 || p >= 50 {
		t.Fatalf("partition %d out of range", p)
	}
}

func TestACommitBelowMinInsyncReplicasIsCoordinatorNotAvailable(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, _ := r.findCoordinator(1, "g")
	commit := model.OffsetCommitRequest{GroupID: "g", GenerationID: -1, Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 5}}}
	if cr := r.call(coord, commit, time.Second).(model.OffsetCommitResponse); cr.Results[0].Error != model.NoError {
		t.Fatalf("commit with the full ISR: %v", cr)
	}
	// Both followers die; once the controller fences them the ISR is the
	// coordinator alone, below min.insync.replicas=2.
	tp := model.TP(broker.OffsetsTopic, broker.PartitionFor("g", 3))
	for _, id := range r.c.Brokers {
		if id != coord {
			r.c.Sim.Crash(sim.NodeID(id))
		}
	}
	for {
		ps, _ := r.c.Partition(tp)
		if len(ps.ISR) == 1 {
			break
		}
		if r.c.Sim.Now() > 60*time.Second {
			t.Fatalf("ISR never shrank: %+v", ps)
		}
		r.c.Sim.Run(r.c.Sim.Now() + 100*time.Millisecond)
	}
	r.c.Sim.Run(r.c.Sim.Now() + time.Second) // the leader applies the new ISR
	commit.Offsets[0].Offset = 9
	if cr := r.call(coord, commit, time.Second).(model.OffsetCommitResponse); cr.Results[0].Error != model.CoordinatorNotAvailable {
		t.Fatalf("commit below min.insync.replicas: %v", cr)
	}
	fr := r.call(coord, model.OffsetFetchRequest{GroupID: "g", Partitions: []model.TopicPartition{model.TP("t", 0)}}, time.Second).(model.OffsetFetchResponse)
	if fr.Error != model.NoError || fr.Offsets[0].Offset != 5 {
		t.Fatalf("fetch after the refused commit: %v", fr)
	}
	if v, _ := r.c.Broker(coord).Partition(tp); v.LEO != 1 {
		t.Fatalf("the refused commit was appended: LEO %d", v.LEO)
	}
}

func TestACommitThatDoesNotCommitInTimeIsCoordinatorNotAvailable(t *testing.T) {
	r := newGroupRig(t, 3, groupConfig())
	coord, _ := r.findCoordinator(1, "g")
	// Cut the coordinator off from its followers (not from the controller
	// or the client): the ISR stays full for replica.lag.time.max.ms, but
	// nobody fetches, so the high watermark cannot pass the write.
	r.c.Isolate(coord)
	start := r.c.Sim.Now()
	commit := model.OffsetCommitRequest{GroupID: "g", GenerationID: -1, Offsets: []model.CommitOffset{{TP: model.TP("t", 0), Offset: 5}}}
	cr := r.call(coord, commit, 10*time.Second).(model.OffsetCommitResponse)
	if cr.Results[0].Error != model.CoordinatorNotAvailable {
		t.Fatalf("commit that cannot commit: %v", cr)
	}
	if waited := r.c.Sim.Now() - start; waited < groupConfig().Group.OffsetCommitTimeout {
		t.Fatalf("answered after %v, before offsets.commit.timeout.ms", waited)
	}
	fr := r.call(coord, model.OffsetFetchRequest{GroupID: "g", Partitions: []model.TopicPartition{model.TP("t", 0)}}, time.Second).(model.OffsetFetchResponse)
	if fr.Offsets[0].Offset != model.NoOffset {
		t.Fatalf("an unacknowledged commit is visible: %v", fr)
	}
}
