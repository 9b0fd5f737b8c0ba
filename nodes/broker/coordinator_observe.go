package broker

import (
	"slices"

	"kafkasim/model"
	"kafkasim/nodes/group"
)

// GroupObserver is an Observer that also wants the group coordinators'
// acts: the judges check that generations only grow and that a group's
// committed offsets never go back, even across a coordinator failover
// (the "offset commit lost on coordinator move" historical bug), which no client
// sees unless it happens to fetch the offsets again.
type GroupObserver interface {
	// GroupStable: as coordinator under the offsets partition's leader
	// epoch, this broker completed generation of group with these
	// assignments (member id → partitions, in join order).
	GroupStable(broker model.BrokerID, group string, epoch, generation model.Epoch, members []group.MemberView)
	// CommittedOffsets: as coordinator under the offsets partition's
	// leader epoch, this broker's committed offsets for group changed
	// (after a load, or a commit's write committed). The epoch lets a
	// judge tell a deposed coordinator, which goes on reporting until it
	// learns of its successor, from the one that replaced it.
	CommittedOffsets(broker model.BrokerID, group string, epoch model.Epoch, offsets []model.CommittedOffset)
}

// shardReport is what was last reported of one shard's groups, so that
// only changes are reported.
type shardReport struct {
	generation map[string]model.Epoch
	offsets    map[string][]model.CommittedOffset
}

// observeShard reports the changes of a serving shard's groups to a
// GroupObserver, if the broker has one.
func (b *Broker) observeShard(s *coordShard) {
	o, ok := b.cfg.Observer.(GroupObserver)
	if !ok || s == nil || s.loading || b.coord.shards[s.p.tp.Partition] != s {
		return
	}
	if s.report == nil {
		s.report = &shardReport{generation: map[string]model.Epoch{}, offsets: map[string][]model.CommittedOffset{}}
	}
	for _, id := range s.c.Groups() {
		v, _ := s.c.Group(id)
		if v.State == group.Stable && v.Generation != s.report.generation[id] {
			s.report.generation[id] = v.Generation
			o.GroupStable(b.cfg.ID, id, s.epoch, v.Generation, v.Members)
		}
	}
	for _, id := range s.c.OffsetGroups() {
		offs := s.c.Offsets(id)
		if !slices.Equal(offs, s.report.offsets[id]) {
			s.report.offsets[id] = offs
			o.CommittedOffsets(b.cfg.ID, id, s.epoch, offs)
		}
	}
}

// observeOffsetsPartition reports the shard of p, if p is an offsets
// partition this broker serves.
func (b *Broker) observeOffsetsPartition(p *partition) {
	if p.tp.Topic == OffsetsTopic {
		b.observeShard(b.coord.shards[p.tp.Partition])
	}
}
