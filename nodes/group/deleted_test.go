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
