package checkers

import (
	"testing"

	"kafkasim/model"
)

// TestDeletedTopicExcusesOnlyItsOwnLoss: a consumer that never reads an
// acknowledged record of a topic is an error (lost-write), unless the topic
// was deleted during the run: then the finding is allowed, with the
// deletion as its reason. The same miss on a topic that was not deleted,
// in the same run, stays an error; and the deletion excuses only the
// consequences of losing the records, not a read of a value nobody wrote.
func TestDeletedTopicExcusesOnlyItsOwnLoss(t *testing.T) {
	u0 := model.TP("u", 0)
	h := hist(
		sendOK(1, t0, "a", 0, 0, 1),
		sendOK(1, t0, "b", 1, 1, 2),
		sendOK(1, u0, "c", 0, 1, 2),
		sendOK(1, u0, "d", 1, 2, 3),
		poll(2, 10, 11, recs(t0, 1, "b"), recs(u0, 1, "d")),
	)
	find := func(r Result, anomaly string, tp model.TopicPartition) (found, isErr bool, promise string) {
		for _, v := range r.Violations {
			if v.Anomaly == anomaly && v.Partition == tp {
				return true, v.Error, v.Promise
			}
		}
		return false, false, ""
	}
	r := check(t, Input{History: h}, Options{})
	for _, tp := range []model.TopicPartition{t0, u0} {
		if found, isErr, _ := find(r, LostWrite, tp); !found || !isErr {
			t.Fatalf("without a deletion, lost-write on %v is an error:\n%s", tp, dump(r))
		}
	}
	deleted := model.Observations{Deletions: []model.TopicDeletionObservation{{Time: 5, Topic: "u", Offset: 40}}}
	r = check(t, Input{History: h, Observations: deleted}, Options{})
	if found, isErr, promise := find(r, LostWrite, u0); !found || isErr || promise != PromiseTopicDeleted {
		t.Fatalf("u was deleted: its lost-write must be allowed, for the deletion:\n%s", dump(r))
	}
	if found, isErr, _ := find(r, LostWrite, t0); !found || !isErr {
		t.Fatalf("t was not deleted: its lost-write stays an error:\n%s", dump(r))
	}

	// A read of a value no send wrote is no consequence of a deletion.
	h = hist(
		sendOK(1, u0, "c", 0, 0, 1),
		poll(2, 10, 11, recs(u0, 0, "c", 1, "ghost")),
	)
	r = check(t, Input{History: h, Observations: deleted}, Options{})
	errs := 0
	for _, v := range r.Violations {
		if v.Partition == u0 && v.Error {
			errs++
		}
		if v.Partition == u0 && !v.Error && v.Promise == PromiseTopicDeleted && v.Anomaly != Unseen && v.Anomaly != LostWrite {
			t.Fatalf("the deletion excused %s:\n%s", v.Anomaly, dump(r))
		}
	}
	if errs == 0 {
		t.Fatalf("a read of an unwritten value on a deleted topic must stay an error:\n%s", dump(r))
	}
}

// TestRecreatedTopicStartsItsEpochsOver: a topic deleted and created
// again leads epoch 0 again and its high watermark starts at 0: neither
// is a split-brain or a regression once the deletion is observed between
// them; without the deletion both are, and on a topic that was not
// deleted, the same two leaders in one epoch stay a split-brain.
func TestRecreatedTopicStartsItsEpochsOver(t *testing.T) {
	s0 := model.TP("s", 0)
	obs := model.Observations{
		Leaders: []model.LeaderObservation{
			{Time: 1, TP: s0, Epoch: 0, Leader: 1}, {Time: 10, TP: s0, Epoch: 0, Leader: 2},
			{Time: 1, TP: t0, Epoch: 0, Leader: 1}, {Time: 10, TP: t0, Epoch: 0, Leader: 2},
		},
		HighWatermarks: []model.HWObservation{{Time: 2, TP: s0, Broker: 1, Epoch: 0, HW: 10}, {Time: 10, TP: s0, Broker: 1, Epoch: 0, HW: 0}},
	}
	count := func(r Result, anomaly string, tp model.TopicPartition) int {
		n := 0
		for _, v := range r.Violations {
			if v.Anomaly == anomaly && v.Partition == tp && v.Error {
				n++
			}
		}
		return n
	}
	h := hist(sendOK(1, t0, "a", 0, 0, 1))
	r := check(t, Input{History: h, Observations: obs}, Options{})
	if count(r, SplitBrain, s0) != 1 || count(r, HWRegression, s0) != 1 || count(r, SplitBrain, t0) != 1 {
		t.Fatalf("without a deletion, s/0 has a split-brain and a regression, t/0 a split-brain:\n%s", dump(r))
	}
	obs.Deletions = []model.TopicDeletionObservation{{Time: 5, Topic: "s", Offset: 30, Broker: 1}, {Time: 6, Topic: "s", Offset: 30, Broker: 2}}
	r = check(t, Input{History: h, Observations: obs}, Options{})
	if count(r, SplitBrain, s0) != 0 || count(r, HWRegression, s0) != 0 {
		t.Fatalf("s was deleted at 5 and created again: its second life's epoch 0 is its own:\n%s", dump(r))
	}
	if count(r, SplitBrain, t0) != 1 {
		t.Fatalf("t was never deleted: its split-brain stays:\n%s", dump(r))
	}
}
