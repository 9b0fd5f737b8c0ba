package scenarios

import (
	"testing"

	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// TestCarriedCommitIsAnEntryIntoTheRecreatedLog: a member of group g
// commits s/0's old position 3 into the topic created again, before it
// read anything of the new log; it then reads offsets 0 and 1. The next
// owner would start at 3, so offset 2 is not asked of the group; 3 and 4
// are. A commit of 2 after the member read 0 and 1 is its own progress,
// carried from nowhere, and excuses nothing.
func TestCarriedCommitIsAnEntryIntoTheRecreatedLog(t *testing.T) {
	for _, tc := range []struct {
		name        string
		commitFirst bool
		commit      model.Offset
		want        string
	}{
		{"carried from the old log", true, 3, "group g has not read acknowledged records v3, v4"},
		{"reached in the new log", false, 2, "group g has not read acknowledged records v2, v3, v4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &model.Recorder{}
			groups := []fixture.GroupSpec{{Name: "g", Members: 1}}
			members := []fixture.Member{{Group: "g", Node: sim.NodeID(7)}}
			w := newAckWatch(rec, groups, members)
			w.inLog = func(ackedSend) bool { return true }
			s0 := model.TP("s", 0)
			w.watchDeleted([]model.TopicDeletionObservation{{Time: ms(10), Topic: "s", Offset: 5}})
			for i := range 5 {
				v := "v" + string(rune('0'+i))
				j := rec.Invoke(model.Op{Process: 1, F: model.FSend, Time: ms(20 + int64(i)), TP: s0, Value: v})
				rec.SendOK(j, ms(21+int64(i)), s0, model.Offset(i))
			}
			commit := func() {
				j := rec.Invoke(model.Op{Process: 7, F: model.FCommit, Time: ms(30), Group: "g", Offsets: []model.PartitionOffset{{TP: s0, Offset: tc.commit}}})
				rec.OK(j, ms(31))
			}
			if tc.commitFirst {
				commit()
			}
			j := rec.Invoke(model.Op{Process: 7, F: model.FPoll, Time: ms(40)})
			rec.PollOK(j, ms(40), []model.PartitionRecords{{TP: s0, Records: []model.OffsetValue{{Offset: 0, Value: "v0"}, {Offset: 1, Value: "v1"}}}})
			if !tc.commitFirst {
				commit()
			}
			w.advance()
			if got := w.unreadByGroups(nil); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
