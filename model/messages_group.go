package model

import (
	"strings"
	"time"
)

// The classic consumer group protocol: a consumer finds its group's
// coordinator (the leader of the group's __consumer_offsets partition),
// joins, gets its assignment through SyncGroup, heartbeats, commits offsets
// and leaves. A member is named by the member id the coordinator gave it;
// a static member (KIP-345) also by its group.instance.id, which lets a
// restart take the old member's place without a rebalance.

// CoordinatorType is FindCoordinator's key_type: which coordinator the
// key names (Kafka's FindCoordinatorRequest.CoordinatorType).
type CoordinatorType int8

const (
	// CoordinatorGroup: the key is a group id.
	CoordinatorGroup CoordinatorType = 0
	// CoordinatorTransaction: the key is a transactional id.
	CoordinatorTransaction CoordinatorType = 1
)

// FindCoordinatorRequest asks any broker for a group's coordinator, or
// (KeyType CoordinatorTransaction) for a transactional id's, whose key
// GroupID then holds.
type FindCoordinatorRequest struct {
	CorrelationID int32
	GroupID       string
	KeyType       CoordinatorType
}

// String reads "FindCoordinator g corr=1", or "FindCoordinator txn tx
// corr=1" for a transactional id.
func (m FindCoordinatorRequest) String() string {
	var b strings.Builder
	b.WriteString("FindCoordinator ")
	if m.KeyType == CoordinatorTransaction {
		b.WriteString("txn ")
	}
	b.WriteString(m.GroupID)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field; a group's request (key type 0) digests as
// it did before the key type existed.
func (m FindCoordinatorRequest) Digest() uint64 {
	h := request(apiFindCoordinator).Int32(m.CorrelationID).Str(m.GroupID)
	if m.KeyType != CoordinatorGroup {
		h = h.Int64(int64(m.KeyType))
	}
	return h.Sum()
}

// FindCoordinatorResponse names the coordinator, or answers
// COORDINATOR_NOT_AVAILABLE while the offsets partition has no leader.
type FindCoordinatorResponse struct {
	CorrelationID int32
	Error         ErrorCode
	Coordinator   BrokerID
}

// String reads "FindCoordinatorResponse NONE coordinator=b2 corr=1".
func (m FindCoordinatorResponse) String() string {
	var b strings.Builder
	b.WriteString("FindCoordinatorResponse")
	errWord(&b, m.Error)
	kv(&b, "coordinator", m.Coordinator.String())
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m FindCoordinatorResponse) Digest() uint64 {
	return response(apiFindCoordinator).Int32(m.CorrelationID).Error(m.Error).Broker(m.Coordinator).Sum()
}

// JoinGroupRequest joins a group or rejoins it for a rebalance. A new
// dynamic member sends an empty MemberID and gets MEMBER_ID_REQUIRED with
// its id (KIP-394), then joins again with it.
type JoinGroupRequest struct {
	CorrelationID int32
	GroupID       string
	MemberID      string
	// GroupInstanceID is empty for a dynamic member.
	GroupInstanceID  string
	SessionTimeout   time.Duration
	RebalanceTimeout time.Duration
	// Assignors are the member's assignors in preference order; the
	// coordinator picks the first one every member supports.
	Assignors []Assignor
	// Topics is the subscription, sorted.
	Topics []string
	// Owned are the partitions the member holds now, sorted; the
	// cooperative assignor needs them to revoke only what moves (KIP-429).
	Owned []TopicPartition
	// The rest of ConsumerProtocolSubscription and the sticky assignors'
	// user data: see Subscription.
	Subscription
}

// Subscription holds the fields of Kafka's ConsumerProtocolSubscription
// after the topics and owned partitions: the member's generation (v2+) and
// rack (v3+), and what StickyAssignor and CooperativeStickyAssignor put in
// the user data: the member's last assignment and the generation it came
// in (StickyAssignor.subscriptionUserData; the cooperative one keeps only
// the generation).
type Subscription struct {
	// GenerationID is the member's generation when it joins, -1 for none
	// (it never joined, or it lost its generation and its partitions).
	GenerationID Epoch
	// RackID is client.rack (KIP-881), "" for none.
	RackID string
	// Assigned is the member's last assignment, sorted, nil before any;
	// AssignedGeneration its generation, -1 before any.
	Assigned           []TopicPartition
	AssignedGeneration Epoch
}

// digest folds the fields into h.
func (s Subscription) digest(h Hash) Hash {
	return h.Epoch(s.GenerationID).Str(s.RackID).tps(s.Assigned).Epoch(s.AssignedGeneration)
}

// write appends " owned-gen=3 rack=r1 assigned=[t/0] assigned-gen=3", the
// rack only when set, and nothing for the zero value (a hand-built
// message; a member always sends its generations, -1 without one).
func (s Subscription) write(b *strings.Builder) {
	if s.GenerationID == 0 && s.RackID == "" && s.Assigned == nil && s.AssignedGeneration == 0 {
		return
	}
	kvInt(b, "owned-gen", int64(s.GenerationID))
	if s.RackID != "" {
		kv(b, "rack", s.RackID)
	}
	kv(b, "assigned", tpList(s.Assigned))
	kvInt(b, "assigned-gen", int64(s.AssignedGeneration))
}

// String reads "JoinGroup g member=m1 session=45s assignors=[range]
// topics=[t] owned=[t/0] corr=3", with "instance=i1" for a static member
// and "member=-" before the coordinator has named it.
func (m JoinGroupRequest) String() string {
	var b strings.Builder
	b.WriteString("JoinGroup ")
	b.WriteString(m.GroupID)
	kv(&b, "member", orDash(m.MemberID))
	if m.GroupInstanceID != "" {
		kv(&b, "instance", m.GroupInstanceID)
	}
	kv(&b, "session", m.SessionTimeout.String())
	kv(&b, "rebalance", m.RebalanceTimeout.String())
	as := make([]string, len(m.Assignors))
	for i, a := range m.Assignors {
		as[i] = string(a)
	}
	kv(&b, "assignors", stringList(as))
	kv(&b, "topics", stringList(m.Topics))
	kv(&b, "owned", tpList(m.Owned))
	m.Subscription.write(&b)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m JoinGroupRequest) Digest() uint64 {
	h := request(apiJoinGroup).Int32(m.CorrelationID).Str(m.GroupID).Str(m.MemberID).
		Str(m.GroupInstanceID).Duration(m.SessionTimeout).Duration(m.RebalanceTimeout).
		Int(len(m.Assignors))
	for _, a := range m.Assignors {
		h = h.Str(string(a))
	}
	return m.Subscription.digest(h.strs(m.Topics).tps(m.Owned)).Sum()
}

// GroupMember is one member as the group leader sees it in a
// JoinGroupResponse: enough to compute an assignment.
type GroupMember struct {
	MemberID        string
	GroupInstanceID string
	Topics          []string
	Owned           []TopicPartition
	Subscription
}

// JoinGroupResponse completes the join phase of a rebalance. Every member
// learns the new generation and the chosen assignor; the leader (the first
// member to join) also gets every member's subscription, and computes the
// assignment it sends with SyncGroup.
type JoinGroupResponse struct {
	CorrelationID int32
	Error         ErrorCode
	GenerationID  Epoch
	Protocol      Assignor
	LeaderID      string
	MemberID      string
	// Members is filled for the leader only, sorted by member id.
	Members []GroupMember
}

// String reads "JoinGroupResponse NONE gen=4 protocol=range leader=m1
// member=m2 members=[m1 m2] corr=3".
func (m JoinGroupResponse) String() string {
	var b strings.Builder
	b.WriteString("JoinGroupResponse")
	errWord(&b, m.Error)
	kvInt(&b, "gen", int64(m.GenerationID))
	kv(&b, "protocol", orDash(string(m.Protocol)))
	kv(&b, "leader", orDash(m.LeaderID))
	kv(&b, "member", orDash(m.MemberID))
	ids := make([]string, len(m.Members))
	for i := range m.Members {
		ids[i] = m.Members[i].MemberID
	}
	kv(&b, "members", stringList(ids))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m JoinGroupResponse) Digest() uint64 {
	h := response(apiJoinGroup).Int32(m.CorrelationID).Error(m.Error).Epoch(m.GenerationID).
		Str(string(m.Protocol)).Str(m.LeaderID).Str(m.MemberID).Int(len(m.Members))
	for i := range m.Members {
		g := &m.Members[i]
		h = g.Subscription.digest(h.Str(g.MemberID).Str(g.GroupInstanceID).strs(g.Topics).tps(g.Owned))
	}
	return h.Sum()
}

// MemberAssignment is the partitions the leader gives one member.
type MemberAssignment struct {
	MemberID   string
	Partitions []TopicPartition
}

// SyncGroupRequest ends the rebalance: the leader sends the assignment,
// the others send nothing and wait for their share.
type SyncGroupRequest struct {
	CorrelationID   int32
	GroupID         string
	GenerationID    Epoch
	MemberID        string
	GroupInstanceID string
	// Assignments is filled by the leader only, sorted by member id.
	Assignments []MemberAssignment
}

// String reads "SyncGroup g gen=4 member=m1 assign=m1:[t/0] m2:[t/1] corr=4".
func (m SyncGroupRequest) String() string {
	var b strings.Builder
	b.WriteString("SyncGroup ")
	b.WriteString(m.GroupID)
	kvInt(&b, "gen", int64(m.GenerationID))
	kv(&b, "member", orDash(m.MemberID))
	if m.GroupInstanceID != "" {
		kv(&b, "instance", m.GroupInstanceID)
	}
	for i, a := range m.Assignments {
		if i == 0 {
			kv(&b, "assign", a.MemberID+":"+tpList(a.Partitions))
		} else {
			word(&b, a.MemberID+":"+tpList(a.Partitions))
		}
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m SyncGroupRequest) Digest() uint64 {
	h := request(apiSyncGroup).Int32(m.CorrelationID).Str(m.GroupID).Epoch(m.GenerationID).
		Str(m.MemberID).Str(m.GroupInstanceID).Int(len(m.Assignments))
	for _, a := range m.Assignments {
		h = h.Str(a.MemberID).tps(a.Partitions)
	}
	return h.Sum()
}

// SyncGroupResponse gives a member its partitions for the generation.
type SyncGroupResponse struct {
	CorrelationID int32
	Error         ErrorCode
	Partitions    []TopicPartition
}

// String reads "SyncGroupResponse NONE assigned=[t/0 t/1] corr=4".
func (m SyncGroupResponse) String() string {
	var b strings.Builder
	b.WriteString("SyncGroupResponse")
	errWord(&b, m.Error)
	kv(&b, "assigned", tpList(m.Partitions))
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m SyncGroupResponse) Digest() uint64 {
	return response(apiSyncGroup).Int32(m.CorrelationID).Error(m.Error).tps(m.Partitions).Sum()
}

// HeartbeatRequest keeps a member's session alive (heartbeat.interval.ms)
// and is how it learns of a rebalance (REBALANCE_IN_PROGRESS).
type HeartbeatRequest struct {
	CorrelationID   int32
	GroupID         string
	GenerationID    Epoch
	MemberID        string
	GroupInstanceID string
}

// String reads "Heartbeat g gen=4 member=m1 corr=5".
func (m HeartbeatRequest) String() string {
	var b strings.Builder
	b.WriteString("Heartbeat ")
	b.WriteString(m.GroupID)
	kvInt(&b, "gen", int64(m.GenerationID))
	kv(&b, "member", orDash(m.MemberID))
	if m.GroupInstanceID != "" {
		kv(&b, "instance", m.GroupInstanceID)
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m HeartbeatRequest) Digest() uint64 {
	return request(apiHeartbeat).Int32(m.CorrelationID).Str(m.GroupID).Epoch(m.GenerationID).
		Str(m.MemberID).Str(m.GroupInstanceID).Sum()
}

// HeartbeatResponse is NONE, REBALANCE_IN_PROGRESS (rejoin),
// ILLEGAL_GENERATION or UNKNOWN_MEMBER_ID (the member was removed).
type HeartbeatResponse struct {
	CorrelationID int32
	Error         ErrorCode
}

// String reads "HeartbeatResponse REBALANCE_IN_PROGRESS corr=5".
func (m HeartbeatResponse) String() string {
	var b strings.Builder
	b.WriteString("HeartbeatResponse")
	errWord(&b, m.Error)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m HeartbeatResponse) Digest() uint64 {
	return response(apiHeartbeat).Int32(m.CorrelationID).Error(m.Error).Sum()
}

// LeaveGroupRequest removes a member at once, starting a rebalance without
// waiting for its session to expire.
type LeaveGroupRequest struct {
	CorrelationID   int32
	GroupID         string
	MemberID        string
	GroupInstanceID string
}

// String reads "LeaveGroup g member=m1 corr=6".
func (m LeaveGroupRequest) String() string {
	var b strings.Builder
	b.WriteString("LeaveGroup ")
	b.WriteString(m.GroupID)
	kv(&b, "member", orDash(m.MemberID))
	if m.GroupInstanceID != "" {
		kv(&b, "instance", m.GroupInstanceID)
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m LeaveGroupRequest) Digest() uint64 {
	return request(apiLeaveGroup).Int32(m.CorrelationID).Str(m.GroupID).Str(m.MemberID).
		Str(m.GroupInstanceID).Sum()
}

// LeaveGroupResponse acknowledges a LeaveGroupRequest.
type LeaveGroupResponse struct {
	CorrelationID int32
	Error         ErrorCode
}

// String reads "LeaveGroupResponse NONE corr=6".
func (m LeaveGroupResponse) String() string {
	var b strings.Builder
	b.WriteString("LeaveGroupResponse")
	errWord(&b, m.Error)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m LeaveGroupResponse) Digest() uint64 {
	return response(apiLeaveGroup).Int32(m.CorrelationID).Error(m.Error).Sum()
}

// CommitOffset is one partition's committed position: the next offset to
// read, and the leader epoch of the record before it (KIP-320), so that a
// consumer resuming from it can detect a log truncated under it.
type CommitOffset struct {
	TP          TopicPartition
	Offset      Offset
	LeaderEpoch Epoch
}

// String reads "t/0=17@3".
func (c CommitOffset) String() string {
	return c.TP.String() + "=" + itoa(int64(c.Offset)) + "@" + itoa(int64(c.LeaderEpoch))
}

// OffsetCommitRequest commits positions. The coordinator accepts it only
// from a current member with the current generation, or with generation -1
// and an empty member id for a group that is Empty (manual assignment).
type OffsetCommitRequest struct {
	CorrelationID   int32
	GroupID         string
	GenerationID    Epoch
	MemberID        string
	GroupInstanceID string
	// Offsets are sorted by topic-partition.
	Offsets []CommitOffset
}

// String reads "OffsetCommit g gen=4 member=m1 t/0=17@3 t/1=5@3 corr=7".
func (m OffsetCommitRequest) String() string {
	var b strings.Builder
	b.WriteString("OffsetCommit ")
	b.WriteString(m.GroupID)
	commitWords(&b, m.GenerationID, m.MemberID, m.GroupInstanceID, m.Offsets)
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m OffsetCommitRequest) Digest() uint64 {
	h := request(apiOffsetCommit).Int32(m.CorrelationID).Str(m.GroupID).Epoch(m.GenerationID).
		Str(m.MemberID).Str(m.GroupInstanceID).Int(len(m.Offsets))
	for _, o := range m.Offsets {
		h = h.TP(o.TP).Offset(o.Offset).Epoch(o.LeaderEpoch)
	}
	return h.Sum()
}

// PartitionResult is one partition's outcome.
type PartitionResult struct {
	TP    TopicPartition
	Error ErrorCode
}

// OffsetCommitResponse answers per partition. A commit is acknowledged
// once the offsets record is committed in __consumer_offsets (acks=all on
// that partition).
type OffsetCommitResponse struct {
	CorrelationID int32
	Results       []PartitionResult
}

// String reads "OffsetCommitResponse t/0 NONE, t/1 NONE corr=7".
func (m OffsetCommitResponse) String() string {
	return partitionResultsString("OffsetCommitResponse", m.Results, m.CorrelationID)
}

// Digest covers every field.
func (m OffsetCommitResponse) Digest() uint64 {
	return partitionResultsDigest(apiOffsetCommit, m.CorrelationID, m.Results)
}

// partitionResultsString is the text of an answer that is a partition
// error each: its name, "t/0 NONE, t/1 NONE", and the correlation id.
func partitionResultsString(name string, results []PartitionResult, correlationID int32) string {
	var b strings.Builder
	b.WriteString(name)
	for i, r := range results {
		sep(&b, i)
		word(&b, r.TP.String())
		errWord(&b, r.Error)
	}
	corr(&b, correlationID)
	return b.String()
}

// partitionResultsDigest is the digest of such an answer.
func partitionResultsDigest(api apiKey, correlationID int32, results []PartitionResult) uint64 {
	h := response(api).Int32(correlationID).Int(len(results))
	for _, r := range results {
		h = h.TP(r.TP).Error(r.Error)
	}
	return h.Sum()
}

// OffsetFetchRequest reads a group's committed offsets for some partitions.
type OffsetFetchRequest struct {
	CorrelationID int32
	GroupID       string
	// Partitions are sorted.
	Partitions []TopicPartition
	// RequireStable (OffsetFetch v7+, KIP-447) asks for
	// UNSTABLE_OFFSET_COMMIT on a partition with a transactional offset
	// commit still pending, rather than the last committed offset.
	RequireStable bool
}

// String reads "OffsetFetch g [t/0 t/1] corr=8".
func (m OffsetFetchRequest) String() string {
	var b strings.Builder
	b.WriteString("OffsetFetch ")
	b.WriteString(m.GroupID)
	word(&b, tpList(m.Partitions))
	if m.RequireStable {
		word(&b, "require_stable")
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field; without RequireStable it folds what it did
// before the field existed, so that existing runs keep their hashes.
func (m OffsetFetchRequest) Digest() uint64 {
	h := request(apiOffsetFetch).Int32(m.CorrelationID).Str(m.GroupID).tps(m.Partitions)
	if m.RequireStable {
		h = h.Bool(true)
	}
	return h.Sum()
}

// OffsetFetchResponse gives the committed offsets; a partition without one
// has Offset NoOffset, and auto.offset.reset applies.
type OffsetFetchResponse struct {
	CorrelationID int32
	// Error is a group-level error, such as COORDINATOR_LOAD_IN_PROGRESS
	// while a new coordinator reads the offsets log.
	Error   ErrorCode
	Offsets []CommittedOffset
}

// CommittedOffset is one partition of an OffsetFetchResponse.
type CommittedOffset struct {
	TP          TopicPartition
	Offset      Offset
	LeaderEpoch Epoch
	Error       ErrorCode
}

// String reads "OffsetFetchResponse NONE t/0=17@3 t/1=-1@-1 corr=8", with a
// partition's error after it when it has one.
func (m OffsetFetchResponse) String() string {
	var b strings.Builder
	b.WriteString("OffsetFetchResponse")
	errWord(&b, m.Error)
	for _, o := range m.Offsets {
		word(&b, CommitOffset{TP: o.TP, Offset: o.Offset, LeaderEpoch: o.LeaderEpoch}.String())
		if o.Error != NoError {
			word(&b, o.Error.String())
		}
	}
	corr(&b, m.CorrelationID)
	return b.String()
}

// Digest covers every field.
func (m OffsetFetchResponse) Digest() uint64 {
	h := response(apiOffsetFetch).Int32(m.CorrelationID).Error(m.Error).Int(len(m.Offsets))
	for _, o := range m.Offsets {
		h = h.TP(o.TP).Offset(o.Offset).Epoch(o.LeaderEpoch).Error(o.Error)
	}
	return h.Sum()
}

// strs folds a list of strings, length first.
func (h Hash) strs(ss []string) Hash {
	h = h.Int(len(ss))
	for _, s := range ss {
		h = h.Str(s)
	}
	return h
}

// tps folds a list of topic-partitions, length first.
func (h Hash) tps(ps []TopicPartition) Hash {
	h = h.Int(len(ps))
	for _, p := range ps {
		h = h.TP(p)
	}
	return h
}

// orDash shows an empty id as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stringList reads "[a b]".
func stringList(ss []string) string { return "[" + strings.Join(ss, " ") + "]" }

// tpList reads "[t/0 t/1]".
func tpList(ps []TopicPartition) string { return ListString(ps) }

// commitWords writes what an offset commit and a transactional one share:
// the member's generation and ids, then each partition's offset.
func commitWords(b *strings.Builder, gen Epoch, member, instance string, offsets []CommitOffset) {
	kvInt(b, "gen", int64(gen))
	kv(b, "member", orDash(member))
	if instance != "" {
		kv(b, "instance", instance)
	}
	for _, o := range offsets {
		word(b, o.String())
	}
}
