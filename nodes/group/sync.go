package group

import (
	"slices"
	"strings"
	"time"

	"kafkasim/model"
)

// HandleSyncGroup handles a SyncGroup (classicGroupSync). In
// CompletingRebalance every member parks; the leader's request carries the
// assignment, which is appended to the log as the group's metadata, and
// once that write commits every parked member gets its share and the
// group is Stable. In Stable a member just gets its current assignment.
func (c *Coordinator) HandleSyncGroup(now time.Duration, from model.BrokerID, r model.SyncGroupRequest) Effects {
	c.begin(now)
	fail := func(code model.ErrorCode) {
		c.reply(from, model.SyncGroupResponse{CorrelationID: r.CorrelationID, Error: code})
	}
	g := c.groups[r.GroupID]
	switch {
	case g == nil:
		fail(model.UnknownMemberID)
	case g.state == Dead:
		fail(model.CoordinatorNotAvailable)
	default:
		if code := g.validateMember(r.MemberID, r.GroupInstanceID); code != model.NoError {
			fail(code)
			break
		}
		if r.GenerationID != g.generation {
			fail(model.IllegalGeneration)
			break
		}
		m := g.members[r.MemberID]
		switch g.state {
		case PreparingRebalance:
			fail(model.RebalanceInProgress)
		case CompletingRebalance:
			if m.sync != nil {
				m.sync.dropped = true // superseded by this request
			}
			m.sync = &parked{to: from, corr: r.CorrelationID}
			g.removePendingSync(m.id)
			if g.leader == m.id {
				c.storeAssignment(g, r)
			}
		case Stable:
			g.removePendingSync(m.id)
			c.reply(from, model.SyncGroupResponse{CorrelationID: r.CorrelationID, Partitions: slices.Clone(m.assignment)})
		default:
			fail(model.UnknownMemberID)
		}
	}
	return c.end()
}

// storeAssignment persists the leader's assignment (every member, those
// the leader left out with nothing) and completes the rebalance once the
// record commits. Should the group have moved on meanwhile (a member
// joined or left), the outcome is ignored: that rebalance answers for
// itself.
func (c *Coordinator) storeAssignment(g *classicGroup, r model.SyncGroupRequest) {
	assignment := map[string][]model.TopicPartition{}
	for _, a := range r.Assignments {
		if g.members[a.MemberID] != nil {
			assignment[a.MemberID] = slices.Clone(a.Partitions)
		}
	}
	gen := g.generation
	rec := groupMetadataRecordWith(g, func(m *member) []model.TopicPartition { return assignment[m.id] })
	g.writing++
	c.write([]model.Record{rec}, func(code model.ErrorCode) {
		g.writing--
		if g.state != CompletingRebalance || g.generation != gen {
			return
		}
		if code != model.NoError {
			err := model.CoordinatorAppendError(code)
			c.trace("group-write-failed", g.id+" assignment gen="+itoa(int64(gen))+": "+code.String())
			c.resetAndPropagateAssignmentWithError(g, err)
			c.maybePrepareRebalanceOrCompleteJoin(g, "error "+err.String()+" storing the assignment")
			return
		}
		for _, m := range g.all() {
			m.assignment = assignment[m.id]
		}
		c.propagateAssignment(g)
		c.transition(g, Stable)
	})
}

// propagateAssignment answers every parked SyncGroup with the member's
// assignment and restarts its session: an expiry that fell while it was
// parked was ignored.
func (c *Coordinator) propagateAssignment(g *classicGroup) {
	for _, m := range g.all() {
		if m.sync != nil {
			c.completeSync(m, model.SyncGroupResponse{Partitions: slices.Clone(m.assignment)})
			m.heartbeat.set(c.now + m.sessionTimeout)
		}
	}
}

// resetAndPropagateAssignmentWithError clears every assignment and answers
// the parked SyncGroups with an error (the rebalance starts over).
func (c *Coordinator) resetAndPropagateAssignmentWithError(g *classicGroup, code model.ErrorCode) {
	for _, m := range g.all() {
		m.assignment = nil
		if m.sync != nil {
			c.completeSync(m, model.SyncGroupResponse{Error: code})
			m.heartbeat.set(c.now + m.sessionTimeout)
		}
	}
}

// syncExpired runs when members had a rebalance timeout to send SyncGroup
// after the join phase and some did not: they are removed and the group
// rebalances without them (expirePendingSync).
func (c *Coordinator) syncExpired(g *classicGroup) {
	g.syncExpiry.stop()
	if g.state != CompletingRebalance && g.state != Stable {
		return
	}
	if len(g.pendingSync) == 0 {
		return
	}
	var gone []string
	for _, id := range g.order {
		if g.pendingSync[id] {
			gone = append(gone, id)
		}
	}
	for _, id := range gone {
		g.remove(id)
	}
	c.prepareRebalance(g, "members "+strings.Join(gone, ",")+" did not sync in time")
}
