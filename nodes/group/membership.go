package group

import (
	"time"

	"kafkasim/model"
)

// HandleHeartbeat handles a Heartbeat (classicGroupHeartbeat): it keeps a
// current member's session alive and tells it whether a rebalance is on.
func (c *Coordinator) HandleHeartbeat(now time.Duration, from model.BrokerID, r model.HeartbeatRequest) Effects {
	c.begin(now)
	c.reply(from, model.HeartbeatResponse{CorrelationID: r.CorrelationID, Error: c.heartbeat(r)})
	return c.end()
}

func (c *Coordinator) heartbeat(r model.HeartbeatRequest) model.ErrorCode {
	g := c.groups[r.GroupID]
	switch {
	case g == nil:
		return model.UnknownMemberID
	case g.state == Dead:
		return model.CoordinatorNotAvailable
	}
	if code := g.validateMember(r.MemberID, r.GroupInstanceID); code != model.NoError {
		return code
	}
	if r.GenerationID != g.generation {
		return model.IllegalGeneration
	}
	m := g.members[r.MemberID]
	switch g.state {
	case PreparingRebalance:
		m.heartbeat.set(c.now + m.sessionTimeout)
		return model.RebalanceInProgress
	case CompletingRebalance, Stable:
		// A member may heartbeat between its JoinGroup response and its
		// SyncGroup: that is an ordinary heartbeat.
		m.heartbeat.set(c.now + m.sessionTimeout)
		return model.NoError
	}
	return model.UnknownMemberID
}

// HandleLeaveGroup handles a LeaveGroup (classicGroupLeave): the member is
// removed at once and the group rebalances without waiting for its
// session to expire.
func (c *Coordinator) HandleLeaveGroup(now time.Duration, from model.BrokerID, r model.LeaveGroupRequest) Effects {
	c.begin(now)
	c.reply(from, model.LeaveGroupResponse{CorrelationID: r.CorrelationID, Error: c.leave(r)})
	return c.end()
}

func (c *Coordinator) leave(r model.LeaveGroupRequest) model.ErrorCode {
	g := c.groups[r.GroupID]
	switch {
	case g == nil:
		return model.UnknownMemberID
	case g.state == Dead:
		return model.CoordinatorNotAvailable
	case r.GroupInstanceID == "" && g.isPending(r.MemberID):
		// A KIP-394 id that never joined: forget it, which may be what
		// the join phase was waiting for.
		delete(g.pending, r.MemberID)
		c.maybeCompleteJoinPhase(g)
		return model.NoError
	}
	id := r.MemberID
	if r.GroupInstanceID != "" {
		existing, ok := g.static[r.GroupInstanceID]
		switch {
		case !ok:
			return model.UnknownMemberID
		case r.MemberID != "" && existing != r.MemberID:
			return model.FencedInstanceID
		}
		id = existing
	} else if g.members[id] == nil {
		return model.UnknownMemberID
	}
	c.removeMember(g, g.members[id], "member "+id+" left")
	return model.NoError
}

// removeMember removes a member that left or failed
// (removeMemberAndUpdateClassicGroup). A new member still parked in
// JoinGroup is answered UNKNOWN_MEMBER_ID so that, if alive, it joins
// again.
func (c *Coordinator) removeMember(g *classicGroup, m *member, reason string) {
	if m.join != nil {
		c.completeJoin(m, model.JoinGroupResponse{Error: model.UnknownMemberID, GenerationID: model.NoEpoch})
	}
	if m.sync != nil {
		c.completeSync(m, model.SyncGroupResponse{Error: model.UnknownMemberID})
	}
	c.trace("member-removed", g.id+" "+reason)
	g.remove(m.id)
	switch g.state {
	case Stable, CompletingRebalance:
		c.maybePrepareRebalanceOrCompleteJoin(g, reason)
	case PreparingRebalance:
		c.maybeCompleteJoinPhase(g)
	}
}

// heartbeatExpired runs when a member's heartbeat deadline passes
// (classicGroupMemberHeartbeatExpiration).
func (c *Coordinator) heartbeatExpired(g *classicGroup, m *member) {
	m.heartbeat.stop()
	if m.hasSatisfiedHeartbeat() {
		return
	}
	c.removeMember(g, m, "member "+m.id+" session expired")
}

// pendingExpired forgets a KIP-394 member id that did not come back
// within its session timeout.
func (c *Coordinator) pendingExpired(g *classicGroup, id string) {
	delete(g.pending, id)
	c.trace("pending-member-expired", g.id+" "+id)
	c.maybeCompleteJoinPhase(g)
}
