package controller

import (
	"encoding/binary"
	"errors"
	"strconv"
	"strings"

	"kafkasim/model"
)

// Record is one change to the cluster metadata: the unit the metadata log
// stores and apply replays. Every change the controller makes is one of
// these, written to the log before it takes effect, as in KRaft where the
// controller's in-memory state is only ever the replay of
// __cluster_metadata (KIP-631), which the metadata quorum replicates.
//
// Records carry full values, not edits: a PartitionChangeRecord holds the
// partition's whole new state, so replaying it needs nothing but the record
// and the partition it replaces. Only this package defines records.
type Record interface {
	kind() recordKind
	appendTo(b []byte) []byte
	String() string
}

// recordKind tags a record in the log's encoding. The values are part of
// the on-disk format: never renumber them.
type recordKind uint8

const (
	kindLeaderChange    recordKind = 1
	kindRegisterBroker  recordKind = 2
	kindFenceBroker     recordKind = 3
	kindUnfenceBroker   recordKind = 4
	kindCreateTopic     recordKind = 5
	kindPartitionChange recordKind = 6
	// kindRegisterBrokerRack is a RegisterBrokerRecord with a rack: its
	// own kind, so that a rackless registration keeps the encoding (and
	// the log bytes, and the trace) it had before racks existed.
	kindRegisterBrokerRack recordKind = 7
	kindRegistrationChg    recordKind = 8
	// kindPartitionReassign is a PartitionChangeRecord that also changes
	// the assignment (a reassignment started, completed or cancelled): its
	// own kind, so that every other partition change keeps its encoding.
	kindPartitionReassign recordKind = 9
)

// LeaderChangeRecord started a controller epoch in the single controller's
// own log, before the metadata quorum. The quorum now writes its own
// LeaderChange control entry when a leader takes over (nodes/raft), so no
// controller writes this record; it stays decodable, and kind 1 stays
// reserved, so that the encoding never changes meaning.
type LeaderChangeRecord struct {
	ControllerEpoch model.Epoch
	ControllerID    model.BrokerID
}

// RegisterBrokerRecord registers one incarnation of a broker, fenced. Its
// broker epoch is the record's own offset in the log, as in KRaft
// (ClusterControlManager.registerBroker), so epochs grow with every
// registration of any broker and a restarted broker always gets a larger
// one than its previous incarnation had.
type RegisterBrokerRecord struct {
	ID          model.BrokerID
	Epoch       model.Epoch
	Incarnation uint64
	// Rack is the broker's broker.rack, "" for none (Kafka's
	// RegisterBrokerRecord.rack).
	Rack string
}

// FenceBrokerRecord fences a broker: it may lead nothing and be in no ISR.
// It names the epoch so that a record meant for an older incarnation
// cannot fence a newer one.
type FenceBrokerRecord struct {
	ID    model.BrokerID
	Epoch model.Epoch
}

// UnfenceBrokerRecord lets a broker that caught up with the metadata lead
// and join ISRs again.
type UnfenceBrokerRecord struct {
	ID    model.BrokerID
	Epoch model.Epoch
}

// BrokerRegistrationChangeRecord marks a broker as in controlled shutdown
// (Kafka's record of that name with inControlledShutdown set, written by
// ReplicationControlManager.handleBrokerInControlledShutdown): it stays
// unfenced and goes on serving, but may neither lead nor be in an ISR
// (ClusterControlManager.isActive), while the controller moves its
// leaderships away. The mark lasts as long as the registration; a new
// incarnation registers without it.
type BrokerRegistrationChangeRecord struct {
	ID    model.BrokerID
	Epoch model.Epoch
}

// CreateTopicRecord creates a topic with its partitions' initial states:
// Kafka's TopicRecord followed by one PartitionRecord per partition, in one
// record so that a torn log never holds half a topic. Configs are the
// topic-level overrides (min.insync.replicas,
// unclean.leader.election.enable, ...), sorted by name.
type CreateTopicRecord struct {
	Name       string
	Configs    []model.ConfigEntry
	Partitions []model.PartitionState
}

// PartitionChangeRecord replaces one partition's leader, epochs, ISR, ELR
// and last known leader (Kafka's PartitionChangeRecord, with every field
// present). The partition epoch is always the previous one plus one; the
// leader epoch grows exactly when the leader field changed.
type PartitionChangeRecord struct {
	TP             model.TopicPartition
	Leader         model.BrokerID
	LeaderEpoch    model.Epoch
	PartitionEpoch model.Epoch
	ISR            []model.BrokerID
	ELR            []model.BrokerID
	// LastKnownLeader is KIP-966's lastKnownElr used as Kafka uses it by
	// default (useLastKnownLeaderInBalancedRecovery): the leader the
	// partition had when its ISR last became empty, or NoBroker.
	LastKnownLeader model.BrokerID
	// Unclean marks a leader elected from outside the ISR and ELR (the
	// last known leader, or an unclean election): Kafka's
	// leaderRecoveryState RECOVERING. Its log is all there is now, so
	// whatever other replicas held beyond it is no longer promised.
	Unclean bool
	// Assignment, when set, replaces the partition's replicas and its
	// reassignment in progress (Kafka's PartitionChangeRecord replicas,
	// addingReplicas and removingReplicas, KIP-455). A change that removes
	// a replica bumps the leader epoch even when the leader stays
	// (PartitionChangeBuilder.triggerLeaderEpochBumpForReplicaReassignmentIfNeeded).
	Assignment *Assignment
}

// Assignment is a partition's replicas during and outside a reassignment:
// Replicas holds the target replicas first, then those being removed
// (PartitionReassignmentReplicas); Adding and Removing are empty when no
// reassignment is in progress.
type Assignment struct {
	Replicas []model.BrokerID
	Adding   []model.BrokerID
	Removing []model.BrokerID
}

// String reads "replicas=[b1 b2 b4] adding=[b4] removing=[b3]".
func (a Assignment) String() string {
	return "replicas=" + brokerList(a.Replicas) + " adding=" + brokerList(a.Adding) + " removing=" + brokerList(a.Removing)
}

func (LeaderChangeRecord) kind() recordKind { return kindLeaderChange }
func (r RegisterBrokerRecord) kind() recordKind {
	if r.Rack != "" {
		return kindRegisterBrokerRack
	}
	return kindRegisterBroker
}
func (FenceBrokerRecord) kind() recordKind   { return kindFenceBroker }
func (UnfenceBrokerRecord) kind() recordKind { return kindUnfenceBroker }
func (CreateTopicRecord) kind() recordKind   { return kindCreateTopic }
func (r PartitionChangeRecord) kind() recordKind {
	if r.Assignment != nil {
		return kindPartitionReassign
	}
	return kindPartitionChange
}
func (BrokerRegistrationChangeRecord) kind() recordKind {
	return kindRegistrationChg
}

// String reads "BrokerRegistrationChange b1 brokerEpoch=7 inControlledShutdown".
func (r BrokerRegistrationChangeRecord) String() string {
	return "BrokerRegistrationChange " + r.ID.String() + " brokerEpoch=" + itoa(int64(r.Epoch)) + " inControlledShutdown"
}

func (r BrokerRegistrationChangeRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindRegistrationChg))
	b = binary.AppendVarint(b, int64(r.ID))
	return binary.AppendVarint(b, int64(r.Epoch))
}

// String reads "LeaderChange controllerEpoch=3 controller=b100".
func (r LeaderChangeRecord) String() string {
	return "LeaderChange controllerEpoch=" + itoa(int64(r.ControllerEpoch)) + " controller=" + r.ControllerID.String()
}

// String reads "RegisterBroker b1 brokerEpoch=7 inc=42", with
// " rack=r1" at the end when the broker has a rack.
func (r RegisterBrokerRecord) String() string {
	s := "RegisterBroker " + r.ID.String() + " brokerEpoch=" + itoa(int64(r.Epoch)) +
		" inc=" + strconv.FormatUint(r.Incarnation, 10)
	if r.Rack != "" {
		s += " rack=" + r.Rack
	}
	return s
}

// String reads "FenceBroker b1 brokerEpoch=7".
func (r FenceBrokerRecord) String() string {
	return "FenceBroker " + r.ID.String() + " brokerEpoch=" + itoa(int64(r.Epoch))
}

// String reads "UnfenceBroker b1 brokerEpoch=7".
func (r UnfenceBrokerRecord) String() string {
	return "UnfenceBroker " + r.ID.String() + " brokerEpoch=" + itoa(int64(r.Epoch))
}

// String reads "CreateTopic t min.insync.replicas=2 [t/0 leader=b1 ...,
// t/1 ...]".
func (r CreateTopicRecord) String() string {
	var b strings.Builder
	b.WriteString("CreateTopic ")
	b.WriteString(r.Name)
	for _, c := range r.Configs {
		b.WriteString(" " + c.Name + "=" + c.Value)
	}
	writePartitionList(&b, r.Partitions)
	return b.String()
}

// writePartitionList writes " [t/0 ..., t/1 ...]": the partitions a
// topic's record carries, in its one-line form.
func writePartitionList(b *strings.Builder, parts []model.PartitionState) {
	b.WriteString(" [")
	for i := range parts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(parts[i].String())
	}
	b.WriteString("]")
}

// String reads "PartitionChange t/0 leader=b2 epoch=4 pe=9 isr=[b2] elr=[b1]
// lastKnownLeader=none".
func (r PartitionChangeRecord) String() string {
	return "PartitionChange " + r.TP.String() + " leader=" + r.Leader.String() +
		" epoch=" + itoa(int64(r.LeaderEpoch)) + " pe=" + itoa(int64(r.PartitionEpoch)) +
		" isr=" + brokerList(r.ISR) + " elr=" + brokerList(r.ELR) +
		" lastKnownLeader=" + r.LastKnownLeader.String() + unclean(r.Unclean) + assignment(r.Assignment)
}

// assignment is " replicas=[...] adding=[...] removing=[...]" for a change
// of assignment, else "".
func assignment(a *Assignment) string {
	if a == nil {
		return ""
	}
	return " " + a.String()
}

// unclean is " unclean" for an unclean election, else "".
func unclean(u bool) string {
	if u {
		return " unclean"
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func brokerList(ids []model.BrokerID) string { return model.ListString(ids) }

// The encoding is a tag byte and then the fields as varints and
// length-prefixed strings and lists: compact, and simple enough that a
// decoder can refuse anything malformed instead of guessing.

func (r LeaderChangeRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindLeaderChange))
	b = binary.AppendVarint(b, int64(r.ControllerEpoch))
	return binary.AppendVarint(b, int64(r.ControllerID))
}

func (r RegisterBrokerRecord) appendTo(b []byte) []byte {
	b = append(b, byte(r.kind()))
	b = binary.AppendVarint(b, int64(r.ID))
	b = binary.AppendVarint(b, int64(r.Epoch))
	b = binary.AppendUvarint(b, r.Incarnation)
	if r.Rack != "" {
		b = appendString(b, r.Rack)
	}
	return b
}

func (r FenceBrokerRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindFenceBroker))
	b = binary.AppendVarint(b, int64(r.ID))
	return binary.AppendVarint(b, int64(r.Epoch))
}

func (r UnfenceBrokerRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindUnfenceBroker))
	b = binary.AppendVarint(b, int64(r.ID))
	return binary.AppendVarint(b, int64(r.Epoch))
}

func (r CreateTopicRecord) appendTo(b []byte) []byte {
	b = append(b, byte(kindCreateTopic))
	b = appendString(b, r.Name)
	b = binary.AppendUvarint(b, uint64(len(r.Configs)))
	for _, c := range r.Configs {
		b = appendString(b, c.Name)
		b = appendString(b, c.Value)
	}
	b = binary.AppendUvarint(b, uint64(len(r.Partitions)))
	for i := range r.Partitions {
		p := &r.Partitions[i]
		b = binary.AppendVarint(b, int64(p.TP.Partition))
		b = binary.AppendVarint(b, int64(p.Leader))
		b = binary.AppendVarint(b, int64(p.LeaderEpoch))
		b = binary.AppendVarint(b, int64(p.PartitionEpoch))
		b = appendBrokers(b, p.Replicas)
		b = appendBrokers(b, p.ISR)
		b = appendBrokers(b, p.ELR)
	}
	return b
}

func (r PartitionChangeRecord) appendTo(b []byte) []byte {
	b = append(b, byte(r.kind()))
	b = appendString(b, r.TP.Topic)
	b = binary.AppendVarint(b, int64(r.TP.Partition))
	b = binary.AppendVarint(b, int64(r.Leader))
	b = binary.AppendVarint(b, int64(r.LeaderEpoch))
	b = binary.AppendVarint(b, int64(r.PartitionEpoch))
	b = appendBrokers(b, r.ISR)
	b = appendBrokers(b, r.ELR)
	b = binary.AppendVarint(b, int64(r.LastKnownLeader))
	b = appendBool(b, r.Unclean)
	if a := r.Assignment; a != nil {
		b = appendBrokers(b, a.Replicas)
		b = appendBrokers(b, a.Adding)
		b = appendBrokers(b, a.Removing)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendBrokers(b []byte, ids []model.BrokerID) []byte {
	b = binary.AppendUvarint(b, uint64(len(ids)))
	for _, id := range ids {
		b = binary.AppendVarint(b, int64(id))
	}
	return b
}

// errMalformed is what decoding reports for bytes that are not a record:
// the log treats it like a bad checksum, the end of what it can trust.
var errMalformed = errors.New("malformed metadata record")

// decoder reads fields in order and remembers the first failure, so that
// decoding code reads as a list of fields rather than a ladder of checks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errMalformed
	}
	d.b = nil
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// int32 reads a varint that must fit in 32 bits (ids, epochs, partitions).
func (d *decoder) int32() int32 {
	v := d.varint()
	if v != int64(int32(v)) {
		d.fail()
		return 0
	}
	return int32(v)
}

// count reads a list length, refusing one longer than the bytes left: each
// element takes at least one byte, so a larger count is corruption, and
// refusing it bounds the allocation.
func (d *decoder) count() int {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	return int(n)
}

func (d *decoder) string() string {
	n := d.count()
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) brokers() []model.BrokerID {
	n := d.count()
	if n == 0 {
		return nil
	}
	ids := make([]model.BrokerID, 0, n)
	for i := 0; i < n && d.err == nil; i++ {
		ids = append(ids, model.BrokerID(d.int32()))
	}
	return ids
}

// decodeRecord reads one record from the front of d.
func (d *decoder) record() Record {
	if len(d.b) == 0 {
		d.fail()
		return nil
	}
	k := recordKind(d.b[0])
	d.b = d.b[1:]
	switch k {
	case kindLeaderChange:
		return LeaderChangeRecord{ControllerEpoch: model.Epoch(d.int32()), ControllerID: model.BrokerID(d.int32())}
	case kindRegisterBroker:
		return RegisterBrokerRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32()), Incarnation: d.uvarint()}
	case kindRegisterBrokerRack:
		r := RegisterBrokerRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32()), Incarnation: d.uvarint(), Rack: d.string()}
		if r.Rack == "" {
			d.fail() // a rackless registration has its own kind
		}
		return r
	case kindFenceBroker:
		return FenceBrokerRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32())}
	case kindUnfenceBroker:
		return UnfenceBrokerRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32())}
	case kindRegistrationChg:
		return BrokerRegistrationChangeRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32())}
	case kindCreateTopic:
		r := CreateTopicRecord{Name: d.string()}
		nc := d.count()
		for i := 0; i < nc && d.err == nil; i++ {
			r.Configs = append(r.Configs, model.ConfigEntry{Name: d.string(), Value: d.string()})
		}
		np := d.count()
		for i := 0; i < np && d.err == nil; i++ {
			p := model.PartitionState{TP: model.TP(r.Name, d.int32())}
			p.Leader = model.BrokerID(d.int32())
			p.LeaderEpoch = model.Epoch(d.int32())
			p.PartitionEpoch = model.Epoch(d.int32())
			p.Replicas = d.brokers()
			p.ISR = d.brokers()
			p.ELR = d.brokers()
			r.Partitions = append(r.Partitions, p)
		}
		return r
	case kindPartitionChange, kindPartitionReassign:
		r := PartitionChangeRecord{TP: model.TP(d.string(), d.int32())}
		r.Leader = model.BrokerID(d.int32())
		r.LeaderEpoch = model.Epoch(d.int32())
		r.PartitionEpoch = model.Epoch(d.int32())
		r.ISR = d.brokers()
		r.ELR = d.brokers()
		r.LastKnownLeader = model.BrokerID(d.int32())
		r.Unclean = d.bool()
		if k == kindPartitionReassign {
			r.Assignment = &Assignment{Replicas: d.brokers(), Adding: d.brokers(), Removing: d.brokers()}
		}
		return r
	}
	if r, ok := d.topicRecord(k); ok {
		return r
	}
	if k == kindUnregisterBroker {
		return UnregisterBrokerRecord{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32())}
	}
	d.fail()
	return nil
}
