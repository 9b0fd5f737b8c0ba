package group

import (
	"slices"
	"time"

	"kafkasim/model"
)

// HandleJoinGroup handles a JoinGroup (GroupMetadataManager.classicGroupJoin).
// A new dynamic member gets MEMBER_ID_REQUIRED with its id (KIP-394) and
// joins again with it; a static member joins at once, and one that rejoins
// with a known group.instance.id takes its old member's place. The
// response to a successful join comes when the join phase completes.
func (c *Coordinator) HandleJoinGroup(now time.Duration, from model.BrokerID, r model.JoinGroupRequest) Effects {
	c.begin(now)
	fail := func(code model.ErrorCode) {
		c.reply(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: code, GenerationID: model.NoEpoch, MemberID: r.MemberID})
	}
	gc := c.cfg.Group
	g := c.groups[r.GroupID]
	switch {
	case r.GroupID == "":
		fail(model.InvalidGroupID)
	case r.SessionTimeout < gc.MinSessionTimeout || r.SessionTimeout > gc.MaxSessionTimeout:
		fail(model.InvalidSessionTimeout)
	case g == nil && r.MemberID != "":
		// A member id the coordinator does not know in a group it does
		// not have: the member must join afresh.
		fail(model.UnknownMemberID)
	default:
		if g == nil {
			g = newClassicGroup(r.GroupID)
			c.groups[r.GroupID] = g
		}
		switch {
		case g.state == Dead:
			// The group was just unloaded: let the member find the
			// coordinator again.
			fail(model.CoordinatorNotAvailable)
		case !g.supportsProtocols(r.Assignors):
			fail(model.InconsistentGroupProtocol)
		case r.MemberID == "":
			c.joinNewMember(g, from, r)
		default:
			c.joinExistingMember(g, from, r)
		}
	}
	return c.end()
}

// joinNewMember handles a JoinGroup without a member id.
func (c *Coordinator) joinNewMember(g *classicGroup, from model.BrokerID, r model.JoinGroupRequest) {
	id := c.newMemberID(g)
	if r.GroupInstanceID == "" {
		// KIP-394: hand out the id and remember it as pending; the member
		// must come back with it within its session timeout.
		d := &deadline{}
		d.set(c.now + r.SessionTimeout)
		g.addPending(id, d)
		c.reply(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: model.MemberIDRequired, GenerationID: model.NoEpoch, MemberID: id})
		return
	}
	if old, ok := g.static[r.GroupInstanceID]; ok {
		c.replaceStaticMember(g, old, id, from, r)
		return
	}
	c.addMember(g, id, from, r)
}

// joinExistingMember handles a JoinGroup with a member id
// (classicGroupJoinExistingMember).
func (c *Coordinator) joinExistingMember(g *classicGroup, from model.BrokerID, r model.JoinGroupRequest) {
	if g.isPending(r.MemberID) {
		// The second JoinGroup of a KIP-394 member: it becomes a member.
		c.addMember(g, r.MemberID, from, r)
		return
	}
	if code := g.validateMember(r.MemberID, r.GroupInstanceID); code != model.NoError {
		c.reply(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: code, GenerationID: model.NoEpoch, MemberID: r.MemberID})
		return
	}
	m := g.members[r.MemberID]
	p := &parked{to: from, corr: r.CorrelationID}
	switch g.state {
	case PreparingRebalance:
		c.updateMember(g, m, p, r)
	case CompletingRebalance:
		if m.matches(r) {
			// Same metadata: the member probably lost the JoinGroup
			// response; give it the current generation again.
			c.reply(from, c.joinResponse(g, m, r.CorrelationID, g.leader == m.id))
			return
		}
		c.updateMember(g, m, p, r)
	case Stable:
		if g.leader == m.id || !m.matches(r) {
			// A leader's rejoin always rebalances: it is how the leader
			// reacts to changes that do not show in member metadata,
			// such as new partitions.
			c.updateMember(g, m, p, r)
			return
		}
		// A follower with unchanged metadata just learns the current
		// generation and syncs.
		c.reply(from, c.joinResponse(g, m, r.CorrelationID, false))
	default:
		// Empty with members cannot happen; let the member start over.
		c.reply(from, model.JoinGroupResponse{CorrelationID: r.CorrelationID, Error: model.UnknownMemberID, GenerationID: model.NoEpoch, MemberID: r.MemberID})
	}
}

// joinResponse is a successful JoinGroup answer for the current
// generation; the leader's carries every member.
func (c *Coordinator) joinResponse(g *classicGroup, m *member, corr int32, withMembers bool) model.JoinGroupResponse {
	resp := model.JoinGroupResponse{
		CorrelationID: corr,
		GenerationID:  g.generation,
		Protocol:      g.protocol,
		LeaderID:      g.leader,
		MemberID:      m.id,
	}
	if withMembers {
		resp.Members = g.groupMembers()
	}
	return resp
}

// setMetadata copies a JoinGroup's member metadata and timeouts.
func setMetadata(m *member, r model.JoinGroupRequest) {
	m.sessionTimeout = r.SessionTimeout
	m.rebalanceTimeout = r.RebalanceTimeout
	m.assignors = slices.Clone(r.Assignors)
	m.topics = slices.Clone(r.Topics)
	m.owned = slices.Clone(r.Owned)
	m.sub = cloneSubscription(r.Subscription)
}

// addMember adds a member and rebalances (addMemberThenRebalanceOrCompleteJoin).
func (c *Coordinator) addMember(g *classicGroup, id string, from model.BrokerID, r model.JoinGroupRequest) {
	m := &member{id: id, instanceID: r.GroupInstanceID, isNew: true}
	setMetadata(m, r)
	m.join = &parked{to: from, corr: r.CorrelationID}
	if g.state == PreparingRebalance && g.prevState == Empty {
		// A member arriving during the initial delay extends it.
		g.newMemberAdded = true
	}
	g.add(m)
	// A new member cannot heartbeat while parked, and a client that gave
	// up would linger; bound its wait.
	m.heartbeat.set(c.now + newMemberJoinTimeout)
	c.maybePrepareRebalanceOrCompleteJoin(g, "adding member "+id)
}

// updateMember takes a known member's new metadata and parks its join
// (updateMemberThenRebalanceOrCompleteJoin).
func (c *Coordinator) updateMember(g *classicGroup, m *member, p *parked, r model.JoinGroupRequest) {
	setMetadata(m, r)
	if m.join != nil {
		// The member sent JoinGroup again while parked: Kafka answers the
		// earlier one when the phase completes, the client only waits
		// for the latest.
		m.join.dropped = true
	}
	m.join = p
	c.maybePrepareRebalanceOrCompleteJoin(g, "member "+m.id+" rejoining")
}

// replaceStaticMember lets a static member that rejoins without its
// member id take the old member's place (KIP-345,
// updateStaticMemberThenRebalanceOrCompleteJoin). In Stable with the same
// protocol and subscription there is no rebalance: the replacement is
// persisted and the member resumes its assignment.
func (c *Coordinator) replaceStaticMember(g *classicGroup, oldID, newID string, from model.BrokerID, r model.JoinGroupRequest) {
	old := g.members[oldID]
	saved := *old
	oldLeader := g.leader
	// The old incarnation is a zombie now: whatever it waits for is
	// answered FENCED_INSTANCE_ID.
	if old.join != nil {
		c.completeJoin(old, model.JoinGroupResponse{Error: model.FencedInstanceID, MemberID: oldID, GenerationID: model.NoEpoch})
	}
	if old.sync != nil {
		c.completeSync(old, model.SyncGroupResponse{Error: model.FencedInstanceID})
	}
	wasPendingSync := g.pendingSync[oldID]
	m := g.replaceStatic(oldID, newID)
	if wasPendingSync {
		g.addPendingSync(newID)
	}
	unchanged := slices.Equal(m.topics, r.Topics)
	setMetadata(m, r)
	// The new incarnation has its member id already: it is not a new
	// member whose parked join may expire, and its session starts now.
	m.isNew = false
	m.join = &parked{to: from, corr: r.CorrelationID}
	m.heartbeat.set(c.now + m.sessionTimeout)
	c.trace("static-member-replaced", g.id+" "+r.GroupInstanceID+" "+oldID+"->"+newID)
	switch g.state {
	case Stable:
		if !unchanged || g.selectProtocol() != g.protocol {
			c.maybePrepareRebalanceOrCompleteJoin(g, "static member "+newID+" changed its metadata")
			return
		}
		c.persistStaticReplacement(g, m, newID, &saved, oldLeader, r.GroupInstanceID)
	case CompletingRebalance:
		// The leader may already be computing an assignment for the old
		// member id, which the new one would never get: rebalance.
		c.prepareRebalance(g, "static member "+newID+" replaced "+oldID+" while completing a rebalance")
	case PreparingRebalance:
		c.maybeCompleteJoinPhase(g)
	}
}

// persistStaticReplacement writes a Stable group's static replacement
// (m, under newID, in saved's place) without a rebalance, and then
// answers m's join, if m still holds newID, as the current generation
// named with its leader (oldLeader); a failed write reverts the
// replacement.
func (c *Coordinator) persistStaticReplacement(g *classicGroup, m *member, newID string, saved *member, oldLeader, instance string) {
	gen := g.generation
	g.replacements++
	seq := g.replacements
	m.replacedBy = seq
	g.writing++
	c.write([]model.Record{groupMetadataRecord(g)}, func(code model.ErrorCode) {
		g.writing--
		if code != model.NoError {
			if g.generation != gen || g.state != Stable {
				// A rebalance began since: it goes on with the new
				// member id, and its assignment write will persist
				// it; renaming the member back now would take its
				// share of that rebalance away.
				return
			}
			c.revertStaticReplacement(g, saved, instance, seq, code)
			return
		}
		if g.members[newID] != m || m.join == nil {
			return
		}
		// The leader of the current generation is named as it was,
		// so a replaced leader does not compute a new assignment
		// (Kafka's skipAssignment): it just syncs and gets its own.
		resp := c.joinResponse(g, m, m.join.corr, false)
		resp.GenerationID, resp.LeaderID = gen, oldLeader
		c.completeJoin(m, resp)
	})
}

// revertStaticReplacement puts the old member (saved) back as it was
// after replacement seq's write failed; the new incarnation must retry.
// Writes fail oldest first and every write behind a failed one fails too
// (the log commits in order), so the instance goes back to the member
// this write replaced, and a later replacement of the same instance, now
// holding it, is undone with it; one made before this write was issued
// is not touched.
func (c *Coordinator) revertStaticReplacement(g *classicGroup, saved *member, instance string, seq int64, code model.ErrorCode) {
	curID, held := g.static[instance]
	cur := g.members[curID]
	if !held || cur == nil || cur.replacedBy < seq {
		return
	}
	pending := cur.join
	cur.join = nil
	// As Kafka's revert: the old id and the old protocol metadata come
	// back; what the group did since (a rebalance begun, an assignment
	// synced) stays.
	restored := g.replaceStatic(curID, saved.id)
	restored.sessionTimeout, restored.rebalanceTimeout = saved.sessionTimeout, saved.rebalanceTimeout
	restored.assignors, restored.topics, restored.owned = saved.assignors, saved.topics, saved.owned
	restored.replacedBy = saved.replacedBy
	if pending != nil && !pending.dropped {
		c.reply(pending.to, model.JoinGroupResponse{CorrelationID: pending.corr, Error: model.CoordinatorAppendError(code), GenerationID: model.NoEpoch})
	}
}

// maybePrepareRebalanceOrCompleteJoin starts a rebalance if the group is
// not in one, or completes the join phase if this was the last member it
// waited for.
func (c *Coordinator) maybePrepareRebalanceOrCompleteJoin(g *classicGroup, reason string) {
	if g.canRebalance() {
		c.prepareRebalance(g, reason)
		return
	}
	c.maybeCompleteJoinPhase(g)
}

// maybeCompleteJoinPhase completes the join phase once every member has
// joined, except during the initial delay of a new group, which always
// runs its course.
func (c *Coordinator) maybeCompleteJoinPhase(g *classicGroup) {
	if g.state == PreparingRebalance && g.hasAllMembersJoined() && g.prevState != Empty {
		c.completeJoinPhase(g)
	}
}

// prepareRebalance enters PreparingRebalance (prepareRebalance): members
// waiting for their assignment are told REBALANCE_IN_PROGRESS, and the
// join phase gets its timer: the initial delay for an Empty group, the
// rebalance timeout otherwise.
func (c *Coordinator) prepareRebalance(g *classicGroup, reason string) {
	if g.state == CompletingRebalance {
		c.resetAndPropagateAssignmentWithError(g, model.RebalanceInProgress)
	}
	g.syncExpiry.stop()
	initial := g.state == Empty
	c.transition(g, PreparingRebalance)
	c.trace("rebalance", g.id+" "+reason)
	if initial {
		delay := c.cfg.Group.InitialRebalanceDelay
		g.initialJoin = true
		g.initialDelay = delay
		g.initialLeft = max(g.rebalanceTimeout()-delay, 0)
		g.newMemberAdded = false
		g.join.set(c.now + delay)
		return
	}
	g.initialJoin = false
	g.join.set(c.now + g.rebalanceTimeout())
	c.maybeCompleteJoinPhase(g)
}

// joinTimerFired runs when the join phase's timer is due: the initial
// delay is extended while new members keep arriving and time remains
// (tryCompleteInitialRebalanceElseSchedule); otherwise the phase
// completes with whoever joined.
func (c *Coordinator) joinTimerFired(g *classicGroup) {
	g.join.stop()
	if g.initialJoin && g.newMemberAdded && g.initialLeft > 0 {
		g.newMemberAdded = false
		d := min(c.cfg.Group.InitialRebalanceDelay, g.initialLeft)
		g.initialLeft = max(g.initialLeft-g.initialDelay, 0)
		g.initialDelay = d
		g.join.set(c.now + d)
		return
	}
	g.initialJoin = false
	c.completeJoinPhase(g)
}

// completeJoinPhase ends the join phase (completeClassicGroupJoin):
// dynamic members that did not rejoin are removed (static ones wait for
// their session to expire), the generation increments, and every joined
// member gets its JoinGroupResponse, the leader with every member's
// subscription. An emptied group persists its new generation.
func (c *Coordinator) completeJoinPhase(g *classicGroup) {
	if g.state != PreparingRebalance {
		return
	}
	g.join.stop()
	for _, m := range g.all() {
		if m.join == nil && m.instanceID == "" {
			c.trace("member-removed", g.id+" "+m.id+" did not rejoin in time")
			g.remove(m.id)
		}
	}
	if !c.maybeElectNewJoinedLeader(g) && len(g.members) > 0 {
		// Nobody rejoined but static members remain: wait another
		// rebalance timeout for their sessions to expire.
		g.join.set(c.now + max(g.rebalanceTimeout(), time.Millisecond))
		return
	}
	c.initNextGeneration(g)
	if g.state == Empty {
		g.writing++
		c.write([]model.Record{groupMetadataRecord(g)}, func(code model.ErrorCode) {
			g.writing--
			if code != model.NoError {
				// Harmless: the previous generation in the log has no
				// live members either way.
				c.trace("group-write-failed", g.id+" empty generation: "+code.String())
			}
		})
		return
	}
	for _, m := range g.all() {
		if m.join != nil {
			c.completeJoin(m, c.joinResponse(g, m, m.join.corr, g.leader == m.id))
		}
		m.heartbeat.set(c.now + m.sessionTimeout)
		m.isNew = false
		g.addPendingSync(m.id)
	}
	g.syncExpiry.set(c.now + g.rebalanceTimeout())
}

// maybeElectNewJoinedLeader keeps the leader if it rejoined, or hands the
// leadership to the first member that did; false if nobody did.
func (c *Coordinator) maybeElectNewJoinedLeader(g *classicGroup) bool {
	if g.leader == "" {
		return false
	}
	if g.members[g.leader].join != nil {
		return true
	}
	for _, m := range g.all() {
		if m.join != nil {
			c.trace("leader-changed", g.id+" "+g.leader+"->"+m.id+": the leader did not rejoin")
			g.leader = m.id
			return true
		}
	}
	return false
}

// initNextGeneration bumps the generation and chooses its protocol.
func (c *Coordinator) initNextGeneration(g *classicGroup) {
	g.generation++
	clear(g.pendingSync)
	if len(g.members) > 0 {
		g.protocol = g.selectProtocol()
		c.trace("generation", g.id+" gen="+itoa(int64(g.generation))+" protocol="+string(g.protocol)+" leader="+g.leader+" members="+itoa(int64(len(g.members))))
		c.transition(g, CompletingRebalance)
		return
	}
	g.protocol = ""
	c.trace("generation", g.id+" gen="+itoa(int64(g.generation))+" empty")
	c.transition(g, Empty)
}

// completeJoin sends a parked JoinGroup's response.
func (c *Coordinator) completeJoin(m *member, resp model.JoinGroupResponse) {
	p := m.join
	m.join = nil
	if p == nil || p.dropped {
		return
	}
	resp.CorrelationID = p.corr
	c.reply(p.to, resp)
}

// completeSync sends a parked SyncGroup's response.
func (c *Coordinator) completeSync(m *member, resp model.SyncGroupResponse) {
	p := m.sync
	m.sync = nil
	if p == nil || p.dropped {
		return
	}
	resp.CorrelationID = p.corr
	c.reply(p.to, resp)
}
