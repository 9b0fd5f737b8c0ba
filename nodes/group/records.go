package group

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"

	"kafkasim/model"
)

// The __consumer_offsets records, laid out as Kafka lays them out
// (group-coordinator/src/main/resources/common/message/*Key.json and
// *Value.json): a key that starts with its version, which is also its
// record type (1 an offset commit, 2 a group's metadata), and a value that
// starts with its own version. Integers are big-endian, strings are an
// int16 length and the bytes, byte fields an int32 length, arrays an int32
// count. A record with an empty value is a tombstone that deletes its key.
// The member's subscription and assignment inside a group record follow
// the consumer protocol's ConsumerProtocolSubscription and
// ConsumerProtocolAssignment.
const (
	keyOffsetCommit  int16 = 1
	keyGroupMetadata int16 = 2

	offsetCommitValueVersion  int16 = 3
	groupMetadataValueVersion int16 = 3
	consumerProtocolVersion   int16 = 1
	// subscriptionVersion is ConsumerProtocolSubscription v3: owned
	// partitions (v1), generation (v2), rack (v3).
	subscriptionVersion int16 = 3

	protocolTypeConsumer = "consumer"
)

// offsetCommitRecord is an OffsetCommitKey/OffsetCommitValue pair.
func offsetCommitRecord(group string, o model.CommitOffset, now time.Duration) model.Record {
	var k, v enc
	k.i16(keyOffsetCommit).str(group).str(o.TP.Topic).i32(o.TP.Partition)
	v.i16(offsetCommitValueVersion).i64(int64(o.Offset)).i32(int32(o.LeaderEpoch)).str("").i64(now.Milliseconds())
	return model.Record{Key: string(k), Value: string(v)}
}

// offsetTombstone is an OffsetCommitKey with no value: it deletes the
// group's committed offset of tp.
func offsetTombstone(group string, tp model.TopicPartition) model.Record {
	var k enc
	k.i16(keyOffsetCommit).str(group).str(tp.Topic).i32(tp.Partition)
	return model.Record{Key: string(k)}
}

// groupMetadataRecord persists a group with its members' current
// assignments.
func groupMetadataRecord(g *classicGroup) model.Record {
	return groupMetadataRecordWith(g, func(m *member) []model.TopicPartition { return m.assignment })
}

// groupMetadataRecordWith persists a group with the given assignments
// (the leader's, while they are not yet applied).
func groupMetadataRecordWith(g *classicGroup, assignment func(*member) []model.TopicPartition) model.Record {
	var k, v enc
	k.i16(keyGroupMetadata).str(g.id)
	v.i16(groupMetadataValueVersion).str(protocolTypeConsumer).i32(int32(g.generation)).
		str(string(g.protocol)).str(g.leader).i64(0).i32(int32(len(g.order)))
	for _, m := range g.all() {
		var sub, asg enc
		sub.i16(subscriptionVersion).strs(m.topics).bytes(stickyUserData(m.sub)).tps(m.owned).
			i32(int32(m.sub.GenerationID)).str(m.sub.RackID)
		asg.i16(consumerProtocolVersion).tps(assignment(m)).bytes(nil)
		v.str(m.id).str(m.instanceID).str("").str("").
			i32(int32(m.rebalanceTimeout.Milliseconds())).i32(int32(m.sessionTimeout.Milliseconds())).
			bytes(sub).bytes(asg)
	}
	return model.Record{Key: string(k), Value: string(v)}
}

// Replay applies one record of the shard's partition, in log order, as a
// loading coordinator does (GroupMetadataManager.replay and
// OffsetMetadataManager.replay): an offset record sets (or, as a
// tombstone, deletes) a committed offset; a group record replaces the
// group, Empty without members and Stable with them. Records it cannot
// decode are an error; the host reports them.
func (c *Coordinator) Replay(r model.Record) error {
	return c.ReplayRecord(r, model.NoProducerID)
}

// ReplayRecord is Replay for a record of a batch of producer pid
// (OffsetMetadataManager.replay's producerId): an offset commit of a
// producer is a transactional one, pending until its marker
// (ReplayEndTxnMarker); a tombstone also drops the pending ones.
func (c *Coordinator) ReplayRecord(r model.Record, pid model.ProducerID) error {
	d := dec{b: []byte(r.Key)}
	switch d.i16() {
	case 0, keyOffsetCommit:
		group, topic, part := d.str(), d.str(), d.i32()
		if d.err != nil {
			return fmt.Errorf("offset commit key: %w", d.err)
		}
		tp := model.TP(topic, part)
		if r.Value == "" {
			delete(c.offsets[group], tp)
			c.dropPendingTxnOffsets(group, tp)
			return nil
		}
		v := dec{b: []byte(r.Value)}
		v.i16()
		o := Committed{Offset: model.Offset(v.i64()), LeaderEpoch: model.Epoch(v.i32())}
		v.str()
		o.CommitTime = time.Duration(v.i64()) * time.Millisecond
		if v.err != nil {
			return fmt.Errorf("offset commit value of %s %v: %w", group, tp, v.err)
		}
		o.record = r.Offset
		if pid != model.NoProducerID {
			c.addPendingTxnOffset(pid, group, tp, o)
			return nil
		}
		c.applyOffset(group, tp, o)
		return nil
	case keyGroupMetadata:
		id := d.str()
		if d.err != nil {
			return fmt.Errorf("group metadata key: %w", d.err)
		}
		if r.Value == "" {
			delete(c.groups, id)
			return nil
		}
		g, err := decodeGroup(id, r.Value)
		if err != nil {
			return err
		}
		c.groups[id] = g
		return nil
	default:
		if d.err != nil {
			return fmt.Errorf("record key: %w", d.err)
		}
		return fmt.Errorf("unknown record key version in %q", r.Key)
	}
}

func decodeGroup(id, value string) (*classicGroup, error) {
	v := dec{b: []byte(value)}
	v.i16()
	v.str() // protocol type
	g := newClassicGroup(id)
	g.generation = model.Epoch(v.i32())
	g.protocol = model.Assignor(v.str())
	leader := v.str()
	v.i64() // current state timestamp
	n := v.i32()
	for i := int32(0); i < n && v.err == nil; i++ {
		m := &member{id: v.str(), instanceID: v.str()}
		v.str() // client id
		v.str() // client host
		m.rebalanceTimeout = time.Duration(v.i32()) * time.Millisecond
		m.sessionTimeout = time.Duration(v.i32()) * time.Millisecond
		sub := dec{b: v.bytes()}
		asg := dec{b: v.bytes()}
		version := sub.i16()
		m.topics = sub.strs()
		m.sub = readStickyUserData(sub.bytes())
		m.owned = sub.tps()
		m.sub.GenerationID = model.NoEpoch
		if version >= 2 {
			m.sub.GenerationID = model.Epoch(sub.i32())
		}
		if version >= 3 {
			m.sub.RackID = sub.str()
		}
		asg.i16()
		m.assignment = asg.tps()
		if err := errors.Join(sub.err, asg.err); err != nil {
			return nil, fmt.Errorf("group %s member %s: %w", id, m.id, err)
		}
		// Only the chosen protocol's metadata is stored: after a load
		// the member supports that one (as in Kafka).
		if g.protocol != "" {
			m.assignors = []model.Assignor{g.protocol}
		}
		g.add(m)
	}
	if v.err != nil {
		return nil, fmt.Errorf("group metadata value of %s: %w", id, v.err)
	}
	g.leader = leader
	if len(g.members) > 0 {
		g.state, g.prevState = Stable, Stable
	}
	return g, nil
}

// Loaded ends loading: every loaded member's session starts now, as Kafka
// reschedules every member's heartbeat when a shard is loaded.
func (c *Coordinator) Loaded(now time.Duration) {
	for _, gid := range c.groupIDs() {
		for _, m := range c.groups[gid].all() {
			m.heartbeat.set(now + m.sessionTimeout)
		}
	}
}

// enc builds a record key or value.
type enc []byte

func (e *enc) i16(v int16) *enc { *e = binary.BigEndian.AppendUint16(*e, uint16(v)); return e }
func (e *enc) i32(v int32) *enc { *e = binary.BigEndian.AppendUint32(*e, uint32(v)); return e }
func (e *enc) i64(v int64) *enc { *e = binary.BigEndian.AppendUint64(*e, uint64(v)); return e }
func (e *enc) str(s string) *enc {
	e.i16(int16(len(s)))
	*e = append(*e, s...)
	return e
}
func (e *enc) bytes(b []byte) *enc {
	if b == nil {
		return e.i32(-1)
	}
	e.i32(int32(len(b)))
	*e = append(*e, b...)
	return e
}
func (e *enc) strs(ss []string) *enc {
	e.i32(int32(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
	return e
}

// tps writes partitions grouped by topic, as the consumer protocol does:
// (topic, [partition...]) pairs, in the list's order.
func (e *enc) tps(ps []model.TopicPartition) *enc {
	var topics []string
	for _, tp := range ps {
		if len(topics) == 0 || topics[len(topics)-1] != tp.Topic {
			topics = append(topics, tp.Topic)
		}
	}
	e.i32(int32(len(topics)))
	i := 0
	for _, t := range topics {
		j := i
		for j < len(ps) && ps[j].Topic == t {
			j++
		}
		e.str(t).i32(int32(j - i))
		for _, tp := range ps[i:j] {
			e.i32(tp.Partition)
		}
		i = j
	}
	return e
}

// dec reads what enc wrote; the first short read sets err and makes every
// later read return zero.
type dec struct {
	b   []byte
	err error
}

var errShort = errors.New("record too short")

func (d *dec) take(n int) []byte {
	if d.err != nil || n < 0 || len(d.b) < n {
		if d.err == nil {
			d.err = errShort
		}
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *dec) i16() int16 {
	if b := d.take(2); b != nil {
		return int16(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (d *dec) i32() int32 {
	if b := d.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (d *dec) i64() int64 {
	if b := d.take(8); b != nil {
		return int64(binary.BigEndian.Uint64(b))
	}
	return 0
}

// stickyUserData encodes the sticky assignors' user data as
// StickyAssignor's V1 schema holds it: the last assignment, then its
// generation; nil before any assignment.
func stickyUserData(s model.Subscription) []byte {
	if s.Assigned == nil && s.AssignedGeneration == model.NoEpoch {
		return nil
	}
	var e enc
	e.tps(s.Assigned).i32(int32(s.AssignedGeneration))
	return e
}

// readStickyUserData reverses stickyUserData; user data it cannot read
// counts as none, as StickyAssignor ignores an unparsable previous
// assignment.
func readStickyUserData(b []byte) model.Subscription {
	s := model.Subscription{AssignedGeneration: model.NoEpoch}
	if len(b) == 0 {
		return s
	}
	d := dec{b: b}
	assigned, gen := d.tps(), d.i32()
	if d.err != nil {
		return s
	}
	s.Assigned, s.AssignedGeneration = assigned, model.Epoch(gen)
	if s.Assigned == nil {
		s.Assigned = []model.TopicPartition{}
	}
	return s
}

func (d *dec) str() string { return string(d.take(int(d.i16()))) }

func (d *dec) bytes() []byte {
	n := d.i32()
	if n < 0 {
		return nil
	}
	return slices.Clone(d.take(int(n)))
}

func (d *dec) strs() []string {
	n := d.i32()
	var out []string
	for i := int32(0); i < n && d.err == nil; i++ {
		out = append(out, d.str())
	}
	return out
}

func (d *dec) tps() []model.TopicPartition {
	n := d.i32()
	var out []model.TopicPartition
	for i := int32(0); i < n && d.err == nil; i++ {
		t := d.str()
		k := d.i32()
		for j := int32(0); j < k && d.err == nil; j++ {
			out = append(out, model.TP(t, d.i32()))
		}
	}
	return out
}
