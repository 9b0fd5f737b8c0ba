package scenarios

import (
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// TestPartitionProgressCatchesOneStuckPartition: after the heal two of
// three partitions take writes and serve them while the third takes none.
// The cluster-wide condition the liveness phase had (some send since the
// heal acknowledged, nothing acknowledged unread) passes that run; the
// per-partition one names the stuck partition, first for its writes and,
// once they are acknowledged, for its reads, and passes the neighbour in
// which every partition progressed.
func TestPartitionProgressCatchesOneStuckPartition(t *testing.T) {
	rec := &model.Recorder{}
	p0, p1, p2 := model.TP("t", 0), model.TP("t", 1), model.TP("t", 2)
	tps := []model.TopicPartition{p0, p1, p2}
	healedAt := ms(100)
	w := newAckWatch(rec, nil, nil)
	progress := newPartitionProgress(healedAt, tps, tps)
	w.progress = progress
	offsets := map[model.TopicPartition]model.Offset{}
	send := func(at int64, v string, tp model.TopicPartition) {
		i := rec.Invoke(model.Op{Process: 1, F: model.FSend, Time: ms(at), TP: tp, Value: v})
		rec.SendOK(i, ms(at+1), tp, offsets[tp])
		offsets[tp]++
	}
	poll := func(at int64, tp model.TopicPartition, vs ...string) {
		var ovs []model.OffsetValue
		for _, v := range vs {
			ovs = append(ovs, model.OffsetValue{Offset: 0, Value: v})
		}
		i := rec.Invoke(model.Op{Process: 2, F: model.FPoll, Time: ms(at)})
		rec.PollOK(i, ms(at), []model.PartitionRecords{{TP: tp, Records: ovs}})
	}
	// Before the heal every partition took a write, and it was read.
	send(10, "a0", p0)
	send(11, "a1", p1)
	send(12, "a2", p2)
	poll(20, p0, "a0")
	poll(20, p1, "a1")
	poll(20, p2, "a2")
	// After it, t/2 is stuck: only t/0 and t/1 take writes.
	send(110, "b0", p0)
	send(111, "b1", p1)
	poll(130, p0, "b0")
	poll(130, p1, "b1")
	w.advance()
	if !w.sendAckedSince(healedAt) || w.unreadAcked(nil) != "" {
		t.Fatalf("the stuck run should pass the cluster-wide condition: acked since heal %v, unread %q", w.sendAckedSince(healedAt), w.unreadAcked(nil))
	}
	if got, want := progress.unacked(), "no send made after the heal has been acknowledged on t/2"; got != want {
		t.Fatalf("unacked: %q, want %q", got, want)
	}
	// Leaving partitions out (those that lost their data, for the extra
	// time liveness_sequences.go gives them) leaves out only those.
	if got := progress.unacked(p2); got != "" {
		t.Fatalf("unacked with t/2 left out: %q", got)
	}
	if got, want := progress.unacked(p0, p1), "no send made after the heal has been acknowledged on t/2"; got != want {
		t.Fatalf("unacked with t/0 and t/1 left out: %q, want %q", got, want)
	}
	if got := progress.unread(w.all.read, p2); got != "" {
		t.Fatalf("unread with t/2 left out: %q", got)
	}
	if got, want := progress.unread(w.all.read, p0), "no record written after the heal has been read from t/2"; got != want {
		t.Fatalf("unread with t/0 left out: %q, want %q", got, want)
	}
	// t/2 takes a write but no reader has it yet; a0..a2, read before the
	// heal, do not count for it.
	send(140, "b2", p2)
	w.advance()
	if got := progress.unacked(); got != "" {
		t.Fatalf("unacked once every partition took a write: %q", got)
	}
	if got, want := progress.unread(w.all.read), "no record written after the heal has been read from t/2"; got != want {
		t.Fatalf("unread: %q, want %q", got, want)
	}
	// The fine neighbour: every partition wrote and served since the heal.
	poll(150, p2, "b2")
	w.advance()
	if got := progress.unread(w.all.read); got != "" {
		t.Fatalf("unread once every partition served a read: %q", got)
	}
}

// TestPartitionProgressNamesUnproducedPartitions: a partition no producer
// writes to is the scenario's gap, named as such.
func TestPartitionProgressNamesUnproducedPartitions(t *testing.T) {
	tps := []model.TopicPartition{model.TP("t", 0), model.TP("t", 1), model.TP("u", 0)}
	p := newPartitionProgress(0, tps, tps[:2])
	if got, want := p.unproduced(), "no producer writes to u/0 (the scenario must cover every partition)"; got != want {
		t.Fatalf("unproduced: %q, want %q", got, want)
	}
	if got := newPartitionProgress(0, tps, tps).unproduced(); got != "" {
		t.Fatalf("unproduced when every partition has a producer: %q", got)
	}
}

// TestLivenessRequiresEveryPartition runs the liveness phase on a real
// three-partition fixture: it converges when the producer goes on writing
// every partition after the heal, and is stuck, naming t/2, when from the
// heal on the producer writes only t/0 and t/1: the other partitions'
// progress does not carry the third.
func TestLivenessRequiresEveryPartition(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes int32
		want   string
	}{
		{"every partition written", 3, ""},
		{"t/2 left unwritten", 2, "did not converge within 5s of healing: no send made after the heal has been acknowledged on t/2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScripted(fixture.Options{Seed: 3, Spec: fixture.Spec{Partitions: 3}})
			if err != nil {
				t.Fatal(err)
			}
			s.Sim.Run(s.Sim.Now() + 2*time.Second)
			nem, err := faults.Apply(world{s}, faults.Schedule{})
			if err != nil {
				t.Fatal(err)
			}
			s.nemesis = nem
			nem.Heal()
			// The producer's Sequence reads its partition count on
			// every send; narrowed at the heal, it writes t/0 and t/1
			// only, while the fixture's producer still declares all
			// three (ProducedTPs is read when the phase starts).
			s.At(s.Sim.Now(), "narrow the producer", func() { s.Work.Partitions = tc.writes })
			if got := s.liveness(5 * time.Second); got != tc.want {
				t.Fatalf("liveness: %q, want %q", got, tc.want)
			}
		})
	}
}
