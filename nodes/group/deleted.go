package group

import (
	"slices"
	"time"

	"kafkasim/model"
)

// PartitionsDeleted removes every group's committed offsets on partitions
// of a topic the metadata log deleted, as Kafka's group coordinator does
// when the broker replays the deletion (BrokerMetadataPublisher calls
// GroupCoordinator.onPartitionsDeleted; the new coordinator's
// OffsetMetadataManager.onPartitionsDeleted appends an OffsetCommit
// tombstone for each, the classic GroupMetadataManager.cleanupGroupMetadata
// removes them and appends the same tombstones). Without it a topic
// created again under the name hands its readers the old topic's offsets,
// and they skip the new topic's lower offsets. The offsets go once the
// tombstones commit, the point from which an OffsetFetch on Kafka's new
// coordinator (reading at the last committed offset) no longer sees them;
// a failed write leaves them, as the reverted timeline does in Kafka.
func (c *Coordinator) PartitionsDeleted(now time.Duration, tps []model.TopicPartition) Effects {
	c.begin(now)
	type gone struct {
		group string
		tp    model.TopicPartition
	}
	var dead []gone
	for _, gid := range c.offsetGroupIDs() {
		for _, tp := range tps {
			if _, ok := c.offsets[gid][tp]; ok {
				dead = append(dead, gone{gid, tp})
			}
		}
	}
	if len(dead) == 0 {
		return c.end()
	}
	records := make([]model.Record, len(dead))
	for i, d := range dead {
		records[i] = offsetTombstone(d.group, d.tp)
	}
	c.trace("offsets-deleted", itoa(int64(len(dead)))+" committed offsets of deleted partitions")
	c.write(records, func(code model.ErrorCode) {
		if code != model.NoError {
			return
		}
		for _, d := range dead {
			delete(c.offsets[d.group], d.tp)
		}
	})
	return c.end()
}

// offsetGroupIDs lists the groups holding committed offsets, sorted.
func (c *Coordinator) offsetGroupIDs() []string {
	ids := make([]string, 0, len(c.offsets))
	for id := range c.offsets {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
