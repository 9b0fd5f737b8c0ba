package controller

import (
	"encoding/binary"
	"fmt"
	"slices"

	"kafkasim/model"
)

// The metadata state's snapshot (KIP-630): what a node writes when the
// quorum's log grows long, and what a fetcher below the leader's log start
// restores from. It holds the whole state, every field apply can set, so
// that the state after restoring a snapshot taken at offset o equals the
// state after replaying the log up to o.

// snapshot encodes the state, field after field in one walk (restoreState
// reads them back in the same order, which is why neither is split).
func (s *metadataState) snapshot() []byte {
	b := binary.AppendVarint(nil, s.offset)
	b = binary.AppendVarint(b, int64(s.controllerEpoch))
	b = binary.AppendVarint(b, int64(s.controllerID))
	b = binary.AppendUvarint(b, uint64(len(s.brokerIDs)))
	for _, id := range s.brokerIDs {
		r := s.brokers[id]
		b = binary.AppendVarint(b, int64(r.ID))
		b = binary.AppendVarint(b, int64(r.Epoch))
		b = binary.AppendUvarint(b, r.Incarnation)
		b = appendBool(b, r.Fenced)
		b = binary.AppendVarint(b, r.registeredAt)
		b = appendBool(b, r.InControlledShutdown)
	}
	b = binary.AppendUvarint(b, uint64(len(s.topicNames)))
	for _, name := range s.topicNames {
		t := s.topics[name]
		b = appendString(b, name)
		b = binary.AppendUvarint(b, uint64(len(t.configs)))
		for _, c := range t.configs {
			b = appendString(b, c.Name)
			b = appendString(b, c.Value)
		}
		b = binary.AppendUvarint(b, uint64(len(t.parts)))
		for _, p := range t.parts {
			b = binary.AppendVarint(b, int64(p.Leader))
			b = binary.AppendVarint(b, int64(p.LeaderEpoch))
			b = binary.AppendVarint(b, int64(p.PartitionEpoch))
			b = appendBrokers(b, p.Replicas)
			b = appendBrokers(b, p.ISR)
			b = appendBrokers(b, p.ELR)
			b = binary.AppendVarint(b, int64(p.LastKnownLeader))
			b = binary.AppendVarint(b, int64(p.UncleanElections))
			b = binary.AppendVarint(b, p.changedAt)
		}
	}
	// The brokers' racks trail the rest, only when some broker has one:
	// a rackless state snapshots to the bytes it did before racks existed.
	var racked []model.BrokerID
	for _, id := range s.brokerIDs {
		if s.brokers[id].Rack != "" {
			racked = append(racked, id)
		}
	}
	// Reassignments in progress trail the racks (then written even when
	// there are none), only when there are some, for the same reason.
	var moving []*partitionInfo
	s.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		if p.reassigning() {
			moving = append(moving, p)
		}
	})
	// The deletion counts trail those (then written even when empty),
	// only when a topic was ever deleted.
	lives := len(s.deleted) > 0
	if len(racked) > 0 || len(moving) > 0 || lives {
		b = binary.AppendUvarint(b, uint64(len(racked)))
		for _, id := range racked {
			b = binary.AppendVarint(b, int64(id))
			b = appendString(b, s.brokers[id].Rack)
		}
	}
	if len(moving) > 0 || lives {
		b = binary.AppendUvarint(b, uint64(len(moving)))
		for _, p := range moving {
			b = appendString(b, p.TP.Topic)
			b = binary.AppendVarint(b, int64(p.TP.Partition))
			b = appendBrokers(b, p.Adding)
			b = appendBrokers(b, p.Removing)
		}
	}
	if lives {
		names := make([]string, 0, len(s.deleted))
		for name := range s.deleted {
			names = append(names, name)
		}
		slices.Sort(names)
		b = binary.AppendUvarint(b, uint64(len(names)))
		for _, name := range names {
			b = appendString(b, name)
			b = binary.AppendVarint(b, int64(s.deleted[name]))
		}
	}
	return b
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func (d *decoder) bool() bool {
	if len(d.b) == 0 {
		d.fail()
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

// restoreState decodes a snapshot. The quorum checksums what it stores
// and sends, so a snapshot that does not decode is a programmer error. It
// reads the fields in snapshot's order, one after another, and stays as
// long as snapshot so that the two can be read side by side.
func restoreState(cluster model.Config, data []byte) *metadataState {
	s := newMetadataState(cluster)
	d := decoder{b: data}
	s.offset = d.varint()
	s.controllerEpoch = model.Epoch(d.int32())
	s.controllerID = model.BrokerID(d.int32())
	nb := d.count()
	for i := 0; i < nb && d.err == nil; i++ {
		r := &brokerRegistration{ID: model.BrokerID(d.int32()), Epoch: model.Epoch(d.int32()), Incarnation: d.uvarint(),
			Fenced: d.bool(), registeredAt: d.varint(), InControlledShutdown: d.bool()}
		s.brokers[r.ID] = r
		s.brokerIDs = append(s.brokerIDs, r.ID)
	}
	nt := d.count()
	for i := 0; i < nt && d.err == nil; i++ {
		t := &topicInfo{name: d.string()}
		nc := d.count()
		for j := 0; j < nc && d.err == nil; j++ {
			t.configs = append(t.configs, model.ConfigEntry{Name: d.string(), Value: d.string()})
		}
		// The settings are not stored: they follow from the overrides and
		// this node's cluster defaults, as they did when the record applied.
		config, err := resolveTopicConfig(cluster, t.configs)
		if err != nil {
			d.fail()
		}
		t.config = config
		np := d.count()
		for j := 0; j < np && d.err == nil; j++ {
			p := &partitionInfo{PartitionState: model.PartitionState{TP: model.TP(t.name, int32(j))}}
			p.Leader = model.BrokerID(d.int32())
			p.LeaderEpoch = model.Epoch(d.int32())
			p.PartitionEpoch = model.Epoch(d.int32())
			p.Replicas = d.brokers()
			p.ISR = d.brokers()
			p.ELR = d.brokers()
			p.LastKnownLeader = model.BrokerID(d.int32())
			p.UncleanElections = int(d.varint())
			p.changedAt = d.varint()
			t.parts = append(t.parts, p)
		}
		s.topics[t.name] = t
		s.topicNames = append(s.topicNames, t.name)
	}
	if len(d.b) > 0 && d.err == nil {
		nr := d.count()
		for i := 0; i < nr && d.err == nil; i++ {
			id, rack := model.BrokerID(d.int32()), d.string()
			if r := s.brokers[id]; r != nil && rack != "" {
				r.Rack = rack
			} else {
				d.fail()
			}
		}
	}
	if len(d.b) > 0 && d.err == nil {
		nm := d.count()
		for i := 0; i < nm && d.err == nil; i++ {
			p := s.partition(model.TP(d.string(), d.int32()))
			if p == nil {
				d.fail()
				break
			}
			p.Adding, p.Removing = d.brokers(), d.brokers()
		}
	}
	if len(d.b) > 0 && d.err == nil {
		nd := d.count()
		for i := 0; i < nd && d.err == nil; i++ {
			name, n := d.string(), d.int32()
			if n <= 0 {
				d.fail()
				break
			}
			s.deleted[name] = n
			if t := s.topics[name]; t != nil {
				t.life = n
			}
		}
	}
	if d.err != nil || len(d.b) != 0 || !slices.IsSorted(s.brokerIDs) || !slices.IsSorted(s.topicNames) {
		panic(fmt.Sprintf("controller: a metadata snapshot of %d bytes does not decode", len(data)))
	}
	return s
}

// encodeRecord is one record as a quorum log entry.
func encodeRecord(r Record) []byte { return r.appendTo(nil) }

// decodeRecord reads a quorum log entry back. The quorum checksums its log,
// so an entry that does not decode is a programmer error.
func decodeRecord(data []byte) Record {
	d := decoder{b: data}
	r := d.record()
	if d.err != nil || len(d.b) != 0 {
		panic(fmt.Sprintf("controller: a metadata log entry of %d bytes does not decode", len(data)))
	}
	return r
}

// MetadataImage is the cluster metadata as a broker replays it from the
// quorum's log: the same state, built by the same apply, as the
// controllers'. A broker reads it; only Apply and Restore change it.
type MetadataImage struct {
	cluster model.Config
	s       *metadataState
	// What changed since TakeChanged last ran.
	changed []model.TopicPartition
	brokers bool
	all     bool
	// removed lists the partitions of topics deleted, and configs the
	// topics whose configuration changed, since TakeTopicChanges last ran.
	removed []model.TopicPartition
	configs []string
	// recreated lists the partitions a restored snapshot gave to a topic
	// of the same name but another life (deleted and created again
	// meanwhile), since TakeRecreated last ran.
	recreated []model.TopicPartition
	// OnAssignment, if set, is told of each record that sets a
	// partition's replica set, as it is applied (for the checkers; it
	// must not change the run).
	OnAssignment func(model.AssignmentObservation)
	// OnTopicDeleted, if set, is told of each RemoveTopicRecord as it is
	// applied, with its offset (for the checkers; it must not change the
	// run).
	OnTopicDeleted func(topic string, offset int64)
}

// NewMetadataImage is the empty metadata, before any record.
func NewMetadataImage(cluster model.Config) *MetadataImage {
	return &MetadataImage{cluster: cluster, s: newMetadataState(cluster)}
}

// Apply replays one committed log entry at offset.
func (m *MetadataImage) Apply(offset int64, data []byte) {
	r := decodeRecord(data)
	if rt, ok := r.(RemoveTopicRecord); ok {
		if t := m.s.topics[rt.Name]; t != nil {
			for _, p := range t.parts {
				m.removed = append(m.removed, p.TP)
			}
		}
		if m.OnTopicDeleted != nil {
			m.OnTopicDeleted(rt.Name, offset)
		}
	}
	var before *partitionInfo
	if c, ok := r.(PartitionChangeRecord); ok && c.Assignment != nil && m.OnAssignment != nil {
		if p := m.s.partition(c.TP); p != nil {
			before = &partitionInfo{PartitionState: p.PartitionState, Adding: p.Adding}
		}
	}
	m.s.apply(offset, r)
	if m.OnAssignment != nil {
		m.reportAssignments(r, before)
	}
	switch r := r.(type) {
	case CreateTopicRecord:
		for i := range r.Partitions {
			m.changed = append(m.changed, r.Partitions[i].TP)
		}
	case PartitionChangeRecord:
		m.changed = append(m.changed, r.TP)
	case CreatePartitionsRecord:
		for i := range r.Partitions {
			m.changed = append(m.changed, r.Partitions[i].TP)
		}
	case ConfigRecord:
		m.configs = append(m.configs, r.Topic)
	case RemoveTopicRecord:
		// the partitions were listed before the record applied
	default:
		m.brokers = true
	}
}

// reportAssignments tells OnAssignment of the replica sets record r just
// set: every partition of a new topic, or the one a reassignment step
// changed (before is that partition as it was).
func (m *MetadataImage) reportAssignments(r Record, before *partitionInfo) {
	observe := func(p *partitionInfo) model.AssignmentObservation {
		return model.AssignmentObservation{TP: p.TP, PartitionEpoch: p.PartitionEpoch,
			Replicas: p.Replicas, ISR: p.ISR, Adding: p.Adding, Removing: p.Removing}
	}
	switch r := r.(type) {
	case CreateTopicRecord:
		for i := range r.Partitions {
			if p := m.s.partition(r.Partitions[i].TP); p != nil {
				m.OnAssignment(observe(p))
			}
		}
	case CreatePartitionsRecord:
		for i := range r.Partitions {
			if p := m.s.partition(r.Partitions[i].TP); p != nil {
				m.OnAssignment(observe(p))
			}
		}
	case PartitionChangeRecord:
		if before == nil {
			return
		}
		o := observe(m.s.partition(r.TP))
		o.Before, o.BeforeAdding = before.Replicas, before.Adding
		m.OnAssignment(o)
	}
}

// Snapshot encodes the image.
func (m *MetadataImage) Snapshot() []byte { return m.s.snapshot() }

// Restore replaces the image with a snapshot's.
func (m *MetadataImage) Restore(data []byte) {
	old := m.s
	m.s = restoreState(m.cluster, data)
	// A snapshot taken after a deletion no longer names the topic: what
	// the old state had and the new one lacks was deleted meanwhile.
	old.eachPartition(func(_ *topicInfo, p *partitionInfo) {
		if m.s.partition(p.TP) == nil {
			m.removed = append(m.removed, p.TP)
		}
	})
	// A name the snapshot has in another life is a topic deleted and
	// created again meanwhile: Kafka's snapshot delta deletes the old
	// topic id and creates the new one (TopicsDelta, by id), which a
	// name alone cannot tell.
	for _, name := range old.topicNames {
		if t := m.s.topics[name]; t != nil && t.life != old.topics[name].life {
			for _, p := range old.topics[name].parts {
				m.recreated = append(m.recreated, p.TP)
			}
		}
	}
	for _, name := range old.topicNames {
		if m.s.topics[name] == nil && m.OnTopicDeleted != nil {
			m.OnTopicDeleted(name, m.s.offset)
		}
	}
	m.configs = append(m.configs, m.s.topicNames...)
	m.all, m.brokers, m.changed = true, true, nil
}

// TakeChanged returns what changed since it last ran: the partitions whose
// state changed (sorted, each once), whether the broker list changed, and
// whether everything did (a snapshot was restored; every partition is then
// listed).
func (m *MetadataImage) TakeChanged() (tps []model.TopicPartition, brokers, all bool) {
	if m.all {
		m.s.eachPartition(func(_ *topicInfo, p *partitionInfo) { tps = append(tps, p.TP) })
	} else {
		tps = m.changed
		slices.SortFunc(tps, model.TopicPartition.Compare)
		tps = slices.Compact(tps)
	}
	brokers, all = m.brokers, m.all
	m.changed, m.brokers, m.all = nil, false, false
	return tps, brokers, all
}

// TakeTopicChanges returns what the topic operations changed since it
// last ran: the partitions of deleted topics (sorted, each once) and the
// topics whose configuration changed (sorted, each once). A restored
// snapshot lists every partition the image lost and every topic.
func (m *MetadataImage) TakeTopicChanges() (removed []model.TopicPartition, configs []string) {
	removed, configs = m.removed, m.configs
	slices.SortFunc(removed, model.TopicPartition.Compare)
	removed = slices.Compact(removed)
	slices.Sort(configs)
	configs = slices.Compact(configs)
	m.removed, m.configs = nil, nil
	return removed, configs
}

// TakeRecreated returns the partitions, sorted, of the topics that a
// snapshot restored since it last ran showed deleted and created again
// under the same name: their replicas belong to the old topic.
func (m *MetadataImage) TakeRecreated() []model.TopicPartition {
	out := m.recreated
	slices.SortFunc(out, model.TopicPartition.Compare)
	m.recreated = nil
	return slices.Compact(out)
}

// Partition is one partition's state.
func (m *MetadataImage) Partition(tp model.TopicPartition) (model.PartitionState, bool) {
	p := m.s.partition(tp)
	if p == nil {
		return model.PartitionState{}, false
	}
	return p.PartitionState, true
}

// TopicConfig is a topic's settings (its overrides on the cluster's
// defaults), and false for a topic the image does not know.
func (m *MetadataImage) TopicConfig(topic string) (model.TopicConfig, bool) {
	t := m.s.topics[topic]
	if t == nil {
		return model.TopicConfig{}, false
	}
	return t.config, true
}

// BrokerEpoch is a registered broker's epoch, and false for a broker the
// image does not know.
func (m *MetadataImage) BrokerEpoch(id model.BrokerID) (model.Epoch, bool) {
	r := m.s.brokers[id]
	if r == nil {
		return model.NoEpoch, false
	}
	return r.Epoch, true
}

// InControlledShutdown reports whether a registered broker is in
// controlled shutdown (BrokerRegistration.inControlledShutdown): a leader
// must not take it into an ISR.
func (m *MetadataImage) InControlledShutdown(id model.BrokerID) bool {
	r := m.s.brokers[id]
	return r != nil && r.InControlledShutdown
}

// TopicLife is the topic's life: how many topics of its name were deleted
// before it was created (0 unless the name was reused), the stand-in for
// Kafka's topic id a client tells a recreated topic by.
func (m *MetadataImage) TopicLife(topic string) int32 {
	if t := m.s.topics[topic]; t != nil {
		return t.life
	}
	return 0
}

// Brokers lists the registered brokers, live (unfenced) and fenced, each
// sorted.
func (m *MetadataImage) Brokers() (live, fenced []model.BrokerID) { return m.s.liveAndFenced() }

// Offset is the offset of the last record applied.
func (m *MetadataImage) Offset() int64 { return m.s.offset }
