package group

import (
	"testing"

	"kafkasim/model"
)

// Kafka's group coordinator removes a deleted topic's committed offsets
// (GroupCoordinator.onPartitionsDeleted; OffsetMetadataManager writes a
// tombstone for each), so a topic created again under the name starts its
// groups from auto.offset.reset, not from the old topic's offsets. The
// other topics' offsets stay; the removal is in the log, so a coordinator
// that loads the partition afterwards has them gone too; and a failed
// tombstone write leaves them.
func TestDeletedPartitionsLoseTheirCommittedOffsets(t *testing.T) {
	h := newHarness(t)
	u0, u1, keep := model.TP("u", 0), model.TP("u", 1), model.TP("t", 0)
	for _, g := range []string{"a", "b"} {
		h.commitOffsets(1, g, -1, "", model.CommitOffset{TP: u0, Offset: 40, LeaderEpoch: 2}, model.CommitOffset{TP: keep, Offset: 7})
		h.commit()
		h.drain(1)
	}
	h.commitOffsets(1, "a", -1, "", model.CommitOffset{TP: u1, Offset: 9})
	h.commit()
	h.drain(1)

	h.take(h.c.PartitionsDeleted(h.now, []model.TopicPartition{u0, u1}))
	if len(h.writes) != 1 || len(h.writes[0].Records) != 3 {
		t.Fatalf("want one write of 3 tombstones (a u/0, a u/1, b u/0), got %+v", h.writes)
	}
	for _, r := range h.writes[0].Records {
		if r.Value != "" {
			t.Fatalf("record %q is not a tombstone", r.Key)
		}
	}
	if _, ok := h.c.Offset("a", u0); !ok {
		t.Fatal("the offsets went before the tombstones committed")
	}
	h.commit()
	for _, g := range []string{"a", "b"} {
		r := h.fetch(2, g, u0, u1, keep)
		if r.Offsets[0].Offset != model.NoOffset || r.Offsets[1].Offset != model.NoOffset {
			t.Fatalf("group %s still has the deleted topic's offsets: %+v", g, r.Offsets)
		}
		if r.Offsets[2].Offset != 7 {
			t.Fatalf("group %s lost t/0's offset: %+v", g, r.Offsets)
		}
	}
	// A coordinator loading the log afterwards agrees.
	l := NewCoordinator(Config{Group: testGroupConfig()})
	for _, rec := range h.log {
		if err := l.Replay(rec); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := l.Offset("a", u0); ok {
		t.Fatal("a loaded coordinator has the deleted topic's offset")
	}
	if o, ok := l.Offset("b", keep); !ok || o.Offset != 7 {
		t.Fatalf("a loaded coordinator lost t/0's offset: %v %v", o, ok)
	}
	// Nothing left to delete: no write.
	h.take(h.c.PartitionsDeleted(h.now, []model.TopicPartition{u0}))
	if len(h.writes) != 0 {
		t.Fatalf("a deletion with no offsets wrote %+v", h.writes)
	}
}

func TestAFailedTombstoneWriteKeepsTheOffsets(t *testing.T) {
	h := newHarness(t)
	u0 := model.TP("u", 0)
	h.commitOffsets(1, "a", -1, "", model.CommitOffset{TP: u0, Offset: 40})
	h.commit()
	h.take(h.c.PartitionsDeleted(h.now, []model.TopicPartition{u0}))
	h.fail(model.NotEnoughReplicas)
	if o, ok := h.c.Offset("a", u0); !ok || o.Offset != 40 {
		t.Fatalf("after a failed tombstone write: %v %v", o, ok)
	}
}

// KafkaApis.handleOffsetCommitRequest refuses a partition the broker's
// metadata does not have UNKNOWN_TOPIC_OR_PARTITION before the
// coordinator sees it: a member's position in a deleted topic is not
// committed for it. The known partitions of the same request commit, and
// a request of unknown partitions only is answered without the group
// being asked (no generation check, no write).
func TestOffsetCommitRefusesUnknownPartitions(t *testing.T) {
	h := newHarness(t)
	gone, known := model.TP("u", 0), model.TP("t", 0)
	h.c = NewCoordinator(Config{Group: testGroupConfig(), MemberIDPrefix: "m",
		PartitionExists: func(tp model.TopicPartition) bool { return tp != gone }})
	h.commitOffsets(1, "a", -1, "", model.CommitOffset{TP: gone, Offset: 40}, model.CommitOffset{TP: known, Offset: 7})
	h.commit()
	r := one[model.OffsetCommitResponse](h, 1)
	if r.Results[0].Error != model.UnknownTopicOrPartition || r.Results[1].Error != model.NoError {
		t.Fatalf("results %+v", r.Results)
	}
	if _, ok := h.c.Offset("a", gone); ok {
		t.Fatal("the unknown partition's offset was committed")
	}
	if o, ok := h.c.Offset("a", known); !ok || o.Offset != 7 {
		t.Fatalf("the known partition's offset: %v %v", o, ok)
	}
	// Unknown only, with a generation the group would refuse: the topic
	// check answers first.
	h.commitOffsets(1, "a", 5, "nobody", model.CommitOffset{TP: gone, Offset: 41})
	if len(h.writes) != 0 {
		t.Fatalf("a commit of unknown partitions only wrote %+v", h.writes)
	}
	if r := one[model.OffsetCommitResponse](h, 1); r.Results[0].Error != model.UnknownTopicOrPartition {
		t.Fatalf("results %+v", r.Results)
	}
}
