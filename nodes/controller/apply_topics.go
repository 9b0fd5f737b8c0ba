package controller

import (
	"cmp"
	"fmt"
	"slices"

	"kafkasim/model"
)

// applyTopicChange replays the topic operations' records, as
// QuorumController.replay hands them to ReplicationControlManager
// (replay(RemoveTopicRecord), replay(PartitionRecord)) and
// ConfigurationControlManager (replay(ConfigRecord)). Like apply, it
// panics on a record that does not fit the state.
func (s *metadataState) applyTopicChange(offset int64, r Record) {
	switch r := r.(type) {
	case RemoveTopicRecord:
		if s.topics[r.Name] == nil {
			panic(fmt.Sprintf("controller: %v: no such topic", r))
		}
		delete(s.topics, r.Name)
		s.deleted[r.Name]++
		if i, ok := slices.BinarySearch(s.topicNames, r.Name); ok {
			s.topicNames = slices.Delete(slices.Clone(s.topicNames), i, i+1)
		}

	case CreatePartitionsRecord:
		t := s.topics[r.Topic]
		if t == nil {
			panic(fmt.Sprintf("controller: %v: no such topic", r))
		}
		for i := range r.Partitions {
			p := r.Partitions[i]
			if p.TP != model.TP(r.Topic, int32(len(t.parts))) {
				panic(fmt.Sprintf("controller: %v: partition %v does not follow %d partitions", r, p.TP, len(t.parts)))
			}
			t.parts = append(t.parts, &partitionInfo{PartitionState: p, LastKnownLeader: model.NoBroker, changedAt: offset})
		}

	case ConfigRecord:
		t := s.topics[r.Topic]
		if t == nil {
			panic(fmt.Sprintf("controller: %v: no such topic", r))
		}
		configs := withConfig(t.configs, model.ConfigEntry{Name: r.Name, Value: r.Value})
		config, err := resolveTopicConfig(s.cluster, configs)
		if err != nil {
			panic(fmt.Sprintf("controller: %v: %v", r, err))
		}
		t.configs, t.config = configs, config
	}
}

// withConfig is a sorted override list with e set: a new slice, since the
// state's slices are never changed in place.
func withConfig(configs []model.ConfigEntry, e model.ConfigEntry) []model.ConfigEntry {
	out := make([]model.ConfigEntry, 0, len(configs)+1)
	for _, c := range configs {
		if c.Name != e.Name {
			out = append(out, c)
		}
	}
	out = append(out, e)
	slices.SortFunc(out, func(a, b model.ConfigEntry) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
