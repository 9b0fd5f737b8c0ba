package client

import (
	"slices"
	"time"

	"kafkasim/model"
	"kafkasim/nodes/group"
	"kafkasim/sim"
)

// Group membership, after Kafka's AbstractCoordinator (the classic
// protocol): find the coordinator, join (JoinGroup, then SyncGroup),
// heartbeat, and start over on the errors that say the member fell out of
// the group. The rebalance itself (what is revoked, lost and assigned, and
// the callbacks) is in group_rebalance.go; commits and committed offsets
// in group_commit.go.
//
// The member is part of the Consumer's event loop: Consumer.run calls
// groupRun after every event, and groupDeadline tells it when to wake.

// Group request kinds continue network.go's list; they live here, beside
// the handlers of their answers.
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

// member is the consumer's group state.
type member struct {
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

// newMember builds the group state from the options; the subscription is
// set by Subscribe.
func newMember(o *ConsumerOptions) *member {
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
		group: o.GroupID, instance: o.GroupInstanceID, assignors: as, cooperative: coop,
		coordinator: model.NoBroker, generation: noGeneration, hbGen: noGeneration, assignedGen: noGeneration,
	}
}

// Subscribe replaces the group member's subscription
// (KafkaConsumer.subscribe) and records a subscribe op. A member already
// in a generation rejoins so that the leader assigns the new topics; a
// cooperative member first revokes the partitions of topics it dropped
// (see prepareJoin). No topics unsubscribes: the member revokes and
// leaves the group. env may be nil from harness code outside the node's
// events.
func (c *Consumer) Subscribe(env *sim.Env, topics []string) {
	env = c.envOr(env)
	m := c.grp
	if m == nil {
		panic("client.Consumer.Subscribe: the consumer has no GroupID")
	}
	topics = slices.Clone(topics)
	slices.Sort(topics)
	topics = slices.Compact(topics)
	if c.rec != nil {
		c.rec.Event(model.Op{Process: c.process, F: model.FSubscribe, Time: env.ObserverNow(), Group: m.group, Topics: slices.Clone(topics)})
	}
	changed := !slices.Equal(m.topics, topics)
	m.topics = topics
	c.setInterest()
	switch {
	case len(topics) == 0:
		c.unsubscribe(env)
	case changed && m.phase == phaseStable:
		m.rejoin = true
	}
	c.run(env)
}

// Subscription returns the group member's topics, sorted.
func (c *Consumer) Subscription() []string {
	if c.grp == nil {
		return nil
	}
	return slices.Clone(c.grp.topics)
}

// MemberID returns the member id the coordinator last gave the member, ""
// without one.
func (c *Consumer) MemberID() string {
	if c.grp == nil {
		return ""
	}
	return c.grp.memberID
}

// Generation returns the member's generation id, -1 without one.
func (c *Consumer) Generation() model.Epoch {
	if c.grp == nil {
		return noGeneration
	}
	return c.grp.generation
}

// Coordinator returns the broker the member takes for its group's
// coordinator, NoBroker while it does not know one.
func (c *Consumer) Coordinator() model.BrokerID {
	if c.grp == nil {
		return model.NoBroker
	}
	return c.grp.coordinator
}

// setInterest gives the metadata cache the topics the consumer needs:
// its assignment and, for a group member, its subscription, whose
// partition counts a group leader assigns from.
func (c *Consumer) setInterest() {
	topics := make([]string, 0, len(c.order))
	for _, tp := range c.order {
		topics = append(topics, tp.Topic)
	}
	if c.grp != nil {
		topics = append(topics, c.grp.topics...)
		topics = append(topics, c.grp.groupTopics...)
	}
	c.md.setTopics(topics)
}

// groupRun is the member's share of Consumer.run, after
// AbstractCoordinator.ensureCoordinatorReady, joinGroupIfNeeded and the
// heartbeat thread's loop.
func (c *Consumer) groupRun(env *sim.Env) {
	m := c.grp
	if m == nil || m.phase == phaseFatal {
		return
	}
	c.maybeSelfFence(env)
	c.maybeSessionExpired(env)
	if m.coordinator == model.NoBroker {
		c.findCoordinator(env)
		return
	}
	if m.phase == phaseStable && !m.rejoin && c.leaderMetadataChanged() {
		m.rejoin = true
		m.assignedCounts = nil
	}
	if m.phase == phaseUnjoined || (m.phase == phaseStable && m.rejoin) {
		c.maybeJoin(env)
	}
	if c.heartbeating() {
		c.maybeHeartbeat(env)
	}
	if m.phase == phaseStable && !m.rejoin {
		c.maybeAutoCommit(env)
	}
	if m.phase == phaseStable {
		c.maybeFetchCommitted(env)
	}
}

// groupDeadline is the earliest instant the member has something to do,
// for the consumer's wake timer.
func (c *Consumer) groupDeadline(now time.Duration) time.Duration {
	m := c.grp
	d := model.Never
	if m == nil || m.phase == phaseFatal {
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
	if c.heartbeating() && m.hbCorr == 0 {
		later(m.hbNext)
	}
	if m.phase == phaseStable && c.cfg.AutoCommit {
		later(m.autoCommitAt)
	}
	if m.phase == phaseStable && m.fetchCorr == 0 {
		later(m.fetchRetryAt)
	}
	if c.selfFenceArmed() {
		later(c.selfFenceAt())
	}
	if c.sessionWatched() {
		later(satAdd(m.sessionAt, c.cfg.SessionTimeout))
	}
	return d
}

// sessionWatched reports whether Kafka's heartbeat thread watches the
// member's session now: it is enabled from the JoinGroup answer
// (COMPLETING_REBALANCE) through the stable generation, and disabled while
// the member is unjoined or joining (MemberState.hasNotJoinedGroup).
func (c *Consumer) sessionWatched() bool {
	m := c.grp
	return m.coordinator != model.NoBroker && (m.phase == phaseSyncing || m.phase == phaseStable)
}

// maybeSessionExpired is the heartbeat thread's
// heartbeat.sessionTimeoutExpired branch (AbstractCoordinator.HeartbeatThread.run):
// a member that has heard no successful heartbeat answer for
// session.timeout.ms marks its coordinator unknown, which disconnects
// from it (markCoordinatorUnknown, client.disconnectAsync) and so fails
// every group request in flight there, a SyncGroup too. Without it, a
// member cut from its coordinator while it waited for its SyncGroup took
// the answer when the cut healed, long after its generation had been
// replaced, and owned partitions of a newer generation's members
// (group-partition-cooperative seed 730140: the answer came 25 s late,
// retransmitted by TCP). The member keeps its generation and partitions:
// Kafka's does not revoke on session expiry either.
func (c *Consumer) maybeSessionExpired(env *sim.Env) {
	m := c.grp
	if c.sessionWatched() && env.Now() >= satAdd(m.sessionAt, c.cfg.SessionTimeout) {
		c.coordinatorUnknown(env)
	}
}

// findCoordinator asks the least loaded broker for the group's
// coordinator (AbstractCoordinator.lookupCoordinator).
func (c *Consumer) findCoordinator(env *sim.Env) {
	m := c.grp
	now := env.Now()
	if m.findCorr != 0 || now < m.findRetryAt {
		return
	}
	b, ok := c.net.leastLoaded(c.md.brokers, now, &m.rr)
	if !ok && !slices.Equal(c.md.brokers, c.md.bootstrap) {
		b, ok = c.net.leastLoaded(c.md.bootstrap, now, &m.rr)
	}
	if !ok {
		return
	}
	id := m.group
	r := c.net.send(env, b, reqFindCoordinator, c.cl.RequestTimeout, func(corr int32) sim.Message {
		return model.FindCoordinatorRequest{CorrelationID: corr, GroupID: id}
	})
	m.findCorr = r.corr
}

func (c *Consumer) handleFindCoordinator(env *sim.Env, r model.FindCoordinatorResponse) {
	m := c.grp
	m.findCorr = 0
	if r.Error != model.NoError || r.Coordinator == model.NoBroker {
		// COORDINATOR_NOT_AVAILABLE while __consumer_offsets has no
		// leader (or is still being created): ask again after a backoff.
		c.findFailed(env)
		return
	}
	m.findFailures = 0
	m.coordinator = r.Coordinator
	m.sessionAt = env.Now() // heartbeat.resetSessionTimeout
}

func (c *Consumer) findFailed(env *sim.Env) {
	m := c.grp
	m.findCorr = 0
	m.findFailures++
	m.findRetryAt = env.Now() + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, m.findFailures-1))
}

// coordinatorUnknown forgets the coordinator (markCoordinatorUnknown) after
// NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or a broken connection. Kafka
// talks to the coordinator on a connection of its own and closes it, which
// fails the group requests on it; the simulated network has one
// connection per broker, shared with fetches, so the group requests are
// failed here and fetches to that broker go on. A JoinGroup or SyncGroup
// lost this way means rejoining; the generation stays, and heartbeats go
// to the next coordinator, which loads the group from the log.
func (c *Consumer) coordinatorUnknown(env *sim.Env) {
	m := c.grp
	if m.coordinator == model.NoBroker {
		return
	}
	m.coordinator = model.NoBroker
	for _, r := range slices.Clone(c.net.reqs) {
		if isGroupRequest(r.kind) && r.kind != reqFindCoordinator {
			forgetRequest(&c.net, r.corr)
			c.groupRequestFailed(env, r)
		}
	}
}

// forgetRequest drops an in-flight request without failing its
// connection: its answer, if one comes, matches nothing.
func forgetRequest(n *network, corr int32) {
	for i, r := range n.reqs {
		if r.corr == corr {
			n.reqs = slices.Delete(n.reqs, i, i+1)
			return
		}
	}
}

// groupRequestFailed handles a group request that got no answer: a
// timeout, a broken connection, or a coordinator given up on.
func (c *Consumer) groupRequestFailed(env *sim.Env, r *request) {
	m := c.grp
	now := env.Now()
	switch r.kind {
	case reqFindCoordinator:
		if r.corr == m.findCorr {
			c.findFailed(env)
		}
	case reqJoinGroup:
		if r.corr == m.joinCorr {
			m.joinCorr = 0
			c.joinFailed(env, false)
		}
	case reqSyncGroup:
		if r.corr == m.syncCorr {
			m.syncCorr = 0
			c.joinFailed(env, false)
		}
	case reqHeartbeat:
		if r.corr == m.hbCorr {
			m.hbCorr = 0
			m.hbFailures++
			m.hbNext = now + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, m.hbFailures-1))
		}
	case reqOffsetCommit:
		reason := "disconnect"
		if now >= r.deadline {
			reason = "timeout"
		}
		c.commitUnknown(env, r.corr, reason)
	case reqOffsetFetch:
		if r.corr == m.fetchCorr {
			c.fetchCommittedFailed(env)
		}
	}
	if r.broker == m.coordinator && r.kind != reqFindCoordinator && r.kind != reqLeaveGroup {
		c.coordinatorUnknown(env)
	}
}

// joinFailed sends the member back to rejoin; after an error that is not
// one of the immediate-rejoin ones, it waits retry.backoff.ms, growing.
func (c *Consumer) joinFailed(env *sim.Env, now bool) {
	m := c.grp
	m.phase = phaseUnjoined
	if now {
		m.joinRetryAt = 0
		return
	}
	m.joinFailures++
	m.joinRetryAt = env.Now() + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, m.joinFailures-1))
}

// maybeJoin sends a JoinGroup once the member has prepared for it: the
// subscription's metadata is known (the leader assigns from it), and
// onJoinPrepare has committed (with auto-commit) and revoked what the
// protocol revokes before joining.
func (c *Consumer) maybeJoin(env *sim.Env) {
	m := c.grp
	now := env.Now()
	if m.joinCorr != 0 || m.syncCorr != 0 || now < m.joinRetryAt || len(m.topics) == 0 {
		return
	}
	for _, t := range m.topics {
		if _, ok := c.md.partitions(t); !ok {
			return // the metadata answer that names it calls run again
		}
	}
	if !c.net.ready(m.coordinator, now) || !c.prepareJoin(env) {
		return
	}
	req := model.JoinGroupRequest{
		GroupID: m.group, MemberID: m.memberID, GroupInstanceID: m.instance,
		SessionTimeout: c.cfg.SessionTimeout, RebalanceTimeout: c.cfg.MaxPollInterval,
		Assignors: slices.Clone(m.assignors), Topics: slices.Clone(m.topics), Owned: slices.Clone(c.order),
		// ConsumerCoordinator.metadata: the generation rides with the
		// owned partitions (ConsumerProtocolSubscription v2), so the
		// leader can tell a stale claim from a current one.
		// No RackID: the simulated cluster has no racks (no broker.rack,
		// no replica racks in metadata), so client.rack is not modelled.
		Subscription: model.Subscription{
			GenerationID: m.generation,
			Assigned:     slices.Clone(m.assigned), AssignedGeneration: m.assignedGen,
		},
	}
	timeout := max(c.cl.RequestTimeout, satAdd(c.cfg.MaxPollInterval, joinTimeoutLapse))
	r := c.net.send(env, m.coordinator, reqJoinGroup, timeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.joinCorr, m.joinSent = r.corr, now
	m.phase = phaseJoining
	m.rejoin = false
}

// handleJoin is AbstractCoordinator.JoinGroupResponseHandler.
func (c *Consumer) handleJoin(env *sim.Env, r model.JoinGroupResponse) {
	m := c.grp
	m.joinCorr = 0
	switch r.Error {
	case model.NoError:
		m.memberID, m.generation = r.MemberID, r.GenerationID
		m.aliveFrom = max(m.aliveFrom, m.joinSent)
		m.phase = phaseSyncing
		m.hbNext = env.Now() + c.cfg.HeartbeatInterval
		m.sessionAt = env.Now() // HeartbeatThread.enable: heartbeat.resetTimeouts
		var assignments []model.MemberAssignment
		if r.LeaderID == r.MemberID {
			assignments = c.leaderAssign(r)
		} else if m.groupTopics != nil {
			m.groupTopics, m.assignedCounts = nil, nil
			c.setInterest()
		}
		req := model.SyncGroupRequest{
			GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID,
			GroupInstanceID: m.instance, Assignments: assignments,
		}
		rq := c.net.send(env, m.coordinator, reqSyncGroup, c.cl.RequestTimeout, func(corr int32) sim.Message {
			req.CorrelationID = corr
			return req
		})
		m.syncCorr, m.syncSent = rq.corr, env.Now()
	case model.MemberIDRequired:
		// KIP-394: the coordinator named the member; join again with it.
		m.memberID = r.MemberID
		c.joinFailed(env, true)
	case model.UnknownMemberID:
		c.resetGeneration(env, true)
		c.joinFailed(env, true)
	case model.IllegalGeneration:
		c.resetGeneration(env, false)
		c.joinFailed(env, true)
	case model.RebalanceInProgress:
		c.joinFailed(env, true)
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		// Retriable: joinGroupIfNeeded sleeps retry.backoff.ms before the
		// next attempt, and the backoff grows while the rebalance keeps
		// failing (a coordinator that cannot write the group's metadata
		// answers this to every SyncGroup).
		c.joinFailed(env, false)
		c.coordinatorUnknown(env)
	case model.FencedInstanceID, model.InconsistentGroupProtocol, model.InvalidSessionTimeout, model.GroupMaxSizeReached:
		// Fatal in Kafka: the exception reaches the application.
		c.groupFatal(env, r.Error.String())
	default:
		// COORDINATOR_LOAD_IN_PROGRESS and anything unexpected: retry.
		c.joinFailed(env, false)
	}
}

// handleSync is AbstractCoordinator.SyncGroupResponseHandler.
func (c *Consumer) handleSync(env *sim.Env, r model.SyncGroupResponse) {
	m := c.grp
	m.syncCorr = 0
	switch r.Error {
	case model.NoError:
		m.phase = phaseStable
		m.rejoin, m.prepared, m.prepDone = false, false, false
		m.joinFailures = 0
		m.aliveFrom = max(m.aliveFrom, m.syncSent)
		m.stableAt = max(m.stableAt, m.syncSent)
		if m.autoCommitAt == 0 {
			m.autoCommitAt = env.Now() + c.cfg.AutoCommitInterval
		}
		c.takeAssignment(env, r.Partitions)
	case model.RebalanceInProgress:
		c.joinFailed(env, true)
	case model.UnknownMemberID:
		c.resetGeneration(env, true)
		c.joinFailed(env, true)
	case model.IllegalGeneration:
		c.resetGeneration(env, false)
		c.joinFailed(env, true)
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		// Retriable: joinGroupIfNeeded sleeps retry.backoff.ms before the
		// next attempt, and the backoff grows while the rebalance keeps
		// failing (a coordinator that cannot write the group's metadata
		// answers this to every SyncGroup).
		c.joinFailed(env, false)
		c.coordinatorUnknown(env)
	case model.FencedInstanceID:
		c.groupFatal(env, r.Error.String())
	default:
		c.joinFailed(env, false)
	}
}

// heartbeating reports whether the member heartbeats now: from the join
// answer on, as Kafka does (it heartbeats while it waits for its SyncGroup
// answer too), and, with consumer.self.fencing, also while its JoinGroup
// is in flight if it still owns partitions. The coordinator may hold a
// JoinGroup for the whole rebalance timeout, longer than a session, and a
// JoinGroup lost on its way proves nothing; heartbeats answered
// REBALANCE_IN_PROGRESS meanwhile show the member is still counted, so a
// cooperative member keeps its partitions through a long rebalance without
// trusting a request that may never have arrived.
func (c *Consumer) heartbeating() bool {
	m := c.grp
	switch m.phase {
	case phaseSyncing, phaseStable:
		return true
	case phaseJoining:
		return c.cfg.SelfFencing && m.generation != noGeneration && len(c.order) > 0
	}
	return false
}

// maybeHeartbeat sends a heartbeat every heartbeat.interval.ms, one at a
// time.
func (c *Consumer) maybeHeartbeat(env *sim.Env) {
	m := c.grp
	now := env.Now()
	if m.hbCorr != 0 || now < m.hbNext || !c.net.ready(m.coordinator, now) {
		return
	}
	req := model.HeartbeatRequest{GroupID: m.group, GenerationID: m.generation, MemberID: m.memberID, GroupInstanceID: m.instance}
	r := c.net.send(env, m.coordinator, reqHeartbeat, c.cl.RequestTimeout, func(corr int32) sim.Message {
		req.CorrelationID = corr
		return req
	})
	m.hbCorr, m.hbSent, m.hbGen = r.corr, now, m.generation
}

// handleHeartbeat is AbstractCoordinator.HeartbeatResponseHandler and the
// heartbeat thread's listener.
func (c *Consumer) handleHeartbeat(env *sim.Env, r model.HeartbeatResponse) {
	m := c.grp
	m.hbCorr = 0
	now := env.Now()
	same := m.hbGen == m.generation
	switch r.Error {
	case model.NoError:
		m.hbFailures = 0
		m.hbNext = m.hbSent + c.cfg.HeartbeatInterval
		m.aliveFrom = max(m.aliveFrom, m.hbSent)
		m.sessionAt = now // heartbeat.receiveHeartbeat
		if m.phase == phaseStable && same {
			m.stableAt = max(m.stableAt, m.hbSent)
		}
		return
	case model.RebalanceInProgress:
		// The coordinator still counts the member (it keeps it for the
		// rebalance timeout); a stable member rejoins. While its SyncGroup
		// is in flight, that answer will say the same.
		m.hbFailures = 0
		m.hbNext = m.hbSent + c.cfg.HeartbeatInterval
		m.aliveFrom = max(m.aliveFrom, m.hbSent)
		m.sessionAt = now // receiveHeartbeat, as for NONE
		if m.phase == phaseStable && same {
			m.rejoin = true
		}
		return
	case model.IllegalGeneration, model.UnknownMemberID:
		// The coordinator expired the member or moved past its generation:
		// its partitions may already be someone else's. A stale answer (the
		// generation moved on since it was sent) is ignored, as Kafka does.
		if same && m.generation != noGeneration {
			c.resetGeneration(env, r.Error == model.UnknownMemberID)
			c.joinFailed(env, true)
		}
		return
	case model.NotCoordinator, model.CoordinatorNotAvailable:
		c.coordinatorUnknown(env)
	case model.FencedInstanceID:
		c.groupFatal(env, r.Error.String())
		return
	}
	m.hbFailures++
	m.hbNext = now + jitter(env, expBackoff(c.cl.RetryBackoff, c.cl.RetryBackoffMax, m.hbFailures-1))
}

// resetGeneration is resetStateAndGeneration: the member's partitions are
// lost (it may no longer own them), its generation is gone, and with
// UNKNOWN_MEMBER_ID its member id too. Kafka reports the loss in the next
// onJoinPrepare; it is reported here, at the instant the member learns of
// it, so that the history shows it stop reading no later than it does.
func (c *Consumer) resetGeneration(env *sim.Env, memberToo bool) {
	m := c.grp
	c.losePartitions(env)
	m.generation = noGeneration
	if memberToo {
		m.memberID = ""
	}
	m.prepared, m.prepDone = false, false
	m.rejoin = false
	for _, corr := range []int32{m.joinCorr, m.syncCorr, m.hbCorr} {
		if corr != 0 {
			forgetRequest(&c.net, corr)
		}
	}
	m.joinCorr, m.syncCorr, m.hbCorr = 0, 0, 0
	m.phase = phaseUnjoined
}

// groupFatal stops the member for good (FENCED_INSTANCE_ID: another
// process took its group.instance.id; Kafka raises it from poll and the
// consumer is unusable): its partitions are lost and the next poll fails
// with the error.
func (c *Consumer) groupFatal(env *sim.Env, err string) {
	m := c.grp
	c.losePartitions(env)
	for _, r := range slices.Clone(c.net.reqs) {
		if isGroupRequest(r.kind) {
			forgetRequest(&c.net, r.corr)
			if r.kind == reqOffsetCommit {
				c.commitUnknown(env, r.corr, err)
			}
		}
	}
	m.phase, m.fatal = phaseFatal, err
	m.joinCorr, m.syncCorr, m.hbCorr, m.fetchCorr, m.findCorr = 0, 0, 0, 0, 0
}

// selfFenceArmed reports whether consumer.self.fencing watches the
// member's session now: whenever it owns partitions. A JoinGroup or
// SyncGroup in flight does not pause the watch: it may never have reached
// the coordinator (see heartbeating).
func (c *Consumer) selfFenceArmed() bool {
	m := c.grp
	return c.cfg.SelfFencing && m != nil && m.phase != phaseFatal && len(c.order) > 0
}

// selfFenceAt is when consumer.self.fencing gives the member's partitions
// up: session.timeout.ms after aliveFrom, or, while a rebalance is under
// way, max.poll.interval.ms after stableAt if that comes first (a
// JoinGroup lost on its way leaves a heartbeating member a straggler the
// coordinator drops at the rebalance timeout).
func (c *Consumer) selfFenceAt() time.Duration {
	m := c.grp
	at := satAdd(m.aliveFrom, c.cfg.SessionTimeout)
	if m.phase != phaseStable {
		at = min(at, satAdd(m.stableAt, c.cfg.MaxPollInterval))
	}
	return at
}

// maybeSelfFence treats the member's partitions as lost at selfFenceAt,
// before the coordinator can have given them to anyone else. The classic consumer does not: its
// heartbeat thread (AbstractCoordinator.HeartbeatThread.run) on
// heartbeat.sessionTimeoutExpired only calls markCoordinatorUnknown and
// goes on, and its fetcher goes on reading, which is the zombie that
// consumer.self.fencing=false keeps. The member keeps its id and rejoins
// with no generation, so a coordinator that never expired it takes it back.
func (c *Consumer) maybeSelfFence(env *sim.Env) {
	m := c.grp
	if !c.selfFenceArmed() || env.Now() < c.selfFenceAt() {
		return
	}
	c.resetGeneration(env, false)
	m.joinRetryAt = 0
}

// leaveGroup is KafkaConsumer.close for a member (ConsumerCoordinator.close):
// a last auto-commit, the partitions revoked, and a LeaveGroup so that the
// group rebalances at once instead of after session.timeout.ms. A static
// member does not leave (KIP-345): its restart takes its place back.
func (c *Consumer) leaveGroup(env *sim.Env) {
	m := c.grp
	if m.generation != noGeneration {
		c.revokePartitions(env, slices.Clone(c.order))
	} else {
		c.losePartitions(env)
	}
	if m.instance == "" && m.memberID != "" && m.coordinator != model.NoBroker && m.phase != phaseUnjoined {
		req := model.LeaveGroupRequest{GroupID: m.group, MemberID: m.memberID}
		c.net.send(env, m.coordinator, reqLeaveGroup, c.cl.RequestTimeout, func(corr int32) sim.Message {
			req.CorrelationID = corr
			return req
		})
	}
}

// Stop is a graceful shutdown (sim.Stopper), KafkaConsumer.close: a group
// member commits what it consumed (with auto-commit), revokes and leaves
// its group (see leaveGroup).
func (c *Consumer) Stop(env *sim.Env) {
	m := c.grp
	if m == nil || m.phase == phaseFatal {
		return
	}
	if c.cfg.AutoCommit && m.phase == phaseStable && m.coordinator != model.NoBroker {
		c.commitPositions(env, true)
	}
	c.leaveGroup(env)
	m.phase = phaseFatal // nothing more from this incarnation
}

// unsubscribe is KafkaConsumer.unsubscribe, what subscribing to nothing
// means: revoke, leave the group, and forget the generation and (for a
// dynamic member) the member id, so that a later subscription joins anew.
func (c *Consumer) unsubscribe(env *sim.Env) {
	m := c.grp
	if m.phase == phaseFatal {
		return
	}
	c.leaveGroup(env)
	for _, r := range slices.Clone(c.net.reqs) {
		if isGroupRequest(r.kind) && r.kind != reqFindCoordinator && r.kind != reqLeaveGroup && r.kind != reqOffsetCommit {
			forgetRequest(&c.net, r.corr)
		}
	}
	m.joinCorr, m.syncCorr, m.hbCorr, m.fetchCorr = 0, 0, 0, 0
	m.generation = noGeneration
	if m.instance == "" {
		m.memberID = ""
	}
	m.phase, m.rejoin, m.prepared, m.prepDone, m.prepCommit = phaseUnjoined, false, false, false, 0
}

// receiveGroup handles the answers to group requests; it reports whether
// m was one.
func (c *Consumer) receiveGroup(env *sim.Env, broker model.BrokerID, msg sim.Message) bool {
	m := c.grp
	match := func(corr int32, kind reqKind) bool {
		req := c.net.complete(broker, corr)
		return req != nil && req.kind == kind && m != nil && m.phase != phaseFatal
	}
	switch r := msg.(type) {
	case model.FindCoordinatorResponse:
		if match(r.CorrelationID, reqFindCoordinator) && r.CorrelationID == m.findCorr {
			c.handleFindCoordinator(env, r)
		}
	case model.JoinGroupResponse:
		if match(r.CorrelationID, reqJoinGroup) && r.CorrelationID == m.joinCorr {
			c.handleJoin(env, r)
		}
	case model.SyncGroupResponse:
		if match(r.CorrelationID, reqSyncGroup) && r.CorrelationID == m.syncCorr {
			c.handleSync(env, r)
		}
	case model.HeartbeatResponse:
		if match(r.CorrelationID, reqHeartbeat) && r.CorrelationID == m.hbCorr {
			c.handleHeartbeat(env, r)
		}
	case model.LeaveGroupResponse:
		c.net.complete(broker, r.CorrelationID)
	case model.OffsetCommitResponse:
		if match(r.CorrelationID, reqOffsetCommit) {
			c.handleCommit(env, r)
		}
	case model.OffsetFetchResponse:
		if match(r.CorrelationID, reqOffsetFetch) && r.CorrelationID == m.fetchCorr {
			c.handleFetchCommitted(env, r)
		}
	default:
		return false
	}
	return true
}
