package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// The group member: the type, its pass over the group protocol after
// every event, its deadline, and the dispatch of group answers and
// failures to the files that handle them. The member is Kafka's
// ConsumerCoordinator with its base class AbstractCoordinator (the
// classic protocol); the Consumer keeps what KafkaConsumer, the fetcher
// and SubscriptionState keep (positions and fetching) and calls the
// member as ClassicKafkaConsumer calls its coordinator: Consumer.run calls
// run after every event, deadline tells it when to wake, and
// Consumer.Receive hands it the answers it does not know.
//
//   - group_coordinator.go: finding the coordinator and forgetting it
//     (lookupCoordinator, markCoordinatorUnknown);
//   - group_join.go: JoinGroup and SyncGroup, losing a generation, and
//     the fatal errors (joinGroupIfNeeded, the response handlers);
//   - group_heartbeat.go: heartbeats and the heartbeat thread's session
//     timer (HeartbeatThread, Heartbeat);
//   - group_selffence.go: kafkasim's consumer.self.fencing;
//   - group_rebalance.go: what a rebalance revokes, loses and assigns,
//     with the callbacks (onJoinPrepare, onLeaderElected, onJoinComplete);
//   - group_commit.go: commits and committed offsets;
//   - group_leave.go: subscribe, unsubscribe and close;
//   - consumer_group.go: the Consumer's group API and the subscriptions
//     it lends the member.

// Group request kinds continue network.go's list; they live here, beside
// the member that sends them.
const (
	reqFindCoordinator reqKind = 32 + iota
	reqJoinGroup
	reqSyncGroup
	reqHeartbeat
	reqLeaveGroup
	reqOffsetCommit
	reqOffsetFetch
)

func isGroupRequest(k reqKind) bool { return k >= reqFindCoordinator && k <= reqOffsetFetch }

// noGeneration is Kafka's Generation.NO_GENERATION id: the member has no
// valid generation (it never joined, or the coordinator told it its
// generation or member id is gone).
const noGeneration model.Epoch = -1

// joinTimeoutLapse is what Kafka adds to the rebalance timeout for a
// JoinGroup's own timeout (AbstractCoordinator.JOIN_GROUP_TIMEOUT_LAPSE):
// the coordinator may hold a JoinGroup for the whole rebalance timeout.
const joinTimeoutLapse = 5 * time.Second

// groupPhase is AbstractCoordinator.MemberState, with the join and sync
// halves of PREPARING_REBALANCE and COMPLETING_REBALANCE made explicit.
type groupPhase uint8

const (
	// phaseUnjoined: the member must (re)join once it knows its
	// coordinator. Its generation may still be valid (a JoinGroup that
	// failed on a coordinator move), but commits wait for the rebalance.
	phaseUnjoined groupPhase = iota
	phaseJoining             // a JoinGroup is in flight
	phaseSyncing             // a SyncGroup is in flight
	phaseStable              // a generation and its assignment; rejoin may ask for the next
	phaseFatal               // FENCED_INSTANCE_ID or a misconfigured group: stopped for good
)

// subscriptions is what the member needs of the consumer's partitions,
// as ConsumerCoordinator reaches into the consumer's SubscriptionState:
// the assignment it owns, the positions it commits, and the partitions
// waiting for a committed offset to start from. The Consumer implements
// it; the member never sees the fetch state behind it.
type subscriptions interface {
	// owned is the assignment, sorted; the member must not change it.
	owned() []model.TopicPartition
	// setAssignment installs the partitions the member owns now
	// (SubscriptionState.assignFromSubscribed).
	setAssignment(env *sim.Env, tps []model.TopicPartition)
	// setInterest tells the consumer the member's topics changed (see
	// member.interest).
	setInterest()
	// consumedOffsets is SubscriptionState.allConsumed.
	consumedOffsets() []model.CommitOffset
	// awaitsCommitted reports whether tp is owned and has no position
	// yet: it waits for the group's committed offset.
	awaitsCommitted(tp model.TopicPartition) bool
	// startFromCommitted starts such a partition at the committed offset
	// (with its leader epoch), or by auto.offset.reset when offset is
	// negative (there is none).
	startFromCommitted(env *sim.Env, tp model.TopicPartition, offset model.Offset, epoch model.Epoch)
}

// member is a consumer's membership of its group: the classic protocol's
// state (AbstractCoordinator's generation, MemberState and heartbeat;
// ConsumerCoordinator's assignment snapshots, commits and rebalance
// listener) and the methods that move it.
type member struct {
	// What the member shares with its consumer, as ConsumerCoordinator
	// shares the consumer's ConsumerNetworkClient, ConsumerMetadata and
	// SubscriptionState: the connections (one per broker, group requests
	// beside fetches), the cluster view, and the partitions.
	net  *network
	md   *metadata
	subs subscriptions
	cfg  *model.ConsumerConfig
	cl   *model.ClientConfig
	// rec and process record the member's ops in the history: process is
	// the consumer's, known once it starts (Consumer.Start sets it).
	rec     *model.Recorder
	process int
	// onRevoked, onAssigned and onLost are the ConsumerRebalanceListener
	// (ConsumerOptions.OnRevoked, ...).
	onRevoked, onAssigned, onLost func(env *sim.Env, tps []model.TopicPartition)

	group    string
	instance string   // group.instance.id, "" for a dynamic member
	topics   []string // the subscription, sorted
	// assignors is partition.assignment.strategy; cooperative is whether
	// every one of them supports KIP-429's protocol, which decides how the
	// member revokes.
	assignors   []model.Assignor
	cooperative bool

	coordinator  model.BrokerID // NoBroker while unknown
	findCorr     int32          // FindCoordinator in flight, 0 for none
	findRetryAt  time.Duration
	findFailures int
	rr           int // leastLoaded rotation

	memberID   string
	generation model.Epoch
	// assigned and assignedGen are what the sticky assignors remember in
	// onAssignment and send back as user data: the last assignment and its
	// generation (nil and -1 before any). They survive a lost generation,
	// as Kafka's assignor object does; a restart loses them.
	assigned    []model.TopicPartition
	assignedGen model.Epoch
	phase       groupPhase
	// rejoin asks a stable member for a new rebalance (the coordinator
	// answered REBALANCE_IN_PROGRESS, the subscription changed, or a
	// cooperative rebalance revoked partitions).
	rejoin bool
	// prepared says onJoinPrepare (commit, then revoke) already ran for
	// the coming JoinGroup; it runs once per rebalance, however many
	// JoinGroups the rebalance takes.
	prepared     bool
	prepCommit   int32 // the onJoinPrepare commit in flight, 0 for none
	prepDone     bool  // the onJoinPrepare commit was sent and answered
	joinCorr     int32
	joinSent     time.Duration
	syncCorr     int32
	syncSent     time.Duration
	joinRetryAt  time.Duration
	joinFailures int

	hbCorr     int32
	hbSent     time.Duration
	hbGen      model.Epoch
	hbNext     time.Duration
	hbFailures int

	// aliveFrom is when the member sent the last request whose successful
	// answer shows the coordinator still counted it as a member (a
	// heartbeat answered NONE or REBALANCE_IN_PROGRESS, a JoinGroup or
	// SyncGroup answered NONE). The coordinator's own session timer for
	// the member started no earlier than that request's arrival, so
	// aliveFrom + session.timeout.ms is no later than the coordinator's
	// expiry of the member: self-fencing at that instant
	// (consumer.self.fencing) stops reading before anyone else can be
	// given the partitions. Measuring from the answer instead would be
	// later by the answer's trip and could overlap the new owner. (It
	// assumes the two clocks run at the same rate; a drifting member clock
	// shifts the margin.)
	aliveFrom time.Duration
	// sessionAt is when the heartbeat thread's session timer
	// (Heartbeat.sessionTimer) was last reset: on finding the coordinator,
	// on the JoinGroup answer that enables the heartbeat thread, and on
	// each heartbeat answered NONE or REBALANCE_IN_PROGRESS. A member
	// syncing or stable that goes session.timeout.ms without a reset marks
	// its coordinator unknown (see maybeSessionExpired).
	sessionAt time.Duration
	// stableAt is when the member sent the last request the coordinator
	// answered NONE as a member of a stable generation (a SyncGroup, a
	// heartbeat). A rebalance that waits for this member began after it,
	// and the coordinator drops a member that has not rejoined within its
	// rebalance timeout of that beginning, heartbeats or not; so stableAt +
	// max.poll.interval.ms is the latest a member still in a rebalance may
	// keep its partitions (consumer.self.fencing).
	stableAt time.Duration

	commits      []pendingCommit // OffsetCommits in flight, oldest first
	autoCommitAt time.Duration

	fetchCorr     int32 // OffsetFetch in flight
	fetchRetryAt  time.Duration
	fetchFailures int

	// groupTopics is, on the group leader, every topic the group
	// subscribes to, and assignedCounts their partition counts (-1 unknown)
	// when it last assigned; nil on other members.
	groupTopics    []string
	assignedCounts []int32

	fatal       string // the error that stopped the member
	fatalRaised bool   // a poll has raised it
}

// newMember builds the group state from the options, over the consumer's
// network, metadata and partitions; the subscription is set by Subscribe.
func newMember(o *ConsumerOptions, net *network, md *metadata, subs subscriptions) *member {
	as := slices.Clone(o.Assignors)
	if len(as) == 0 {
		as = []model.Assignor{o.Config.Consumer.AssignmentStrategy}
		if as[0] == model.AssignRange {
			as = append(as, model.AssignCooperativeSticky)
		}
	}
	coop := true
	for _, name := range as {
		a, _ := group.ByName(name)
		coop = coop && a.Protocol() == group.Cooperative
	}
	return &member{
		net: net, md: md, subs: subs, cfg: &o.Config.Consumer, cl: &o.Config.Client, rec: o.Recorder,
		onRevoked: o.OnRevoked, onAssigned: o.OnAssigned, onLost: o.OnLost,
		group: o.GroupID, instance: o.GroupInstanceID, assignors: as, cooperative: coop,
		coordinator: model.NoBroker, generation: noGeneration, hbGen: noGeneration, assignedGen: noGeneration,
	}
}

// run is the member's share of Consumer.run, after
// AbstractCoordinator.ensureCoordinatorReady, joinGroupIfNeeded and the
// heartbeat thread's loop.
func (m *member) run(env *sim.Env) {
	if m.phase == phaseFatal {
		return
	}
	m.maybeSelfFence(env)
	m.maybeSessionExpired(env)
	if m.coordinator == model.NoBroker {
		m.findCoordinator(env)
		return
	}
	if m.phase == phaseStable && !m.rejoin && m.leaderMetadataChanged() {
		m.rejoin = true
		m.assignedCounts = nil
	}
	if m.phase == phaseUnjoined || (m.phase == phaseStable && m.rejoin) {
		m.maybeJoin(env)
	}
	if m.heartbeating() {
		m.maybeHeartbeat(env)
	}
	if m.phase == phaseStable && !m.rejoin {
		m.maybeAutoCommit(env)
	}
	if m.phase == phaseStable {
		m.maybeFetchCommitted(env)
	}
}

// deadline is the earliest instant the member has something to do,
// for the consumer's wake timer.
func (m *member) deadline(now time.Duration) time.Duration {
	d := model.Never
	if m.phase == phaseFatal {
		return d
	}
	later := func(t time.Duration) {
		if t > now && t < d {
			d = t
		}
	}
	if m.coordinator == model.NoBroker && m.findCorr == 0 {
		later(m.findRetryAt)
	}
	if m.phase == phaseUnjoined || (m.phase == phaseStable && m.rejoin) {
		later(m.joinRetryAt)
	}
	if m.heartbeating() && m.hbCorr == 0 {
		later(m.hbNext)
	}
	if m.phase == phaseStable && m.cfg.AutoCommit {
		later(m.autoCommitAt)
	}
	if m.phase == phaseStable && m.fetchCorr == 0 {
		later(m.fetchRetryAt)
	}
	if m.selfFenceArmed() {
		later(m.selfFenceAt())
	}
	if m.sessionWatched() {
		later(satAdd(m.sessionAt, m.cfg.SessionTimeout))
	}
	return d
}

// receive handles the answers to group requests, the messages
// Consumer.Receive does not know.
func (m *member) receive(env *sim.Env, broker model.BrokerID, msg sim.Message) {
	match := func(corr int32, kind reqKind) bool {
		req := m.net.complete(broker, corr)
		return req != nil && req.kind == kind && m.phase != phaseFatal
	}
	switch r := msg.(type) {
	case model.FindCoordinatorResponse:
		if match(r.CorrelationID, reqFindCoordinator) && r.CorrelationID == m.findCorr {
			m.handleFindCoordinator(env, r)
		}
	case model.JoinGroupResponse:
		if match(r.CorrelationID, reqJoinGroup) && r.CorrelationID == m.joinCorr {
			m.handleJoin(env, r)
		}
	case model.SyncGroupResponse:
		if match(r.CorrelationID, reqSyncGroup) && r.CorrelationID == m.syncCorr {
			m.handleSync(env, r)
		}
	case model.HeartbeatResponse:
		if match(r.CorrelationID, reqHeartbeat) && r.CorrelationID == m.hbCorr {
			m.handleHeartbeat(env, r)
		}
	case model.LeaveGroupResponse:
		m.net.complete(broker, r.CorrelationID)
	case model.OffsetCommitResponse:
		if match(r.CorrelationID, reqOffsetCommit) {
			m.handleCommit(env, r)
		}
	case model.OffsetFetchResponse:
		if match(r.CorrelationID, reqOffsetFetch) && r.CorrelationID == m.fetchCorr {
			m.handleFetchCommitted(env, r)
		}
	}
}

// requestFailed handles a group request that got no answer: a
// timeout, a broken connection, or a coordinator given up on.
func (m *member) requestFailed(env *sim.Env, r *request) {
	now := env.Now()
	switch r.kind {
	case reqFindCoordinator:
		if r.corr == m.findCorr {
			m.findFailed(env)
		}
	case reqJoinGroup:
		if r.corr == m.joinCorr {
			m.joinCorr = 0
			m.joinFailed(env, false)
		}
	case reqSyncGroup:
		if r.corr == m.syncCorr {
			m.syncCorr = 0
			m.joinFailed(env, false)
		}
	case reqHeartbeat:
		if r.corr == m.hbCorr {
			m.hbCorr = 0
			m.hbFailures++
			m.hbNext = now + jitter(env, expBackoff(m.cl.RetryBackoff, m.cl.RetryBackoffMax, m.hbFailures-1))
		}
	case reqOffsetCommit:
		reason := "disconnect"
		if now >= r.deadline {
			reason = "timeout"
		}
		m.commitUnknown(env, r.corr, reason)
	case reqOffsetFetch:
		if r.corr == m.fetchCorr {
			m.fetchCommittedFailed(env)
		}
	}
	if r.broker == m.coordinator && r.kind != reqFindCoordinator && r.kind != reqLeaveGroup {
		m.coordinatorUnknown(env)
	}
}

// disconnected forgets the coordinator when the broken connection was to
// it (see coordinatorUnknown).
func (m *member) disconnected(env *sim.Env, broker model.BrokerID) {
	if broker == m.coordinator {
		m.coordinatorUnknown(env)
	}
}

// interest appends to topics those whose metadata the member needs: its
// subscription and, on the group leader, every topic the group
// subscribes to, whose partition counts it assigns from.
func (m *member) interest(topics []string) []string {
	topics = append(topics, m.topics...)
	return append(topics, m.groupTopics...)
}

// raiseFatal returns the error that stopped the member the first time it
// is asked, for the poll that raises it, and "" after.
func (m *member) raiseFatal() string {
	if m.fatal == "" || m.fatalRaised {
		return ""
	}
	m.fatalRaised = true
	return m.fatal
}
