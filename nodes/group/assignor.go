package group

import (
	"fmt"
	"slices"
	"sort"

	"kafkasim/model"
)

// Member is one group member as the group leader sees it in the JoinGroup
// response: its ids and its subscription, with the fields of Kafka's
// ConsumerProtocolSubscription (v1 owned partitions, v2 generation, v3
// rack) and what the sticky assignors keep in its user data.
type Member struct {
	ID string
	// InstanceID is group.instance.id (KIP-345), "" for a dynamic member.
	// A static member keeps its instance id across restarts while its
	// member id changes, so orderings prefer it (Kafka's
	// AbstractPartitionAssignor.MemberInfo).
	InstanceID   string
	Subscription []string               // topics
	Owned        []model.TopicPartition // what it owns now (v1+)
	// Generation is the member's generation when it joined (v2+), -1 for
	// none: a member that never joined, or that lost its partitions.
	Generation model.Epoch
	// RackID is client.rack (v3+, KIP-881), "" for none.
	RackID string
	// Assigned and AssignedGeneration are the user data of the sticky
	// assignors: the member's last assignment (StickyAssignor's
	// memberAssignment) and the generation it came in (-1 before any).
	// An eager member has revoked everything when it joins, so this, not
	// Owned, is what StickyAssignor keeps partitions by.
	Assigned           []model.TopicPartition
	AssignedGeneration model.Epoch
}

// Assignment maps every member id to its partitions. Each member of the
// input has an entry (possibly empty), and each list is sorted by
// TopicPartition.Less, so two equal assignments compare equal element by
// element.
type Assignment map[string][]model.TopicPartition

// Members returns the member ids in sorted order: the order in which code
// must walk an Assignment.
func (a Assignment) Members() []string {
	ids := make([]string, 0, len(a))
	for id := range a {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Owners maps each assigned partition to its member. It panics if a
// partition is assigned twice: every assignor here promises it never is.
func (a Assignment) Owners() map[model.TopicPartition]string {
	owner := map[model.TopicPartition]string{}
	for _, id := range a.Members() {
		for _, tp := range a[id] {
			if prev, ok := owner[tp]; ok {
				panic(fmt.Sprintf("group: %v assigned to both %q and %q", tp, prev, id))
			}
			owner[tp] = id
		}
	}
	return owner
}

// Protocol is the rebalance protocol an assignor supports (KIP-429).
type Protocol string

const (
	// Eager members revoke every partition before they rejoin, so an
	// assignment may move any partition at once.
	Eager Protocol = "eager"
	// Cooperative members keep their partitions while rejoining; a
	// partition that moves is revoked in one rebalance and assigned in the
	// next.
	Cooperative Protocol = "cooperative"
)

// Assignor computes a group's assignment. Implementations are stateless
// values: everything they need is in the arguments.
type Assignor interface {
	// Name is Kafka's protocol name ("range", "roundrobin", "sticky",
	// "cooperative-sticky").
	Name() string
	Protocol() Protocol
	// Assign maps every member to its partitions. partitions gives the
	// partition count of each known topic; a subscribed topic missing from
	// it is skipped, as Kafka skips topics without metadata.
	Assign(members []Member, partitions map[string]int32) Assignment
}

// ByName returns the assignor Kafka calls name, or false.
func ByName[S model.Assignor | string](name S) (Assignor, bool) {
	switch model.Assignor(name) {
	case model.AssignRange:
		return Range{}, true
	case model.AssignRoundRobin:
		return RoundRobin{}, true
	case model.AssignSticky:
		return Sticky{}, true
	case model.AssignCooperativeSticky:
		return CooperativeSticky{}, true
	}
	return nil, false
}

// memberLess orders members as Kafka's AbstractPartitionAssignor.MemberInfo
// does: static members first, by instance id, then dynamic members by
// member id. The member id breaks ties between equal instance ids, which a
// correct coordinator never produces, so that the order stays total.
func memberLess(a, b Member) bool {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		if a.InstanceID != b.InstanceID {
			return a.InstanceID < b.InstanceID
		}
	case a.InstanceID != "":
		return true
	case b.InstanceID != "":
		return false
	}
	return a.ID < b.ID
}

// sortedMembers returns a copy of members in memberLess order, panicking on
// a repeated member id (a coordinator bug, not a protocol condition).
func sortedMembers(members []Member) []Member {
	ms := slices.Clone(members)
	sort.SliceStable(ms, func(i, j int) bool { return memberLess(ms[i], ms[j]) })
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.ID] {
			panic(fmt.Sprintf("group: member id %q appears twice", m.ID))
		}
		seen[m.ID] = true
	}
	return ms
}

// subscribes reports whether m subscribes to topic.
func subscribes(m Member, topic string) bool {
	return slices.Contains(m.Subscription, topic)
}

// subscribedTopics returns, sorted and without repeats, the topics some
// member subscribes to that have a partition count.
func subscribedTopics(members []Member, partitions map[string]int32) []string {
	var topics []string
	for _, m := range members {
		for _, t := range m.Subscription {
			if _, ok := partitions[t]; ok {
				topics = append(topics, t)
			}
		}
	}
	sort.Strings(topics)
	return slices.Compact(topics)
}

// allPartitions lists every partition of topics in TopicPartition order.
func allPartitions(topics []string, partitions map[string]int32) []model.TopicPartition {
	var tps []model.TopicPartition
	for _, t := range topics {
		for p := int32(0); p < partitions[t]; p++ {
			tps = append(tps, model.TP(t, p))
		}
	}
	return tps
}

// emptyAssignment gives every member an empty, non-nil list.
func emptyAssignment(members []Member) Assignment {
	a := Assignment{}
	for _, m := range members {
		a[m.ID] = []model.TopicPartition{}
	}
	return a
}
