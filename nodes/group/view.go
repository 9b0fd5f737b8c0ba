package group

import (
	"slices"
	"time"

	"kafkasim/model"
)

// GroupView is a read-only snapshot of one group, for tests, observers
// and the harness.
type GroupView struct {
	ID         string
	State      State
	Generation model.Epoch
	Protocol   model.Assignor
	Leader     string
	// Members in join order.
	Members []MemberView
	// Pending are KIP-394 member ids handed out and not yet used, sorted.
	Pending []string
	// Writing is how many of the group's metadata writes are in flight.
	Writing int
}

// MemberView is one member of a GroupView.
type MemberView struct {
	ID, InstanceID   string
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration
	Topics           []string
	Owned            []model.TopicPartition
	Assignment       []model.TopicPartition
	AwaitingJoin     bool
	AwaitingSync     bool
}

// Group returns a snapshot of a group, or false if the shard does not
// have it.
func (c *Coordinator) Group(id string) (GroupView, bool) {
	g := c.groups[id]
	if g == nil {
		return GroupView{}, false
	}
	v := GroupView{ID: g.id, State: g.state, Generation: g.generation, Protocol: g.protocol, Leader: g.leader, Writing: g.writing}
	for _, m := range g.all() {
		v.Members = append(v.Members, MemberView{
			ID: m.id, InstanceID: m.instanceID,
			SessionTimeout: m.sessionTimeout, RebalanceTimeout: m.rebalanceTimeout,
			Topics: slices.Clone(m.topics), Owned: slices.Clone(m.owned), Assignment: slices.Clone(m.assignment),
			AwaitingJoin: m.join != nil, AwaitingSync: m.sync != nil,
		})
	}
	for id := range g.pending {
		v.Pending = append(v.Pending, id)
	}
	slices.Sort(v.Pending)
	return v, true
}

// Groups lists the shard's group ids, sorted.
func (c *Coordinator) Groups() []string { return c.groupIDs() }

// Offsets returns a group's committed offsets, sorted by partition.
func (c *Coordinator) Offsets(group string) []model.CommittedOffset {
	var out []model.CommittedOffset
	for tp, o := range c.offsets[group] {
		out = append(out, model.CommittedOffset{TP: tp, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch})
	}
	slices.SortFunc(out, func(a, b model.CommittedOffset) int { return a.TP.Compare(b.TP) })
	return out
}

// OffsetGroups lists the groups with committed offsets, sorted.
func (c *Coordinator) OffsetGroups() []string {
	var out []string
	for g, m := range c.offsets {
		if len(m) > 0 {
			out = append(out, g)
		}
	}
	slices.Sort(out)
	return out
}
