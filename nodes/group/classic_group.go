package group

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"kafkasim/model"
)

// State is a classic group's state (Kafka's ClassicGroupState).
type State string

// The states and the transitions between them (ClassicGroup.java):
//
//	Empty               -> PreparingRebalance (a member joins)
//	PreparingRebalance  -> CompletingRebalance (the join phase completes with members)
//	                    -> Empty (it completes with none)
//	CompletingRebalance -> Stable (the leader's assignment is committed)
//	                    -> PreparingRebalance (a member joins, leaves or fails)
//	Stable              -> PreparingRebalance (a member joins, leaves or fails)
//	any                 -> Dead (the coordinator unloads the group)
const (
	Empty               State = "Empty"
	PreparingRebalance  State = "PreparingRebalance"
	CompletingRebalance State = "CompletingRebalance"
	Stable              State = "Stable"
	Dead                State = "Dead"
)

// parked is a request waiting for its response: a JoinGroup until the
// join phase completes, a SyncGroup until the assignment is committed.
type parked struct {
	to   model.BrokerID
	corr int32
	// dropped: the client's connection broke; the response is not sent.
	dropped bool
}

// member is one member of a classic group (ClassicGroupMember).
type member struct {
	id, instanceID   string
	sessionTimeout   time.Duration
	rebalanceTimeout time.Duration
	// The member's protocol metadata: the assignors it supports in
	// preference order, its subscription and what it owns now.
	assignors []model.Assignor
	topics    []string
	owned     []model.TopicPartition
	// sub is the rest of the member's subscription metadata (generation,
	// rack, the sticky assignors' user data), relayed to the leader.
	sub        model.Subscription
	assignment []model.TopicPartition

	join *parked // awaiting a JoinGroup response
	sync *parked // awaiting a SyncGroup response
	// isNew: joined in the current join phase and has not yet had a
	// JoinGroup response; such a member may expire while parked.
	isNew bool
	// heartbeat is when the member's session (or, while new, its join)
	// expires; see hasSatisfiedHeartbeat.
	heartbeat deadline
	// replacedBy is the sequence number of the static replacement write
	// that gave this member its id (0: none), so that a failed write
	// reverts exactly the replacements made after it (see
	// revertStaticReplacement).
	replacedBy int64
}

// deadline is one timer: off, or due at a virtual time.
type deadline struct {
	at time.Duration
	on bool
}

func (d *deadline) set(at time.Duration) { *d = deadline{at: at, on: true} }
func (d *deadline) stop()                { *d = deadline{} }

// hasSatisfiedHeartbeat tells whether a member whose heartbeat deadline
// passed may stay (ClassicGroupMember.hasSatisfiedHeartbeat): a new member
// may not, a member parked in a rebalance may (the rebalance has its own
// timeouts), any other member needed a heartbeat.
func (m *member) hasSatisfiedHeartbeat() bool {
	if m.isNew {
		return false
	}
	return m.join != nil || m.sync != nil
}

// matches tells whether a JoinGroup carries the member's current
// metadata; a change forces a rebalance.
func (m *member) matches(r model.JoinGroupRequest) bool {
	return slices.Equal(m.assignors, r.Assignors) && slices.Equal(m.topics, r.Topics) && slices.Equal(m.owned, r.Owned) &&
		sameSubscription(m.sub, r.Subscription)
}

// supports tells whether the member lists assignor a.
func (m *member) supports(a model.Assignor) bool { return slices.Contains(m.assignors, a) }

// classicGroup is one group (ClassicGroup.java).
type classicGroup struct {
	id         string
	state      State
	prevState  State
	generation model.Epoch
	protocol   model.Assignor // chosen for the generation; "" when Empty
	leader     string

	members map[string]*member
	// order is the member ids in join order; Kafka's leader election and
	// member walks follow its map's order, here this slice's.
	order  []string
	static map[string]string // group.instance.id -> member id
	// pending are KIP-394 member ids handed out with MEMBER_ID_REQUIRED
	// and not yet used, with the deadline by which they must rejoin.
	pending     map[string]*deadline
	pendingSync map[string]bool // members that have not sent SyncGroup yet

	// The join phase: a rebalance timer; for the first rebalance of an
	// empty group the initial delay and what remains of it
	// (group.initial.rebalance.delay.ms).
	join           deadline
	initialJoin    bool
	initialDelay   time.Duration
	initialLeft    time.Duration
	newMemberAdded bool
	// The sync phase: members must send SyncGroup by this deadline.
	syncExpiry deadline
	// replacements numbers the static replacement writes issued, from 1.
	replacements int64
	// writing counts this group's metadata writes in flight, for the
	// tests that compare the live state with a replay of the log.
	writing int
}

func newClassicGroup(id string) *classicGroup {
	return &classicGroup{
		id:          id,
		state:       Empty,
		prevState:   Empty,
		members:     map[string]*member{},
		static:      map[string]string{},
		pending:     map[string]*deadline{},
		pendingSync: map[string]bool{},
	}
}

func (g *classicGroup) isPending(id string) bool { return g.pending[id] != nil }

// addPending remembers a KIP-394 member id handed out with
// MEMBER_ID_REQUIRED until d. An id that is already a member's is a
// coordinator bug (ClassicGroup.addPendingMember throws).
func (g *classicGroup) addPending(id string, d *deadline) {
	if g.members[id] != nil {
		panic("group " + g.id + ": pending member " + id + " is already a member")
	}
	g.pending[id] = d
}

// addPendingSync and removePendingSync track the members that have not
// sent SyncGroup in this generation. Either on an id that is not a member
// is a coordinator bug (ClassicGroup.addPendingSyncMember and
// removePendingSyncMember throw).
func (g *classicGroup) addPendingSync(id string) {
	if g.members[id] == nil {
		panic("group " + g.id + ": pending sync of unknown member " + id)
	}
	g.pendingSync[id] = true
}

func (g *classicGroup) removePendingSync(id string) {
	if g.members[id] == nil {
		panic("group " + g.id + ": pending sync of unknown member " + id)
	}
	delete(g.pendingSync, id)
}

// all walks the members in join order.
func (g *classicGroup) all() []*member {
	ms := make([]*member, len(g.order))
	for i, id := range g.order {
		ms[i] = g.members[id]
	}
	return ms
}

// add makes m a member; the first member of a group leads it. Adding a
// member id or a group.instance.id the group already has is a coordinator
// bug and panics, as ClassicGroup.add throws IllegalStateException for a
// static member already present.
func (g *classicGroup) add(m *member) {
	if g.members[m.id] != nil {
		panic("group " + g.id + ": member " + m.id + " added twice")
	}
	if _, ok := g.static[m.instanceID]; ok && m.instanceID != "" {
		panic("group " + g.id + ": static member " + m.instanceID + " is already a member")
	}
	delete(g.pending, m.id)
	g.members[m.id] = m
	g.order = append(g.order, m.id)
	if m.instanceID != "" {
		g.static[m.instanceID] = m.id
	}
	if g.leader == "" {
		g.leader = m.id
	}
}

// remove drops a member, or forgets a pending member id (as
// ClassicGroup.remove clears both); a departing leader is replaced by the
// first remaining member.
func (g *classicGroup) remove(id string) {
	delete(g.pending, id)
	m := g.members[id]
	if m == nil {
		return
	}
	delete(g.members, id)
	delete(g.pendingSync, id)
	g.order = slices.DeleteFunc(g.order, func(x string) bool { return x == id })
	if m.instanceID != "" && g.static[m.instanceID] == id {
		delete(g.static, m.instanceID)
	}
	if g.leader == id {
		g.leader = ""
		if len(g.order) > 0 {
			g.leader = g.order[0]
		}
	}
}

// replaceStatic gives a static member a new member id, keeping its place,
// its assignment and its leadership (ClassicGroup.replaceStaticMember). It
// panics if there is no such member.
func (g *classicGroup) replaceStatic(oldID, newID string) *member {
	m := g.members[oldID]
	if m == nil {
		// Kafka throws IllegalArgumentException ("Cannot replace
		// non-existing member id").
		panic("group " + g.id + ": cannot replace non-existing member " + oldID)
	}
	delete(g.members, oldID)
	delete(g.pendingSync, oldID)
	m.id = newID
	g.members[newID] = m
	g.order[slices.Index(g.order, oldID)] = newID
	g.static[m.instanceID] = newID
	if g.leader == oldID {
		g.leader = newID
	}
	return m
}

// hasAllMembersJoined: every member is parked in JoinGroup and no KIP-394
// member id is still outstanding.
func (g *classicGroup) hasAllMembersJoined() bool {
	for _, m := range g.members {
		if m.join == nil {
			return false
		}
	}
	return len(g.pending) == 0
}

// rebalanceTimeout is the largest rebalance timeout of the members
// (max.poll.interval.ms of the slowest consumer).
func (g *classicGroup) rebalanceTimeout() time.Duration {
	var d time.Duration
	for _, m := range g.members {
		d = max(d, m.rebalanceTimeout)
	}
	return d
}

// canRebalance: PreparingRebalance may be entered from here.
func (g *classicGroup) canRebalance() bool {
	return g.state == Stable || g.state == CompletingRebalance || g.state == Empty
}

// supportsProtocols tells whether a member listing assignors may join:
// any non-empty list for an Empty group, otherwise one assignor every
// current member supports (ClassicGroup.supportsProtocols).
func (g *classicGroup) supportsProtocols(assignors []model.Assignor) bool {
	if len(assignors) == 0 {
		return false
	}
	if g.state == Empty {
		return true
	}
	for _, a := range assignors {
		n := 0
		for _, m := range g.members {
			if m.supports(a) {
				n++
			}
		}
		if n == len(g.members) {
			return true
		}
	}
	return false
}

// selectProtocol picks the generation's assignor as Kafka does
// (ClassicGroup.selectProtocol): among the assignors every member
// supports, each member votes for the first in its own preference order,
// and the most votes win. Kafka breaks a tie by hash-map order; here the
// first member's preference breaks it, so that the choice is
// deterministic. It panics on a group without members.
func (g *classicGroup) selectProtocol() model.Assignor {
	ms := g.all()
	if len(ms) == 0 {
		// Kafka throws IllegalStateException: a generation without
		// members has no protocol, and initNextGeneration never asks.
		panic("group " + g.id + ": selectProtocol with no members")
	}
	var candidates []model.Assignor
	for _, a := range ms[0].assignors {
		all := true
		for _, m := range ms {
			all = all && m.supports(a)
		}
		if all {
			candidates = append(candidates, a)
		}
	}
	votes := map[model.Assignor]int{}
	for _, m := range ms {
		for _, a := range m.assignors {
			if slices.Contains(candidates, a) {
				votes[a]++
				break
			}
		}
	}
	var best model.Assignor
	for _, a := range candidates {
		if best == "" || votes[a] > votes[best] {
			best = a
		}
	}
	return best
}

// validateMember checks that a request names a current member: by its
// group.instance.id for a static member (another member id under the same
// instance id is a fenced zombie), by member id otherwise
// (ClassicGroup.validateMember).
func (g *classicGroup) validateMember(memberID, instanceID string) model.ErrorCode {
	if instanceID != "" {
		existing, ok := g.static[instanceID]
		switch {
		case !ok:
			return model.UnknownMemberID
		case existing != memberID:
			return model.FencedInstanceID
		}
		return model.NoError
	}
	if g.members[memberID] == nil {
		return model.UnknownMemberID
	}
	return model.NoError
}

// validPrevious lists, for each state, the states it may be entered from
// (ClassicGroupState's validPreviousStates). Dead may be entered again: a
// group being unloaded is marked Dead whatever it was.
var validPrevious = map[State][]State{
	Empty:               {PreparingRebalance},
	PreparingRebalance:  {Stable, CompletingRebalance, Empty},
	CompletingRebalance: {PreparingRebalance},
	Stable:              {CompletingRebalance},
	Dead:                {Stable, PreparingRebalance, CompletingRebalance, Empty, Dead},
}

// transition moves the group to a new state and traces it. A transition
// the state machine does not have is a coordinator bug, and panics, as
// Kafka's ClassicGroup.transitionTo throws IllegalStateException
// (assertValidTransition).
func (c *Coordinator) transition(g *classicGroup, to State) {
	if !slices.Contains(validPrevious[to], g.state) {
		panic("group " + g.id + ": illegal transition " + string(g.state) + " -> " + string(to))
	}
	if g.state != to {
		c.trace("group-state", g.id+" "+string(g.state)+"->"+string(to)+" gen="+itoa(int64(g.generation)))
	}
	g.prevState, g.state = g.state, to
}

// groupMembers is the member list the leader gets: every member's
// subscription and owned partitions, sorted by member id.
func (g *classicGroup) groupMembers() []model.GroupMember {
	out := make([]model.GroupMember, 0, len(g.members))
	for _, m := range g.all() {
		out = append(out, model.GroupMember{
			MemberID:        m.id,
			GroupInstanceID: m.instanceID,
			Topics:          slices.Clone(m.topics),
			Owned:           slices.Clone(m.owned),
			Subscription:    cloneSubscription(m.sub),
		})
	}
	slices.SortFunc(out, func(a, b model.GroupMember) int { return cmp.Compare(a.MemberID, b.MemberID) })
	return out
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// sameSubscription compares the metadata fields after topics and owned
// partitions; Kafka compares the whole protocol metadata bytes
// (ClassicGroupMember.matches), so any change counts.
func sameSubscription(a, b model.Subscription) bool {
	return a.GenerationID == b.GenerationID && a.RackID == b.RackID &&
		slices.Equal(a.Assigned, b.Assigned) && a.AssignedGeneration == b.AssignedGeneration
}

func cloneSubscription(s model.Subscription) model.Subscription {
	s.Assigned = slices.Clone(s.Assigned)
	return s
}
